/* Hand-written CUDA for the tests of polycu_emu.h (tests/test_emulate_header.py).
   Each case is selected by argv[1] and prints what the test checks.  The file is
   valid CUDA (the tests also compile it with nvcc when it is installed). */
#ifdef POLYCU_EMULATE
#include "polycu_emu.h"
#else
#include <cuda_runtime.h>
#define POLYCU_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#define POLYCU_LAUNCH_NOSYNC POLYCU_LAUNCH
#define POLYCU_SHARED(T, name, n) __shared__ T name[n]
/* the wait of a dependent launch; launched here as a plain launch */
#define POLYCU_AFTER_PREVIOUS() asm volatile("griddepcontrol.wait;" ::: "memory")
#define POLYCU_LAUNCH_NOSYNC_AFTER POLYCU_LAUNCH
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLYCU_CHECK(call)                                                          \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

/* Each block reverses its slice of `in` through shared memory: right only
   when the barrier separates the writes from the reads. */
__global__ void reverse_block(const double *__restrict__ in, double *__restrict__ out, int n,
                              int with_barrier)
{
  __shared__ double tile[256];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + threadIdx.x;
  tile[t] = g < n ? __ldg(&in[g]) : -1.0;
  if (with_barrier)
    __syncthreads();
  int h = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
  if (g < n)
    out[g] = h < n ? tile[blockDim.x - 1 - t] : -1.0;
}

/* Race-checked shared memory (POLYCU_SHARED).  Each step stages a tile of `in`
   and every thread adds its element twice and its right neighbour's once.
   mode 1 drops the barrier between the load and the reads, mode 2 the one
   that keeps the next load from overwriting elements still being read. */
__global__ void staged(const double *in, double *out, int steps, int mode)
{
  POLYCU_SHARED(double, tile, 64);
  POLYCU_SHARED(int, count, 64);
  int t = threadIdx.x, b = blockDim.x;
  double acc = 0.0;
  count[t] = 0;
  for (int s = 0; s < steps; s++) {
    if (s > 0 && mode != 2)
      __syncthreads();
    tile[t] = in[(blockIdx.x * steps + s) * b + t];
    if (mode != 1)
      __syncthreads();
    acc += 2 * tile[t] + tile[(t + 1) % b];
    count[t] += 2;
    count[t] -= 1;
    count[t] *= 3;
    count[t] /= 3;
  }
  out[blockIdx.x * b + t] = acc + count[t];
}

/* Thread 7 reads an element that no thread writes. */
__global__ void unwritten(float *out)
{
  POLYCU_SHARED(float, buf, 64);
  int t = threadIdx.x;
  buf[t] = (float)t;
  __syncthreads();
  out[t] = t == 7 ? buf[t + 32] : buf[31 - t];
}

/* Without barriers: the threads of a row write one element (a race). */
__global__ void same_element(int *out)
{
  POLYCU_SHARED(int, flag, 4);
  flag[threadIdx.y] = threadIdx.x;
  out[threadIdx.y * blockDim.x + threadIdx.x] = 1;
}

/* Tree sum of 1024-thread blocks, log2(1024) + 1 barriers per block. */
__global__ void block_sum(const double *in, double *sums, int n)
{
  __shared__ double part[1024];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  part[t] = g < n ? in[g] : 0.0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s)
      part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = part[0];
}

__global__ void atomics(const int *in, int n, double *dsum, float *fsum, int *isum)
{
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  atomicAdd(dsum, (double)in[g]);
  atomicAdd(fsum, (float)in[g]);
  atomicAdd(isum, in[g]);
}

/* Every thread writes its coordinates at its global position. */
__global__ void coordinates(int *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  int X = gridDim.x * blockDim.x, Y = gridDim.y * blockDim.y;
  int *cell = out + 4 * ((z * Y + y) * X + x);
  cell[0] = x;
  cell[1] = y;
  cell[2] = z;
  cell[3] = blockDim.x * 100 + blockDim.y * 10 + blockDim.z;
}

