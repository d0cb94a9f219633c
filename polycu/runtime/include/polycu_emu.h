/*
 * polycu_emu.h - run polycu's generated CUDA on the CPU (CI has no GPU).
 *
 *   g++ -std=c++17 -O1 -fopenmp -x c++ -DPOLYCU_EMULATE -I <this dir> file.cu
 *
 * The generated .cu includes this header instead of <cuda_runtime.h> when
 * POLYCU_EMULATE is defined.  The emulation is built to make bugs of the
 * generated code show, not to hide them:
 *
 * - POLYCU_LAUNCH (kernels with __syncthreads) runs the blocks one after
 *   another, each block as one OpenMP team of blockDim threads running
 *   concurrently; __syncthreads is a real barrier among them.  A thread that
 *   leaves the kernel drops out of the barrier (so early exits cannot hang),
 *   and threads of a block that pass different numbers of barriers (a barrier
 *   in divergent code, undefined on a GPU) are a fatal error.
 * - __shared__ variables live in one ELF section that is poisoned (all bytes
 *   0xFF: NaN for floating point, -1 for integers) before every block, so a
 *   read that a missing barrier lets run early reads garbage.
 * - POLYCU_LAUNCH_NOSYNC (kernels without barriers) runs the threads of a
 *   block one after another and the blocks in parallel (sequentially when the
 *   program has __shared__ variables).  Blocks and threads run in reverse
 *   order: an illegal parallel loop executed in its original order would look
 *   right; in reverse order its cross-iteration dependences break.
 * - cudaMalloc'd memory starts poisoned (0xFF) to catch missing copy-ins and
 *   lies between two poisoned red zones, checked after every launch, to catch
 *   writes outside it; requests over 2^40 bytes (a wrapped negative size) fail
 *   with cudaErrorMemoryAllocation, as on a GPU; cudaMemcpy/cudaMemset check that device ranges lie
 *   inside one device allocation and that the copy direction matches.
 * - Launch configurations are checked against CUDA's limits; a bad one is a
 *   sticky error that cudaGetLastError() returns, as on a GPU.
 *
 * Textures and surfaces are small descriptors (pointer, pitches, element
 * size) with point sampling; constant memory is ordinary memory.
 */
#ifndef POLYCU_EMU_H
#define POLYCU_EMU_H

#ifndef __cplusplus
#error "polycu_emu.h is C++: compile the .cu with g++ -x c++ -std=c++17"
#endif
#ifndef _OPENMP
#error "polycu_emu.h runs each block as an OpenMP team: compile with -fopenmp"
#endif

#include <linux/futex.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <math.h>
#include <pthread.h>
#include <type_traits>

/* ---------------------------------------------------------------------- */
/* Qualifiers                                                             */
/* ---------------------------------------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static __attribute__((section("polycu_shared"), aligned(16)))

/* ---------------------------------------------------------------------- */
/* Vector types and the thread coordinates                                */
/* ---------------------------------------------------------------------- */

struct uint3 { unsigned int x, y, z; };

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

#define POLYCU_EMU_VECTOR2(NAME, T)                                          \
  struct NAME { T x, y; };                                                   \
  inline NAME make_##NAME(T x, T y) { return NAME{x, y}; }
#define POLYCU_EMU_VECTOR4(NAME, T)                                          \
  struct NAME { T x, y, z, w; };                                             \
  inline NAME make_##NAME(T x, T y, T z, T w) { return NAME{x, y, z, w}; }
POLYCU_EMU_VECTOR2(int2, int)
POLYCU_EMU_VECTOR2(uint2, unsigned int)
POLYCU_EMU_VECTOR2(float2, float)
POLYCU_EMU_VECTOR2(double2, double)
POLYCU_EMU_VECTOR4(int4, int)
POLYCU_EMU_VECTOR4(uint4, unsigned int)
POLYCU_EMU_VECTOR4(float4, float)
#undef POLYCU_EMU_VECTOR2
#undef POLYCU_EMU_VECTOR4
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

/* Each emulated CUDA thread is an OS thread (or a turn of one), so the
   coordinates are thread-local. */
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;
constexpr int warpSize = 32;

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */
/* ---------------------------------------------------------------------- */

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorLaunchOutOfResources = 701,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
  }
  return "cudaErrorUnknown";
}

inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
  }
  return "unknown error";
}

namespace polycu_emu {

/* The sticky error of the last failed launch, as cudaGetLastError sees it. */
inline cudaError_t last_error = cudaSuccess;
inline thread_local const char *current_kernel = nullptr;

[[noreturn]] inline void fatal(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fprintf(stderr, "polycu_emu: error: ");
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  std::fflush(stderr);
  std::abort();
}

inline cudaError_t report(cudaError_t e, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fprintf(stderr, "polycu_emu: %s: ", cudaGetErrorName(e));
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  return e;
}

}  // namespace polycu_emu

inline cudaError_t cudaGetLastError() {
  cudaError_t e = polycu_emu::last_error;
  polycu_emu::last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return polycu_emu::last_error; }
/* Launches are synchronous in the emulation. */
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }

