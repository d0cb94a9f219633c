// Latency probe (session 20, docs/results/async_copies.md): gramschmidt's kernels at
// LARGE (m = 1000, n = 1200) as polycu generated them before --async-copies, and ways
// to get one thread's sequential loads in flight together.  Build here, run on the
// device (us per launch, mean over the k loop):
//     nvcc -O3 -arch=sm_90 -o latency_probe scripts/latency_probe.cu && ./latency_probe
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define R_ 1200
__global__ void k2_gen(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  for (int c1 = 0; c1 <= m - 1; c1 += 1) nrm[h0] += A[c1 * R_ + h0] * A[c1 * R_ + h0];
  R[h0 * R_ + h0] = sqrt(nrm[h0]);
}
__global__ void k2_reg(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  double r = nrm[h0];
  for (int c1 = 0; c1 <= m - 1; c1 += 1) r += A[c1 * R_ + h0] * A[c1 * R_ + h0];
  nrm[h0] = r; R[h0 * R_ + h0] = sqrt(r);
}
template <int U>
__global__ void k2_reg_unrolled(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  double r = nrm[h0];
#pragma unroll U
  for (int c1 = 0; c1 <= m - 1; c1 += 1) r += A[c1 * R_ + h0] * A[c1 * R_ + h0];
  nrm[h0] = r; R[h0 * R_ + h0] = sqrt(r);
}
// staged: a block of 1024 threads loads the operands into shared memory, thread 0 sums in order
__global__ void k2_staged(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  __shared__ double s[1024];
  double r = nrm[h0];
  for (int base = 0; base < m; base += 1024) {
    int c1 = base + threadIdx.x;
    if (c1 < m) s[threadIdx.x] = A[c1 * R_ + h0];
    __syncthreads();
    if (threadIdx.x == 0) {
      int top = m - base < 1024 ? m - base : 1024;
#pragma unroll 8
      for (int z = 0; z < top; z++) r += s[z] * s[z];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) { nrm[h0] = r; R[h0 * R_ + h0] = sqrt(r); }
}
template <int B>
__global__ void k4_gen(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  double r0[1];
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  if (B * b0 + t0 >= (h0 + 1) % B && (h0 + 1) % B + n >= h0 + B * b0 + t0 + 2) {
    r0[0] = R[h0 * R_ + (-((h0 + 1) % B) + h0 + B * b0 + t0 + 1)];
    for (int c2 = 0; c2 <= m - 1; c2 += 1)
      r0[0] += Q[c2 * R_ + h0] * A[c2 * R_ + (-((h0 + 1) % B) + h0 + B * b0 + t0 + 1)];
    R[h0 * R_ + (-((h0 + 1) % B) + h0 + B * b0 + t0 + 1)] = r0[0];
  }
}
__global__ void k4_u16(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  double r0[1];
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  if (32 * b0 + t0 >= (h0 + 1) % 32 && (h0 + 1) % 32 + n >= h0 + 32 * b0 + t0 + 2) {
    r0[0] = R[h0 * R_ + (-((h0 + 1) % 32) + h0 + 32 * b0 + t0 + 1)];
#pragma unroll 16
    for (int c2 = 0; c2 <= m - 1; c2 += 1)
      r0[0] += Q[c2 * R_ + h0] * A[c2 * R_ + (-((h0 + 1) % 32) + h0 + 32 * b0 + t0 + 1)];
    R[h0 * R_ + (-((h0 + 1) % 32) + h0 + 32 * b0 + t0 + 1)] = r0[0];
  }
}
__global__ void k3(int n, int m, int h0, const double *__restrict__ A, const double *__restrict__ R, double *__restrict__ Q) {
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  if (m >= 32 * b0 + t0 + 1) Q[((32 * b0 + t0)) * R_ + h0] = A[((32 * b0 + t0)) * R_ + h0] / R[h0 * R_ + h0];
}
__global__ void k5(int n, int m, int h0, double *__restrict__ A, const double *__restrict__ R, const double *__restrict__ Q) {
  const int b0 = blockIdx.y, t0 = threadIdx.y;
  const int b1 = blockIdx.x, t1 = threadIdx.x;
  if (32 * b1 + t1 >= (h0 + 1) % 32 && (h0 + 1) % 32 + n >= h0 + 32 * b1 + t1 + 2)
    for (int c1 = 32 * b0 + t0; c1 <= min(m - 1, 32 * b0 + 31); c1 += 8)
      A[c1 * R_ + (-((h0 + 1) % 32) + h0 + 32 * b1 + t1 + 1)] -= Q[c1 * R_ + h0] * R[h0 * R_ + (-((h0 + 1) % 32) + h0 + 32 * b1 + t1 + 1)];
}
#define COL (-((h0 + 1) % 32) + h0 + 32 * b0 + t0 + 1)
#define GUARD (32 * b0 + t0 >= (h0 + 1) % 32 && (h0 + 1) % 32 + n >= h0 + 32 * b0 + t0 + 2)
// registers: each strip of 32 rows loaded into 32 registers first, then summed in order
__global__ void k4_regstrip(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  if (!GUARD) return;
  double r = R[h0 * R_ + COL];
  int c2 = 0;
  for (; c2 + 32 <= m; c2 += 32) {
    double a[32], q[32];
#pragma unroll
    for (int z = 0; z < 32; z++) { a[z] = A[(c2 + z) * R_ + COL]; q[z] = Q[(c2 + z) * R_ + h0]; }
#pragma unroll
    for (int z = 0; z < 32; z++) r += q[z] * a[z];
  }
  for (; c2 < m; c2++) r += Q[c2 * R_ + h0] * A[c2 * R_ + COL];
  R[h0 * R_ + COL] = r;
}
// shared: 8 warps load a strip of 64 rows x 32 columns, warp 0 sums its columns in order
__global__ void k4_shared8(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  __shared__ double sa[64][33];
  __shared__ double sq[64];
  const int b0 = blockIdx.x, t0 = threadIdx.x, ty = threadIdx.y;
  bool in = GUARD;
  double r = (ty == 0 && in) ? R[h0 * R_ + COL] : 0.0;
  for (int c2 = 0; c2 < m; c2 += 64) {
    int top = m - c2 < 64 ? m - c2 : 64;
#pragma unroll
    for (int z = ty; z < 64; z += 8) if (z < top && in) sa[z][t0] = A[(c2 + z) * R_ + COL];
    if (ty == 0) for (int z = t0; z < top; z += 32) sq[z] = Q[(c2 + z) * R_ + h0];
    __syncthreads();
    if (ty == 0 && in) {
#pragma unroll 8
      for (int z = 0; z < top; z++) r += sq[z] * sa[z][t0];
    }
    __syncthreads();
  }
  if (ty == 0 && in) R[h0 * R_ + COL] = r;
}
// the chain alone: no loads in the loop
__global__ void k4_chain(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  if (!GUARD) return;
  double r = R[h0 * R_ + COL], x = Q[h0];
  for (int c2 = 0; c2 < m; c2++) r = r * x + x;
  R[h0 * R_ + COL] = r;
}
// k2 with registers strips
__global__ void k2_regstrip(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  double r = nrm[h0];
  int c1 = 0;
  for (; c1 + 32 <= m; c1 += 32) {
    double a[32];
#pragma unroll
    for (int z = 0; z < 32; z++) a[z] = A[(c1 + z) * R_ + h0];
#pragma unroll
    for (int z = 0; z < 32; z++) r += a[z] * a[z];
  }
  for (; c1 < m; c1++) r += A[c1 * R_ + h0] * A[c1 * R_ + h0];
  nrm[h0] = r; R[h0 * R_ + h0] = sqrt(r);
}
// one warp per block: strips of T rows of the block's 32 columns copied to shared memory
// by an unrolled copy loop (ASYNC false, as polycu's plain tiles) or by cp.async, then
// summed in order
template <int T, bool ASYNC>
__global__ void k4_strip(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, const double *__restrict__ Q) {
  __shared__ double sa[T][32];
  __shared__ double sq[T];
  const int b0 = blockIdx.x, t0 = threadIdx.x;
  bool in = GUARD;
  double r = in ? R[h0 * R_ + COL] : 0.0;
  int c2 = 0;
  for (; c2 + T <= m; c2 += T) {
    if (ASYNC) {
#pragma unroll
      for (int z = 0; z < T; z++) if (in) __pipeline_memcpy_async(&sa[z][t0], &A[(c2 + z) * R_ + COL], 8);
#pragma unroll
      for (int z = t0; z < T; z += 32) __pipeline_memcpy_async(&sq[z], &Q[(c2 + z) * R_ + h0], 8);
      __pipeline_commit();
      __pipeline_wait_prior(0);
    } else {
#pragma unroll
      for (int z = 0; z < T; z++) if (in) sa[z][t0] = A[(c2 + z) * R_ + COL];
#pragma unroll
      for (int z = t0; z < T; z += 32) sq[z] = Q[(c2 + z) * R_ + h0];
    }
    __syncwarp();
    if (in) {
#pragma unroll
      for (int z = 0; z < T; z++) r += sq[z] * sa[z][t0];
    }
    __syncwarp();
  }
  if (in) {
    for (; c2 < m; c2++) r += Q[c2 * R_ + h0] * A[c2 * R_ + COL];
    R[h0 * R_ + COL] = r;
  }
}
template <int T>
__global__ void k2_strip(int n, int m, int h0, const double *__restrict__ A, double *__restrict__ R, double *__restrict__ nrm) {
  __shared__ double s[T];
  double r = nrm[h0];
  int c1 = 0;
  for (; c1 + T <= m; c1 += T) {
#pragma unroll
    for (int z = 0; z < T; z++) s[z] = A[(c1 + z) * R_ + h0];
#pragma unroll
    for (int z = 0; z < T; z++) r += s[z] * s[z];
  }
  for (; c1 < m; c1++) r += A[c1 * R_ + h0] * A[c1 * R_ + h0];
  nrm[h0] = r; R[h0 * R_ + h0] = sqrt(r);
}
int main() {
  int m = 1000, n = 1200;
  size_t bytes = (size_t)R_ * R_ * sizeof(double);
  double *A, *R, *Q, *nrm;
  cudaMalloc(&A, bytes); cudaMalloc(&R, bytes); cudaMalloc(&Q, bytes); cudaMalloc(&nrm, 8 * R_);
  cudaMemset(A, 0, bytes); cudaMemset(R, 0, bytes); cudaMemset(Q, 0, bytes); cudaMemset(nrm, 0, 8 * R_);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  float ms;
#define TIME(name, launch) \
  for (int w = 0; w < 3; w++) { int h0 = 600; launch; } \
  cudaEventRecord(e0); \
  for (int h0 = 0; h0 < n - 1; h0++) { launch; } \
  cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms, e0, e1); \
  printf("%-12s %8.2f us per launch (mean over k)\n", name, 1000.0 * ms / (n - 1));
  TIME("k2_gen", (k2_gen<<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k2_reg", (k2_reg<<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k2_reg_u16", (k2_reg_unrolled<16><<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k2_reg_u64", (k2_reg_unrolled<64><<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k2_staged", (k2_staged<<<1, 1024>>>(n, m, h0, A, R, nrm)));
  TIME("k3", (k3<<<(m + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_gen", (k4_gen<32><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_u16", (k4_u16<<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k5", (k5<<<dim3((n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, (m + 31) / 32), dim3(32, 8)>>>(n, m, h0, A, R, Q)));
  TIME("empty", (k3<<<1, 32>>>(n, 0, h0, A, R, Q)));
  TIME("k4_regstrip", (k4_regstrip<<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_shared8", (k4_shared8<<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, dim3(32, 8)>>>(n, m, h0, A, R, Q)));
  TIME("k4_chain", (k4_chain<<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_gen_1blk", (k4_gen<32><<<1, 32>>>(n, m, h0, A, R, Q)));
  TIME("k2_regstrip", (k2_regstrip<<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k4_b16", (k4_gen<16><<<(n - h0 - 1 + (h0 + 1) % 16 + 15) / 16, 16>>>(n, m, h0, A, R, Q)));
  TIME("k4_b8", (k4_gen<8><<<(n - h0 - 1 + (h0 + 1) % 8 + 7) / 8, 8>>>(n, m, h0, A, R, Q)));
  TIME("k4_b4", (k4_gen<4><<<(n - h0 - 1 + (h0 + 1) % 4 + 3) / 4, 4>>>(n, m, h0, A, R, Q)));
  TIME("k4_wstrip16", (k4_strip<16, false><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_cpasync16", (k4_strip<16, true><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k2_strip16", (k2_strip<16><<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k4_wstrip32", (k4_strip<32, false><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_cpasync32", (k4_strip<32, true><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k2_strip32", (k2_strip<32><<<1, 1>>>(n, m, h0, A, R, nrm)));
  TIME("k4_wstrip64", (k4_strip<64, false><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k4_cpasync64", (k4_strip<64, true><<<(n - h0 - 1 + (h0 + 1) % 32 + 31) / 32, 32>>>(n, m, h0, A, R, Q)));
  TIME("k2_strip64", (k2_strip<64><<<1, 1>>>(n, m, h0, A, R, nrm)));
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
