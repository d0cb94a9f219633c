// Where a one-block kernel's time goes (issue 14: jacobi-1d's program against one
// CPU thread).  jacobi-1d at LARGE (n = 2000, 500 steps of two sweeps) in one block,
// the arrays resident in shared memory, a barrier after each sweep, as polycu's
// single-block code does; variants of the sweep's loop.  Each variant's A and B are
// compared bit for bit with the first's.  Kernel time by cudaEvent, median of 15.
//
//   nvcc -O3 -arch=sm_90 scripts/single_block_probe.cu -o sbp && ./sbp 2000 500
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define N_MAX 2048

// 0: polycu's code (virtual threads over 32-wide blocks in 64-bit arithmetic)
// 1: the same loop in 32-bit arithmetic, i = threadIdx.x + 1 stepping by blockDim.x
// 2: each thread two fixed elements, no loop (n - 2 <= 2 * blockDim.x)
template <int V>
__device__ __forceinline__ void sweep(int n, const double *__restrict__ from, double *__restrict__ to)
{
  if (V == 0) {
    const long long gx = (n - 2) / 32 + 1, total = 32 * gx;
    for (long long v = threadIdx.x; v < total; v += blockDim.x) {
      const int t0 = (int)(v % 32), b0 = (int)(v / 32);
      if (n >= 32 * b0 + t0 + 2 && 32 * b0 + t0 >= 1)
        to[32 * b0 + t0] = 0.33333 * ((from[32 * b0 + t0 - 1] + from[32 * b0 + t0]) + from[32 * b0 + t0 + 1]);
    }
  } else if (V == 3 || V == 4) {
    // 3: the generated form counted in unsigned 64 bits; 4: the same, unrolled by 2
    const unsigned long long gx = (n - 2) / 32 + 1, total = 32 * gx;
#pragma unroll (V == 4 ? 2 : 1)
    for (unsigned long long v = threadIdx.x; v < total; v += blockDim.x) {
      const int t0 = (int)(v % 32), b0 = (int)(v / 32);
      if (n >= 32 * b0 + t0 + 2 && 32 * b0 + t0 >= 1)
        to[32 * b0 + t0] = 0.33333 * ((from[32 * b0 + t0 - 1] + from[32 * b0 + t0]) + from[32 * b0 + t0 + 1]);
    }
  } else if (V == 5) {
    // 5: the generated form in 64 bits, unrolled by 2
    const long long gx = (n - 2) / 32 + 1, total = 32 * gx;
#pragma unroll 2
    for (long long v = threadIdx.x; v < total; v += blockDim.x) {
      const int t0 = (int)(v % 32), b0 = (int)(v / 32);
      if (n >= 32 * b0 + t0 + 2 && 32 * b0 + t0 >= 1)
        to[32 * b0 + t0] = 0.33333 * ((from[32 * b0 + t0 - 1] + from[32 * b0 + t0]) + from[32 * b0 + t0 + 1]);
    }
  } else if (V == 1) {
    for (int i = threadIdx.x + 1; i < n - 1; i += blockDim.x)
      to[i] = 0.33333 * ((from[i - 1] + from[i]) + from[i + 1]);
  } else {
    const int i = threadIdx.x + 1, j = i + blockDim.x;
    if (i < n - 1)
      to[i] = 0.33333 * ((from[i - 1] + from[i]) + from[i + 1]);
    if (j < n - 1)
      to[j] = 0.33333 * ((from[j - 1] + from[j]) + from[j + 1]);
  }
}

template <int V>
__global__ void __launch_bounds__(1024) jacobi(int tsteps, int n, double *A, double *B)
{
  __shared__ double a[N_MAX], b[N_MAX];
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    a[c] = A[c];
    b[c] = B[c];
  }
  __syncthreads();
  for (int t = 0; t < tsteps; t++) {
    sweep<V>(n, a, b);
    __syncthreads();
    sweep<V>(n, b, a);
    __syncthreads();
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    A[c] = a[c];
    B[c] = b[c];
  }
}

