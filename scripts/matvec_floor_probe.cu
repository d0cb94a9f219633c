// The matrix-vector kernels' floor on one GPU (issue 12, session 34;
// docs/results/memory.md, "The matrix-vector kernels' floor").  For a 1900 x 2100
// double matrix (atax's, bicg's at LARGE): an empty launch, cudaMemcpy device to
// device, a flat streaming read (the best one pass can do), row sums (y = A x: a
// warp a row, or a block a row) and column sums (y = A^T x: columns along x, slices
// of the rows along y; and the rows cut among blocks, their partial sums combined
// by a second launch), each with its loads unrolled U times and its partial sums in
// ACC accumulators (the sums are reordered: each result is checked against the CPU's
// to a relative error of about 1e-11).  CUDA events around each launch, median of
// 15, with the L2 cache flushed by a 200 MB write first ("cold") and right after a
// first run ("L2-warm").
//
//   nvcc -O3 -arch=sm_90 --fmad=false -std=c++17 -o mvp scripts/matvec_floor_probe.cu && ./mvp
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

// sum over k = k0, k0 + step, ... < end of a[k * a_stride] * x[k]: U loads in flight,
// the products added into ACC accumulators, then the accumulators in order
template <int U, int ACC>
__device__ double strided_dot(const double *__restrict__ a, int a_stride,
                              const double *__restrict__ x, int k0, int end, int step) {
  double p[ACC];
  #pragma unroll
  for (int c = 0; c < ACC; c++) p[c] = -0.0;
  int k = k0;
  for (; k + step * (U - 1) < end; k += step * U) {
    double t[U];
    #pragma unroll
    for (int u = 0; u < U; u++) t[u] = a[(k + step * u) * a_stride] * x[k + step * u];
    #pragma unroll
    for (int u = 0; u < U; u++) p[u % ACC] = p[u % ACC] + t[u];
  }
  for (; k < end; k += step) p[0] = p[0] + a[k * a_stride] * x[k];
  double q = p[0];
  #pragma unroll
  for (int c = 1; c < ACC; c++) q = q + p[c];
  return q;
}

// warp per row, ROWS rows a block, each lane U loads in flight, ACC accumulators
template <int ROWS, int U, int ACC>
__global__ void __launch_bounds__(32 * ROWS) rowsum(int m, int n, const double *__restrict__ A,
    const double *__restrict__ x, double *__restrict__ y) {
  __shared__ double s[32 * ROWS];
  int lane = threadIdx.x, r = threadIdx.y, i = ROWS * blockIdx.x + r;
  double q = i < m ? strided_dot<U, ACC>(A + (size_t)i * n, 1, x, lane, n, 32) : -0.0;
  s[r * 32 + lane] = q;
  __syncthreads();
  for (int h = 16; h; h /= 2) { if (lane < h) s[r * 32 + lane] += s[r * 32 + lane + h]; __syncthreads(); }
  if (lane == 0 && i < m) y[i] = s[r * 32];
}

// COLS columns a block along x, S slices along y; each thread U loads in flight
template <int COLS, int S, int U, int ACC>
__global__ void __launch_bounds__(COLS * S) colsum(int m, int n, const double *__restrict__ A,
    const double *__restrict__ x, double *__restrict__ y) {
  __shared__ double s[COLS * S];
  int c = threadIdx.x, sl = threadIdx.y, j = COLS * blockIdx.x + c;
  double q = j < n ? strided_dot<U, ACC>(A + j, n, x, sl, m, S) : -0.0;
  s[sl * COLS + c] = q;
  __syncthreads();
  for (int h = S / 2; h; h /= 2) { if (sl < h) s[sl * COLS + c] += s[(sl + h) * COLS + c]; __syncthreads(); }
  if (sl == 0 && j < n) y[j] = s[c];
}