/* An illegal parallelisation of `for i: a[i] = a[i - 1] + 1`. */
__global__ void chain(double *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n)
    a[i] = a[i - 1] + 1.0;
}

__global__ void copy(const double *in, double *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

/* One element past the end of `a`: off by one. */
__global__ void past_the_end(double *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    a[i] = 1.0;
}

__global__ void divergent_barrier(int *out)
{
  if (threadIdx.x < 5)
    return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void needs_barrier(int *out)
{
  __syncthreads();
  out[threadIdx.x] = 1;
}

__constant__ double coefficients[4];

/* Doubles read through an int2 texture, a 2-D texture of floats over a CUDA
   array, a surface read and then written, and constant memory.  (A cell is read
   before it is written: what a launch wrote it may not read back through an
   object, see write_then_fetch.) */
__global__ void memories(cudaTextureObject_t linear, cudaTextureObject_t plane,
                         cudaSurfaceObject_t surface, double *out, int n, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int2 v = tex1Dfetch<int2>(linear, i);
    out[i] = __hiloint2double(v.y, v.x) * coefficients[i % 4];
  }
  if (i < w * h) {
    int x = i % w, y = i / w;
    float f = tex2D<float>(plane, x + 0.5f, y + 0.5f);
    float before = surf2Dread<float>(surface, x * (int)sizeof(float), y);
    surf2Dwrite(f * 2.0f + before, surface, x * (int)sizeof(float), y);
    out[n + i] = before + tex2D<float>(plane, -3.0f, y + 0.5f);  /* clamped to column 0 */
  }
}

/* A 3-D texture and a 3-D surface over CUDA arrays (read, then written). */
__global__ void volumes(cudaTextureObject_t volume, cudaSurfaceObject_t surface, float *out, int w,
                        int h, int d)
{
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d) {
    float v = tex3D<float>(volume, x + 0.5f, y + 0.5f, z + 0.5f);
    out[(z * h + y) * w + x] = surf3Dread<float>(surface, x * (int)sizeof(float), y, z);
    surf3Dwrite(v + 1.0f, surface, x * (int)sizeof(float), y, z);
  }
}

/* Written through a pointer, then, after a barrier, fetched through a texture
   over the same memory in the same launch: a GPU's texture cache may return
   the value from before the launch, and the emulation always does (that is
   what makes a wrong proof of polycu's placement show). */
__global__ void write_then_fetch(double *a, cudaTextureObject_t t, double *seen, int n, double add)
{
  int i = threadIdx.x;
  a[i] += add;
  __syncthreads();
  int2 own = tex1Dfetch<int2>(t, i), next = tex1Dfetch<int2>(t, (i + 1) % n);
  seen[i] = __hiloint2double(own.y, own.x);
  seen[n + i] = __hiloint2double(next.y, next.x);
}

/* The same with a surface write, then a surface read and a 2-D texture fetch
   over the surface's CUDA array. */
__global__ void write_then_read(cudaSurfaceObject_t surface, cudaTextureObject_t plane, float *seen,
                                int w, int h)
{
  int x = threadIdx.x, y = blockIdx.x, i = y * w + x;
  surf2Dwrite(100.0f + i, surface, x * (int)sizeof(float), y);
  seen[i] = surf2Dread<float>(surface, x * (int)sizeof(float), y);
  seen[w * h + i] = tex2D<float>(plane, x + 0.5f, y + 0.5f);
}

__global__ void fetch_one(cudaTextureObject_t t, float *out)
{
  out[0] = tex1Dfetch<float>(t, 0);
}

static double *device_copy(const double *host, int n)
{
  double *d;
  POLYCU_CHECK(cudaMalloc(&d, n * sizeof(double)));
  POLYCU_CHECK(cudaMemcpy(d, host, n * sizeof(double), cudaMemcpyHostToDevice));
  return d;
}

