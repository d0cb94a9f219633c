// Register-resident jacobi-2d probe (issue 14: jacobi-2d's kernel time 3x lower).
// Sessions 27 and 35 (docs/results/time_tiling.md) kept the grid in shared memory or
// streamed bands down the rows; both stayed above 4.5 us a sweep.  Here the whole grid
// lives in registers for all sweeps: block b owns rows 1 + bR .. bR + R, every column;
// thread t owns columns 1 + tC .. tC + C of those rows (R x C doubles in registers).
//     here:   nvcc -O3 -arch=sm_90 --fmad=false -o rsp scripts/register_stencil_probe.cu
//     device: ./rsp [N] [STEPS] [VARIANT]   (default 1300 500: PolyBench LARGE; all variants)
// A sweep: west and east neighbours by warp shuffles (lanes 0 and 31 through shared
// memory), north and south inside the thread's registers, the band's first and last
// rows from the neighbouring bands through device memory (two buffers by parity).
// Between sweeps either a grid-wide barrier (SYNC) or, per band, a flag the two
// neighbouring bands wait for (FLAG: release store after the band's halo rows are
// written, acquire polling before they are read).  Each variant's A and B are compared
// bit for bit with BASE (polycu's kernels, two launches a step).
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void base_k(int n, const double *__restrict__ A, double *__restrict__ B) {
  const int t0 = threadIdx.y, j = 32 * blockIdx.x + threadIdx.x;
  if (n >= j + 2 && j >= 1)
    for (int i = max(32 * (int)blockIdx.y + t0, (t0 + 7) % 8 + 1);
         i <= min(n - 2, 32 * (int)blockIdx.y + 31); i += 8)
      B[i * n + j] = 0.2 * ((((A[i * n + j] + A[i * n + j - 1]) + A[i * n + j + 1])
                             + A[(i + 1) * n + j]) + A[(i - 1) * n + j]);
}

__device__ __forceinline__ double point(double at, double w, double e, double s, double no) {
  return 0.2 * ((((at + w) + e) + s) + no);
}

// X[v & 1][b][0 or 1][c]: band b's first (0) or last (1) row of version v (v = 0: the
// initial A; v = s + 1: sweep s's output), `stride` columns a row.  RR: this band's rows
// (the last band may have fewer than R), a compile-time count so that a[][] stays in
// registers.
template <int RR, int R, int C, int T, bool FLAG>
__device__ __forceinline__ void band(int n, int steps, double *A, double *B, double *X, int *flags,
                                     double (*shE)[T / 32][R], double (*shW)[T / 32][R],
                                     double (*shB)[2][R]) {
  cg::grid_group g = cg::this_grid();
  constexpr int WARPS = T / 32;
  const int b = blockIdx.x, bands = gridDim.x, first = 1 + b * R;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const size_t stride = (size_t)T * C + 2, plane = (size_t)bands * 2 * stride;
  double a[RR][C];
  for (int q = t; q < 2 * 2 * RR; q += T) {
    const int arr = q / (2 * RR), side = (q / RR) & 1, r = q % RR;
    const double *G = arr ? B : A;
    shB[arr][side][r] = G[(size_t)(first + r) * n + (side ? n - 1 : 0)];
  }
#pragma unroll
  for (int r = 0; r < RR; r++)
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k;
      a[r][k] = c < n ? A[(size_t)(first + r) * n + c] : 0.0;
    }
