// adi probe (session 20, docs/results/async_copies.md): what bounds adi's column sweep,
// polycu's kernel1 at LARGE (1000 threads, one a row)?  Build here, run on the device:
//     nvcc -O3 -arch=sm_90 -o adi_probe scripts/adi_probe.cu && ./adi_probe
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#define N 1000
// Row i of p and q at column j: polycu's layout (thread i walks its row, stride N
// across a warp) or transposed (coalesced).
template <bool T>
__device__ inline int at(int i, int j) { return T ? j * N + i : i * N + j; }
// (a) as generated, B threads a block, (c) with T: p and q transposed; memory chains kept
template <int B, bool T, int U = 1>
__global__ void k_gen(int n, double a, double b, double c, double d, double f,
                      double *__restrict__ v, double *__restrict__ p, double *__restrict__ q,
                      const double *__restrict__ u) {
  int i = B * blockIdx.x + threadIdx.x;
  if (!(n >= i + 2 && i >= 1)) return;
  v[(n - 1) * N + i] = 1.0; p[at<T>(i, 0)] = 0.0; v[i] = 1.0; q[at<T>(i, 0)] = v[i];
#pragma unroll U
  for (int j = 1; j <= n - 2; j++) {
    q[at<T>(i, j)] = (((-d) * u[j * N + i - 1] + (1.0 + 2.0 * d) * u[j * N + i]) - f * u[j * N + i + 1] - a * q[at<T>(i, j - 1)]) / (a * p[at<T>(i, j - 1)] + b);
    p[at<T>(i, j)] = (-c) / (a * p[at<T>(i, j - 1)] + b);
  }
#pragma unroll U
  for (int j = n - 2; j >= 1; j--) v[j * N + i] = p[at<T>(i, j)] * v[(j + 1) * N + i] + q[at<T>(i, j)];
}
// (b) the carried values in registers (scalar replacement), (d) with T: transposed too
template <bool T, int U = 1>
__global__ void k_reg(int n, double a, double b, double c, double d, double f,
                      double *__restrict__ v, double *__restrict__ p, double *__restrict__ q,
                      const double *__restrict__ u) {
  int i = 32 * blockIdx.x + threadIdx.x;
  if (!(n >= i + 2 && i >= 1)) return;
  v[(n - 1) * N + i] = 1.0; p[at<T>(i, 0)] = 0.0; v[i] = 1.0; q[at<T>(i, 0)] = 1.0;
  double rp = 0.0, rq = 1.0;
#pragma unroll U
  for (int j = 1; j <= n - 2; j++) {
    double nq = (((-d) * u[j * N + i - 1] + (1.0 + 2.0 * d) * u[j * N + i]) - f * u[j * N + i + 1] - a * rq) / (a * rp + b);
    double np = (-c) / (a * rp + b);
    q[at<T>(i, j)] = nq; p[at<T>(i, j)] = np; rq = nq; rp = np;
  }
  double rv = 1.0;
#pragma unroll U
  for (int j = n - 2; j >= 1; j--) { rv = p[at<T>(i, j)] * rv + q[at<T>(i, j)]; v[j * N + i] = rv; }
}
// (e) the loads that do not depend on the recurrence issued D iterations ahead into
// a ring of registers (u in the forward loop, p and q in the backward one)
template <int D>
__global__ void k_ahead(int n, double a, double b, double c, double d, double f,
                        double *__restrict__ v, double *__restrict__ p, double *__restrict__ q,
                        const double *__restrict__ u) {
  int i = 32 * blockIdx.x + threadIdx.x;
  if (!(n >= i + 2 && i >= 1)) return;
  v[(n - 1) * N + i] = 1.0; p[i * N] = 0.0; v[i] = 1.0; q[i * N] = v[i];
  double ul[D], uc[D], ur[D];
#pragma unroll
  for (int s = 0; s < D; s++) {
    const int j = 1 + s;
    ul[s] = j <= n - 2 ? u[j * N + i - 1] : 0.0;
    uc[s] = j <= n - 2 ? u[j * N + i] : 0.0;
    ur[s] = j <= n - 2 ? u[j * N + i + 1] : 0.0;
  }
  for (int j0 = 1; j0 <= n - 2; j0 += D) {
#pragma unroll
    for (int s = 0; s < D; s++) {
      const int j = j0 + s;
      if (j <= n - 2) {
        const double l = ul[s], m = uc[s], r = ur[s];
        const int jn = j + D;
        ul[s] = jn <= n - 2 ? u[jn * N + i - 1] : 0.0;
        uc[s] = jn <= n - 2 ? u[jn * N + i] : 0.0;
        ur[s] = jn <= n - 2 ? u[jn * N + i + 1] : 0.0;
        q[i * N + j] = (((-d) * l + (1.0 + 2.0 * d) * m) - f * r - a * q[i * N + j - 1]) / (a * p[i * N + j - 1] + b);
        p[i * N + j] = (-c) / (a * p[i * N + j - 1] + b);
      }
    }
  }
  double pp[D], qq[D];
#pragma unroll
  for (int s = 0; s < D; s++) {
    const int j = n - 2 - s;
    pp[s] = j >= 1 ? p[i * N + j] : 0.0;
    qq[s] = j >= 1 ? q[i * N + j] : 0.0;
  }
  for (int j0 = n - 2; j0 >= 1; j0 -= D) {
#pragma unroll
    for (int s = 0; s < D; s++) {
      const int j = j0 - s;
      if (j >= 1) {
        const double x = pp[s], y = qq[s];
        const int jn = j - D;
        pp[s] = jn >= 1 ? p[i * N + jn] : 0.0;
        qq[s] = jn >= 1 ? q[i * N + jn] : 0.0;
        v[j * N + i] = x * v[(j + 1) * N + i] + y;
      }
    }
  }
}
typedef void (*K)(int, double, double, double, double, double, double *, double *, double *, const double *);
int main() {
  size_t bytes = (size_t)N * N * sizeof(double);
  double *v, *p, *q, *u;
  cudaMalloc(&v, bytes); cudaMalloc(&p, bytes); cudaMalloc(&q, bytes); cudaMalloc(&u, bytes);
  {  // u random, the rest zero; every variant's v is compared with the first's
    double *h = new double[(size_t)N * N];
    for (size_t e = 0; e < (size_t)N * N; e++) h[e] = (double)((e * 2654435761u) % 1000) / 1000.0 - 0.5;
    cudaMemcpy(u, h, bytes, cudaMemcpyHostToDevice);
    delete[] h;
  }
  double *want = new double[(size_t)N * N], *got = new double[(size_t)N * N];
  cudaMemset(p, 0, bytes); cudaMemset(q, 0, bytes); cudaMemset(v, 0, bytes);
  K ks[] = {k_gen<32, false>, k_reg<false>, k_gen<32, true>, k_reg<true>, k_gen<8, false>, k_gen<4, false>,
             k_gen<32, false, 8>, k_reg<false, 8>, k_ahead<4>, k_ahead<8>, k_ahead<16>};
  const char *names[] = {"generated", "registers", "transposed", "transposed+registers", "gen blocks of 8", "gen blocks of 4",
                         "generated, unroll 8", "registers, unroll 8", "loads 4 ahead", "loads 8 ahead", "loads 16 ahead"};
  int bs[] = {32, 32, 32, 32, 8, 4, 32, 32, 32, 32, 32};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int t = 0; t < 11; t++) {
    for (int w = 0; w < 3; w++) ks[t]<<<(N + bs[t] - 1) / bs[t], bs[t]>>>(N, -0.1, 1.2, -0.1, -0.05, -0.05, v, p, q, u);
    cudaEventRecord(e0);
    for (int r = 0; r < 50; r++) ks[t]<<<(N + bs[t] - 1) / bs[t], bs[t]>>>(N, -0.1, 1.2, -0.1, -0.05, -0.05, v, p, q, u);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(t ? got : want, v, bytes, cudaMemcpyDeviceToHost);
    bool same = t == 0 || memcmp(got, want, bytes) == 0;
    printf("%-22s %8.1f us per launch, v %s\n", names[t], 1000.0 * ms / 50, same ? "equal" : "DIFFERS");
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