/* ---------------------------------------------------------------------- */
/* Device memory                                                          */
/* ---------------------------------------------------------------------- */

namespace polycu_emu {

/* Every device allocation sits between two red zones of poison bytes; a launch
   that changes one wrote outside device memory (on a GPU: a crash, or another
   array silently corrupted), which is reported with the kernel's name. */
constexpr std::size_t red_zone = 64 * 1024;

/* Scoped lock of a pthread mutex (the C++ <mutex> header alone would double the
   build time of every emulated file). */
struct Guard {
  pthread_mutex_t *mutex;
  explicit Guard(pthread_mutex_t *m) : mutex(m) { pthread_mutex_lock(mutex); }
  ~Guard() { pthread_mutex_unlock(mutex); }
  Guard(const Guard &) = delete;
  Guard &operator=(const Guard &) = delete;
};

struct Block { std::uintptr_t start; std::size_t size; };

/* The live device allocations (a program has few: a linear table will do). */
struct Allocations {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  Block *blocks = nullptr;
  std::size_t count = 0, capacity = 0;

  /* The allocation containing p, or nullptr; the caller holds the lock. */
  Block *find(const void *p) {
    auto address = reinterpret_cast<std::uintptr_t>(p);
    for (std::size_t k = 0; k < count; ++k)
      if (address >= blocks[k].start && address < blocks[k].start + (blocks[k].size ? blocks[k].size : 1))
        return &blocks[k];
    return nullptr;
  }
  void add(std::uintptr_t start, std::size_t size) {
    Guard guard(&lock);
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      blocks = static_cast<Block *>(std::realloc(blocks, capacity * sizeof(Block)));
      if (blocks == nullptr) fatal("out of host memory");
    }
    blocks[count++] = Block{start, size};
  }
  /* Forget the allocation that starts at p; false when there is none. */
  bool remove(const void *p) {
    Guard guard(&lock);
    for (std::size_t k = 0; k < count; ++k)
      if (blocks[k].start == reinterpret_cast<std::uintptr_t>(p)) {
        blocks[k] = blocks[--count];
        return true;
      }
    return false;
  }
  bool is_device(const void *p) {
    Guard guard(&lock);
    return find(p) != nullptr;
  }
  /* Whether [p, p + n) lies inside one allocation. */
  bool holds(const void *p, std::size_t n) {
    Guard guard(&lock);
    Block *b = find(p);
    return b != nullptr && reinterpret_cast<std::uintptr_t>(p) + n <= b->start + b->size;
  }
};

inline Allocations &allocations() {
  static Allocations table;
  return table;
}

/* The offset from the allocation [start, start + size) of the first byte of
   its red zones that is not poison, or 0 when both are intact. */
inline long red_zone_damage(std::uintptr_t start, std::size_t size) {
  const unsigned char *before = reinterpret_cast<const unsigned char *>(start) - red_zone;
  for (std::size_t k = 0; k < red_zone; ++k)
    if (before[k] != 0xFF) return static_cast<long>(k) - static_cast<long>(red_zone);
  const unsigned char *after = reinterpret_cast<const unsigned char *>(start) + size;
  std::size_t slack = (size + 255) / 256 * 256 - size + red_zone;
  for (std::size_t k = 0; k < slack; ++k)
    if (after[k] != 0xFF) return static_cast<long>(size + k);
  return 0;
}

inline void check_red_zones(const char *kernel) {
  Allocations &table = allocations();
  Guard guard(&table.lock);
  for (std::size_t k = 0; k < table.count; ++k) {
    const Block &block = table.blocks[k];
    long offset = red_zone_damage(block.start, block.size);
    if (offset != 0)
      fatal("kernel %s wrote outside device memory: at byte %ld of the %zu-byte allocation %p",
            kernel, offset, block.size, reinterpret_cast<void *>(block.start));
  }
}

inline cudaError_t check_range(const char *what, const void *p, std::size_t n, bool device) {
  if (device && !allocations().holds(p, n))
    return report(cudaErrorInvalidValue,
                  "%s: %zu bytes at %p are not inside one device allocation", what, n, p);
  if (!device && n > 0 && allocations().is_device(p))
    return report(cudaErrorInvalidMemcpyDirection,
                  "%s: %p is device memory but the copy kind says host", what, p);
  return cudaSuccess;
}

/* No GPU has 2^40 bytes (1 TiB): a larger request is a size computed with a wrapped
   negative value ((size_t) -8 ...); cudaMalloc refuses it there, and here too instead
   of rounding it up past 2^64 into a small block. */
inline constexpr std::size_t max_allocation = std::size_t(1) << 40;

}  // namespace polycu_emu