#pragma unroll
  for (int k = 0; k < C; k++) {                          // version 0 of the halo rows: A's
    const int c = 1 + t * C + k;
    X[(size_t)b * 2 * stride + c] = a[0][k];
    X[(size_t)b * 2 * stride + stride + c] = a[RR - 1][k];
  }
  __syncthreads();
  if (FLAG && t == 0) {
    __threadfence();
    cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b]).store(1, cuda::memory_order_release);
  }
  for (int s = 0; s < 2 * steps; s++) {
    const int src = s & 1, dst = src ^ 1, par = s & 1;
    const double *G = src ? B : A;
    if (lane == 31)
#pragma unroll
      for (int r = 0; r < RR; r++) shE[par][w][r] = a[r][C - 1];
    if (lane == 0)
#pragma unroll
      for (int r = 0; r < RR; r++) shW[par][w][r] = a[r][0];
    if (FLAG) {
      if (t == 0) {
        if (b > 0)
          while (cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b - 1])
                     .load(cuda::memory_order_acquire) < s + 1) {}
        if (b < bands - 1)
          while (cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b + 1])
                     .load(cuda::memory_order_acquire) < s + 1) {}
      }
    } else {
      g.sync();
    }
    __syncthreads();
    const double *Xs = X + (size_t)(s & 1) * plane;     // version s
    double up[C], dn[C];
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k;
      up[k] = b == 0 ? G[c < n ? c : 0] : __ldcg(Xs + (size_t)(b - 1) * 2 * stride + stride + c);
      dn[k] = b == bands - 1 ? G[(size_t)(n - 1) * n + (c < n ? c : 0)]
                             : __ldcg(Xs + (size_t)(b + 1) * 2 * stride + c);
    }
    // row r's new values from the old a[r], its neighbours `no` (north) and `so`
    auto row = [&](int r, const double *no, const double *so, double *out) {
      double we = __shfl_up_sync(0xffffffffu, a[r][C - 1], 1);
      double ea = __shfl_down_sync(0xffffffffu, a[r][0], 1);
      if (lane == 0) we = t == 0 ? shB[src][0][r] : shE[par][w - 1][r];
      if (lane == 31) ea = w == WARPS - 1 ? shB[src][1][r] : shW[par][w + 1][r];
#pragma unroll
      for (int k = 0; k < C; k++) {
        const int c = 1 + t * C + k;
        const double wk = k > 0 ? a[r][k - 1] : we, ek = k < C - 1 ? a[r][k + 1] : ea;
        out[k] = c < n - 1 ? point(a[r][k], wk, ek, so[k], no[k]) : (c == n - 1 ? shB[dst][1][r] : 0.0);
      }
    };
    double top[C], bot[C];
    row(0, up, RR > 1 ? a[RR > 1 ? 1 : 0] : dn, top);   // the first and last rows first,
    row(RR - 1, RR > 1 ? a[RR > 1 ? RR - 2 : 0] : up, dn, bot);  // published for the neighbours
    double *Xd = X + (size_t)((s + 1) & 1) * plane;      // version s + 1
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k;
      __stcg(Xd + (size_t)b * 2 * stride + c, top[k]);
      __stcg(Xd + (size_t)b * 2 * stride + stride + c, bot[k]);
    }
    double prev[C];                                      // the rows between, in place
#pragma unroll
    for (int k = 0; k < C; k++) prev[k] = a[0][k];
#pragma unroll
    for (int r = 1; r < RR - 1; r++) {
      double next[C];
      row(r, prev, a[r + 1], next);
#pragma unroll
      for (int k = 0; k < C; k++) { prev[k] = a[r][k]; a[r][k] = next[k]; }
    }
#pragma unroll
    for (int k = 0; k < C; k++) { a[0][k] = top[k]; a[RR - 1][k] = bot[k]; }
    if (s >= 2 * steps - 2) {
      double *D = dst ? B : A;
#pragma unroll
      for (int r = 0; r < RR; r++)
#pragma unroll
        for (int k = 0; k < C; k++) {
          const int c = 1 + t * C + k;
          if (c < n - 1) D[(size_t)(first + r) * n + c] = a[r][k];
        }
    }
    if (FLAG) {
      __syncthreads();
      if (t == 0) {
        __threadfence();
        cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b]).store(s + 2, cuda::memory_order_release);
      }
    }
  }
}

