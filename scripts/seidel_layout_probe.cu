// seidel-2d's 3-D wavefront (c = 4t + 2i + j, one launch a c) with A in three
// places: global memory in C's layout, a 2-D surface (polycu's choice), and global
// memory in the skewed layout A'[2i + j][i], in which the threads of one t (along
// i) touch consecutive addresses.  Times the 4T + 3N launches in one CUDA graph per
// variant, checks all three against each other bit for bit.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void wave_global(int n, int T, int c, double *A) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, t = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > n - 2 || t >= T) return;
  int j = c - 4 * t - 2 * i;
  if (j < 1 || j > n - 2) return;
#define G(r, s) A[(size_t)(r) * n + (s)]
  G(i, j) = (G(i-1,j-1) + G(i-1,j) + G(i-1,j+1) + G(i,j-1) + G(i,j) + G(i,j+1)
             + G(i+1,j-1) + G(i+1,j) + G(i+1,j+1)) / 9.0;
#undef G
}

__global__ void wave_skewed(int n, int T, int c, double *A) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, t = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > n - 2 || t >= T) return;
  int j = c - 4 * t - 2 * i;
  if (j < 1 || j > n - 2) return;
  // A[r][s] lives at A'[2r + s][r]: row 2r + s of n elements
#define L(r, s) A[(size_t)(2 * (r) + (s)) * n + (r)]
  L(i, j) = (L(i-1,j-1) + L(i-1,j) + L(i-1,j+1) + L(i,j-1) + L(i,j) + L(i,j+1)
             + L(i+1,j-1) + L(i+1,j) + L(i+1,j+1)) / 9.0;
#undef L
}

__device__ double sread(cudaSurfaceObject_t s, int r, int c) {
  int2 v = surf2Dread<int2>(s, c * 8, r);
  return __hiloint2double(v.y, v.x);
}
__global__ void wave_surface(int n, int T, int c, cudaSurfaceObject_t A) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, t = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > n - 2 || t >= T) return;
  int j = c - 4 * t - 2 * i;
  if (j < 1 || j > n - 2) return;
#define S(r, s) sread(A, r, s)
  double v = (S(i-1,j-1) + S(i-1,j) + S(i-1,j+1) + S(i,j-1) + S(i,j) + S(i,j+1)
             + S(i+1,j-1) + S(i+1,j) + S(i+1,j+1)) / 9.0;
#undef S
  long long b = __double_as_longlong(v);
  surf2Dwrite(make_int2((int)b, (int)(b >> 32)), A, j * 8, i);
}
__global__ void to_skewed(int n, const double *A, double *S) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j < n) S[(size_t)(2 * i + j) * n + i] = A[(size_t)i * n + j];
}
__global__ void from_skewed(int n, const double *S, double *A) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j < n) A[(size_t)i * n + j] = S[(size_t)(2 * i + j) * n + i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000, T = argc > 2 ? atoi(argv[2]) : 500;
  int bx = argc > 3 ? atoi(argv[3]) : 32, by = argc > 4 ? atoi(argv[4]) : 4;
  size_t N = (size_t)n * n;
  std::vector<double> h(N), r1(N), r2(N), r3(N);
  for (size_t k = 0; k < N; k++) h[k] = ((double)((k * 7919) % 1000) + 2.0) / n;
  double *dA, *dS, *dB; CK(cudaMalloc(&dA, N * 8)); CK(cudaMalloc(&dB, N * 8));
  CK(cudaMalloc(&dS, (size_t)3 * n * n * 8));
  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<int2>();
  cudaArray_t arr; CK(cudaMallocArray(&arr, &fmt, n, n, cudaArraySurfaceLoadStore));
  cudaResourceDesc rd; memset(&rd, 0, sizeof rd); rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  cudaSurfaceObject_t surf; CK(cudaCreateSurfaceObject(&surf, &rd));
  dim3 block(bx, by), grid((n - 2 + bx - 1) / bx, (T + by - 1) / by);
  cudaStream_t st; CK(cudaStreamCreate(&st));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char *names[3] = {"global", "surface", "skewed"};
  for (int rep = 0; rep < 3; rep++)
  for (int v = 0; v < 3; v++) {
    CK(cudaMemcpy(dA, h.data(), N * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy2DToArray(arr, 0, 0, h.data(), n * 8, n * 8, n, cudaMemcpyHostToDevice));
    cudaGraph_t g; cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    if (v == 2) to_skewed<<<dim3((n + 255) / 256, n), 256, 0, st>>>(n, dA, dS);
    for (int c = 3; c <= 4 * (T - 1) + 3 * (n - 2); c++) {
      if (v == 0) wave_global<<<grid, block, 0, st>>>(n, T, c, dA);
      if (v == 1) wave_surface<<<grid, block, 0, st>>>(n, T, c, surf);
      if (v == 2) wave_skewed<<<grid, block, 0, st>>>(n, T, c, dS);
    }
    if (v == 2) from_skewed<<<dim3((n + 255) / 256, n), 256, 0, st>>>(n, dS, dA);
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphUpload(ge, st));
    CK(cudaStreamSynchronize(st));
    cudaEventRecord(e0, st); CK(cudaGraphLaunch(ge, st)); cudaEventRecord(e1, st);
    CK(cudaStreamSynchronize(st));
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    std::vector<double> &r = v == 0 ? r1 : v == 1 ? r2 : r3;
    if (v == 1) CK(cudaMemcpy2DFromArray(r.data(), n * 8, arr, 0, 0, n * 8, n, cudaMemcpyDeviceToHost));
    else CK(cudaMemcpy(r.data(), dA, N * 8, cudaMemcpyDeviceToHost));
    printf("n=%d T=%d block=%dx%d rep=%d %-8s %9.3f ms\n", n, T, bx, by, rep, names[v], ms);
    cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  }
  printf("surface == global: %s, skewed == global: %s\n",
         memcmp(r1.data(), r2.data(), N * 8) ? "NO" : "yes", memcmp(r1.data(), r3.data(), N * 8) ? "NO" : "yes");
  return 0;
}