inline cudaError_t cudaMalloc(void **pointer, std::size_t size) {
  using polycu_emu::red_zone;
  if (size > polycu_emu::max_allocation)
    return polycu_emu::report(cudaErrorMemoryAllocation,
                              "cudaMalloc of %zu bytes: more than any GPU has (a size "
                              "computed from a negative value?)", size);
  std::size_t total = red_zone + (size + 255) / 256 * 256 + red_zone;
  auto *base = static_cast<unsigned char *>(std::aligned_alloc(256, total));
  if (base == nullptr) return cudaErrorMemoryAllocation;
  std::memset(base, 0xFF, total);  // poison: catch missing copy-ins and stray writes
  polycu_emu::allocations().add(reinterpret_cast<std::uintptr_t>(base + red_zone), size);
  *pointer = base + red_zone;
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaMalloc(T **pointer, std::size_t size) {
  return cudaMalloc(reinterpret_cast<void **>(pointer), size);
}

inline cudaError_t cudaFree(void *p) {
  if (p == nullptr) return cudaSuccess;
  if (!polycu_emu::allocations().remove(p))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaFree(%p): not a device allocation", p);
  std::free(static_cast<unsigned char *>(p) - polycu_emu::red_zone);
  return cudaSuccess;
}

inline cudaError_t cudaMallocHost(void **p, std::size_t size) {
  *p = std::malloc(size ? size : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> inline cudaError_t cudaMallocHost(T **p, std::size_t size) {
  return cudaMallocHost(reinterpret_cast<void **>(p), size);
}
inline cudaError_t cudaFreeHost(void *p) { std::free(p); return cudaSuccess; }

inline cudaError_t cudaMemcpy(void *dst, const void *src, std::size_t n, cudaMemcpyKind kind) {
  using polycu_emu::check_range;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return polycu_emu::report(cudaErrorInvalidMemcpyDirection, "cudaMemcpy: kind %d", kind);
  if (kind != cudaMemcpyDefault) {
    bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    cudaError_t e = check_range("cudaMemcpy destination", dst, n, dst_device);
    if (e == cudaSuccess) e = check_range("cudaMemcpy source", src, n, src_device);
    if (e != cudaSuccess) return e;
  }
  if (n > 0) std::memmove(dst, src, n);
  return cudaSuccess;
}

/* Pitched 2-D memory: rows padded to 256 bytes, as a GPU might. */
inline cudaError_t cudaMallocPitch(void **pointer, std::size_t *pitch, std::size_t width, std::size_t height) {
  *pitch = (width + 255) / 256 * 256;
  return cudaMalloc(pointer, *pitch * height);
}
template <class T>
inline cudaError_t cudaMallocPitch(T **pointer, std::size_t *pitch, std::size_t width, std::size_t height) {
  return cudaMallocPitch(reinterpret_cast<void **>(pointer), pitch, width, height);
}

inline cudaError_t cudaMemcpy2D(void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                                std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch)
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy2D: width exceeds a pitch");
  for (std::size_t r = 0; r < height; ++r) {
    cudaError_t e = cudaMemcpy(static_cast<unsigned char *>(dst) + r * dpitch,
                               static_cast<const unsigned char *>(src) + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

inline cudaError_t cudaMemset(void *p, int value, std::size_t n) {
  cudaError_t e = polycu_emu::check_range("cudaMemset", p, n, true);
  if (e != cudaSuccess) return e;
  std::memset(p, value, n);
  return cudaSuccess;
}

/* __constant__ and __device__ variables are ordinary globals. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, std::size_t count,
                                      std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(T))
    return polycu_emu::report(cudaErrorInvalidValue,
                              "cudaMemcpyToSymbol: %zu bytes at offset %zu overflow a %zu-byte symbol",
                              count, offset, sizeof(T));
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::memcpy(reinterpret_cast<char *>(&symbol) + offset, src, count);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, std::size_t count,
                                        std::size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(T))
    return polycu_emu::report(cudaErrorInvalidValue,
                              "cudaMemcpyFromSymbol: %zu bytes at offset %zu overflow a %zu-byte symbol",
                              count, offset, sizeof(T));
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  std::memcpy(dst, reinterpret_cast<const char *>(&symbol) + offset, count);
  return cudaSuccess;
}

/* Device allocations still live: the runtime checks generated code frees all. */
extern "C" __attribute__((weak)) long polycu_emu_live_allocations(void) {
  auto &table = polycu_emu::allocations();
  polycu_emu::Guard guard(&table.lock);
  return static_cast<long>(table.count);
}

/* ---------------------------------------------------------------------- */
/* Events (wall-clock time on the CPU)                                    */
/* ---------------------------------------------------------------------- */

struct CUevent_st { double when_ms; bool recorded; };
typedef CUevent_st *cudaEvent_t;
struct CUstream_st;
typedef CUstream_st *cudaStream_t;

namespace polycu_emu {
inline double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
}  // namespace polycu_emu

inline cudaError_t cudaEventCreate(cudaEvent_t *event) {
  *event = new CUevent_st{polycu_emu::now_ms(), false};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = nullptr) {
  if (event == nullptr) return cudaErrorInvalidResourceHandle;
  event->when_ms = polycu_emu::now_ms();
  event->recorded = true;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (start == nullptr || end == nullptr || !start->recorded || !end->recorded)
    return cudaErrorInvalidResourceHandle;
  *ms = static_cast<float>(end->when_ms - start->when_ms);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) { delete event; return cudaSuccess; }

/* ---------------------------------------------------------------------- */
/* Launches                                                               */
/* ---------------------------------------------------------------------- */

extern "C" char __start_polycu_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_polycu_shared[] __attribute__((weak, visibility("hidden")));

namespace polycu_emu {

inline std::size_t shared_bytes() {
  return __start_polycu_shared ? static_cast<std::size_t>(__stop_polycu_shared - __start_polycu_shared)
                               : 0;
}

/* A new block finds its shared memory full of garbage, as on a GPU. */
inline void poison_shared() {
  if (shared_bytes() > 0) std::memset(__start_polycu_shared, 0xFF, shared_bytes());
}

/* The barrier of one block.  Threads that leave the kernel drop out, so the
   others are released; `passed` counts each thread's barriers so that a
   barrier in divergent code is reported instead of silently "working".
   Waiting threads sleep on a futex: with up to 1024 threads on a few cores,
   spinning or a mutex would serialise every wake-up. */
struct Barrier {
  /* live threads in the high half, threads waiting in the low half: one
     word, so that an arrival and a departure cannot both miss the release. */
  std::uint64_t state = 0;
  int generation = 0;  // the futex word
  unsigned long passed[1024];

  static constexpr std::uint64_t one_live = std::uint64_t{1} << 32;

  void reset(unsigned threads) {
    __atomic_store_n(&state, threads * one_live, __ATOMIC_SEQ_CST);
    std::memset(passed, 0, sizeof passed);
  }
  void release(std::uint64_t s) {
    __atomic_store_n(&state, s & ~(one_live - 1), __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&generation, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &generation, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  }
  void wait(unsigned thread) {
    ++passed[thread];
    int mine = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    std::uint64_t s = __atomic_add_fetch(&state, 1, __ATOMIC_SEQ_CST);
    if ((s & (one_live - 1)) == (s >> 32)) {
      release(s);
      return;
    }
    while (__atomic_load_n(&generation, __ATOMIC_ACQUIRE) == mine)
      syscall(SYS_futex, &generation, FUTEX_WAIT_PRIVATE, mine, nullptr, nullptr, 0);
  }
  void leave() {
    std::uint64_t s = __atomic_sub_fetch(&state, one_live, __ATOMIC_SEQ_CST);
    std::uint64_t waiting = s & (one_live - 1);
    if (waiting > 0 && waiting == (s >> 32)) release(s);
  }
};

inline thread_local Barrier *current_barrier = nullptr;
inline thread_local unsigned current_thread = 0;

inline uint3 unflatten(unsigned long long index, dim3 shape) {
  return uint3{static_cast<unsigned>(index % shape.x),
               static_cast<unsigned>(index / shape.x % shape.y),
               static_cast<unsigned>(index / (static_cast<unsigned long long>(shape.x) * shape.y))};
}

/* CUDA's limits on a launch configuration (compute capability 9.0). */
inline bool configure(const char *kernel, dim3 grid, dim3 block) {
  unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
  const char *why = nullptr;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) why = "a grid dimension is 0";
  else if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u) why = "the grid is too large";
  else if (threads == 0) why = "a block dimension is 0";
  else if (block.x > 1024u || block.y > 1024u || block.z > 64u || threads > 1024u)
    why = "the block has too many threads";
  if (why == nullptr) return true;
  last_error = report(cudaErrorInvalidConfiguration, "launch of %s with grid (%u,%u,%u) block (%u,%u,%u): %s",
                      kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, why);
  return false;
}

/* A kernel with barriers: blocks in turn (last first), each block's threads
   concurrently as one OpenMP team. */
template <class Body>
void launch(const char *kernel, dim3 grid, dim3 block, const Body &body) {
  if (!configure(kernel, grid, block)) return;
  const unsigned threads = block.x * block.y * block.z;
  const unsigned long long blocks = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
  Barrier barrier;
  bool short_team = false;
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const unsigned me = static_cast<unsigned>(omp_get_thread_num());
    if (static_cast<unsigned>(omp_get_num_threads()) != threads) {
      if (me == 0) short_team = true;
    } else {
      threadIdx = unflatten(me, block);
      blockDim = block;
      gridDim = grid;
      current_kernel = kernel;
      current_barrier = &barrier;
      current_thread = me;
      for (unsigned long long b = blocks; b-- > 0;) {
        if (me == 0) {
          poison_shared();
          barrier.reset(threads);
        }
#pragma omp barrier
        blockIdx = unflatten(b, grid);
        body();
        barrier.leave();
#pragma omp barrier
        if (me == 0) {
          for (unsigned t = 1; t < threads; ++t)
            if (barrier.passed[t] != barrier.passed[0])
              fatal("kernel %s, block (%u,%u,%u): thread %u passed %lu __syncthreads() but thread 0 "
                    "passed %lu: a barrier in divergent code (undefined behaviour on a GPU)",
                    kernel, blockIdx.x, blockIdx.y, blockIdx.z, t, barrier.passed[t],
                    barrier.passed[0]);
        }
      }
      current_barrier = nullptr;
      current_kernel = nullptr;
    }
  }
  check_red_zones(kernel);
  if (short_team)
    last_error = report(cudaErrorLaunchOutOfResources,
                        "launch of %s: OpenMP refused a team of %u threads (set OMP_THREAD_LIMIT "
                        "to at least 1024 and OMP_DYNAMIC=false)", kernel, threads);
}

/* A kernel without barriers: threads of a block in turn, blocks in parallel
   unless the program has shared memory; both in reverse order. */
template <class Body>
void launch_nosync(const char *kernel, dim3 grid, dim3 block, const Body &body) {
  if (!configure(kernel, grid, block)) return;
  const long long threads = static_cast<long long>(block.x) * block.y * block.z;
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
  const bool sequential = shared_bytes() > 0;
#pragma omp parallel for schedule(static, 1) if (!sequential && blocks > 1)
  for (long long r = 0; r < blocks; ++r) {
    blockIdx = unflatten(static_cast<unsigned long long>(blocks - 1 - r), grid);
    blockDim = block;
    gridDim = grid;
    current_kernel = kernel;
    current_barrier = nullptr;
    if (sequential) poison_shared();
    for (long long t = threads; t-- > 0;) {
      threadIdx = unflatten(static_cast<unsigned long long>(t), block);
      body();
    }
    current_kernel = nullptr;
  }
  check_red_zones(kernel);
}

}  // namespace polycu_emu

#define POLYCU_LAUNCH(kernel, grid, block, ...) \
  ::polycu_emu::launch(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); })
#define POLYCU_LAUNCH_NOSYNC(kernel, grid, block, ...) \
  ::polycu_emu::launch_nosync(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); })