// Bands of R rows; the last band has RL rows (n - 2 = (bands - 1) R + RL).
template <int R, int RL, int C, int T, bool FLAG>
__global__ void __launch_bounds__(T, 1)
reg_k(int n, int steps, double *A, double *B, double *X, int *flags) {
  __shared__ double shE[2][T / 32][R], shW[2][T / 32][R];  // lane 31's last, lane 0's first column
  __shared__ double shB[2][2][R];                           // [array][side][row]: columns 0, n-1
  if (RL != R && blockIdx.x == gridDim.x - 1)
    band<RL, R, C, T, FLAG>(n, steps, A, B, X, flags, shE, shW, shB);
  else
    band<R, R, C, T, FLAG>(n, steps, A, B, X, flags, shE, shW, shB);
}

// LL: the FLAG scheme without flags, fences or a second barrier: each halo value travels
// with its version, as NCCL's low-latency protocol does: {low word, version, high word,
// version} in one 16-byte store, each 8-byte half single-copy atomic, so a reader that
// sees both versions equal to the one it waits for has the whole double.  The writer
// publishes its new first and last rows right after computing them, before the rows
// between, so their latency hides behind that work.  XL[v & 1][b][0 or 1][c]; the
// version field holds v + 1 (a zeroed buffer holds none).
__device__ __forceinline__ void st_ll(uint4 *p, double v, unsigned f) {
  asm volatile("st.volatile.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "r"(__double2loint(v)), "r"(f), "r"(__double2hiint(v)), "r"(f) : "memory");
}

__device__ __forceinline__ uint4 ld_ll(const uint4 *p) {
  uint4 v;
  asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ double wait_ll(const uint4 *p, unsigned want) {
  uint4 v;
  do v = ld_ll(p); while (v.y != want || v.w != want);
  return __hiloint2double(v.z, v.x);
}

// WLL: the warps' edge columns through shared memory the same way, so that a sweep has
// no block-wide barrier at all.  POLL false: the halos read once, unchecked (wrong
// results; the time without waiting for the neighbours).
template <int RR, int R, int C, int T, bool WLL, bool POLL>
__device__ __forceinline__ void ll_band(int n, int steps, double *A, double *B, uint4 *XL,
                                        double (*shE)[T / 32][R], double (*shW)[T / 32][R],
                                        uint4 (*qE)[T / 32][R], uint4 (*qW)[T / 32][R],
                                        double (*shB)[2][R]) {
  constexpr int WARPS = T / 32;
  const int b = blockIdx.x, bands = gridDim.x, first = 1 + b * R;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const size_t stride = (size_t)T * C + 2, plane = (size_t)bands * 2 * stride;
  double a[RR][C];
  for (int q = t; q < 2 * 2 * RR; q += T) {
    const int arr = q / (2 * RR), side = (q / RR) & 1, r = q % RR;
    const double *G = arr ? B : A;
    shB[arr][side][r] = G[(size_t)(first + r) * n + (side ? n - 1 : 0)];
  }
#pragma unroll
  for (int r = 0; r < RR; r++)
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k;
      a[r][k] = c < n ? A[(size_t)(first + r) * n + c] : 0.0;
    }
#pragma unroll
  for (int k = 0; k < C; k++) {                          // version 0: A's rows
    const int c = 1 + t * C + k;
    st_ll(XL + (size_t)b * 2 * stride + c, a[0][k], 1u);
    st_ll(XL + (size_t)b * 2 * stride + stride + c, a[RR - 1][k], 1u);
  }
  __syncthreads();
  for (int s = 0; s < 2 * steps; s++) {
    const int src = s & 1, dst = src ^ 1, par = s & 1;
    const double *G = src ? B : A;
    if (lane == 31)
#pragma unroll
      for (int r = 0; r < RR; r++)
        if (WLL) st_ll(&qE[par][w][r], a[r][C - 1], s + 1);
        else shE[par][w][r] = a[r][C - 1];
    if (lane == 0)
#pragma unroll
      for (int r = 0; r < RR; r++)
        if (WLL) st_ll(&qW[par][w][r], a[r][0], s + 1);
        else shW[par][w][r] = a[r][0];
    const uint4 *Xs = XL + (size_t)(s & 1) * plane;      // version s
    const unsigned want = s + 1;
    double up[C], dn[C];
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k, cc = c < n ? c : 0;
      if (b == 0) up[k] = G[cc];
      if (b == bands - 1) dn[k] = G[(size_t)(n - 1) * n + cc];
    }
    for (bool ready = false; !ready;) {
      ready = !POLL;
#pragma unroll
      for (int k = 0; k < C; k++) {
        const int c = 1 + t * C + k;
        if (b > 0) {
          const uint4 v = ld_ll(Xs + (size_t)(b - 1) * 2 * stride + stride + c);
          ready &= (v.y == want) & (v.w == want);
          up[k] = __hiloint2double(v.z, v.x);
        }
        if (b < bands - 1) {
          const uint4 v = ld_ll(Xs + (size_t)(b + 1) * 2 * stride + c);
          ready &= (v.y == want) & (v.w == want);
          dn[k] = __hiloint2double(v.z, v.x);
        }
      }
    }
    if (!WLL) __syncthreads();
    auto row = [&](int r, const double *no, const double *so, double *out) {
      double we = __shfl_up_sync(0xffffffffu, a[r][C - 1], 1);
      double ea = __shfl_down_sync(0xffffffffu, a[r][0], 1);
      if (lane == 0)
        we = t == 0 ? shB[src][0][r] : WLL ? wait_ll(&qE[par][w - 1][r], s + 1) : shE[par][w - 1][r];
      if (lane == 31)
        ea = w == WARPS - 1 ? shB[src][1][r] : WLL ? wait_ll(&qW[par][w + 1][r], s + 1) : shW[par][w + 1][r];
#pragma unroll
      for (int k = 0; k < C; k++) {
        const int c = 1 + t * C + k;
        const double wk = k > 0 ? a[r][k - 1] : we, ek = k < C - 1 ? a[r][k + 1] : ea;
        out[k] = c < n - 1 ? point(a[r][k], wk, ek, so[k], no[k]) : (c == n - 1 ? shB[dst][1][r] : 0.0);
      }
    };
    double top[C], bot[C];
    row(0, up, RR > 1 ? a[RR > 1 ? 1 : 0] : dn, top);
    row(RR - 1, RR > 1 ? a[RR > 1 ? RR - 2 : 0] : up, dn, bot);
    uint4 *Xd = XL + (size_t)((s + 1) & 1) * plane;      // version s + 1
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k;
      st_ll(Xd + (size_t)b * 2 * stride + c, top[k], want + 1);
      st_ll(Xd + (size_t)b * 2 * stride + stride + c, bot[k], want + 1);
    }
    double prev[C];
#pragma unroll
    for (int k = 0; k < C; k++) prev[k] = a[0][k];
#pragma unroll
    for (int r = 1; r < RR - 1; r++) {
      double next[C];
      row(r, prev, a[r + 1], next);
#pragma unroll
      for (int k = 0; k < C; k++) { prev[k] = a[r][k]; a[r][k] = next[k]; }
    }
#pragma unroll
    for (int k = 0; k < C; k++) { a[0][k] = top[k]; a[RR - 1][k] = bot[k]; }
    if (s >= 2 * steps - 2) {
      double *D = dst ? B : A;
#pragma unroll
      for (int r = 0; r < RR; r++)
#pragma unroll
        for (int k = 0; k < C; k++) {
          const int c = 1 + t * C + k;
          if (c < n - 1) D[(size_t)(first + r) * n + c] = a[r][k];
        }
    }
  }
}

