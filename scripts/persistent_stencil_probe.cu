// Persistent jacobi-2d probe (issue 14: jacobi-2d's kernel time 3x lower).  What do
// 1000 sweeps cost in one cooperative launch, against polycu's two kernels a step?
//     here:   nvcc -O3 -arch=sm_90 --fmad=false -o psp scripts/persistent_stencil_probe.cu
//     device: ./psp [N] [STEPS]     (default 1300 500: PolyBench LARGE)
// Variants (ms for all sweeps; each one's A and B compared bit for bit with BASE's):
//   BASE    polycu's kernels (32x32 tiles, 32x8 threads), 2 launches a step, timed
//           with events around the loop and as a CUDA graph's replay;
//   SYNC    an empty persistent kernel: 2 x STEPS grid-wide barriers alone;
//   GLOBAL  one persistent launch, the arrays in device memory (L2), a grid-stride
//           sweep between barriers;
//   SHARED  one persistent launch, each block's band of rows of A and B resident in
//           shared memory for all sweeps; the band's first and last rows exchanged
//           through device memory (two buffers by parity) between barriers; each
//           thread walks columns with the rows above and at in registers.
#include <cooperative_groups.h>
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

__global__ void sync_k(int sweeps) {
  cg::grid_group g = cg::this_grid();
  for (int s = 0; s < sweeps; s++) g.sync();
}

__device__ inline void sweep_global(int n, const double *__restrict__ S, double *__restrict__ D) {
  const int inner = n - 2, total = inner * inner;
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < total; q += gridDim.x * blockDim.x) {
    const int i = q / inner + 1, j = q % inner + 1;
    D[i * n + j] = 0.2 * ((((S[i * n + j] + S[i * n + j - 1]) + S[i * n + j + 1])
                           + S[(i + 1) * n + j]) + S[(i - 1) * n + j]);
  }
}

__global__ void global_k(int n, int steps, double *A, double *B) {
  cg::grid_group g = cg::this_grid();
  for (int t = 0; t < steps; t++) {
    sweep_global(n, A, B); g.sync();
    sweep_global(n, B, A); g.sync();
  }
}

// Block b holds rows first..first+rows-1 (first = 1 + b * R) of A and B, every column,
// in shared memory; X[p][b][0] and X[p][b][1] hold its first and last row of the
// array written in a sweep of parity p.
template <int R>
__global__ void __launch_bounds__(1024, 1) shared_k(int n, int steps, double *A, double *B,
                                                    double *X) {
  cg::grid_group g = cg::this_grid();
  extern __shared__ double sm[];
  double *sA = sm, *sB = sm + R * n, *top = sm + 2 * R * n, *bot = top + n;
  const int b = blockIdx.x, first = 1 + b * R;
  const int rows = min(R, n - 1 - first), bands = gridDim.x;
  for (int q = threadIdx.x; q < rows * n; q += blockDim.x) {
    sA[q] = A[first * n + q];
    sB[q] = B[first * n + q];
  }
  __syncthreads();
  double *x = X + (size_t)(1 * bands + b) * 2 * n;       // parity 1: "sweep -1" wrote A
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    x[c] = sA[c];
    x[n + c] = sA[(rows - 1) * n + c];
  }
  g.sync();
  for (int s = 0; s < 2 * steps; s++) {
    const double *src = (s & 1) ? sB : sA;
    double *dst = (s & 1) ? sA : sB;
    const double *G = (s & 1) ? B : A;                   // the source's boundary rows
    const int was = (s + 1) & 1;                         // parity of the source's sweep
    for (int c = threadIdx.x; c < n; c += blockDim.x) {
      top[c] = b == 0 ? G[c] : X[((size_t)was * bands + b - 1) * 2 * n + n + c];
      bot[c] = b == bands - 1 ? G[(n - 1) * n + c] : X[((size_t)was * bands + b + 1) * 2 * n + c];
    }
    __syncthreads();
    for (int c = threadIdx.x + 1; c < n - 1; c += blockDim.x) {
      double up = top[c], at = src[c];
      for (int r = 0; r < rows; r++) {
        const double down = r == rows - 1 ? bot[c] : src[(r + 1) * n + c];
        dst[r * n + c] = 0.2 * ((((at + src[r * n + c - 1]) + src[r * n + c + 1]) + down) + up);
        up = at;
        at = down;
      }
    }
    __syncthreads();
    double *y = X + ((size_t)(s & 1) * bands + b) * 2 * n;
    for (int c = threadIdx.x; c < n; c += blockDim.x) {
      y[c] = dst[c];
      y[n + c] = dst[(rows - 1) * n + c];
    }
    g.sync();
  }
  for (int q = threadIdx.x; q < rows * n; q += blockDim.x) {
    A[first * n + q] = sA[q];
    B[first * n + q] = sB[q];
  }
}

