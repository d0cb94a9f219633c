// Calibration of the memory kinds polycu places arrays in (issue 13): the read
// bandwidth of each kind for each access pattern the cost model distinguishes,
// double and float, for working sets that fit the constant cache, L1 and L2, and
// one that does not.  Built and run by scripts/memory_kinds.sh on the device; prints CSV.
//
// Every thread sums R = 60 values read through one kind with one pattern; every
// kind must give the same sums as the global one (the data are multiples of 0.5
// below 4, so every sum is exact in float and double), else the row says MISMATCH.
//
// kinds:    global (plain loads), ldg (read-only path: const __restrict__ and
//           __ldg), tex1d (texture object over linear memory), tex2d (texture
//           object over a 2-D CUDA array), surf2d (surface object over the same
//           array), constant (__constant__, working sets up to 64 KB), shared
//           (each block first copies the working set, up to 48 KB)
// patterns: coalesced (a warp reads 32 consecutive elements), strided (each
//           thread walks its own row: lanes 33 elements apart, as A[i][j] with
//           i on the threads), stencil (5-point neighbourhood of a square grid),
//           uniform (a warp reads one address), random (a hash of thread and step),
//           broadcast (every warp reads the same address at each step, beside a
//           strided stream read with plain loads: a vector swept by a sequential
//           loop next to the rows of a matrix, as in y[i] += A[i][j] * x[j]),
//           diagonal (5-point neighbourhoods whose centres, lane to lane, are one
//           row down and two columns left: the warp of a skewed wavefront, as in
//           seidel-2d's A[t1 - c][h - 2 t1 - 2 c] with t1 on the threads)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(e_));                                           \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

enum Kind { GLOBAL, LDG, TEX1D, TEX2D, SURF2D, CONSTANT, SHARED, KINDS };
enum Pattern { COALESCED, STRIDED, STENCIL, UNIFORM, RANDOM, BROADCAST, DIAGONAL, PATTERNS };
static const char *KIND_NAMES[] = {"global", "ldg", "tex1d", "tex2d", "surf2d", "constant",
                                   "shared"};
static const char *PATTERN_NAMES[] = {"coalesced", "strided", "stencil", "uniform", "random",
                                       "broadcast", "diagonal"};

constexpr int R = 60;                 // reads per thread (stencil: 12 points of 5)
constexpr unsigned THREADS = 1u << 20;
constexpr int BLOCK = 256;
constexpr size_t CONSTANT_BYTES = 65536;
constexpr size_t SHARED_BYTES = 48 * 1024;

__constant__ unsigned char constant_bytes[CONSTANT_BYTES];

template <typename T> struct Source {
  const T *plain;
  const T *__restrict__ read_only;
  cudaTextureObject_t linear, array;
  cudaSurfaceObject_t surface;
  const T *stream;          // the matrix beside a broadcast vector (plain loads)
  unsigned stream_mask;
};

template <typename T> __device__ __forceinline__ T from_texel(int2 v) {
  return __hiloint2double(v.y, v.x);
}

template <typename T, int K>
__device__ __forceinline__ T load(const Source<T> &s, const T *tile, unsigned i, int logw) {
  const unsigned x = i & ((1u << logw) - 1), y = i >> logw;
  if constexpr (K == GLOBAL) {
    return s.plain[i];
  } else if constexpr (K == LDG) {
    return __ldg(s.read_only + i);
  } else if constexpr (K == TEX1D) {
    if constexpr (sizeof(T) == 8) return from_texel<T>(tex1Dfetch<int2>(s.linear, i));
    else return tex1Dfetch<float>(s.linear, i);
  } else if constexpr (K == TEX2D) {
    if constexpr (sizeof(T) == 8) return from_texel<T>(tex2D<int2>(s.array, x, y));
    else return tex2D<float>(s.array, x, y);
  } else if constexpr (K == SURF2D) {
    if constexpr (sizeof(T) == 8) {
      int2 v;
      surf2Dread(&v, s.surface, x * 8, y);
      return from_texel<T>(v);
    } else {
      float v;
      surf2Dread(&v, s.surface, x * 4, y);
      return v;
    }
  } else if constexpr (K == CONSTANT) {
    return reinterpret_cast<const T *>(constant_bytes)[i];
  } else {
    return tile[i];
  }
}