static int run_reverse(int with_barrier)
{
  const int n = 1000;
  double in[1000], out[1000];
  for (int i = 0; i < n; i++)
    in[i] = i;
  double *d_in = device_copy(in, n), *d_out;
  POLYCU_CHECK(cudaMalloc(&d_out, n * sizeof(double)));
  POLYCU_LAUNCH(reverse_block, dim3((n + 255) / 256), dim3(256), d_in, d_out, n, with_barrier);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(out, d_out, n * sizeof(double), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int g = 0; g < n; g++) {
    int b = g / 256, t = g % 256, h = b * 256 + 255 - t;
    wrong += out[g] != (h < n ? (double)h : -1.0);
  }
  printf("wrong %d\n", wrong);
  POLYCU_CHECK(cudaFree(d_in));
  POLYCU_CHECK(cudaFree(d_out));
  return 0;
}

static int run_block_sum(void)
{
  const int n = 5000, blocks = (n + 1023) / 1024;
  double *in = (double *)malloc(n * sizeof(double)), sums[8], total = 0;
  for (int i = 0; i < n; i++)
    in[i] = i % 17;
  double *d_in = device_copy(in, n), *d_sums;
  POLYCU_CHECK(cudaMalloc(&d_sums, blocks * sizeof(double)));
  POLYCU_LAUNCH(block_sum, dim3(blocks), dim3(1024), d_in, d_sums, n);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(sums, d_sums, blocks * sizeof(double), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++)
    total += sums[b];
  printf("sum %.1f\n", total);
  free(in);
  return 0;
}

static int run_atomics(void)
{
  const int n = 3000;
  int in[3000];
  for (int i = 0; i < n; i++)
    in[i] = (i * 7919) % 1001 - 500;
  int *d_in, *d_i;
  double *d_d, d = 0.0;
  float *d_f, f = 0.0f;
  int i = 0;
  POLYCU_CHECK(cudaMalloc(&d_in, sizeof in));
  POLYCU_CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
  POLYCU_CHECK(cudaMalloc(&d_d, sizeof d));
  POLYCU_CHECK(cudaMalloc(&d_f, sizeof f));
  POLYCU_CHECK(cudaMalloc(&d_i, sizeof i));
  POLYCU_CHECK(cudaMemcpy(d_d, &d, sizeof d, cudaMemcpyHostToDevice));
  POLYCU_CHECK(cudaMemcpy(d_f, &f, sizeof f, cudaMemcpyHostToDevice));
  POLYCU_CHECK(cudaMemcpy(d_i, &i, sizeof i, cudaMemcpyHostToDevice));
  POLYCU_LAUNCH_NOSYNC(atomics, dim3((n + 127) / 128), dim3(128), d_in, n, d_d, d_f, d_i);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(&d, d_d, sizeof d, cudaMemcpyDeviceToHost));
  POLYCU_CHECK(cudaMemcpy(&f, d_f, sizeof f, cudaMemcpyDeviceToHost));
  POLYCU_CHECK(cudaMemcpy(&i, d_i, sizeof i, cudaMemcpyDeviceToHost));
  long expected = 0;
  for (int k = 0; k < n; k++)
    expected += in[k];
  printf("double %.1f float %.1f int %d expected %ld\n", d, f, i, expected);
  return 0;
}