template <int R, int RL, int C, int T, bool WLL, bool POLL>
__global__ void __launch_bounds__(T, 1)
ll_k(int n, int steps, double *A, double *B, double *X, int *flags) {
  __shared__ double shE[WLL ? 1 : 2][T / 32][R], shW[WLL ? 1 : 2][T / 32][R];
  __shared__ uint4 qE[WLL ? 2 : 1][T / 32][R], qW[WLL ? 2 : 1][T / 32][R];
  __shared__ double shB[2][2][R];
  uint4 *XL = reinterpret_cast<uint4 *>(X);
  if (WLL)
    for (int q = threadIdx.x; q < 2 * (T / 32) * R; q += T) {
      (&qE[0][0][0])[q] = make_uint4(0, 0, 0, 0);
      (&qW[0][0][0])[q] = make_uint4(0, 0, 0, 0);
    }
  if (RL != R && blockIdx.x == gridDim.x - 1)
    ll_band<RL, R, C, T, WLL, POLL>(n, steps, A, B, XL, shE, shW, qE, qW, shB);
  else
    ll_band<R, R, C, T, WLL, POLL>(n, steps, A, B, XL, shE, shW, qE, qW, shB);
}

// DEEP: halos H rows deep, exchanged once every H sweeps.  The band keeps L = RR + 2H
// rows in registers, global rows first - H .. first + RR + H - 1; sweep j of a phase
// updates local rows 1 + j .. L - 2 - j (the ghost rows again, as their owners do), so
// after H sweeps the band's own rows are exact and only then need new ghost rows.
// X[p & 1][b][0 or 1][h][c]: band b's first or last H rows after phase p - 1 (version
// p, p >= 1; phase 0's ghost rows come from A itself).  flags[b] = p: version p written.
template <int RR, int R, int H, int C, int T, bool FLAG, bool EDGE>
__device__ __forceinline__ void deep(int n, int steps, double *A, double *B, double *X, int *flags,
                                     double (*shE)[T / 32][R + 2 * H],
                                     double (*shW)[T / 32][R + 2 * H],
                                     double (*shB)[2][R + 2 * H]) {
  cg::grid_group g = cg::this_grid();
  constexpr int WARPS = T / 32, L = RR + 2 * H;
  const int b = blockIdx.x, bands = gridDim.x, first = 1 + b * R, base = first - H;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const size_t stride = (size_t)T * C + 2, half = (size_t)H * stride;
  const size_t plane = (size_t)bands * 2 * half;
  double a[L][C], edge[2][C];     // edge bands: row 0 or n - 1 of A and B, never written
#pragma unroll
  for (int k = 0; k < C; k++) {
    const int c = 1 + t * C + k, cc = c < n ? c : 0;
    const size_t e = b == 0 ? 0 : (size_t)(n - 1) * n;
    edge[0][k] = A[e + cc];
    edge[1][k] = B[e + cc];
  }
  for (int q = t; q < 2 * 2 * L; q += T) {
    const int arr = q / (2 * L), side = (q / L) & 1, i = q % L, gi = base + i;
    const double *G = arr ? B : A;
    shB[arr][side][i] = gi >= 0 && gi < n ? G[(size_t)gi * n + (side ? n - 1 : 0)] : 0.0;
  }
#pragma unroll
  for (int i = 0; i < L; i++)
#pragma unroll
    for (int k = 0; k < C; k++) {
      const int c = 1 + t * C + k, gi = base + i;
      a[i][k] = c < n && gi >= 0 && gi < n ? A[(size_t)gi * n + c] : 0.0;
    }
  __syncthreads();
  const int phases = 2 * steps / H;
  for (int p = 0; p < phases; p++) {
    if (p > 0) {
      if (FLAG) {
        if (t == 0) {
          if (b > 0)
            while (cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b - 1])
                       .load(cuda::memory_order_acquire) < p) {}
          if (b < bands - 1)
            while (cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b + 1])
                       .load(cuda::memory_order_acquire) < p) {}
        }
        __syncthreads();
      } else {
        g.sync();
      }
      const double *Xs = X + (size_t)(p & 1) * plane;
      const int now = (p * H) & 1;
