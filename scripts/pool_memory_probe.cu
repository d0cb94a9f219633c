// usage: nvcc -O3 -arch=sm_90 scripts/pool_memory_probe.cu -o probe && ./probe (session 31, docs/results/transfers.md)
// Does memory from the default pool make a row-per-thread walk slower than cudaMalloc's?
#include <cstdio>
#include <cuda_runtime.h>
__global__ void walk(int w, int h, const float *in, float *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w) return;
  float y = 0.f;
  for (int j = 0; j < h; j++) { y = 0.5f * y + in[(size_t)i * h + j]; out[(size_t)i * h + j] = y; }
}
__global__ void stream(size_t n, const float *in, float *out)
{
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) out[k] = 2.f * in[k];
}
static float time_walk(float *in, float *out, int w, int h, int block)
{
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  walk<<<(w + block - 1) / block, block>>>(w, h, in, out);
  cudaEventRecord(a);
  for (int r = 0; r < 5; r++) walk<<<(w + block - 1) / block, block>>>(w, h, in, out);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); return ms / 5;
}
static float time_stream(float *in, float *out, size_t n)
{
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  stream<<<1056, 256>>>(n, in, out);
  cudaEventRecord(a);
  for (int r = 0; r < 5; r++) stream<<<1056, 256>>>(n, in, out);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); return ms / 5;
}
int main()
{
  const int w = 4096, h = 2160; const size_t bytes = (size_t)w * h * 4;
  float *m[2], *p[2], *q[2];
  for (int k = 0; k < 2; k++) cudaMalloc(&m[k], bytes);
  int dev = 0; cudaMemPool_t pool; cudaDeviceGetDefaultMemPool(&pool, dev);
  unsigned long long keep = ~0ull; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  for (int k = 0; k < 2; k++) cudaMallocAsync(&p[k], bytes, 0);
  cudaStreamSynchronize(0);
  // an explicit pool, 2 MB-granular
  cudaMemPoolProps props = {}; props.allocType = cudaMemAllocationTypePinned; props.location.type = cudaMemLocationTypeDevice; props.location.id = dev;
  cudaMemPool_t own; cudaMemPoolCreate(&own, &props);
  cudaMemPoolSetAttribute(own, cudaMemPoolAttrReleaseThreshold, &keep);
  for (int k = 0; k < 2; k++) cudaMallocFromPoolAsync(&q[k], bytes, own, 0);
  cudaStreamSynchronize(0);
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
  for (int k = 0; k < 2; k++) { cudaMemset(m[k], 0, bytes); cudaMemset(p[k], 0, bytes); cudaMemset(q[k], 0, bytes); }
  for (int block : {4, 32, 128})
    for (int rep = 0; rep < 2; rep++)
      printf("walk block %3d: malloc %.3f ms  default pool %.3f ms  own pool %.3f ms\n", block,
             time_walk(m[0], m[1], w, h, block), time_walk(p[0], p[1], w, h, block), time_walk(q[0], q[1], w, h, block));
  for (int rep = 0; rep < 2; rep++)
    printf("stream: malloc %.3f ms  default pool %.3f ms  own pool %.3f ms\n",
           time_stream(m[0], m[1], bytes / 4), time_stream(p[0], p[1], bytes / 4), time_stream(q[0], q[1], bytes / 4));
  return 0;
}