static int run_coordinates(void)
{
  dim3 grid(3, 2, 4), block(4, 5, 2);
  int X = 12, Y = 10, Z = 8, cells = X * Y * Z;
  int *d, *h = (int *)malloc(4 * cells * sizeof(int));
  POLYCU_CHECK(cudaMalloc(&d, 4 * cells * sizeof(int)));
  POLYCU_LAUNCH_NOSYNC(coordinates, grid, block, d);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(h, d, 4 * cells * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) {
        int *c = h + 4 * ((z * Y + y) * X + x);
        wrong += c[0] != x || c[1] != y || c[2] != z || c[3] != 452;
      }
  printf("wrong %d of %d\n", wrong, cells);
  memset(h, 0, 4 * cells * sizeof(int));
  POLYCU_CHECK(cudaMemcpy(d, h, 4 * cells * sizeof(int), cudaMemcpyHostToDevice));
  POLYCU_LAUNCH(coordinates, grid, block, d); /* same with concurrent threads */
  POLYCU_CHECK(cudaMemcpy(h, d, 4 * cells * sizeof(int), cudaMemcpyDeviceToHost));
  wrong = 0;
  for (int k = 0; k < cells; k++)
    wrong += h[4 * k + 3] != 452;
  printf("wrong %d of %d\n", wrong, cells);
  return 0;
}

static int run_chain(void)
{
  const int n = 200;
  double a[200];
  for (int i = 0; i < n; i++)
    a[i] = 0;
  double *d = device_copy(a, n);
  POLYCU_LAUNCH_NOSYNC(chain, dim3(4), dim3(64), d, n);
  POLYCU_CHECK(cudaMemcpy(a, d, n * sizeof(double), cudaMemcpyDeviceToHost));
  int sequential = 1;
  for (int i = 0; i < n; i++)
    sequential &= a[i] == (double)i;
  printf("sequential result %d\n", sequential);
  return 0;
}

/* A kernel reading device memory nobody copied to. */
static int run_uninitialised(void)
{
  double *in, *out, h[16];
  POLYCU_CHECK(cudaMalloc(&in, sizeof h));
  POLYCU_CHECK(cudaMalloc(&out, sizeof h));
  POLYCU_LAUNCH_NOSYNC(copy, dim3(1), dim3(16), in, out, 16);
  POLYCU_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  int nans = 0;
  for (int i = 0; i < 16; i++)
    nans += h[i] != h[i];
  printf("nan %d\n", nans);
  return 0;
}

static int run_errors(void)
{
  int *d;
  double host[4];
  POLYCU_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  POLYCU_LAUNCH(needs_barrier, dim3(1), dim3(2048), d);
  printf("too many threads: %s\n", cudaGetErrorString(cudaGetLastError()));
  printf("then: %s\n", cudaGetErrorString(cudaGetLastError()));
  POLYCU_LAUNCH_NOSYNC(copy, dim3(0), dim3(32), (double *)d, (double *)d, 0);
  printf("empty grid: %s\n", cudaGetErrorString(cudaGetLastError()));
  printf("overflowing copy: %s\n",
         cudaGetErrorString(cudaMemcpy(host, d, 65 * sizeof(int), cudaMemcpyDeviceToHost)));
  printf("swapped copy: %s\n",
         cudaGetErrorString(cudaMemcpy(host, d, sizeof host, cudaMemcpyHostToDevice)));
  cudaError_t first = cudaFree(d);
  printf("free twice: %s, then %s\n", cudaGetErrorString(first), cudaGetErrorString(cudaFree(d)));
  return 0;
}