__device__ __forceinline__ unsigned mix(unsigned v) {
  v ^= v >> 16;
  v *= 0x7feb352dU;
  v ^= v >> 15;
  v *= 0x846ca68bU;
  return v ^ (v >> 16);
}

template <typename T, int K, int P>
__global__ void __launch_bounds__(BLOCK) bench(Source<T> s, T *out, unsigned n, int logw) {
  extern __shared__ unsigned char shared_bytes[];
  T *tile = reinterpret_cast<T *>(shared_bytes);
  if constexpr (K == SHARED) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) tile[i] = s.plain[i];
    __syncthreads();
  }
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, mask = n - 1;
  T acc = 0;
  if constexpr (P == STENCIL) {
    const unsigned w = 1u << logw, wm = w - 1, hm = (n >> logw) - 1;
    for (int k = 0; k < R / 5; k++) {
      const unsigned p = (t + k * THREADS / 3) & mask, x = p & wm, y = p >> logw;
      acc += load<T, K>(s, tile, p, logw) + load<T, K>(s, tile, y * w + ((x + 1) & wm), logw) +
             load<T, K>(s, tile, y * w + ((x - 1) & wm), logw) +
             load<T, K>(s, tile, ((y + 1) & hm) * w + x, logw) +
             load<T, K>(s, tile, ((y - 1) & hm) * w + x, logw);
    }
  } else if constexpr (P == DIAGONAL) {
    const unsigned w = 1u << logw, wm = w - 1, hm = (n >> logw) - 1;
    for (int k = 0; k < R / 5; k++) {
      const unsigned y = (t + 3 * k) & hm, x = (5 * k - 2 * t) & wm;
      acc += load<T, K>(s, tile, y * w + x, logw) + load<T, K>(s, tile, y * w + ((x + 1) & wm), logw) +
             load<T, K>(s, tile, y * w + ((x - 1) & wm), logw) +
             load<T, K>(s, tile, ((y + 1) & hm) * w + x, logw) +
             load<T, K>(s, tile, ((y - 1) & hm) * w + x, logw);
    }
  } else if constexpr (P == BROADCAST) {
#pragma unroll 4
    for (int r = 0; r < R; r++)
      acc += load<T, K>(s, tile, (r * 31) & mask, logw) * s.stream[(t * 33 + r) & s.stream_mask];
  } else {
#pragma unroll 4
    for (int r = 0; r < R; r++) {
      unsigned i;
      if constexpr (P == COALESCED) i = t + r * (THREADS / 7);
      else if constexpr (P == STRIDED) i = t * 33 + r;
      else if constexpr (P == UNIFORM) i = (t >> 5) * 97 + r * 31;
      else i = mix(t * R + r);
      acc += load<T, K>(s, tile, i & mask, logw);
    }
  }
  out[t] = acc;
}

template <typename T> using Launcher = void (*)(Source<T>, T *, unsigned, int);

template <typename T, int K, int P> void launch(Source<T> s, T *out, unsigned n, int logw) {
  const size_t shared = K == SHARED ? n * sizeof(T) : 0;
  bench<T, K, P><<<THREADS / BLOCK, BLOCK, shared>>>(s, out, n, logw);
}

template <typename T, int K> void table_row(Launcher<T> *row) {
  row[COALESCED] = launch<T, K, COALESCED>;
  row[STRIDED] = launch<T, K, STRIDED>;
  row[STENCIL] = launch<T, K, STENCIL>;
  row[UNIFORM] = launch<T, K, UNIFORM>;
  row[RANDOM] = launch<T, K, RANDOM>;
  row[BROADCAST] = launch<T, K, BROADCAST>;
  row[DIAGONAL] = launch<T, K, DIAGONAL>;
}

template <typename T> void table(Launcher<T> (*t)[PATTERNS]) {
  table_row<T, GLOBAL>(t[GLOBAL]);
  table_row<T, LDG>(t[LDG]);
  table_row<T, TEX1D>(t[TEX1D]);
  table_row<T, TEX2D>(t[TEX2D]);
  table_row<T, SURF2D>(t[SURF2D]);
  table_row<T, CONSTANT>(t[CONSTANT]);
  table_row<T, SHARED>(t[SHARED]);
}

