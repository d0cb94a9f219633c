// Where an ordered tree's time goes (issue 12): atax's two kernels at LARGE written
// as polycu's ordered trees generate them (a warp of adders, the other warps load a
// chunk of terms ahead into a two-slot shared buffer), with variants: loads only,
// additions only, loads issued two chunks ahead through registers (DEPTH 2), other
// rows a block, chunk sizes and, for column sums, fewer threads a column (SLICES).  Every full variant's sums equal the sequential
// sum's bit for bit.  Copies of A rotate so that each launch reads it from HBM.
// nvcc -O3 -arch=sm_90 -o ordered_tree_probe scripts/ordered_tree_probe.cu && ./ordered_tree_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

enum { FULL = 0, LOADS = 1, ADDS = 2 };
constexpr int M = 1900, N = 2100, COPIES = 8;
// Block 0's adder: clock64() and %globaltimer (ns) across its loop, for the SM clock.
__device__ long long cycles[2];
__device__ __forceinline__ long long nanoseconds() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// out[i] = sum over k in C's order of A[i][k] * v[k]  (ALONG_K: rows of A, atax's tmp)
// out[j] = sum over i in C's order of A[i][j] * v[i]  (else: columns, atax's y)
// Loaders: threads (lane, y < WARPS); a term's slot is [row][u].  Adder: y == WARPS.
template <bool ALONG_K, int ROWS, int CHUNK, int MODE, int DEPTH, int SLICES = 32>
__global__ void __launch_bounds__((ALONG_K ? 32 : ROWS) * ((ALONG_K ? ROWS : 32) + 1)) tree(double *out, const double *__restrict__ A,
                                             const double *__restrict__ v) {
  constexpr int WARPS = ALONG_K ? ROWS : SLICES;  // loading rows of threads
  constexpr int STEP = ALONG_K ? 32 : SLICES;     // threads that share a row
  constexpr int U = CHUNK / STEP;                 // terms a loader a chunk
  constexpr int STRIDE = ALONG_K ? CHUNK + 1 : ROWS;
  constexpr int SLOT = ALONG_K ? ROWS * (CHUNK + 1) : CHUNK * ROWS;
  extern __shared__ double s[];
  const bool adder = threadIdx.y == WARPS;
  const int rows = ALONG_K ? M : N, terms = ALONG_K ? N : M;
  const int lane = ALONG_K ? threadIdx.x : threadIdx.y;  // the loader's slice
  const int r = ALONG_K ? (adder ? threadIdx.x : threadIdx.y) : threadIdx.x;
  const int row = blockIdx.x * ROWS + r;
  const bool live = r < ROWS && row < rows;
  const int chunks = (terms + CHUNK - 1) / CHUNK;
  auto at = [&](int k) { return ALONG_K ? A[(size_t)row * N + k] : A[(size_t)k * N + row]; };
  auto cell = [&](int slot, int u) -> double & {
    return ALONG_K ? s[slot * SLOT + r * STRIDE + u] : s[slot * SLOT + u * ROWS + r];
  };
  double a[U], b[U];
  auto issue = [&](int c) {
#pragma unroll
    for (int q = 0; q < U; q++) {
      const int k = c * CHUNK + lane + STEP * q;
      a[q] = (live && k < terms) ? at(k) : 0.0;
      b[q] = (live && k < terms) ? v[k] : 0.0;
    }
  };
  auto store = [&](int c, const double *x, const double *y) {
#pragma unroll
    for (int q = 0; q < U; q++) cell(c & 1, lane + STEP * q) = x[q] * y[q];
  };
  double p = 0.0;
  const long long c0 = clock64(), t0 = nanoseconds();
  if (!adder && MODE != ADDS) {
    issue(0);
    store(0, a, b);
    if (DEPTH == 2 && chunks > 1) issue(1);
  }
  __syncthreads();
  for (int c = 0; c < chunks; c++) {
    if (!adder && MODE != ADDS && c + 1 < chunks) {
      if (DEPTH == 1) {
        issue(c + 1);
        store(c + 1, a, b);
      } else {
        double na[U], nb[U];
#pragma unroll
        for (int q = 0; q < U; q++) { na[q] = a[q]; nb[q] = b[q]; }
        if (c + 2 < chunks) issue(c + 2);
        store(c + 1, na, nb);
      }
    }
    if (adder && live && MODE != LOADS) {
      const int n = min(CHUNK, terms - c * CHUNK);
      if (n == CHUNK) {
#pragma unroll
        for (int q = 0; q < CHUNK; q++) p = p + cell(c & 1, q);
      } else {
        for (int q = 0; q < n; q++) p = p + cell(c & 1, q);
      }
    }
    __syncthreads();
  }
  if (adder && live) out[row] = p;
  if (adder && blockIdx.x == 0 && r == 0) {
    cycles[0] = clock64() - c0;
    cycles[1] = nanoseconds() - t0;
  }
}