#pragma unroll
      for (int h = 0; h < H; h++)
#pragma unroll
        for (int k = 0; k < C; k++) {
          const int c = 1 + t * C + k, gu = base + h, gd = first + RR + h;
          a[h][k] = b > 0 ? __ldcg(Xs + ((size_t)(b - 1) * 2 + 1) * half + h * stride + c)
                          : (gu == 0 ? edge[now][k] : 0.0);
          a[RR + H + h][k] = b < bands - 1 ? __ldcg(Xs + (size_t)(b + 1) * 2 * half + h * stride + c)
                                           : (gd == n - 1 ? edge[now][k] : 0.0);
        }
    }
#pragma unroll
    for (int j = 0; j < H; j++) {
      const int s = p * H + j, src = s & 1, dst = src ^ 1, par = s & 1;
      if (lane == 31)
#pragma unroll
        for (int i = 0; i < L; i++) shE[par][w][i] = a[i][C - 1];
      if (lane == 0)
#pragma unroll
        for (int i = 0; i < L; i++) shW[par][w][i] = a[i][0];
      __syncthreads();
      double prev[C];
#pragma unroll
      for (int k = 0; k < C; k++) prev[k] = a[j][k];
#pragma unroll
      for (int i = 1 + j; i < L - 1 - j; i++) {
        const int gi = base + i;
        double we = __shfl_up_sync(0xffffffffu, a[i][C - 1], 1);
        double ea = __shfl_down_sync(0xffffffffu, a[i][0], 1);
        if (lane == 0) we = t == 0 ? shB[src][0][i] : shE[par][w - 1][i];
        if (lane == 31) ea = w == WARPS - 1 ? shB[src][1][i] : shW[par][w + 1][i];
        double next[C];
#pragma unroll
        for (int k = 0; k < C; k++) {
          const int c = 1 + t * C + k;
          const double wk = k > 0 ? a[i][k - 1] : we, ek = k < C - 1 ? a[i][k + 1] : ea;
          if (!EDGE || (gi >= 1 && gi <= n - 2))
            next[k] = c < n - 1 ? point(a[i][k], wk, ek, a[i + 1][k], prev[k])
                                : (c == n - 1 ? shB[dst][1][i] : 0.0);
          else
            next[k] = gi == 0 || gi == n - 1 ? edge[dst][k] : 0.0;
        }
#pragma unroll
        for (int k = 0; k < C; k++) { prev[k] = a[i][k]; a[i][k] = next[k]; }
      }
      if (s >= 2 * steps - 2) {
#pragma unroll
        for (int i = H; i < H + RR; i++)
#pragma unroll
          for (int k = 0; k < C; k++) {
            const int c = 1 + t * C + k;
            if (c < n - 1) (dst ? B : A)[(size_t)(base + i) * n + c] = a[i][k];
          }
      }
    }
    if (p + 1 < phases) {
      double *Xd = X + (size_t)((p + 1) & 1) * plane;
#pragma unroll
      for (int h = 0; h < H; h++)
#pragma unroll
        for (int k = 0; k < C; k++) {
          const int c = 1 + t * C + k;
          __stcg(Xd + (size_t)b * 2 * half + h * stride + c, a[H + h][k]);
          __stcg(Xd + ((size_t)b * 2 + 1) * half + h * stride + c, a[RR + h][k]);
        }
      if (FLAG) {
        __syncthreads();
        if (t == 0) {
          __threadfence();
          cuda::atomic_ref<int, cuda::thread_scope_device>(flags[b]).store(p + 1, cuda::memory_order_release);
        }
      }
    }
  }
}