// The sum of every thread's result, in double (exact: each is a multiple of 0.5).
template <typename T> double checksum(const T *out) {
  std::vector<T> host(THREADS);
  CHECK(cudaMemcpy(host.data(), out, THREADS * sizeof(T), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (T v : host) sum += (double)v;
  return sum;
}

template <typename T> void run(const char *type, unsigned n, int logw) {
  const size_t bytes = n * sizeof(T);
  std::vector<T> host(n);
  for (unsigned i = 0; i < n; i++) host[i] = (T)((i * 7919u) % 8) * (T)0.5;
  T *data, *out;
  CHECK(cudaMalloc(&data, bytes));
  CHECK(cudaMalloc(&out, THREADS * sizeof(T)));
  CHECK(cudaMemcpy(data, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaChannelFormatDesc desc = sizeof(T) == 8 ? cudaCreateChannelDesc<int2>()
                                              : cudaCreateChannelDesc<float>();
  const unsigned w = 1u << logw, h = n >> logw;
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, data, w * sizeof(T), w * sizeof(T), h,
                            cudaMemcpyDeviceToDevice));
  cudaTextureDesc tex = {};
  tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  cudaResourceDesc linear = {};
  linear.resType = cudaResourceTypeLinear;
  linear.res.linear.devPtr = data;
  linear.res.linear.desc = desc;
  linear.res.linear.sizeInBytes = bytes;
  cudaResourceDesc in_array = {};
  in_array.resType = cudaResourceTypeArray;
  in_array.res.array.array = array;
  // the stream: 2^22 elements (32 MiB of double), multiples of 0.5 below 4 like the data
  constexpr unsigned STREAM = 1u << 22;
  std::vector<T> stream_host(STREAM);
  for (unsigned i = 0; i < STREAM; i++) stream_host[i] = (T)((i * 104729u) % 8) * (T)0.5;
  T *stream;
  CHECK(cudaMalloc(&stream, STREAM * sizeof(T)));
  CHECK(cudaMemcpy(stream, stream_host.data(), STREAM * sizeof(T), cudaMemcpyHostToDevice));
  Source<T> s = {data, data, 0, 0, 0, stream, STREAM - 1};
  CHECK(cudaCreateTextureObject(&s.linear, &linear, &tex, nullptr));
  CHECK(cudaCreateTextureObject(&s.array, &in_array, &tex, nullptr));
  CHECK(cudaCreateSurfaceObject(&s.surface, &in_array));
  if (bytes <= CONSTANT_BYTES) CHECK(cudaMemcpyToSymbol(constant_bytes, host.data(), bytes));
  static Launcher<T> launchers[KINDS][PATTERNS];
  table<T>(launchers);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int p = 0; p < PATTERNS; p++) {
    double expected = 0;
    for (int k = 0; k < KINDS; k++) {
      if ((k == CONSTANT && bytes > CONSTANT_BYTES) || (k == SHARED && bytes > SHARED_BYTES))
        continue;
      CHECK(cudaMemset(out, 0, THREADS * sizeof(T)));
      launchers[k][p](s, out, n, logw);   // warm-up, and the checked result
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      const double sum = checksum(out);
      if (k == GLOBAL) expected = sum;
      std::vector<float> times;
      for (int rep = 0; rep < 7; rep++) {
        CHECK(cudaEventRecord(start));
        launchers[k][p](s, out, n, logw);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      const double ms = times[times.size() / 2];
      const double requested = (double)THREADS * R * sizeof(T);
      printf("%s,%s,%s,%zu,%.5f,%.1f,%s\n", type, KIND_NAMES[k], PATTERN_NAMES[p], bytes, ms,
             requested / ms / 1e6, sum == expected ? "ok" : "MISMATCH");
    }
  }
  CHECK(cudaDestroySurfaceObject(s.surface));
  CHECK(cudaDestroyTextureObject(s.array));
  CHECK(cudaDestroyTextureObject(s.linear));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(out));
  CHECK(cudaFree(data));
  CHECK(cudaFree(stream));
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  fprintf(stderr, "memory_kinds: %s\n", prop.name);
  printf("type,kind,pattern,working_set_bytes,ms,requested_GBps,check\n");
  // 16x16 (fits the constant cache), 64x64 (fits L1 and __constant__), 1024x1024 (fits
  // L2), 4096x4096 (does not)
  const int sides[] = {4, 6, 10, 12};
  for (int logw : sides) {
    const unsigned n = 1u << (2 * logw);
    run<double>("double", n, logw);
    run<float>("float", n, logw);
  }
  return 0;
}
