// jacobi-2d with several sweeps a launch, streamed down the rows (issue 14's 3x for
// jacobi-2d; docs/results/time_tiling.md, session 35).  Written from the mathematics:
//
//   B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])  (1 <= i, j <= n-2)
//   A[i][j] = the same of B
//
// one sweep after the other, 2 * tsteps sweeps.  A launch runs S sweeps (S even):
// a block of BW threads owns BW columns (a thread a column) of a band of R rows and
// walks down the rows from S rows above the band to S rows below it.  Sweep s of a
// column keeps its last rows in registers (north, centre) and gets its west and
// east neighbours from shared memory, published by the neighbours one row step
// earlier (double-buffered: one barrier a row step for all S sweeps).  Each sweep
// loses a column at each side of the block, so the BW - 2S columns in the middle
// are stored; cells on the array's border keep their values (A's or B's).
// Every sum is added in the original's order, so A and B must equal the plain
// kernels' (BASE: one launch a sweep) bit for bit.
//
//   nvcc -O3 -arch=sm_90 scripts/stream_stencil_probe.cu -o ssp && ./ssp 1300 500
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void sweep(int n, const double *__restrict__ from, double *__restrict__ to)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1, i = blockIdx.y + 1;
  if (j <= n - 2 && i <= n - 2)
    to[i * n + j] = 0.2 * (from[i * n + j] + from[i * n + j - 1] + from[i * n + j + 1] +
                           from[(i + 1) * n + j] + from[(i - 1) * n + j]);
}

// S sweeps of the band of rows [i0, i0 + R) and columns [j0, j0 + BW - 2S) of each
// block; `from` holds A, `to` receives A after the S sweeps, B (the last odd sweep)
// is stored only when `last` (no sweep reads B from memory; its border does not change).
template <int S, int BW, int R, int D>
__global__ void __launch_bounds__(BW) streamed(int n, const double *__restrict__ from,
                                               double *__restrict__ to, double *__restrict__ B,
                                               bool last)
{
  __shared__ double published[2][S][BW + 2];
  const int p = threadIdx.x;
  const int col = blockIdx.x * (BW - 2 * S) - S + p;
  const int i0 = blockIdx.y * R;
  const bool inside = col >= 0 && col < n, border_col = col == 0 || col == n - 1;
  double north[S], centre[S];       // sweep s's input (s = 0: A) at rows y - 1 and y
#pragma unroll
  for (int s = 0; s < S; s++)
    north[s] = centre[s] = 0.0;
  for (int c = p; c < 2 * S * (BW + 2); c += BW)
    (&published[0][0][0])[c] = 0.0;
  __syncthreads();
  int buffer = 0;
  double ahead[D];                  // A's rows r .. r + D - 1, loaded D row steps early
#pragma unroll
  for (int d = 0; d < D; d++)
    ahead[d] = inside && i0 - S + d >= 0 && i0 - S + d < n ? from[(i0 - S + d) * n + col] : 0.0;
  for (int r = i0 - S; r < i0 + R + S; r++) {
    // v[s]: sweep s's value at row r - s (v[0]: A's row r)
    double v[S + 1];
    v[0] = ahead[0];
#pragma unroll
    for (int d = 0; d + 1 < D; d++)
      ahead[d] = ahead[d + 1];
    ahead[D - 1] = inside && r + D >= 0 && r + D < n ? from[(r + D) * n + col] : 0.0;
#pragma unroll
    for (int s = 1; s <= S; s++) {
      const int y = r - s;
      const double west = published[buffer][s - 1][p], east = published[buffer][s - 1][p + 2];
      if (!inside || y < 0 || y >= n)
        v[s] = 0.0;
      else if (border_col || y == 0 || y == n - 1)
        v[s] = s % 2 ? B[y * n + col] : from[y * n + col];
      else
        v[s] = 0.2 * (centre[s - 1] + west + east + v[s - 1] + north[s - 1]);
      if (s == S && y >= i0 && y < i0 + R && p >= S && p < BW - S && inside && !border_col &&
          y > 0 && y < n - 1) {
        to[y * n + col] = v[S];
        if (last)
          B[y * n + col] = centre[S - 1];
      }
    }
    buffer ^= 1;
#pragma unroll
    for (int s = 0; s < S; s++) {
      north[s] = centre[s];
      centre[s] = v[s];
      published[buffer][s][p + 1] = v[s];
    }
    __syncthreads();
  }
}

