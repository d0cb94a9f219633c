// adi probe (session 20, docs/results/async_copies.md): what bounds adi's column sweep,
// polycu's kernel1 at LARGE (1000 threads, one a row)?  Build here, run on the device:
//     nvcc -O3 -arch=sm_90 -o adi_probe scripts/adi_probe.cu && ./adi_probe
#include <cstdio>
#include <cuda_runtime.h>
#define N 1000
// Row i of p and q at column j: polycu's layout (thread i walks its row, stride N
// across a warp) or transposed (coalesced).
template <bool T>
__device__ inline int at(int i, int j) { return T ? j * N + i : i * N + j; }
// (a) as generated, B threads a block, (c) with T: p and q transposed; memory chains kept
template <int B, bool T>
__global__ void k_gen(int n, double a, double b, double c, double d, double f,
                      double *__restrict__ v, double *__restrict__ p, double *__restrict__ q,
                      const double *__restrict__ u) {
  int i = B * blockIdx.x + threadIdx.x;
  if (!(n >= i + 2 && i >= 1)) return;
  v[(n - 1) * N + i] = 1.0; p[at<T>(i, 0)] = 0.0; v[i] = 1.0; q[at<T>(i, 0)] = v[i];
  for (int j = 1; j <= n - 2; j++) {
    q[at<T>(i, j)] = (((-d) * u[j * N + i - 1] + (1.0 + 2.0 * d) * u[j * N + i]) - f * u[j * N + i + 1] - a * q[at<T>(i, j - 1)]) / (a * p[at<T>(i, j - 1)] + b);
    p[at<T>(i, j)] = (-c) / (a * p[at<T>(i, j - 1)] + b);
  }
  for (int j = n - 2; j >= 1; j--) v[j * N + i] = p[at<T>(i, j)] * v[(j + 1) * N + i] + q[at<T>(i, j)];
}
// (b) the carried values in registers (scalar replacement), (d) with T: transposed too
template <bool T>
__global__ void k_reg(int n, double a, double b, double c, double d, double f,
                      double *__restrict__ v, double *__restrict__ p, double *__restrict__ q,
                      const double *__restrict__ u) {
  int i = 32 * blockIdx.x + threadIdx.x;
  if (!(n >= i + 2 && i >= 1)) return;
  v[(n - 1) * N + i] = 1.0; p[at<T>(i, 0)] = 0.0; v[i] = 1.0; q[at<T>(i, 0)] = 1.0;
  double rp = 0.0, rq = 1.0;
  for (int j = 1; j <= n - 2; j++) {
    double nq = (((-d) * u[j * N + i - 1] + (1.0 + 2.0 * d) * u[j * N + i]) - f * u[j * N + i + 1] - a * rq) / (a * rp + b);
    double np = (-c) / (a * rp + b);
    q[at<T>(i, j)] = nq; p[at<T>(i, j)] = np; rq = nq; rp = np;
  }
  double rv = 1.0;
  for (int j = n - 2; j >= 1; j--) { rv = p[at<T>(i, j)] * rv + q[at<T>(i, j)]; v[j * N + i] = rv; }
}
typedef void (*K)(int, double, double, double, double, double, double *, double *, double *, const double *);
int main() {
  size_t bytes = (size_t)N * N * sizeof(double);
  double *v, *p, *q, *u;
  cudaMalloc(&v, bytes); cudaMalloc(&p, bytes); cudaMalloc(&q, bytes); cudaMalloc(&u, bytes);
  cudaMemset(u, 0, bytes); cudaMemset(p, 0, bytes); cudaMemset(q, 0, bytes); cudaMemset(v, 0, bytes);
  K ks[] = {k_gen<32, false>, k_reg<false>, k_gen<32, true>, k_reg<true>, k_gen<8, false>, k_gen<4, false>};
  const char *names[] = {"generated", "registers", "transposed", "transposed+registers", "gen blocks of 8", "gen blocks of 4"};
  int bs[] = {32, 32, 32, 32, 8, 4};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int t = 0; t < 6; t++) {
    for (int w = 0; w < 3; w++) ks[t]<<<(N + bs[t] - 1) / bs[t], bs[t]>>>(N, -0.1, 1.2, -0.1, -0.05, -0.05, v, p, q, u);
    cudaEventRecord(e0);
    for (int r = 0; r < 50; r++) ks[t]<<<(N + bs[t] - 1) / bs[t], bs[t]>>>(N, -0.1, 1.2, -0.1, -0.05, -0.05, v, p, q, u);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("%-22s %8.1f us per launch\n", names[t], 1000.0 * ms / 50);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