static void init(int n, std::vector<double> &A, std::vector<double> &B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = ((double)i * (j + 2) + 2) / n;
      B[i * n + j] = ((double)i * (j + 3) + 3) / n;
    }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1300, steps = argc > 2 ? atoi(argv[2]) : 500;
  const size_t bytes = (size_t)n * n * sizeof(double);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs; n %d, steps %d\n", prop.name, prop.multiProcessorCount, n, steps);
  std::vector<double> hA(n * n), hB(n * n), rA(n * n), rB(n * n), oA(n * n), oB(n * n);
  double *A, *B, *X;
  CHECK(cudaMalloc(&A, bytes));
  CHECK(cudaMalloc(&B, bytes));
  CHECK(cudaMalloc(&X, (size_t)2 * 1024 * 2 * n * sizeof(double)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  init(n, hA, hB);
  auto reset = [&]() {
    CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
  };
  auto ms = [&]() { float t; CHECK(cudaEventElapsedTime(&t, e0, e1)); return t; };
  auto compare = [&](const char *what) {
    CHECK(cudaMemcpy(oA.data(), A, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oB.data(), B, bytes, cudaMemcpyDeviceToHost));
    const bool same = !memcmp(oA.data(), rA.data(), bytes) && !memcmp(oB.data(), rB.data(), bytes);
    printf("%-8s %s\n", what, same ? "equal to BASE bit for bit" : "DIFFERS from BASE");
  };
  const dim3 grid((n + 31) / 32, (n + 31) / 32), block(32, 8);
  const int reps = 5;
  // BASE, events around the loop
  float best = 1e30f;
  for (int r = 0; r < reps; r++) {
    reset();
    CHECK(cudaEventRecord(e0));
    for (int t = 0; t < steps; t++) {
      base_k<<<grid, block>>>(n, A, B);
      base_k<<<grid, block>>>(n, B, A);
    }
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    best = fmin(best, ms());
  }
  CHECK(cudaMemcpy(rA.data(), A, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rB.data(), B, bytes, cudaMemcpyDeviceToHost));
  printf("BASE     loop  %8.3f ms\n", best);
  // BASE as a graph
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  for (int t = 0; t < steps; t++) {
    base_k<<<grid, block, 0, st>>>(n, A, B);
    base_k<<<grid, block, 0, st>>>(n, B, A);
  }
  CHECK(cudaStreamEndCapture(st, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  best = 1e30f;
  for (int r = 0; r < reps; r++) {
    reset();
    CHECK(cudaEventRecord(e0, st));
    CHECK(cudaGraphLaunch(exec, st));
    CHECK(cudaEventRecord(e1, st));
    CHECK(cudaEventSynchronize(e1));
    best = fmin(best, ms());
  }
  printf("BASE     graph %8.3f ms\n", best);
  compare("BASE-g");
  // SYNC: barriers alone, one block an SM and as many as fit
  for (int per : {1, 2}) {
    const int blocks = per * prop.multiProcessorCount, threads = 1024 / per;
    int sweeps = 2 * steps;
    void *args[] = {&sweeps};
    best = 1e30f;
    for (int r = 0; r < reps; r++) {
      CHECK(cudaEventRecord(e0));
      CHECK(cudaLaunchCooperativeKernel((void *)sync_k, blocks, threads, args, 0, 0));
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      best = fmin(best, ms());
    }
    printf("SYNC     %3d blocks x %4d: %8.3f ms (%.2f us a barrier)\n", blocks, threads, best,
           1000.0 * best / sweeps);
  }
  // GLOBAL
  for (int per : {1, 2}) {
    const int blocks = per * prop.multiProcessorCount, threads = 1024 / per;
    int nn = n, ss = steps;
    void *args[] = {&nn, &ss, &A, &B};
    best = 1e30f;
    for (int r = 0; r < reps; r++) {
      reset();
      CHECK(cudaEventRecord(e0));
      CHECK(cudaLaunchCooperativeKernel((void *)global_k, blocks, threads, args, 0, 0));
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      best = fmin(best, ms());
    }
    printf("GLOBAL   %3d blocks x %4d: %8.3f ms\n", blocks, threads, best);
    compare("GLOBAL");
  }
  // SHARED: bands of R rows, one block an SM
  {
    constexpr int R = 10;
    const int bands = (n - 2 + R - 1) / R;
    const size_t smem = (size_t)(2 * R + 2) * n * sizeof(double);
    if (bands > prop.multiProcessorCount || smem > prop.sharedMemPerBlockOptin) {
      printf("SHARED   skipped: %d bands, %zu bytes of shared memory\n", bands, smem);
    } else {
      CHECK(cudaFuncSetAttribute(shared_k<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)smem));
      for (int threads : {1024, 640, 320}) {
        int nn = n, ss = steps;
        void *args[] = {&nn, &ss, &A, &B, &X};
        best = 1e30f;
        for (int r = 0; r < reps; r++) {
          reset();
          CHECK(cudaEventRecord(e0));
          CHECK(cudaLaunchCooperativeKernel((void *)shared_k<R>, bands, threads, args, smem, 0));
          CHECK(cudaEventRecord(e1));
          CHECK(cudaEventSynchronize(e1));
          best = fmin(best, ms());
        }
        printf("SHARED   %3d blocks x %4d, R %d, %zu B smem: %8.3f ms\n", bands, threads, R,
               smem, best);
        compare("SHARED");
      }
    }
  }
  return 0;
}