template <int R, int RL, int H, int C, int T, bool FLAG>
__global__ void __launch_bounds__(T, 1)
deep_k(int n, int steps, double *A, double *B, double *X, int *flags) {
  __shared__ double shE[2][T / 32][R + 2 * H], shW[2][T / 32][R + 2 * H];
  __shared__ double shB[2][2][R + 2 * H];
  if (blockIdx.x == gridDim.x - 1)
    deep<RL, R, H, C, T, FLAG, true>(n, steps, A, B, X, flags, shE, shW, shB);
  else if (blockIdx.x == 0)
    deep<R, R, H, C, T, FLAG, true>(n, steps, A, B, X, flags, shE, shW, shB);
  else
    deep<R, R, H, C, T, FLAG, false>(n, steps, A, B, X, flags, shE, shW, shB);
}

static void init(int n, std::vector<double> &A, std::vector<double> &B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = ((double)i * (j + 2) + 2) / n;
      B[i * n + j] = ((double)i * (j + 3) + 3) / n;
    }
}

struct Ctx {
  int n, steps, reps = 5, only = -1, index = 0;
  size_t bytes;
  double *A, *B, *X;
  size_t xbytes = (size_t)2 * 1024 * 2 * (1024 * 8 + 2) * 16;
  int *flags;
  std::vector<double> hA, hB, rA, rB, oA, oB;
  cudaEvent_t e0, e1;
  cudaDeviceProp prop;
  void reset() {
    CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(flags, 0, 4096 * sizeof(int)));
    CHECK(cudaMemset(X, 0, xbytes));
    CHECK(cudaDeviceSynchronize());
  }
  float ms() { float t; CHECK(cudaEventElapsedTime(&t, e0, e1)); return t; }
  bool same() {
    CHECK(cudaMemcpy(oA.data(), A, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oB.data(), B, bytes, cudaMemcpyDeviceToHost));
    return !memcmp(oA.data(), rA.data(), bytes) && !memcmp(oB.data(), rB.data(), bytes);
  }
};