inline void __syncthreads() {
  polycu_emu::Barrier *barrier = polycu_emu::current_barrier;
  if (barrier == nullptr)
    polycu_emu::fatal("__syncthreads() in %s, which was not launched with POLYCU_LAUNCH",
                      polycu_emu::current_kernel ? polycu_emu::current_kernel : "host code");
  barrier->wait(polycu_emu::current_thread);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---------------------------------------------------------------------- */
/* Device functions                                                       */
/* ---------------------------------------------------------------------- */

template <class T> inline T __ldg(const T *p) { return *p; }

#define POLYCU_EMU_MINMAX(T)                                   \
  inline T min(T a, T b) { return b < a ? b : a; }            \
  inline T max(T a, T b) { return a < b ? b : a; }
POLYCU_EMU_MINMAX(int)
POLYCU_EMU_MINMAX(unsigned int)
POLYCU_EMU_MINMAX(long)
POLYCU_EMU_MINMAX(unsigned long)
POLYCU_EMU_MINMAX(long long)
POLYCU_EMU_MINMAX(unsigned long long)
POLYCU_EMU_MINMAX(float)
POLYCU_EMU_MINMAX(double)
#undef POLYCU_EMU_MINMAX
/* Mixed signedness and precision resolve as in CUDA's headers. */
inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
inline double min(float a, double b) { return min(static_cast<double>(a), b); }
inline double min(double a, float b) { return min(a, static_cast<double>(b)); }
inline double max(float a, double b) { return max(static_cast<double>(a), b); }
inline double max(double a, float b) { return max(a, static_cast<double>(b)); }

inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double exp10(double x) { return std::pow(10.0, x); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }

inline double __hiloint2double(int hi, int lo) {
  std::uint64_t bits = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32) |
                       static_cast<std::uint32_t>(lo);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
inline int __double2hiint(double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return static_cast<int>(static_cast<std::uint32_t>(bits >> 32));
}
inline int __double2loint(double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return static_cast<int>(static_cast<std::uint32_t>(bits));
}

/* ---------------------------------------------------------------------- */
/* Atomics (they return the old value, like CUDA's)                       */
/* ---------------------------------------------------------------------- */

namespace polycu_emu {

/* Read-modify-write of any 4- or 8-byte type by compare-and-swap. */
template <class T, class Op> inline T atomic_update(T *address, Op op) {
  T old, updated;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  do {
    updated = op(old);
  } while (!__atomic_compare_exchange(address, &old, &updated, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED));
  return old;
}

}  // namespace polycu_emu

#define POLYCU_EMU_INTEGER_ATOMICS(T)                                                         \
  inline T atomicAdd(T *a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }       \
  inline T atomicSub(T *a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }       \
  inline T atomicAnd(T *a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }       \
  inline T atomicOr(T *a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }         \
  inline T atomicXor(T *a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }       \
  inline T atomicExch(T *a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }     \
  inline T atomicMin(T *a, T v) {                                                            \
    return polycu_emu::atomic_update(a, [v](T old) { return v < old ? v : old; });           \
  }                                                                                          \
  inline T atomicMax(T *a, T v) {                                                            \
    return polycu_emu::atomic_update(a, [v](T old) { return old < v ? v : old; });           \
  }                                                                                          \
  inline T atomicCAS(T *a, T compare, T v) {                                                 \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return compare;                                                                          \
  }
POLYCU_EMU_INTEGER_ATOMICS(int)
POLYCU_EMU_INTEGER_ATOMICS(unsigned int)
POLYCU_EMU_INTEGER_ATOMICS(long long)
POLYCU_EMU_INTEGER_ATOMICS(unsigned long long)
#undef POLYCU_EMU_INTEGER_ATOMICS

inline float atomicAdd(float *a, float v) {
  return polycu_emu::atomic_update(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double *a, double v) {
  return polycu_emu::atomic_update(a, [v](double old) { return old + v; });
}
inline float atomicExch(float *a, float v) {
  float old;
  __atomic_exchange(a, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}

/* ---------------------------------------------------------------------- */
/* Arrays, textures and surfaces                                          */
/* ---------------------------------------------------------------------- */

enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
};
struct cudaChannelFormatDesc { int x, y, z, w; cudaChannelFormatKind f; };

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

namespace polycu_emu {
template <class T> struct Channel {
  static constexpr int components = 1;
  static constexpr int bits = 8 * sizeof(T);
};
template <> struct Channel<int2> { static constexpr int components = 2, bits = 32; };
template <> struct Channel<uint2> { static constexpr int components = 2, bits = 32; };
template <> struct Channel<float2> { static constexpr int components = 2, bits = 32; };
template <> struct Channel<int4> { static constexpr int components = 4, bits = 32; };
template <> struct Channel<uint4> { static constexpr int components = 4, bits = 32; };
template <> struct Channel<float4> { static constexpr int components = 4, bits = 32; };

inline std::size_t element_bytes(const cudaChannelFormatDesc &d) {
  return static_cast<std::size_t>(d.x + d.y + d.z + d.w) / 8;
}
}  // namespace polycu_emu

template <class T> inline cudaChannelFormatDesc cudaCreateChannelDesc() {
  using C = polycu_emu::Channel<T>;
  const int b = C::bits;
  cudaChannelFormatKind kind = std::is_floating_point<T>::value || std::is_same<T, float2>::value ||
                                       std::is_same<T, float4>::value
                                   ? cudaChannelFormatKindFloat
                                   : cudaChannelFormatKindSigned;
  return cudaChannelFormatDesc{b, C::components > 1 ? b : 0, C::components > 2 ? b : 0,
                               C::components > 3 ? b : 0, kind};
}

struct cudaExtent { std::size_t width, height, depth; };
inline cudaExtent make_cudaExtent(std::size_t w, std::size_t h, std::size_t d) { return cudaExtent{w, h, d}; }
struct cudaPitchedPtr { void *ptr; std::size_t pitch, xsize, ysize; };
inline cudaPitchedPtr make_cudaPitchedPtr(void *p, std::size_t pitch, std::size_t xsize, std::size_t ysize) {
  return cudaPitchedPtr{p, pitch, xsize, ysize};
}
struct cudaPos { std::size_t x, y, z; };
inline cudaPos make_cudaPos(std::size_t x, std::size_t y, std::size_t z) { return cudaPos{x, y, z}; }

/* A CUDA array: a dense block of width x height x depth elements. */
struct cudaArray {
  std::size_t width, height, depth, element;
  unsigned char *data;
};
typedef cudaArray *cudaArray_t;
typedef const cudaArray *cudaArray_const_t;

enum { cudaArrayDefault = 0, cudaArrayLayered = 1, cudaArraySurfaceLoadStore = 2 };

inline cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                     cudaExtent extent, unsigned int = 0) {
  std::size_t element = polycu_emu::element_bytes(*desc);
  if (element == 0 || extent.width == 0) return cudaErrorInvalidValue;
  std::size_t h = extent.height ? extent.height : 1, d = extent.depth ? extent.depth : 1;
  auto *a = new cudaArray{extent.width, h, d, element, nullptr};
  a->data = static_cast<unsigned char *>(std::malloc(extent.width * h * d * element));
  std::memset(a->data, 0xFF, extent.width * h * d * element);
  *array = a;
  return cudaSuccess;
}
inline cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                   std::size_t width, std::size_t height = 0, unsigned int flags = 0) {
  return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}
