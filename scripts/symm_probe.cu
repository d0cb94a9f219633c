// symm at LARGE (m = 1000, n = 1200) by hand: how fast a register tile over rows can
// run it, the order of every sum kept (each output's bits equal to the generated
// kernel's; checked against the original C order on the CPU with CHECK=1).
//
// Each thread holds an LI x LJ tile of outputs (16 x 16 threads a block); A's and
// B's strips of 16 go through shared memory, zero-filled outside the arrays, so a
// block at the edge runs the same code as the others.  The strips before the
// block's diagonal (every lane runs temp2's sum) and after it (every lane runs
// C's) run without guards; only the strips of the diagonal test each lane.
//   fission: temp2 in one kernel, C (the diagonal statement, then its sum) in a
//            second, each with one accumulator tile;
//   fused:   both in one kernel, two accumulator tiles.
// docs/results/memory.md (session 32) has the figures.
//   nvcc -O3 -arch=sm_90 -DLI=2 -DLJ=4 scripts/symm_probe.cu -o symm_probe && ./symm_probe
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cstdint>
#include <cmath>
#ifndef LI
#define LI 4
#endif
#ifndef LJ
#define LJ 4
#endif
#define S 16
// A thread's LI x LJ outputs (rows R0 + ty + 16 a, columns J0 + tx + 16 b) from and to X.
__device__ void load_tile(double (*acc)[LJ], const double *X, int m, int n, int R0, int J0, int tx, int ty) {
#pragma unroll
  for (int a = 0; a < LI; a++)
#pragma unroll
    for (int b = 0; b < LJ; b++) { int i = R0 + ty + 16 * a, j = J0 + tx + 16 * b;
      acc[a][b] = (i < m && j < n) ? X[i * n + j] : 0.0; }
}
__device__ void store_tile(double *X, double (*acc)[LJ], int m, int n, int R0, int J0, int tx, int ty) {
#pragma unroll
  for (int a = 0; a < LI; a++)
#pragma unroll
    for (int b = 0; b < LJ; b++) { int i = R0 + ty + 16 * a, j = J0 + tx + 16 * b;
      if (i < m && j < n) X[i * n + j] = acc[a][b]; }
}
// The block's strips of 16 rows t of B (columns J0..) and of A, by rows of the tile
// (A[R0 + r][t], temp2's operand) or by its columns (A[t][R0 + r], C's), zero outside.
__device__ void load_b(double (*Bs)[16 * LJ + 1], const double *B, int m, int n, int c, int J0, int tid) {
  for (int e = tid; e < S * 16 * LJ; e += 256) { int k = e / (16 * LJ), j = e % (16 * LJ);
    Bs[k][j] = (S * c + k < m && J0 + j < n) ? B[(S * c + k) * n + J0 + j] : 0.0; }
}
__device__ void load_rows(double (*Ar)[S + 1], const double *A, int m, int c, int R0, int tid) {
  for (int e = tid; e < 16 * LI * S; e += 256) { int r = e / S, k = e % S;
    Ar[r][k] = (R0 + r < m && S * c + k < m) ? A[(R0 + r) * m + S * c + k] : 0.0; }
}
__device__ void load_columns(double (*Ac)[16 * LI + 1], const double *A, int m, int c, int R0, int tid) {
  for (int e = tid; e < S * 16 * LI; e += 256) { int k = e / (16 * LI), r = e % (16 * LI);
    Ac[k][r] = (S * c + k < m && R0 + r < m) ? A[(S * c + k) * m + R0 + r] : 0.0; }
}
// C's sum over the kn rows of a strip after the tile's diagonal: every lane runs it.
__device__ void c_strip(double (*acc)[LJ], double (*Bs)[16 * LJ + 1], double (*Ac)[16 * LI + 1],
                        double alpha, int kn, int tx, int ty) {
  if (kn == S) {
#pragma unroll
    for (int k = 0; k < S; k++)
#pragma unroll
      for (int b = 0; b < LJ; b++) { const double ab = alpha * Bs[k][tx + 16 * b];
#pragma unroll
        for (int a = 0; a < LI; a++) acc[a][b] += ab * Ac[k][ty + 16 * a]; }
  } else {
    for (int k = 0; k < kn; k++)
#pragma unroll
      for (int b = 0; b < LJ; b++) { const double ab = alpha * Bs[k][tx + 16 * b];
#pragma unroll
        for (int a = 0; a < LI; a++) acc[a][b] += ab * Ac[k][ty + 16 * a]; }
  }
}
// temp2[i][j] = sum_{k < i} B[k][j] * A[i][k], k ascending
__global__ void __launch_bounds__(256) temp2_kernel(int m, int n, const double *__restrict__ A,
    const double *__restrict__ B, double *__restrict__ T) {
  __shared__ double As[16 * LI][S + 1];
  __shared__ double Bs[S][16 * LJ + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int R0 = blockIdx.y * 16 * LI, J0 = blockIdx.x * 16 * LJ;
  double acc[LI][LJ];
#pragma unroll
  for (int a = 0; a < LI; a++)
#pragma unroll
    for (int b = 0; b < LJ; b++) acc[a][b] = 0;
  const int rows = min(R0 + 16 * LI, m);          // rows of the tile in range
  if (rows - 1 <= 0 && R0 >= rows) return;
  const int strips = (rows - 2) / S + 1;          // t <= rows - 2
  for (int c = 0; c < strips && rows >= 2; c++) {
    __syncthreads();
    load_b(Bs, B, m, n, c, J0, tid);
    load_rows(As, A, m, c, R0, tid);
    __syncthreads();
    if (S * c + S - 1 < R0) {          // every lane: t < R0 <= its row
#pragma unroll
      for (int k = 0; k < S; k++)
#pragma unroll
        for (int a = 0; a < LI; a++)
#pragma unroll
          for (int b = 0; b < LJ; b++) acc[a][b] += Bs[k][tx + 16 * b] * As[ty + 16 * a][k];
    } else {
      for (int k = 0; k < S; k++) { const int t = S * c + k;
#pragma unroll
        for (int a = 0; a < LI; a++) if (t < R0 + ty + 16 * a)
#pragma unroll
          for (int b = 0; b < LJ; b++) acc[a][b] += Bs[k][tx + 16 * b] * As[ty + 16 * a][k];
      }
    }
  }
  store_tile(T, acc, m, n, R0, J0, tx, ty);
}
// C[i][j] = beta C + alpha B[i][j] A[i][i] + alpha temp2[i][j]; then C[i][j] += alpha B[t][j] A[t][i], t > i ascending
__global__ void __launch_bounds__(256) c_kernel(int m, int n, double alpha, double beta,
    const double *__restrict__ A, const double *__restrict__ B, const double *__restrict__ T,
    double *__restrict__ C) {
  __shared__ double As[S][16 * LI + 1];
  __shared__ double Bs[S][16 * LJ + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int R0 = blockIdx.y * 16 * LI, J0 = blockIdx.x * 16 * LJ;
  double acc[LI][LJ];
  load_tile(acc, C, m, n, R0, J0, tx, ty);
  for (int c = R0 / S; c <= (m - 1) / S; c++) {
    __syncthreads();
    load_b(Bs, B, m, n, c, J0, tid);
    load_columns(As, A, m, c, R0, tid);
    __syncthreads();
    if (S * c >= R0 + 16 * LI) {     // every lane: t > its row
      c_strip(acc, Bs, As, alpha, min(S, m - S * c), tx, ty);
    } else {
      for (int k = 0; k < S && S * c + k < m; k++) { const int t = S * c + k;
#pragma unroll
        for (int a = 0; a < LI; a++) { const int i = R0 + ty + 16 * a;
#pragma unroll
          for (int b = 0; b < LJ; b++) { const int j = J0 + tx + 16 * b;
            if (i < m && j < n) {
              if (t == i) acc[a][b] = beta * acc[a][b] + alpha * Bs[k][tx + 16 * b] * A[i * m + i] + alpha * T[i * n + j];
              else if (t > i) acc[a][b] += alpha * Bs[k][tx + 16 * b] * As[k][ty + 16 * a];
            } } } }
    }
  }
  store_tile(C, acc, m, n, R0, J0, tx, ty);
}

// Both in one kernel: temp2 (rows' strips before the diagonal), S3 on it, then C.
__global__ void __launch_bounds__(256) fused_kernel(int m, int n, double alpha, double beta,
    const double *__restrict__ A, const double *__restrict__ B, double *__restrict__ C) {
  __shared__ double Ar[16 * LI][S + 1];     // A[R0 + r][t]: temp2's operand
  __shared__ double Ac[S][16 * LI + 1];     // A[t][R0 + r]: C's operand
  __shared__ double Bs[S][16 * LJ + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int R0 = blockIdx.y * 16 * LI, J0 = blockIdx.x * 16 * LJ;
  double acc[LI][LJ], tmp[LI][LJ];
  load_tile(acc, C, m, n, R0, J0, tx, ty);
#pragma unroll
  for (int a = 0; a < LI; a++)
#pragma unroll
    for (int b = 0; b < LJ; b++) tmp[a][b] = 0;
  for (int c = 0; c <= (m - 1) / S; c++) {
    const bool before = S * c + S - 1 < R0, after = S * c >= R0 + 16 * LI;
    __syncthreads();
    load_b(Bs, B, m, n, c, J0, tid);
    if (!after) load_rows(Ar, A, m, c, R0, tid);
    if (!before) load_columns(Ac, A, m, c, R0, tid);
    __syncthreads();
    if (before) {
#pragma unroll
      for (int k = 0; k < S; k++)
#pragma unroll
        for (int a = 0; a < LI; a++)
#pragma unroll
          for (int b = 0; b < LJ; b++) tmp[a][b] += Bs[k][tx + 16 * b] * Ar[ty + 16 * a][k];
    } else if (after) {
      c_strip(acc, Bs, Ac, alpha, min(S, m - S * c), tx, ty);
    } else {
      for (int k = 0; k < S && S * c + k < m; k++) { const int t = S * c + k;
#pragma unroll
        for (int a = 0; a < LI; a++) { const int i = R0 + ty + 16 * a;
#pragma unroll
          for (int b = 0; b < LJ; b++) {
            if (t < i) tmp[a][b] += Bs[k][tx + 16 * b] * Ar[ty + 16 * a][k];
            else if (t == i) acc[a][b] = beta * acc[a][b] + alpha * Bs[k][tx + 16 * b] * Ar[ty + 16 * a][k] + alpha * tmp[a][b];
            else acc[a][b] += alpha * Bs[k][tx + 16 * b] * Ac[k][ty + 16 * a];
          } } }
    }
  }
  store_tile(C, acc, m, n, R0, J0, tx, ty);
}
int main() {
  const int m = 1000, n = 1200;
  std::vector<double> A(m * m), B(m * n), C(m * n);
  uint64_t s = 42;
  auto rnd = [&]() { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return (double)((s >> 11) & 0xfffff) / 1048576.0 - 0.5; };
  for (auto &x : A) x = rnd(); for (auto &x : B) x = rnd(); for (auto &x : C) x = rnd();
  double *dA, *dB, *dC, *dT;
  cudaMalloc(&dA, A.size() * 8); cudaMalloc(&dB, B.size() * 8); cudaMalloc(&dC, C.size() * 8); cudaMalloc(&dT, C.size() * 8);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice);
  cudaEvent_t e0, e1, e2; cudaEventCreate(&e0); cudaEventCreate(&e1); cudaEventCreate(&e2);
  std::vector<float> t1, t2, tt;
  dim3 grid((n - 1) / (16 * LJ) + 1, (m - 1) / (16 * LI) + 1), block(16, 16);
  for (int r = 0; r < 16; r++) {
    cudaMemcpy(dC, C.data(), C.size() * 8, cudaMemcpyHostToDevice);
    cudaEventRecord(e0);
    temp2_kernel<<<grid, block>>>(m, n, dA, dB, dT);
    cudaEventRecord(e1);
    c_kernel<<<grid, block>>>(m, n, 1.5, 1.2, dA, dB, dT, dC);
    cudaEventRecord(e2); cudaEventSynchronize(e2);
    float a, b, c; cudaEventElapsedTime(&a, e0, e1); cudaEventElapsedTime(&b, e1, e2); cudaEventElapsedTime(&c, e0, e2);
    if (r) { t1.push_back(a); t2.push_back(b); tt.push_back(c); }
  }
  std::vector<float> tf;
  for (int r = 0; r < 16; r++) {
    cudaMemcpy(dC, C.data(), C.size() * 8, cudaMemcpyHostToDevice);
    cudaEventRecord(e0);
    fused_kernel<<<grid, block>>>(m, n, 1.5, 1.2, dA, dB, dC);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float a; cudaEventElapsedTime(&a, e0, e1); if (r) tf.push_back(a);
  }
  std::sort(tf.begin(), tf.end());
  { std::vector<double> o2(C.size()); cudaMemcpy(o2.data(), dC, C.size() * 8, cudaMemcpyDeviceToHost);
    uint64_t h2 = 1469598103934665603ULL;
    for (double v : o2) { uint64_t b; memcpy(&b, &v, 8); h2 = (h2 ^ b) * 1099511628211ULL; }
    printf("fused %dx%d: %.4f ms hash %016llx\n", LI, LJ, tf[7], (unsigned long long)h2); }
  cudaMemcpy(dC, C.data(), C.size() * 8, cudaMemcpyHostToDevice);
  temp2_kernel<<<grid, block>>>(m, n, dA, dB, dT);
  c_kernel<<<grid, block>>>(m, n, 1.5, 1.2, dA, dB, dT, dC);
  cudaError_t err = cudaGetLastError();
  std::vector<double> out(C.size());
  cudaMemcpy(out.data(), dC, C.size() * 8, cudaMemcpyDeviceToHost);
  uint64_t h = 1469598103934665603ULL;
  for (double v : out) { uint64_t b; memcpy(&b, &v, 8); h = (h ^ b) * 1099511628211ULL; }
  std::sort(t1.begin(), t1.end()); std::sort(t2.begin(), t2.end()); std::sort(tt.begin(), tt.end());
  printf("fission %dx%d: temp2 %.4f ms, C %.4f ms, both %.4f ms hash %016llx %s\n", LI, LJ, t1[7], t2[7], tt[7], (unsigned long long)h, cudaGetErrorString(err));
  if (getenv("CHECK")) {
    std::vector<double> c = C;
    for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double temp2 = 0;
      for (int k = 0; k < i; k++) { c[k * n + j] += 1.5 * B[i * n + j] * A[i * m + k]; temp2 += B[k * n + j] * A[i * m + k]; }
      c[i * n + j] = 1.2 * c[i * n + j] + 1.5 * B[i * n + j] * A[i * m + i] + 1.5 * temp2; }
    double worst = 0; for (size_t i = 0; i < c.size(); i++) worst = std::max(worst, fabs(c[i] - out[i]) / (fabs(c[i]) + 1e-30));
    printf("max rel err vs CPU %.3g\n", worst);
  }
}