#ifdef POLYCU_KERNELS
// polycu's own kernels for atax at LARGE (the __global__ functions of its output).
#define POLYCU_SHARED(T, name, n) __shared__ T name[n]
#include POLYCU_KERNELS
#endif

// Median ms of launch(c), c the copy of A to read, each launch timed by itself (the
// first COPIES launches warm up).
template <typename Launch>
float median_ms(Launch launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int rep = 0; rep < 4 * COPIES; rep++) {
    cudaEventRecord(e0);
    launch(rep % COPIES);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    if (rep >= COPIES) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <bool ALONG_K, int ROWS, int CHUNK, int MODE, int DEPTH, int SLICES = 32>
float run(const char *name, double *out, double *const *A, const double *v, const double *want) {
  constexpr int WARPS = ALONG_K ? ROWS : SLICES;
  const size_t shared = 2 * (ALONG_K ? ROWS * (CHUNK + 1) : CHUNK * ROWS) * sizeof(double);
  auto k = tree<ALONG_K, ROWS, CHUNK, MODE, DEPTH, SLICES>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
  const int rows = ALONG_K ? M : N;
  dim3 block(ALONG_K ? 32 : ROWS, WARPS + 1), grid((rows + ROWS - 1) / ROWS);
  const float ms = median_ms([&](int c) { k<<<grid, block, shared>>>(out, A[c], v); });
  std::vector<double> got(rows);
  cudaMemcpy(got.data(), out, rows * sizeof(double), cudaMemcpyDeviceToHost);
  const char *ok = MODE != FULL ? "-" : memcmp(got.data(), want, rows * sizeof(double)) ? "WRONG" : "exact";
  long long cyc[2];
  cudaMemcpyFromSymbol(cyc, cycles, sizeof cyc);
  printf("%-7s %-8s slices %2d rows %2d chunk %3d depth %d blocks %4d threads %4d: %.4f ms (%s) %s; "
         "block 0: %lld cycles, %.2f GHz, %.1f cycles a term\n",
         ALONG_K ? "rows" : "columns", name, ALONG_K ? 32 : SLICES, ROWS, CHUNK, DEPTH, grid.x, block.x * block.y,
         ms, ok, cudaGetErrorString(cudaGetLastError()), cyc[0],
         cyc[0] / (double)cyc[1], cyc[0] / (double)(ALONG_K ? N : M));
  return ms;
}

#ifdef POLYCU_KERNELS
// Median ms of launch(copy of A) and whether out's first rows equal want's.
template <typename Launch>
void generated(const char *name, Launch launch, double *out, int rows, const double *want) {
  const float ms = median_ms(launch);
  std::vector<double> got(rows);
  cudaMemcpy(got.data(), out, rows * sizeof(double), cudaMemcpyDeviceToHost);
  printf("polycu  %-35s: %.4f ms (%s) %s\n", name, ms,
         memcmp(got.data(), want, rows * sizeof(double)) ? "WRONG" : "exact",
         cudaGetErrorString(cudaGetLastError()));
}
#endif

int main() {
  std::vector<double> hA((size_t)M * N), hv(N), want_r(M), want_c(N);
  srand(7);
  for (auto &e : hA) e = rand() / (double)RAND_MAX - 0.5;
  for (auto &e : hv) e = rand() / (double)RAND_MAX - 0.5;
  for (int i = 0; i < M; i++) {
    double p = 0.0;
    for (int k = 0; k < N; k++) p = p + hA[(size_t)i * N + k] * hv[k];
    want_r[i] = p;
  }
  for (int j = 0; j < N; j++) {
    double p = 0.0;
    for (int i = 0; i < M; i++) p = p + hA[(size_t)i * N + j] * hv[i];
    want_c[j] = p;
  }
  double *A[COPIES], *v, *out;
  for (auto &d : A) {
    cudaMalloc(&d, hA.size() * sizeof(double));
    cudaMemcpy(d, hA.data(), hA.size() * sizeof(double), cudaMemcpyHostToDevice);
  }
  cudaMalloc(&v, N * sizeof(double));
  cudaMemcpy(v, hv.data(), N * sizeof(double), cudaMemcpyHostToDevice);
  cudaMalloc(&out, N * sizeof(double));
  const double *wr = want_r.data(), *wc = want_c.data();
#ifdef POLYCU_KERNELS
  double *tmp;
  cudaMalloc(&tmp, M * sizeof(double));
  cudaMemcpy(tmp, v, M * sizeof(double), cudaMemcpyDeviceToDevice);
  generated("kernel1 (columns)", [&](int c) {
    kernel_atax_scop0_kernel1<<<(N - 1) / 16 + 1, dim3(16, 33)>>>(N, M, out, tmp, A[c]);
  }, out, N, wc);
  generated("kernel0 (rows)", [&](int c) {
    kernel_atax_scop0_kernel0<<<(M - 1) / 8 + 1, dim3(32, 9)>>>(N, M, out, A[c], v);
  }, out, M, wr);
  // Both kernels, independent here (kernel1 reads a copy of v), one after the other
  // and side by side on two streams (fork and join by events, as a host would).
  double *out2;
  cudaMalloc(&out2, N * sizeof(double));
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  generated("both, one stream", [&](int c) {
    kernel_atax_scop0_kernel1<<<(N - 1) / 16 + 1, dim3(16, 33)>>>(N, M, out2, tmp, A[c]);
    kernel_atax_scop0_kernel0<<<(M - 1) / 8 + 1, dim3(32, 9)>>>(N, M, out, A[(c + 1) % COPIES], v);
  }, out, M, wr);
  generated("both, two streams", [&](int c) {
    cudaEventRecord(fork, 0);
    cudaStreamWaitEvent(side, fork, 0);
    kernel_atax_scop0_kernel1<<<(N - 1) / 16 + 1, dim3(16, 33), 0, side>>>(N, M, out2, tmp, A[c]);
    kernel_atax_scop0_kernel0<<<(M - 1) / 8 + 1, dim3(32, 9)>>>(N, M, out, A[(c + 1) % COPIES], v);
    cudaEventRecord(join, side);
    cudaStreamWaitEvent(0, join, 0);
  }, out, M, wr);
#endif
  run<true, 8, 128, FULL, 1>("full", out, A, v, wr);
  run<true, 8, 128, LOADS, 1>("loads", out, A, v, wr);
  run<true, 8, 128, ADDS, 1>("adds", out, A, v, wr);
  run<true, 8, 128, FULL, 2>("full", out, A, v, wr);
  run<true, 8, 128, LOADS, 2>("loads", out, A, v, wr);
  run<true, 8, 256, FULL, 1>("full", out, A, v, wr);
  run<true, 8, 256, FULL, 2>("full", out, A, v, wr);
  run<true, 4, 128, FULL, 1>("full", out, A, v, wr);
  run<true, 4, 128, FULL, 2>("full", out, A, v, wr);
  run<true, 4, 256, FULL, 2>("full", out, A, v, wr);
  run<true, 16, 128, FULL, 2>("full", out, A, v, wr);
  run<false, 16, 128, FULL, 1>("full", out, A, v, wc);
  run<false, 16, 128, LOADS, 1>("loads", out, A, v, wc);
  run<false, 16, 128, ADDS, 1>("adds", out, A, v, wc);
  run<false, 16, 128, FULL, 2>("full", out, A, v, wc);
  run<false, 16, 128, LOADS, 2>("loads", out, A, v, wc);
  run<false, 16, 256, FULL, 2>("full", out, A, v, wc);
  run<false, 8, 128, FULL, 1>("full", out, A, v, wc);
  run<false, 8, 128, FULL, 2>("full", out, A, v, wc);
  run<false, 8, 256, FULL, 2>("full", out, A, v, wc);
  // wider blocks of columns, fewer slices a column (longer runs of a row of A)
  run<false, 16, 128, FULL, 2, 16>("full", out, A, v, wc);
  run<false, 32, 128, FULL, 2, 16>("full", out, A, v, wc);
  run<false, 32, 128, ADDS, 2, 16>("adds", out, A, v, wc);
  run<false, 32, 128, LOADS, 2, 16>("loads", out, A, v, wc);
  run<false, 32, 128, FULL, 2, 8>("full", out, A, v, wc);
  run<false, 32, 256, FULL, 2, 16>("full", out, A, v, wc);
  run<false, 64, 128, FULL, 2, 8>("full", out, A, v, wc);
  return 0;
}