// 3: one barrier a step: each thread recomputes its neighbours' B (the same
// expressions, so the same bits) and writes A's next values to a second buffer
__global__ void __launch_bounds__(1024) fused(int tsteps, int n, double *A, double *B)
{
  __shared__ double a[2][2000], b[2000];   // three arrays of n <= 2000
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    a[0][c] = a[1][c] = A[c];
    b[c] = B[c];
  }
  __syncthreads();
  const double b0 = b[0], bn = b[n - 1];
  int cur = 0;
  for (int t = 0; t < tsteps; t++) {
    const double *x = a[cur];
    double *y = a[1 - cur];
    for (int i = threadIdx.x + 1; i < n - 1; i += blockDim.x) {
      const double xm = x[i - 1], x0 = x[i], xp = x[i + 1];
      const double bm = i - 1 >= 1 ? 0.33333 * ((x[i - 2] + xm) + x0) : b0;
      const double bi = 0.33333 * ((xm + x0) + xp);
      const double bp = i + 1 <= n - 2 ? 0.33333 * ((x0 + xp) + x[i + 2]) : bn;
      b[i] = bi;
      y[i] = 0.33333 * ((bm + bi) + bp);
    }
    __syncthreads();
    cur = 1 - cur;
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    A[c] = a[cur][c];
    B[c] = b[c];
  }
}

// 4: the barriers alone (a sweep that does nothing), the floor of this form
__global__ void __launch_bounds__(1024) barriers(int tsteps, int n, double *A, double *B)
{
  for (int t = 0; t < 2 * tsteps; t++)
    __syncthreads();
  if (threadIdx.x == 0 && n < 0)
    A[0] = B[0];
}

typedef void (*kernel_t)(int, int, double *, double *);

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 2000, tsteps = argc > 2 ? atoi(argv[2]) : 500;
  std::vector<double> A0(n), B0(n);
  for (int i = 0; i < n; i++) {
    A0[i] = ((double)i + 2) / n;
    B0[i] = ((double)i + 3) / n;
  }
  double *dA, *dB;
  cudaMalloc(&dA, n * sizeof(double));
  cudaMalloc(&dB, n * sizeof(double));
  struct { const char *name; kernel_t k; int threads; } runs[] = {
      {"generated (64-bit virtual loop), 1024 threads", jacobi<0>, 1024},
      {"generated form, unsigned 64-bit", jacobi<3>, 1024},
      {"generated form, unsigned 64-bit, unroll 2", jacobi<4>, 1024},
      {"generated form, signed 64-bit, unroll 2", jacobi<5>, 1024},
      {"32-bit loop, 1024 threads", jacobi<1>, 1024},
      {"two fixed elements a thread, 1024 threads", jacobi<2>, 1024},
      {"32-bit loop, 512 threads", jacobi<1>, 512},
      {"32-bit loop, 256 threads", jacobi<1>, 256},
      {"one barrier a step (neighbours' B recomputed), 1024", fused, 1024},
      {"one barrier a step, 512 threads", fused, 512},
      {"barriers alone, 1024 threads", barriers, 1024},
      {"barriers alone, 256 threads", barriers, 256},
  };
  std::vector<double> refA(n), refB(n), outA(n), outB(n);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    std::vector<float> ms;
    for (int rep = 0; rep < 15; rep++) {
      cudaMemcpy(dA, A0.data(), n * sizeof(double), cudaMemcpyHostToDevice);
      cudaMemcpy(dB, B0.data(), n * sizeof(double), cudaMemcpyHostToDevice);
      cudaEventRecord(start);
      runs[r].k<<<1, runs[r].threads>>>(tsteps, n, dA, dB);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaMemcpy(outA.data(), dA, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(outB.data(), dB, n * sizeof(double), cudaMemcpyDeviceToHost);
    const char *check = "";
    if (r == 0) {
      refA = outA;
      refB = outB;
    } else if (runs[r].k != barriers) {
      check = memcmp(refA.data(), outA.data(), n * sizeof(double)) == 0 &&
              memcmp(refB.data(), outB.data(), n * sizeof(double)) == 0 ? "  equal" : "  DIFFERS";
    }
    printf("%-50s %8.4f ms%s\n", runs[r].name, ms[ms.size() / 2], check);
  }
  cudaError_t e = cudaGetLastError();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