inline cudaError_t cudaFreeArray(cudaArray_t array) {
  if (array != nullptr) std::free(array->data);
  delete array;
  return cudaSuccess;
}

/* Copies between linear memory (rows of `pitch` bytes) and an array, at a
   byte offset `x` and row `y` in it. */
inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, std::size_t x, std::size_t y, const void *src,
                                       std::size_t spitch, std::size_t width, std::size_t height,
                                       cudaMemcpyKind) {
  std::size_t row = dst->width * dst->element;
  if (x + width > row || y + height > dst->height * dst->depth || width > spitch)
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy2DToArray: out of the array");
  for (std::size_t r = 0; r < height; ++r)
    std::memcpy(dst->data + (y + r) * row + x, static_cast<const unsigned char *>(src) + r * spitch, width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DFromArray(void *dst, std::size_t dpitch, cudaArray_const_t src, std::size_t x,
                                         std::size_t y, std::size_t width, std::size_t height,
                                         cudaMemcpyKind) {
  std::size_t row = src->width * src->element;
  if (x + width > row || y + height > src->height * src->depth || width > dpitch)
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy2DFromArray: out of the array");
  for (std::size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<unsigned char *>(dst) + r * dpitch, src->data + (y + r) * row + x, width);
  return cudaSuccess;
}

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;  // in elements for arrays, width in bytes for linear memory
  cudaMemcpyKind kind;
};

/* Whole-box copies between a 3-D array and linear memory (either way). */
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  cudaArray_t array = p->dstArray ? p->dstArray : p->srcArray;
  if (array == nullptr || (p->dstArray && p->srcArray))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy3D: exactly one side must be an array");
  const cudaPitchedPtr &linear = p->dstArray ? p->srcPtr : p->dstPtr;
  std::size_t row = p->extent.width * array->element;
  std::size_t h = p->extent.height ? p->extent.height : 1, d = p->extent.depth ? p->extent.depth : 1;
  if (p->extent.width > array->width || h > array->height || d > array->depth || row > linear.pitch)
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy3D: extent larger than the array");
  for (std::size_t z = 0; z < d; ++z)
    for (std::size_t y = 0; y < h; ++y) {
      unsigned char *a = array->data + ((z * array->height + y) * array->width) * array->element;
      unsigned char *l = static_cast<unsigned char *>(linear.ptr) + (z * linear.ysize + y) * linear.pitch;
      if (p->dstArray) std::memcpy(a, l, row);
      else std::memcpy(l, a, row);
    }
  return cudaSuccess;
}

enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { void *devPtr; cudaChannelFormatDesc desc; std::size_t sizeInBytes; } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      std::size_t width, height, pitchInBytes;
    } pitch2D;
  } res;
};

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
};

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

namespace polycu_emu {

/* What a texture or surface object refers to: elements of `element` bytes,
   rows `pitch` bytes apart, slices `slice` bytes apart. */
struct View {
  unsigned char *base;
  std::size_t element, pitch, slice, width, height, depth;
  cudaTextureAddressMode mode;
  bool normalized;
};

inline bool view_of(const cudaResourceDesc &r, View &v) {
  switch (r.resType) {
    case cudaResourceTypeArray: {
      const cudaArray *a = r.res.array.array;
      if (a == nullptr) return false;
      v = View{a->data, a->element, a->width * a->element, a->width * a->height * a->element,
               a->width, a->height, a->depth, cudaAddressModeClamp, false};
      return true;
    }
    case cudaResourceTypeLinear: {
      std::size_t e = element_bytes(r.res.linear.desc);
      if (e == 0) return false;
      std::size_t n = r.res.linear.sizeInBytes / e;
      v = View{static_cast<unsigned char *>(r.res.linear.devPtr), e, n * e, n * e, n, 1, 1,
               cudaAddressModeClamp, false};
      return true;
    }
    case cudaResourceTypePitch2D: {
      const auto &p = r.res.pitch2D;
      std::size_t e = element_bytes(p.desc);
      if (e == 0) return false;
      v = View{static_cast<unsigned char *>(p.devPtr), e, p.pitchInBytes, p.pitchInBytes * p.height,
               p.width, p.height, 1, cudaAddressModeClamp, false};
      return true;
    }
    default:
      return false;
  }
}

inline const View &view(unsigned long long handle, std::size_t element, const char *what) {
  const View *v = reinterpret_cast<const View *>(handle);
  if (v == nullptr) fatal("%s on a null texture/surface object", what);
  if (v->element != element)
    fatal("%s of a %zu-byte type from an object of %zu-byte elements", what, element, v->element);
  return *v;
}

/* Point sampling at unnormalised (or normalised) coordinate c of an extent n;
   false when the border mode says "outside". */
inline bool texel(float c, std::size_t n, const View &v, long &index) {
  float u = v.normalized ? c * static_cast<float>(n) : c;
  long i = static_cast<long>(std::floor(u));
  long size = static_cast<long>(n);
  switch (v.mode) {
    case cudaAddressModeBorder:
      if (i < 0 || i >= size) return false;
      break;
    case cudaAddressModeWrap:
      i = ((i % size) + size) % size;
      break;
    case cudaAddressModeMirror: {
      long period = 2 * size, m = ((i % period) + period) % period;
      i = m < size ? m : period - 1 - m;
      break;
    }
    default:
      i = i < 0 ? 0 : (i >= size ? size - 1 : i);
  }
  index = i;
  return true;
}

template <class T> inline T load(const View &v, long x, long y, long z) {
  T value;
  std::memcpy(&value, v.base + z * v.slice + y * v.pitch + x * v.element, sizeof(T));
  return value;
}

/* Surface coordinates: x in bytes, as in CUDA. */
inline bool surface_cell(const View &v, int xbytes, int y, int z, cudaSurfaceBoundaryMode mode,
                         long &x, long &yy, long &zz) {
  if (xbytes % static_cast<int>(v.element) != 0)
    fatal("surface access at byte %d, not a multiple of the element size %zu", xbytes, v.element);
  x = xbytes / static_cast<long>(v.element);
  yy = y;
  zz = z;
  bool inside = x >= 0 && x < static_cast<long>(v.width) && y >= 0 && y < static_cast<long>(v.height) &&
                z >= 0 && z < static_cast<long>(v.depth);
  if (inside) return true;
  if (mode == cudaBoundaryModeTrap)
    fatal("surface access (%ld, %d, %d) outside a %zux%zux%zu surface in %s", x, y, z, v.width, v.height,
          v.depth, current_kernel ? current_kernel : "host code");
  if (mode == cudaBoundaryModeZero) return false;
  auto clamp = [](long i, std::size_t n) { return i < 0 ? 0L : (i >= static_cast<long>(n) ? static_cast<long>(n) - 1 : i); };
  x = clamp(x, v.width);
  yy = clamp(y, v.height);
  zz = clamp(z, v.depth);
  return true;
}

}  // namespace polycu_emu

inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t *object, const cudaResourceDesc *resource,
                                           const cudaTextureDesc *texture, const void * = nullptr) {
  polycu_emu::View v;
  if (!polycu_emu::view_of(*resource, v)) return cudaErrorInvalidValue;
  if (texture->filterMode != cudaFilterModePoint || texture->readMode != cudaReadModeElementType)
    return polycu_emu::report(cudaErrorInvalidValue,
                              "cudaCreateTextureObject: only point filtering of element types is emulated");
  v.mode = texture->addressMode[0];
  v.normalized = texture->normalizedCoords != 0;
  *object = reinterpret_cast<cudaTextureObject_t>(new polycu_emu::View(v));
  return cudaSuccess;
}
inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
  delete reinterpret_cast<polycu_emu::View *>(object);
  return cudaSuccess;
}
inline cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *object, const cudaResourceDesc *resource) {
  polycu_emu::View v;
  if (resource->resType != cudaResourceTypeArray || !polycu_emu::view_of(*resource, v))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaCreateSurfaceObject: needs a CUDA array");
  *object = reinterpret_cast<cudaSurfaceObject_t>(new polycu_emu::View(v));
  return cudaSuccess;
}
inline cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
  delete reinterpret_cast<polycu_emu::View *>(object);
  return cudaSuccess;
}