static int run_memories(void)
{
  const int n = 10, w = 5, h = 3;
  double values[10], out[10 + 15], coef[4] = {1.0, 2.0, 0.5, -1.0};
  float plane[15], start[15];
  for (int i = 0; i < n; i++)
    values[i] = 1.0 / (i + 3);
  for (int i = 0; i < w * h; i++) {
    plane[i] = (float)(i * i);
    start[i] = 0.25f * i;
  }
  double *d_values = device_copy(values, n), *d_out;
  POLYCU_CHECK(cudaMalloc(&d_out, sizeof out));
  POLYCU_CHECK(cudaMemcpyToSymbol(coefficients, coef, sizeof coef));

  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = d_values;
  res.res.linear.desc = cudaCreateChannelDesc<int2>();
  res.res.linear.sizeInBytes = n * sizeof(double);
  cudaTextureDesc tex;
  memset(&tex, 0, sizeof tex);
  tex.readMode = cudaReadModeElementType;
  tex.filterMode = cudaFilterModePoint;
  tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
  cudaTextureObject_t linear, plane_tex;
  POLYCU_CHECK(cudaCreateTextureObject(&linear, &res, &tex, NULL));

  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t array, surface_array;
  POLYCU_CHECK(cudaMallocArray(&array, &fdesc, w, h));
  POLYCU_CHECK(cudaMemcpy2DToArray(array, 0, 0, plane, w * sizeof(float), w * sizeof(float), h,
                                   cudaMemcpyHostToDevice));
  POLYCU_CHECK(cudaMallocArray(&surface_array, &fdesc, w, h, cudaArraySurfaceLoadStore));
  POLYCU_CHECK(cudaMemcpy2DToArray(surface_array, 0, 0, start, w * sizeof(float), w * sizeof(float),
                                   h, cudaMemcpyHostToDevice));
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  POLYCU_CHECK(cudaCreateTextureObject(&plane_tex, &res, &tex, NULL));
  res.res.array.array = surface_array;
  cudaSurfaceObject_t surface;
  POLYCU_CHECK(cudaCreateSurfaceObject(&surface, &res));

  POLYCU_LAUNCH_NOSYNC(memories, dim3(2), dim3(8), linear, plane_tex, surface, d_out, n, w, h);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  float back[15];
  POLYCU_CHECK(cudaMemcpy2DFromArray(back, w * sizeof(float), surface_array, 0, 0,
                                     w * sizeof(float), h, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += out[i] != values[i] * coef[i % 4];
  for (int i = 0; i < w * h; i++)
    wrong += out[n + i] != start[i] + plane[(i / w) * w] || back[i] != 2.0f * plane[i] + start[i];
  printf("wrong %d\n", wrong);
  POLYCU_CHECK(cudaDestroyTextureObject(linear));
  POLYCU_CHECK(cudaDestroyTextureObject(plane_tex));
  POLYCU_CHECK(cudaDestroySurfaceObject(surface));
  POLYCU_CHECK(cudaFreeArray(array));
  POLYCU_CHECK(cudaFreeArray(surface_array));
  return 0;
}

static int run_volumes(void)
{
  enum { w = 5, h = 4, d = 3 };
  float volume[d][h][w], start[d][h][w], out[d][h][w], back[d][h][w];
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        volume[z][y][x] = (float)(100 * z + 10 * y + x);
        start[z][y][x] = 0.5f * volume[z][y][x];
      }

  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t volume_array, surface_array;
  POLYCU_CHECK(cudaMalloc3DArray(&volume_array, &desc, make_cudaExtent(w, h, d)));
  POLYCU_CHECK(cudaMalloc3DArray(&surface_array, &desc, make_cudaExtent(w, h, d),
                                 cudaArraySurfaceLoadStore));
  cudaMemcpy3DParms copy;
  memset(&copy, 0, sizeof copy);
  copy.srcPtr = make_cudaPitchedPtr(volume, w * sizeof(float), w, h);
  copy.dstArray = volume_array;
  copy.extent = make_cudaExtent(w, h, d);
  copy.kind = cudaMemcpyHostToDevice;
  POLYCU_CHECK(cudaMemcpy3D(&copy));
  copy.srcPtr = make_cudaPitchedPtr(start, w * sizeof(float), w, h);
  copy.dstArray = surface_array;
  POLYCU_CHECK(cudaMemcpy3D(&copy));

  cudaResourceDesc res;
  cudaTextureDesc tex;
  memset(&tex, 0, sizeof tex);
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  cudaTextureObject_t volume_tex;
  cudaSurfaceObject_t surface;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = volume_array;
  POLYCU_CHECK(cudaCreateTextureObject(&volume_tex, &res, &tex, NULL));
  res.res.array.array = surface_array;
  POLYCU_CHECK(cudaCreateSurfaceObject(&surface, &res));

  float *d_out;
  POLYCU_CHECK(cudaMalloc(&d_out, sizeof out));
  POLYCU_LAUNCH_NOSYNC(volumes, dim3(d), dim3(w, h), volume_tex, surface, d_out, w, h, d);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  memset(&copy, 0, sizeof copy);
  copy.srcArray = surface_array;
  copy.dstPtr = make_cudaPitchedPtr(back, w * sizeof(float), w, h);
  copy.extent = make_cudaExtent(w, h, d);
  copy.kind = cudaMemcpyDeviceToHost;
  POLYCU_CHECK(cudaMemcpy3D(&copy));
  int wrong = 0;
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        wrong += out[z][y][x] != start[z][y][x] || back[z][y][x] != volume[z][y][x] + 1.0f;
  printf("wrong %d\n", wrong);
  POLYCU_CHECK(cudaDestroyTextureObject(volume_tex));
  POLYCU_CHECK(cudaDestroySurfaceObject(surface));
  POLYCU_CHECK(cudaFreeArray(volume_array));
  POLYCU_CHECK(cudaFreeArray(surface_array));
  POLYCU_CHECK(cudaFree(d_out));
  return 0;
}

static cudaTextureObject_t linear_texture(void *p, size_t bytes, cudaChannelFormatDesc texel)
{
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = p;
  res.res.linear.desc = texel;
  res.res.linear.sizeInBytes = bytes;
  cudaTextureDesc tex;
  memset(&tex, 0, sizeof tex);
  tex.readMode = cudaReadModeElementType;
  tex.filterMode = cudaFilterModePoint;
  cudaTextureObject_t t;
  POLYCU_CHECK(cudaCreateTextureObject(&t, &res, &tex, NULL));
  return t;
}

/* Reads through objects see the launch's start, writes are seen after it:
   two launches of write_then_fetch (the second sees the first's writes), then,
   with the first texture destroyed and its memory freed, objects created
   between launches for write_then_read. */
static int run_stale(void)
{
  enum { n = 4, w = 3, h = 2 };
  double a[n], seen[2 * n];
  for (int i = 0; i < n; i++)
    a[i] = i;
  double *d_a = device_copy(a, n), *d_seen;
  POLYCU_CHECK(cudaMalloc(&d_seen, sizeof seen));
  cudaTextureObject_t fetched = linear_texture(d_a, sizeof a, cudaCreateChannelDesc<int2>());
  for (int launch = 1; launch <= 2; launch++) {
    POLYCU_LAUNCH(write_then_fetch, dim3(1), dim3(n), d_a, fetched, d_seen, n, 100.0);
    POLYCU_CHECK(cudaGetLastError());
    POLYCU_CHECK(cudaMemcpy(seen, d_seen, sizeof seen, cudaMemcpyDeviceToHost));
    printf("launch %d fetched", launch);
    for (int i = 0; i < 2 * n; i++)
      printf(" %g", seen[i]);
    printf("\n");
  }
  POLYCU_CHECK(cudaMemcpy(a, d_a, sizeof a, cudaMemcpyDeviceToHost));
  printf("memory");
  for (int i = 0; i < n; i++)
    printf(" %g", a[i]);
  printf("\n");
  POLYCU_CHECK(cudaDestroyTextureObject(fetched));
  POLYCU_CHECK(cudaFree(d_a));
  POLYCU_CHECK(cudaFree(d_seen));

  float cells[w * h], fseen[2 * w * h];
  for (int i = 0; i < w * h; i++)
    cells[i] = (float)i;
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  POLYCU_CHECK(cudaMallocArray(&array, &fdesc, w, h, cudaArraySurfaceLoadStore));
  POLYCU_CHECK(cudaMemcpy2DToArray(array, 0, 0, cells, w * sizeof(float), w * sizeof(float), h,
                                   cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaSurfaceObject_t surface;
  POLYCU_CHECK(cudaCreateSurfaceObject(&surface, &res));
  cudaTextureDesc tex;
  memset(&tex, 0, sizeof tex);
  tex.readMode = cudaReadModeElementType;
  tex.filterMode = cudaFilterModePoint;
  cudaTextureObject_t plane;
  POLYCU_CHECK(cudaCreateTextureObject(&plane, &res, &tex, NULL));
  float *d_fseen;
  POLYCU_CHECK(cudaMalloc(&d_fseen, sizeof fseen));
  POLYCU_LAUNCH_NOSYNC(write_then_read, dim3(h), dim3(w), surface, plane, d_fseen, w, h);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(fseen, d_fseen, sizeof fseen, cudaMemcpyDeviceToHost));
  POLYCU_CHECK(cudaMemcpy2DFromArray(cells, w * sizeof(float), array, 0, 0, w * sizeof(float), h,
                                     cudaMemcpyDeviceToHost));
  printf("surface read");
  for (int i = 0; i < 2 * w * h; i++)
    printf(" %g", fseen[i]);
  printf("\narray");
  for (int i = 0; i < w * h; i++)
    printf(" %g", cells[i]);
  printf("\n");
  POLYCU_CHECK(cudaDestroyTextureObject(plane));
  POLYCU_CHECK(cudaDestroySurfaceObject(surface));
  POLYCU_CHECK(cudaFreeArray(array));
  POLYCU_CHECK(cudaFree(d_fseen));
  return 0;
}

/* A texture whose memory is freed while it lives: launches go on (they must not
   copy from freed memory), fetching from it is fatal. */
static int run_freed_texture(void)
{
  float *d, *d_out;
  POLYCU_CHECK(cudaMalloc(&d, 1 << 20));
  POLYCU_CHECK(cudaMalloc(&d_out, sizeof(float)));
  cudaTextureObject_t t = linear_texture(d, 1 << 20, cudaCreateChannelDesc<float>());
  POLYCU_CHECK(cudaFree(d));
  POLYCU_LAUNCH_NOSYNC(copy, dim3(1), dim3(1), (const double *)d_out, (double *)d_out, 0);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_LAUNCH_NOSYNC(fetch_one, dim3(1), dim3(1), t, d_out);
  POLYCU_CHECK(cudaGetLastError());
  printf("not reached\n");
  return 0;
}

static int run_past_the_end(void)
{
  double *d;
  POLYCU_CHECK(cudaMalloc(&d, 100 * sizeof(double)));
  POLYCU_LAUNCH_NOSYNC(past_the_end, dim3(4), dim3(32), d, 100);
  POLYCU_CHECK(cudaGetLastError());
  printf("not reached\n");
  return 0;
}

static int run_divergent(void)
{
  int *d;
  POLYCU_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  POLYCU_LAUNCH(divergent_barrier, dim3(1), dim3(64), d);
  POLYCU_CHECK(cudaGetLastError());
  return 0;
}

static int run_barrier_without_team(void)
{
  int *d;
  POLYCU_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  POLYCU_LAUNCH_NOSYNC(needs_barrier, dim3(1), dim3(64), d);
  POLYCU_CHECK(cudaGetLastError());
  return 0;
}

/* Dependent launches: each kernel of the chain adds its position to the sum so far,
   waiting first (or, with `skip`, one thread of each block does not wait). */
__global__ void add_after(int *sum, int add, int skip)
{
  if (!(skip && threadIdx.x == 1)) POLYCU_AFTER_PREVIOUS();
  if (blockIdx.x == 0 && threadIdx.x == 0) *sum += add;
}

static int run_dependent(int skip)
{
  int *d, sum = 0;
  POLYCU_CHECK(cudaMalloc(&d, sizeof(int)));
  POLYCU_CHECK(cudaMemcpy(d, &sum, sizeof(int), cudaMemcpyHostToDevice));
  for (int k = 1; k <= 10; k++) {
    POLYCU_LAUNCH_NOSYNC_AFTER(add_after, dim3(3), dim3(32), d, k, skip && k == 7);
    POLYCU_CHECK(cudaGetLastError());
  }
  POLYCU_CHECK(cudaMemcpy(&sum, d, sizeof(int), cudaMemcpyDeviceToHost));
  printf("sum %d\n", sum);
  return 0;
}

static int run_staged(int mode)
{
  enum { blocks = 2, steps = 3, threads = 64, n = blocks * steps * threads };
  double in[n], out[blocks * threads];
  for (int i = 0; i < n; i++)
    in[i] = i % 7 + 0.25 * i;
  double *d_in = device_copy(in, n), *d_out;
  POLYCU_CHECK(cudaMalloc(&d_out, sizeof out));
  POLYCU_LAUNCH(staged, dim3(blocks), dim3(threads), d_in, d_out, steps, mode);
  POLYCU_CHECK(cudaGetLastError());
  POLYCU_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < threads; t++) {
      double expected = steps;
      for (int s = 0; s < steps; s++) {
        const double *tile = in + (b * steps + s) * threads;
        expected += 2 * tile[t] + tile[(t + 1) % threads];
      }
      wrong += out[b * threads + t] != expected;
    }
  printf("wrong %d\n", wrong);
  return 0;
}

static int run_unwritten(void)
{
  float *d;
  POLYCU_CHECK(cudaMalloc(&d, 32 * sizeof(float)));
  POLYCU_LAUNCH(unwritten, dim3(1), dim3(32), d);
  POLYCU_CHECK(cudaGetLastError());
  printf("not reached\n");
  return 0;
}

static int run_same_element(void)
{
  int *d;
  POLYCU_CHECK(cudaMalloc(&d, 8 * sizeof(int)));
  POLYCU_LAUNCH_NOSYNC(same_element, dim3(1), dim3(4, 2), d);
  POLYCU_CHECK(cudaGetLastError());
  printf("not reached\n");
  return 0;
}

int main(int argc, char **argv)
{
  const char *which = argc > 1 ? argv[1] : "";
  if (!strcmp(which, "reverse")) return run_reverse(1);
  if (!strcmp(which, "reverse-no-barrier")) return run_reverse(0);
  if (!strcmp(which, "block-sum")) return run_block_sum();
  if (!strcmp(which, "atomics")) return run_atomics();
  if (!strcmp(which, "coordinates")) return run_coordinates();
  if (!strcmp(which, "chain")) return run_chain();
  if (!strcmp(which, "uninitialised")) return run_uninitialised();
  if (!strcmp(which, "errors")) return run_errors();
  if (!strcmp(which, "memories")) return run_memories();
  if (!strcmp(which, "volumes")) return run_volumes();
  if (!strcmp(which, "stale")) return run_stale();
  if (!strcmp(which, "freed-texture")) return run_freed_texture();
  if (!strcmp(which, "past-the-end")) return run_past_the_end();
  if (!strcmp(which, "divergent")) return run_divergent();
  if (!strcmp(which, "barrier-without-team")) return run_barrier_without_team();
  if (!strcmp(which, "dependent")) return run_dependent(0);
  if (!strcmp(which, "dependent-without-wait")) return run_dependent(1);
  if (!strcmp(which, "staged")) return run_staged(0);
  if (!strcmp(which, "staged-no-barrier-after-load")) return run_staged(1);
  if (!strcmp(which, "staged-no-barrier-before-overwrite")) return run_staged(2);
  if (!strcmp(which, "unwritten")) return run_unwritten();
  if (!strcmp(which, "same-element")) return run_same_element();
  fprintf(stderr, "unknown case '%s'\n", which);
  return 2;
}