template <int T, int U>
__global__ void __launch_bounds__(T) rowblock(int m, int n, const double *__restrict__ A,
    const double *__restrict__ x, double *__restrict__ y) {
  __shared__ double s[T];
  int t = threadIdx.x, i = blockIdx.x;
  double p = -0.0;
  int k = t;
  for (; k + T * (U - 1) < n; k += T * U) {
    double v[U];
    #pragma unroll
    for (int u = 0; u < U; u++) v[u] = A[i * n + k + T * u] * x[k + T * u];
    #pragma unroll
    for (int u = 0; u < U; u++) p = p + v[u];
  }
  for (; k < n; k += T) p = p + A[i * n + k] * x[k];
  s[t] = p;
  __syncthreads();
  for (int h = T / 2; h; h /= 2) { if (t < h) s[t] += s[t + h]; __syncthreads(); }
  if (t == 0) y[i] = s[0];
}
__global__ void flat(size_t cnt, const double *__restrict__ A, double *__restrict__ y) {
  double p = 0;
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < cnt; e += (size_t)gridDim.x * blockDim.x) p += A[e];
  if (p == 12345.678) y[0] = p;
}
// COLS columns a block, S slices, the k range cut into KC chunks (blockIdx.y); partials then combined
template <int COLS, int S, int U>
__global__ void __launch_bounds__(COLS * S) colpart(int m, int n, const double *__restrict__ A,
    const double *__restrict__ x, double *__restrict__ part) {
  __shared__ double s[COLS * S];
  int c = threadIdx.x, sl = threadIdx.y, j = COLS * blockIdx.x + c;
  int per = (m + gridDim.y - 1) / gridDim.y, k0 = blockIdx.y * per, k1 = min(m, k0 + per);
  double p = -0.0;
  if (j < n) {
    int k = k0 + sl;
    for (; k + S * (U - 1) < k1; k += S * U) {
      double t[U];
      #pragma unroll
      for (int u = 0; u < U; u++) t[u] = A[(k + S * u) * n + j] * x[k + S * u];
      #pragma unroll
      for (int u = 0; u < U; u++) p = p + t[u];
    }
    for (; k < k1; k += S) p = p + A[k * n + j] * x[k];
  }
  s[sl * COLS + c] = p;
  __syncthreads();
  for (int h = S / 2; h; h /= 2) { if (sl < h) s[sl * COLS + c] += s[(sl + h) * COLS + c]; __syncthreads(); }
  if (sl == 0 && j < n) part[blockIdx.y * n + j] = s[c];
}
__global__ void combine(int n, int kc, const double *__restrict__ part, double *__restrict__ y) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) { double p = part[j]; for (int q = 1; q < kc; q++) p = p + part[q * n + j]; y[j] = p; }
}
double *dpart;


__global__ void empty() {}
template <int U>
__global__ void flatu(size_t cnt, const double *__restrict__ A, double *__restrict__ y) {
  size_t stride = (size_t)gridDim.x * blockDim.x, e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  double p = 0;
  for (; e + stride * (U - 1) < cnt; e += stride * U) {
    double v[U];
    #pragma unroll
    for (int u = 0; u < U; u++) v[u] = A[e + stride * u];
    #pragma unroll
    for (int u = 0; u < U; u++) p += v[u];
  }
  for (; e < cnt; e += stride) p += A[e];
  if (p == 12345.678) y[0] = p;
}

__global__ void touch(double *b, size_t n) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) b[i] += 1.0; }

int M = 1900, N = 2100;
double *dA, *dx, *dv, *dy, *dflush; std::vector<double> hA, hx, hv, refr, refc;
size_t nflush = 200u << 20 >> 3;

template <typename F>
void timeit(const char *name, F launch, bool row, int gridsz) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> cold, warm;
  for (int rep = 0; rep < 15; rep++) {
    touch<<<(nflush + 255) / 256, 256>>>(dflush, nflush);
    cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); cold.push_back(ms);
    cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
    cudaEventElapsedTime(&ms, a, b); warm.push_back(ms);
  }
  CK(cudaGetLastError());
  std::vector<double> out(row ? M : N);
  CK(cudaMemcpy(out.data(), dy, out.size() * 8, cudaMemcpyDeviceToHost));
  double err = 0; auto &ref = row ? refr : refc;
  for (size_t i = 0; i < out.size(); i++) err = std::max(err, std::fabs(out[i] - ref[i]) / (std::fabs(ref[i]) + 1e-300));
  std::sort(cold.begin(), cold.end()); std::sort(warm.begin(), warm.end());
  double bytes = (double)M * N * 8;
  printf("%-34s grid %5d  cold %.4f ms (%.2f TB/s)  L2-warm %.4f ms (%.2f TB/s)  relerr %.1e\n", name, gridsz,
         cold[7], bytes / cold[7] / 1e9, warm[7], bytes / warm[7] / 1e9, err);
}

#define ROW(R, U, ACC) timeit("row R=" #R " U=" #U " ACC=" #ACC, [&] { rowsum<R, U, ACC><<<(M + R - 1) / R, dim3(32, R)>>>(M, N, dA, dx, dy); }, true, (M + R - 1) / R)
#define COL(C, S, U, ACC) timeit("col C=" #C " S=" #S " U=" #U " ACC=" #ACC, [&] { colsum<C, S, U, ACC><<<(N + C - 1) / C, dim3(C, S)>>>(M, N, dA, dv, dy); }, false, (N + C - 1) / C)