typedef void (*launcher)(int n, int sweeps, double *A, double *A2, double *B);

static void base(int n, int sweeps, double *A, double *, double *B)
{
  for (int k = 0; k < sweeps; k += 2) {
    sweep<<<dim3((n - 2 + 127) / 128, n - 2), 128>>>(n, A, B);
    sweep<<<dim3((n - 2 + 127) / 128, n - 2), 128>>>(n, B, A);
  }
}

template <int S, int BW, int R, int D = 1>
static void streamed_run(int n, int sweeps, double *A, double *A2, double *B)
{
  const dim3 grid((n + BW - 2 * S - 1) / (BW - 2 * S), (n + R - 1) / R);
  double *from = A, *to = A2;
  for (int k = 0; k < sweeps; k += S) {
    streamed<S, BW, R, D><<<grid, BW>>>(n, from, to, B, k + S == sweeps);
    std::swap(from, to);
  }
  if (from != A)
    cudaMemcpyAsync(A, from, (size_t)n * n * sizeof(double), cudaMemcpyDeviceToDevice);
}

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 1300, tsteps = argc > 2 ? atoi(argv[2]) : 500;
  const int sweeps = 2 * tsteps;
  const size_t bytes = (size_t)n * n * sizeof(double);
  std::vector<double> A0((size_t)n * n), B0((size_t)n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A0[(size_t)i * n + j] = ((double)i * (j + 2) + 2) / n;
      B0[(size_t)i * n + j] = ((double)i * (j + 3) + 3) / n;
    }
  double *A, *A2, *B;
  cudaMalloc(&A, bytes);
  cudaMalloc(&A2, bytes);
  cudaMalloc(&B, bytes);
  struct { const char *name; launcher run; int per_launch; } runs[] = {
      {"BASE: one launch a sweep, 128 threads", base, 1},
      {"streamed, 4 sweeps, 128 columns, 32 rows", streamed_run<4, 128, 32>, 4},
      {"  the same, A loaded 2 rows ahead", streamed_run<4, 128, 32, 2>, 4},
      {"  the same, A loaded 4 rows ahead", streamed_run<4, 128, 32, 4>, 4},
      {"streamed, 4 sweeps, 64 columns, 32 rows, 4 ahead", streamed_run<4, 64, 32, 4>, 4},
      {"streamed, 4 sweeps, 128 columns, 16 rows, 4 ahead", streamed_run<4, 128, 16, 4>, 4},
      {"streamed, 8 sweeps, 128 columns, 32 rows, 4 ahead", streamed_run<8, 128, 32, 4>, 8},
      {"streamed, 8 sweeps, 256 columns, 64 rows, 4 ahead", streamed_run<8, 256, 64, 4>, 8},
      {"streamed, 8 sweeps, 256 columns, 64 rows, 8 ahead", streamed_run<8, 256, 64, 8>, 8},
      {"streamed, 2 sweeps, 128 columns, 32 rows, 4 ahead", streamed_run<2, 128, 32, 4>, 2},
      {"streamed, 2 sweeps, 128 columns, 16 rows, 4 ahead", streamed_run<2, 128, 16, 4>, 2},
  };
  std::vector<double> refA((size_t)n * n), refB((size_t)n * n), outA((size_t)n * n),
      outB((size_t)n * n);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float base_ms = 0;
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    if (sweeps % runs[k].per_launch)
      continue;
    std::vector<float> ms;
    for (int rep = 0; rep < 5; rep++) {
      cudaMemcpy(A, A0.data(), bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(A2, A0.data(), bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(B, B0.data(), bytes, cudaMemcpyHostToDevice);
      cudaEventRecord(start);
      runs[k].run(n, sweeps, A, A2, B);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaMemcpy(outA.data(), A, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(outB.data(), B, bytes, cudaMemcpyDeviceToHost);
    const char *check = "";
    if (k == 0) {
      refA = outA;
      refB = outB;
    } else {
      check = memcmp(refA.data(), outA.data(), bytes) == 0 &&
              memcmp(refB.data(), outB.data(), bytes) == 0 ? "  A and B equal BASE's" : "  DIFFERS";
    }
    if (k == 0)
      base_ms = ms[ms.size() / 2];
    printf("%-52s %8.3f ms  %5.2fx%s\n", runs[k].name, ms[ms.size() / 2],
           base_ms / ms[ms.size() / 2], check);
  }
  cudaError_t e = cudaGetLastError();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