static void launch(Ctx &x, void *kern, const char *what, int R, int RL, int H, int C, int T) {
  if (x.only >= 0 && x.index++ != x.only) return;
  const int bands = (x.n - 2 + R - 1) / R;
  if (x.n - 2 - (bands - 1) * R != RL || (2 * x.steps) % H || H > RL) {
    printf("%s R %d RL %d H %d: does not fit n %d, steps %d\n", what, R, RL, H, x.n, x.steps);
    return;
  }
  if (bands < 2 || bands > x.prop.multiProcessorCount || (x.n - 2 + C - 1) / C > T) {
    printf("%s R %2d C %d T %4d: skipped (%d bands, %d threads needed)\n", what, R, C, T, bands,
           (x.n - 2 + C - 1) / C);
    return;
  }
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, kern));
  int nn = x.n, ss = x.steps;
  void *args[] = {&nn, &ss, &x.A, &x.B, &x.X, &x.flags};
  float best = 1e30f;
  for (int r = 0; r < x.reps; r++) {
    x.reset();
    CHECK(cudaEventRecord(x.e0));
    CHECK(cudaLaunchCooperativeKernel(kern, bands, T, args, 0, 0));
    CHECK(cudaEventRecord(x.e1));
    CHECK(cudaEventSynchronize(x.e1));
    best = fmin(best, x.ms());
  }
  printf("%-8s R %2d H %d C %d T %4d: %3d blocks, %3d regs, %4zu B local: %8.3f ms (%.2f us a sweep) %s\n",
         what, R, H, C, T, bands, fa.numRegs, fa.localSizeBytes, best, 1000.0 * best / (2 * x.steps),
         x.same() ? "equal to BASE bit for bit" : "DIFFERS from BASE");
}

template <int R, int RL, int C, int T, bool FLAG>
static void run_reg(Ctx &x) {
  launch(x, (void *)reg_k<R, RL, C, T, FLAG>, FLAG ? "FLAG" : "SYNC", R, RL, 1, C, T);
}

template <int R, int RL, int C, int T, bool WLL = false, bool POLL = true>
static void run_ll(Ctx &x) {
  launch(x, (void *)ll_k<R, RL, C, T, WLL, POLL>, !POLL ? "NOPOLL" : WLL ? "LLWARP" : "LL", R, RL,
         1, C, T);
}