/* tex1Dfetch reads linear memory by integer index; outside it reads 0. */
template <class T> inline T tex1Dfetch(cudaTextureObject_t object, int x) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "tex1Dfetch");
  if (x < 0 || static_cast<std::size_t>(x) >= v.width) return T{};
  return polycu_emu::load<T>(v, x, 0, 0);
}
template <class T> inline T tex1D(cudaTextureObject_t object, float x) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "tex1D");
  long i;
  return polycu_emu::texel(x, v.width, v, i) ? polycu_emu::load<T>(v, i, 0, 0) : T{};
}
template <class T> inline T tex2D(cudaTextureObject_t object, float x, float y) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "tex2D");
  long i, j;
  if (!polycu_emu::texel(x, v.width, v, i) || !polycu_emu::texel(y, v.height, v, j)) return T{};
  return polycu_emu::load<T>(v, i, j, 0);
}
template <class T> inline T tex3D(cudaTextureObject_t object, float x, float y, float z) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "tex3D");
  long i, j, k;
  if (!polycu_emu::texel(x, v.width, v, i) || !polycu_emu::texel(y, v.height, v, j) ||
      !polycu_emu::texel(z, v.depth, v, k))
    return T{};
  return polycu_emu::load<T>(v, i, j, k);
}

template <class T>
inline void surf2Dread(T *out, cudaSurfaceObject_t object, int x, int y,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "surf2Dread");
  long i, j, k;
  *out = polycu_emu::surface_cell(v, x, y, 0, mode, i, j, k) ? polycu_emu::load<T>(v, i, j, k) : T{};
}
template <class T>
inline T surf2Dread(cudaSurfaceObject_t object, int x, int y,
                    cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T value;
  surf2Dread(&value, object, x, y, mode);
  return value;
}
template <class T>
inline void surf2Dwrite(T value, cudaSurfaceObject_t object, int x, int y,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "surf2Dwrite");
  long i, j, k;
  if (polycu_emu::surface_cell(v, x, y, 0, mode, i, j, k))
    std::memcpy(v.base + j * v.pitch + i * v.element, &value, sizeof(T));
}
template <class T>
inline void surf3Dread(T *out, cudaSurfaceObject_t object, int x, int y, int z,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "surf3Dread");
  long i, j, k;
  *out = polycu_emu::surface_cell(v, x, y, z, mode, i, j, k) ? polycu_emu::load<T>(v, i, j, k) : T{};
}
template <class T>
inline T surf3Dread(cudaSurfaceObject_t object, int x, int y, int z,
                    cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T value;
  surf3Dread(&value, object, x, y, z, mode);
  return value;
}
template <class T>
inline void surf3Dwrite(T value, cudaSurfaceObject_t object, int x, int y, int z,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "surf3Dwrite");
  long i, j, k;
  if (polycu_emu::surface_cell(v, x, y, z, mode, i, j, k))
    std::memcpy(v.base + k * v.slice + j * v.pitch + i * v.element, &value, sizeof(T));
}

#endif /* POLYCU_EMU_H */