int main() {
  hA.resize((size_t)M * N); hx.resize(N); hv.resize(M);
  srand(7);
  for (auto &v : hA) v = rand() / (double)RAND_MAX - 0.5;
  for (auto &v : hx) v = rand() / (double)RAND_MAX - 0.5;
  for (auto &v : hv) v = rand() / (double)RAND_MAX - 0.5;
  refr.assign(M, 0); refc.assign(N, 0);
  for (int i = 0; i < M; i++) for (int k = 0; k < N; k++) refr[i] += hA[(size_t)i * N + k] * hx[k];
  for (int k = 0; k < M; k++) for (int j = 0; j < N; j++) refc[j] += hA[(size_t)k * N + j] * hv[k];
  CK(cudaMalloc(&dA, hA.size() * 8)); CK(cudaMalloc(&dx, N * 8)); CK(cudaMalloc(&dv, M * 8));
  CK(cudaMalloc(&dy, N * 8)); CK(cudaMalloc(&dflush, nflush * 8)); CK(cudaMemset(dflush, 0, nflush * 8));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dx, hx.data(), N * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, hv.data(), M * 8, cudaMemcpyHostToDevice));

  CK(cudaMalloc(&dpart, 64 * N * 8));
  timeit("empty", [&] { empty<<<1, 32>>>(); }, true, 1);
  timeit("memcpy D2D 32MB (read+write)", [&] { cudaMemcpyAsync(dpart, dA, (size_t)16 * N * 8, cudaMemcpyDeviceToDevice); }, true, 0);
  { double *dB; CK(cudaMalloc(&dB, (size_t)M * N * 8));
    timeit("memcpy D2D full A (read+write)", [&] { cudaMemcpyAsync(dB, dA, (size_t)M * N * 8, cudaMemcpyDeviceToDevice); }, true, 0); }
  timeit("flatu<8> 528x256", [&] { flatu<8><<<528, 256>>>((size_t)M * N, dA, dy); }, true, 528);
  timeit("flatu<8> 1056x256", [&] { flatu<8><<<1056, 256>>>((size_t)M * N, dA, dy); }, true, 1056);
  timeit("flatu<4> 2112x256", [&] { flatu<4><<<2112, 256>>>((size_t)M * N, dA, dy); }, true, 2112);
  timeit("flatu<16> 264x512", [&] { flatu<16><<<264, 512>>>((size_t)M * N, dA, dy); }, true, 264);
  timeit("flatu<2> 7800x256", [&] { flatu<2><<<7800, 256>>>((size_t)M * N, dA, dy); }, true, 7800);

  timeit("flat 1056x256", [&] { flat<<<1056, 256>>>((size_t)M * N, dA, dy); }, true, 1056);
  timeit("flat 4224x256", [&] { flat<<<4224, 256>>>((size_t)M * N, dA, dy); }, true, 4224);
  timeit("rowblock T=64 U=4", [&] { rowblock<64, 4><<<M, 64>>>(M, N, dA, dx, dy); }, true, M);
  timeit("rowblock T=128 U=4", [&] { rowblock<128, 4><<<M, 128>>>(M, N, dA, dx, dy); }, true, M);
  timeit("rowblock T=128 U=8", [&] { rowblock<128, 8><<<M, 128>>>(M, N, dA, dx, dy); }, true, M);
  timeit("rowblock T=256 U=4", [&] { rowblock<256, 4><<<M, 256>>>(M, N, dA, dx, dy); }, true, M);
  timeit("rowblock T=256 U=8", [&] { rowblock<256, 8><<<M, 256>>>(M, N, dA, dx, dy); }, true, M);
  timeit("rowblock T=512 U=4", [&] { rowblock<512, 4><<<M, 512>>>(M, N, dA, dx, dy); }, true, M);
  for (int kc : {2, 4, 8, 16}) {
    char name[64];
    sprintf(name, "colpart 32x8 U=8 KC=%d", kc);
    timeit(name, [&] { colpart<32, 8, 8><<<dim3((N + 31) / 32, kc), dim3(32, 8)>>>(M, N, dA, dv, dpart); combine<<<(N + 127) / 128, 128>>>(N, kc, dpart, dy); }, false, kc * ((N + 31) / 32));
    sprintf(name, "colpart 16x16 U=8 KC=%d", kc);
    timeit(name, [&] { colpart<16, 16, 8><<<dim3((N + 15) / 16, kc), dim3(16, 16)>>>(M, N, dA, dv, dpart); combine<<<(N + 127) / 128, 128>>>(N, kc, dpart, dy); }, false, kc * ((N + 15) / 16));
    sprintf(name, "colpart 32x32 U=4 KC=%d", kc);
    timeit(name, [&] { colpart<32, 32, 4><<<dim3((N + 31) / 32, kc), dim3(32, 32)>>>(M, N, dA, dv, dpart); combine<<<(N + 127) / 128, 128>>>(N, kc, dpart, dy); }, false, kc * ((N + 31) / 32));
  }
  ROW(8, 4, 1); ROW(8, 8, 1); ROW(8, 16, 1); ROW(8, 8, 2); ROW(8, 16, 4);
  ROW(4, 8, 1); ROW(4, 16, 2); ROW(16, 8, 1); ROW(2, 16, 2); ROW(1, 16, 2); ROW(2, 32, 4);
  COL(16, 64, 4, 1); COL(16, 64, 8, 1); COL(16, 64, 8, 2); COL(16, 32, 8, 2); COL(16, 32, 16, 4);
  COL(32, 32, 4, 1); COL(32, 32, 8, 2); COL(8, 128, 4, 1); COL(8, 64, 8, 2); COL(32, 16, 8, 2); COL(16, 16, 16, 4);
  COL(32, 8, 16, 4); COL(64, 16, 8, 2);
  return 0;
}