template <int R, int RL, int H, int C, int T, bool FLAG>
static void run_deep(Ctx &x) {
  launch(x, (void *)deep_k<R, RL, H, C, T, FLAG>, FLAG ? "DEEPFLAG" : "DEEPSYNC", R, RL, H, C, T);
}

int main(int argc, char **argv) {
  Ctx x;
  x.n = argc > 1 ? atoi(argv[1]) : 1300;
  x.steps = argc > 2 ? atoi(argv[2]) : 500;
  x.only = argc > 3 ? atoi(argv[3]) : -1;                // run only the variant of this index
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int n = x.n, steps = x.steps;
  x.bytes = (size_t)n * n * sizeof(double);
  CHECK(cudaGetDeviceProperties(&x.prop, 0));
  printf("device %s, %d SMs; n %d, steps %d\n", x.prop.name, x.prop.multiProcessorCount, n, steps);
  for (auto *v : {&x.hA, &x.hB, &x.rA, &x.rB, &x.oA, &x.oB}) v->resize((size_t)n * n);
  CHECK(cudaMalloc(&x.A, x.bytes));
  CHECK(cudaMalloc(&x.B, x.bytes));
  CHECK(cudaMalloc(&x.X, x.xbytes));
  CHECK(cudaMalloc(&x.flags, 4096 * sizeof(int)));
  CHECK(cudaEventCreate(&x.e0));
  CHECK(cudaEventCreate(&x.e1));
  init(n, x.hA, x.hB);
  const dim3 grid((n + 31) / 32, (n + 31) / 32), block(32, 8);
  float best = 1e30f;
  for (int r = 0; r < x.reps; r++) {
    x.reset();
    CHECK(cudaEventRecord(x.e0));
    for (int t = 0; t < steps; t++) {
      base_k<<<grid, block>>>(n, x.A, x.B);
      base_k<<<grid, block>>>(n, x.B, x.A);
    }
    CHECK(cudaEventRecord(x.e1));
    CHECK(cudaEventSynchronize(x.e1));
    best = fmin(best, x.ms());
  }
  CHECK(cudaMemcpy(x.rA.data(), x.A, x.bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(x.rB.data(), x.B, x.bytes, cudaMemcpyDeviceToHost));
  printf("BASE     loop  %8.3f ms (%.2f us a sweep)\n", best, 1000.0 * best / (2 * steps));
  if (n == 1300) {
    run_reg<10, 8, 2, 672, false>(x);
    run_reg<10, 8, 2, 672, true>(x);
    run_reg<10, 8, 3, 448, true>(x);
    run_reg<10, 8, 4, 352, true>(x);
    run_reg<11, 11, 2, 672, true>(x);
    run_deep<10, 8, 1, 3, 448, true>(x);
    run_deep<10, 8, 2, 3, 448, true>(x);
    run_deep<10, 8, 2, 3, 448, false>(x);
    run_deep<10, 8, 2, 2, 672, true>(x);
    run_ll<10, 8, 2, 672>(x);
    run_ll<10, 8, 2, 672, true>(x);
    run_ll<10, 8, 2, 672, false, false>(x);
    run_ll<10, 8, 2, 672, true, false>(x);
    run_ll<10, 8, 3, 448>(x);
    run_ll<10, 8, 3, 448, true>(x);
    run_ll<10, 8, 4, 352, true>(x);
    run_ll<11, 11, 2, 672, true>(x);
  } else if (n == 70) {
    run_reg<10, 8, 2, 64, false>(x);
    run_reg<10, 8, 2, 64, true>(x);
    run_deep<10, 8, 2, 2, 64, true>(x);
    run_deep<4, 4, 2, 4, 32, false>(x);
    run_ll<10, 8, 2, 64>(x);
    run_ll<10, 8, 2, 64, true>(x);
    run_ll<3, 2, 4, 32, true>(x);
    run_ll<1, 1, 2, 64, true>(x);
  }
  return 0;
}
