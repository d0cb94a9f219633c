// Cycles a term of one thread's ordered sum (p = p + term, C's order) on the device:
// from registers (the DADD's latency), from shared memory as polycu's ordered tree
// reads it (unrolled), and from shared memory in explicit register batches.
// nvcc -O3 -arch=sm_90 -o ordered_sum_probe scripts/ordered_sum_probe.cu && ./ordered_sum_probe
#include <cstdio>
#include <cuda_runtime.h>
#define TERMS 2048
__global__ void regs(double *out, long long *cyc) {
  double v[16];
  for (int r = 0; r < 16; r++) v[r] = 1.0 + r * 1e-3 + threadIdx.x;
  double p = 0.0;
  long long t0 = clock64();
  for (int k = 0; k < TERMS; k += 16) {
#pragma unroll
    for (int r = 0; r < 16; r++) p = p + v[r];
  }
  long long t1 = clock64();
  out[threadIdx.x] = p; if (threadIdx.x == 0) cyc[0] = t1 - t0;
}
// Both buffers filled, the block synchronised: the terms the adding thread reads.
__device__ void fill(double (*s)[1024]) {
  for (int k = threadIdx.x; k < 2048; k += blockDim.x) s[k / 1024][k % 1024] = 1.0 + k * 1e-3;
  __syncthreads();
}
// One chunk of 128 terms added to p in C's order: read as polycu's ordered tree reads
// them, or in explicit batches of registers.
__device__ __forceinline__ double plain_chunk(double p, const double *src) {
#pragma unroll
  for (int q = 0; q < 128; q++) p = p + src[q];
  return p;
}
__device__ __forceinline__ double batched_chunk(double p, const double *chunk) {
  const double2 *src = (const double2 *)chunk;
  double2 a[8], b[8];
#pragma unroll
  for (int r = 0; r < 8; r++) a[r] = src[r];
#pragma unroll
  for (int q = 0; q < 64; q += 16) {
#pragma unroll
    for (int r = 0; r < 8; r++) b[r] = src[q + 8 + r];
#pragma unroll
    for (int r = 0; r < 8; r++) { p = p + a[r].x; p = p + a[r].y; }
    if (q + 16 < 64) {
#pragma unroll
      for (int r = 0; r < 8; r++) a[r] = src[q + 16 + r];
    }
#pragma unroll
    for (int r = 0; r < 8; r++) { p = p + b[r].x; p = p + b[r].y; }
  }
  return p;
}
// The adding thread's loop over both buffers; cycles into cyc[1] (plain) or cyc[2].
template <bool BATCHED>
__global__ void shared_sum(double *out, long long *cyc) {
  __shared__ double s[2][1024];
  fill(s);
  double p = 0.0;
  long long t0 = clock64();
  if (threadIdx.x == 0) {
    for (int base = 0; base < TERMS; base += 128) {
      const double *src = &s[(base / 128) & 1][(base / 128 % 8) * 128];
      p = BATCHED ? batched_chunk(p, src) : plain_chunk(p, src);
    }
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) { out[0] = p; cyc[1 + BATCHED] = t1 - t0; }
}
int main() {
  double *out; long long *cyc, h[3];
  cudaMalloc(&out, 1024 * 8); cudaMalloc(&cyc, 3 * 8);
  for (int rep = 0; rep < 2; rep++) {
    regs<<<1, 32>>>(out, cyc); shared_sum<false><<<1, 32>>>(out, cyc); shared_sum<true><<<1, 32>>>(out, cyc);
    cudaMemcpy(h, cyc, 24, cudaMemcpyDeviceToHost);
    printf("cycles per term: registers %.2f, shared as generated %.2f, shared in batches %.2f\n",
           h[0] / (double)TERMS, h[1] / (double)TERMS, h[2] / (double)TERMS);
  }
  return 0;
}
