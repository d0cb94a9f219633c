/*
 * polycu_emu.h - run polycu's generated CUDA on the CPU (CI has no GPU).
 *
 * Longer than 450 lines because it is a small CUDA runtime for the CPU in one
 * header (nvcc-free builds include nothing else): launches with real barriers,
 * race-checked shared memory, constant memory, checked device memory, texture
 * and surface objects, each in its own section below.
 *
 *   g++ -std=c++17 -O1 -fopenmp -x c++ -DPOLYCU_EMULATE -I <this dir> file.cu
 *
 * The generated .cu includes this header instead of <cuda_runtime.h> when
 * POLYCU_EMULATE is defined.  It holds what that code uses (kernels indexed by
 * threadIdx/blockIdx, min/max, atomicAdd; host code that allocates, copies,
 * launches and checks errors) and what the memory placement of shared memory,
 * the read-only path, constant memory, textures and surfaces will use; nothing
 * else.  The emulation is built to make bugs of the generated code show, not
 * to hide them:
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
 * - POLYCU_SHARED(T, name, N) declares a shared array whose accesses (name[i]
 *   read, or written with = += -= *= /=) are checked: two threads touching an
 *   element between the same two barriers, one writing, are a fatal race, and
 *   so is reading an element no thread of the block wrote, whatever the timing.
 * - A tile's cp.async copy (POLYCU_COPY_ASYNC) lands in shared memory only when
 *   its thread waits (POLYCU_COPY_WAIT); a barrier reached with copies pending
 *   is fatal (a missing wait).
 * - POLYCU_LAUNCH_NOSYNC (kernels without barriers) runs the threads of a
 *   block one after another and the blocks in parallel (sequentially when the
 *   program has __shared__ variables).  Blocks and threads run in reverse
 *   order: an illegal parallel loop executed in its original order would look
 *   right; in reverse order its cross-iteration dependences break.
 * - Launches grouped to run side by side on streams (POLYCU_LAUNCH_ON between
 *   polycu_fork and polycu_join) run in the reverse order of the group.
 * - Dependent launches (POLYCU_LAUNCH_AFTER, --dependent-launches) run as any
 *   other, one after another; every thread of one must pass
 *   POLYCU_AFTER_PREVIOUS(), the wait that makes that so on a GPU.
 * - cudaMalloc'd memory starts poisoned (0xFF) to catch missing copy-ins and
 *   lies between two poisoned red zones, checked after every launch, to catch
 *   writes outside it; requests over 2^40 bytes (a wrapped negative size) fail
 *   with cudaErrorMemoryAllocation, as on a GPU; cudaMemcpy checks that device
 *   ranges lie inside one device allocation and that the copy direction matches.
 * - A copy queued on a stream (cudaMemcpyAsync: the staged copies of
 *   polycu/codegen/staged.py, which stage every copy here) runs only when an
 *   event recorded after it, its stream or the device is waited for, so a
 *   page-locked slot reused before its copy was waited for shows.
 * - Launch configurations are checked against CUDA's limits; a bad one is a
 *   sticky error that cudaGetLastError() returns, as on a GPU.
 * - With POLYCU_EMULATE_MMA, the tensor-core kernels run their mma path: each
 *   mma.sync meets the warp's 32 lanes at a barrier of their own (not the
 *   block's, so a missing __syncthreads still shows) to exchange fragments.
 * - In a kernel, texture fetches and surface reads see the bytes as the launch
 *   began (every launch copies what each live object views), as a GPU's texture
 *   cache may: a kernel that reads back through an object what the same launch
 *   wrote gets the old value.
 *
 * Constant memory is ordinary memory; textures and surfaces are small
 * descriptors (pointer, pitches, element size, the launch's copy) with point
 * sampling.
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
#include <functional>
#include <vector>
#include <math.h>  // the C math functions kernels call, with C++'s float overloads
#include <pthread.h>
#include <type_traits>

/* ---------------------------------------------------------------------- */
/* Qualifiers: kernels, constant memory, shared memory                    */
/* ---------------------------------------------------------------------- */

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __constant__
#define __shared__ static __attribute__((section("polycu_shared"), aligned(16)))

/* ---------------------------------------------------------------------- */
/* Launch shapes and thread coordinates                                   */
/* ---------------------------------------------------------------------- */

struct uint3 { unsigned int x, y, z; };

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};

/* Each emulated CUDA thread is an OS thread (or a turn of one), so the
   coordinates are thread-local. */
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

/* ---------------------------------------------------------------------- */
/* Errors: the codes the emulation returns, and the sticky launch error   */
/* ---------------------------------------------------------------------- */

/* X(name, CUDA's value, cudaGetErrorString's text) */
#define POLYCU_EMU_ERRORS(X)                                                    \
  X(cudaSuccess, 0, "no error")                                                 \
  X(cudaErrorInvalidValue, 1, "invalid argument")                               \
  X(cudaErrorMemoryAllocation, 2, "out of memory")                              \
  X(cudaErrorInvalidConfiguration, 9, "invalid configuration argument")         \
  X(cudaErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")   \
  X(cudaErrorNotReady, 600, "device not ready")                                 \
  X(cudaErrorLaunchOutOfResources, 701, "too many resources requested for launch")

#define POLYCU_EMU_ENUMERATOR(name, value, text) name = value,
#define POLYCU_EMU_NAME(name, value, text) case name: return #name;
#define POLYCU_EMU_TEXT(name, value, text) case name: return text;

enum cudaError_t { POLYCU_EMU_ERRORS(POLYCU_EMU_ENUMERATOR) };

inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) { POLYCU_EMU_ERRORS(POLYCU_EMU_NAME) }
  return "cudaErrorUnknown";
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) { POLYCU_EMU_ERRORS(POLYCU_EMU_TEXT) }
  return "unknown error";
}

#undef POLYCU_EMU_ENUMERATOR
#undef POLYCU_EMU_NAME
#undef POLYCU_EMU_TEXT
#undef POLYCU_EMU_ERRORS

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

namespace polycu_emu {

/* The sticky error of the last failed launch, as cudaGetLastError sees it. */
inline cudaError_t last_error = cudaSuccess;
inline thread_local const char *current_kernel = nullptr;

[[noreturn]] inline void fatal(const char *format, ...) {
  static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&first);  // one message: threads that fail too wait for the abort
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

/* ---------------------------------------------------------------------- */
/* Device memory: poisoned, fenced by red zones, copies checked            */
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
  /* Forget the allocation that starts at p (its size in `size`); false when there is none. */
  bool remove(const void *p, std::size_t &size) {
    Guard guard(&lock);
    for (std::size_t k = 0; k < count; ++k)
      if (blocks[k].start == reinterpret_cast<std::uintptr_t>(p)) {
        size = blocks[k].size;
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

/* Texture and surface objects (defined in their section at the end): frees
   detach the objects over the freed bytes, launches snapshot the live ones. */
inline void orphan_objects(const void *start, std::size_t bytes);
inline void freeze_objects();

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
/* cuda_runtime.h's typed overload: cudaMalloc(&double_pointer, bytes). */
template <class T> inline cudaError_t cudaMalloc(T **pointer, std::size_t size) {
  return cudaMalloc(reinterpret_cast<void **>(pointer), size);
}

inline cudaError_t cudaFree(void *p) {
  if (p == nullptr) return cudaSuccess;
  std::size_t size = 0;
  if (!polycu_emu::allocations().remove(p, size))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaFree(%p): not a device allocation", p);
  polycu_emu::orphan_objects(p, size);
  std::free(static_cast<unsigned char *>(p) - polycu_emu::red_zone);
  return cudaSuccess;
}

/* The host function faults in the pages of every array copied out but not in and
   not staged, whatever their size (codegen/prefault.py); with every copy staged
   (below), that is where a host has no staging lanes. */
#define POLYCU_PREFAULT_BYTES 0

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

/* The device's memory pool (codegen/buffers.py): buffers from it are cudaMalloc's,
   poisoned and fenced the same; freeing one frees it at once. */
enum cudaDeviceAttr { cudaDevAttrMemoryPoolsSupported = 115 };
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
typedef struct polycu_emu_pool *cudaMemPool_t;
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device) {
  if (device != 0 || attribute != cudaDevAttrMemoryPoolsSupported)
    return polycu_emu::report(cudaErrorInvalidValue, "cudaDeviceGetAttribute(%d, %d)", attribute, device);
  *value = 1;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  *pool = nullptr;
  return device == 0 ? cudaSuccess : cudaErrorInvalidValue;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *) {
  return cudaSuccess;
}

/* Streams, events and page-locked host memory, for the staged copies of large
   arrays (polycu/codegen/staged.py), which stage every copy here, in chunks of 200
   bytes.  A copy queued on a stream runs only when an event recorded after it, its
   stream or the device is waited for, as a DMA may run late on a GPU: a slot
   refilled before its copy was waited for sends the newer bytes, and a slot read
   before its copy was waited for holds the older ones. */
#define POLYCU_STAGE_BYTES 0
#define POLYCU_STAGE_CHUNK ((std::size_t)200)
enum { cudaStreamNonBlocking = 1 };
enum { cudaEventDisableTiming = 2 };
struct polycu_emu_stream {
  struct Copy { void *dst; const void *src; std::size_t n; };
  std::vector<Copy> queued;
  std::size_t ran = 0;   /* queued[0, ran) have run */
  /* Runs the copies queued before the mark-th one. */
  void run_to(std::size_t mark) {
    for (; ran < mark && ran < queued.size(); ran++)
      std::memmove(queued[ran].dst, queued[ran].src, queued[ran].n);
  }
};
struct polycu_emu_event { polycu_emu_stream *stream = nullptr; std::size_t mark = 0; };
typedef polycu_emu_stream *cudaStream_t;
typedef polycu_emu_event *cudaEvent_t;
namespace polycu_emu {
inline pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
inline std::vector<polycu_emu_stream *> streams;
}  // namespace polycu_emu
inline cudaError_t cudaGetDevice(int *device) {
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess
                     : polycu_emu::report(cudaErrorInvalidValue, "cudaSetDevice(%d): one device", device);
}
inline cudaError_t cudaMallocHost(void **pointer, std::size_t size) {
  *pointer = std::aligned_alloc(256, (size + 255) / 256 * 256);
  return *pointer == nullptr ? cudaErrorMemoryAllocation : cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int) {
  polycu_emu::Guard guard(&polycu_emu::streams_lock);
  *stream = new polycu_emu_stream;
  polycu_emu::streams.push_back(*stream);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (stream != nullptr) stream->run_to(stream->queued.size());
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  polycu_emu::Guard guard(&polycu_emu::streams_lock);
  for (polycu_emu_stream *&s : polycu_emu::streams)
    if (s == stream) {
      s->run_to(s->queued.size());
      delete s;
      s = nullptr;
      return cudaSuccess;
    }
  return polycu_emu::report(cudaErrorInvalidValue, "cudaStreamDestroy(%p): not a stream",
                            static_cast<void *>(stream));
}
inline cudaError_t cudaDeviceSynchronize() {
  polycu_emu::Guard guard(&polycu_emu::streams_lock);
  for (polycu_emu_stream *s : polycu_emu::streams)
    if (s != nullptr) s->run_to(s->queued.size());
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) {
  *event = new polycu_emu_event;
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  event->stream = stream;
  event->mark = stream == nullptr ? 0 : stream->queued.size();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event->stream != nullptr) event->stream->run_to(event->mark);
  return cudaSuccess;
}
/* Complete at once: the emulated kernels ran when launched (the copies queued before
   the event run now, as when it is waited for). */
inline cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
/* Stream-ordered allocations: at once (a stream's copies run when it is waited for,
   so none may still read a buffer freed here: the generated code waits first). */
inline cudaError_t cudaMallocAsync(void **pointer, std::size_t size, cudaStream_t) {
  return cudaMalloc(pointer, size);
}
inline cudaError_t cudaFreeAsync(void *pointer, cudaStream_t) { return cudaFree(pointer); }
/* Checked as cudaMemcpy checks, then queued (run at once on the default stream). */
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, std::size_t n, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  using polycu_emu::check_range;
  if (stream == nullptr) return cudaMemcpy(dst, src, n, kind);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost)
    return polycu_emu::report(cudaErrorInvalidMemcpyDirection, "cudaMemcpyAsync: kind %d", kind);
  const bool to_device = kind == cudaMemcpyHostToDevice;
  cudaError_t e = check_range("cudaMemcpyAsync destination", dst, n, to_device);
  if (e == cudaSuccess) e = check_range("cudaMemcpyAsync source", src, n, !to_device);
  if (e == cudaSuccess) stream->queued.push_back({dst, src, n});
  return e;
}

/* __constant__ variables are ordinary globals. */
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

/* Device allocations still live: the runtime checks generated code frees all. */
extern "C" __attribute__((weak)) long polycu_emu_live_allocations(void) {
  auto &table = polycu_emu::allocations();
  polycu_emu::Guard guard(&table.lock);
  return static_cast<long>(table.count);
}

/* ---------------------------------------------------------------------- */
/* Launches: blocks, threads, shared memory and barriers                  */
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

/* The least (thread, element) read of a POLYCU_SHARED element that no thread
   had written yet.  It is reported when its barrier interval ends (the last
   arrival at a barrier, or the end of the block), not at once: a thread of the
   same interval that writes the element later is a race, reported as such. */
struct UnwrittenRead {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  const char *array = nullptr;
  long element = 0;
  unsigned thread = 0;
  void note(const char *name, long i, unsigned t) {
    Guard guard(&lock);
    if (array == nullptr || t < thread || (t == thread && i < element)) array = name, element = i, thread = t;
  }
  void check() {
    Guard guard(&lock);
    if (array != nullptr)
      fatal("kernel %s, block (%u,%u,%u): thread %u reads element %ld of shared array %s before any "
            "thread of the block wrote it", current_kernel, blockIdx.x, blockIdx.y, blockIdx.z, thread,
            element, array);
  }
};
inline UnwrittenRead unwritten_read;

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
  int vote = 0;        // __syncthreads_or's
  unsigned long passed[1024];

  static constexpr std::uint64_t one_live = std::uint64_t{1} << 32;

  void reset(unsigned threads) {
    __atomic_store_n(&state, threads * one_live, __ATOMIC_SEQ_CST);
    __atomic_store_n(&vote, 0, __ATOMIC_SEQ_CST);
    std::memset(passed, 0, sizeof passed);
  }
  void release(std::uint64_t s) {
    unwritten_read.check();
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

/* The thread's cp.async copies not waited for yet (POLYCU_COPY_ASYNC below). */
inline thread_local std::vector<std::function<void()>> pending_copies;
/* Where a pending copy lands: a shared tile's element (a race-checked reference, a
   value) as it is, an element of plain memory (the resident grids' dynamic shared
   memory) through its address. */
template <class T> struct copy_address {
  T *to;
  void operator=(const T &value) const { *to = value; }
};
template <class T> copy_address<T> copy_target(T &to) { return {&to}; }
template <class P, class = std::enable_if_t<!std::is_lvalue_reference<P>::value>>
P copy_target(P &&to) { return static_cast<P &&>(to); }

/* A warp's meeting point for mma.sync (the tensor-core section below): a barrier of
   its 32 lanes, apart from the block's so that the race check's epochs stay those
   of __syncthreads, and the fragments the lanes leave there. */
struct Warp {
  Barrier barrier;
  double a[32][4], b[32][2];
};
inline thread_local Warp *current_warp = nullptr;

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

/* The threads the last launch ran, and how many of them passed
   POLYCU_AFTER_PREVIOUS() (a dependent launch's wait, launch_after below). */
inline unsigned long long launched_threads = 0, waited_threads = 0;

inline void count_threads(dim3 grid, dim3 block) {
  launched_threads = static_cast<unsigned long long>(grid.x) * grid.y * grid.z * block.x *
                     block.y * block.z;
}

/* A kernel with barriers: blocks in turn (last first), each block's threads
   concurrently as one OpenMP team. */
template <class Body>
void launch(const char *kernel, dim3 grid, dim3 block, const Body &body) {
  if (!configure(kernel, grid, block)) return;
  freeze_objects();
  count_threads(grid, block);
  const unsigned threads = block.x * block.y * block.z;
  const unsigned long long blocks = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
  Barrier barrier;
  Warp *warps = new Warp[(threads + 31) / 32];
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
      current_warp = &warps[me / 32];
      for (unsigned long long b = blocks; b-- > 0;) {
        if (me == 0) {
          poison_shared();
          barrier.reset(threads);
          for (unsigned w = 0; w < (threads + 31) / 32; ++w)
            warps[w].barrier.reset(threads - 32 * w < 32 ? threads - 32 * w : 32);
        }
#pragma omp barrier
        blockIdx = unflatten(b, grid);
        body();
        barrier.leave();
        current_warp->barrier.leave();
#pragma omp barrier
        if (me == 0) {
          for (unsigned t = 1; t < threads; ++t)
            if (barrier.passed[t] != barrier.passed[0])
              fatal("kernel %s, block (%u,%u,%u): thread %u passed %lu __syncthreads() but thread 0 "
                    "passed %lu: a barrier in divergent code (undefined behaviour on a GPU)",
                    kernel, blockIdx.x, blockIdx.y, blockIdx.z, t, barrier.passed[t],
                    barrier.passed[0]);
          unwritten_read.check();
        }
      }
      current_barrier = nullptr;
      current_warp = nullptr;
      current_kernel = nullptr;
    }
  }
  delete[] warps;
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
  freeze_objects();
  count_threads(grid, block);
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
      current_thread = static_cast<unsigned>(t);
      body();
    }
    if (sequential) unwritten_read.check();
    current_kernel = nullptr;
  }
  check_red_zones(kernel);
}

}  // namespace polycu_emu

#define POLYCU_LAUNCH(kernel, grid, block, ...) \
  ::polycu_emu::launch(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); })
#define POLYCU_LAUNCH_NOSYNC(kernel, grid, block, ...) \
  ::polycu_emu::launch_nosync(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); })

/* Kernels launched side by side (polycu/codegen/concurrent.py): between polycu_fork
   and polycu_join the launches are held and then run in the reverse order, so that
   two launches grouped although one needs the other's writes compute something else. */
namespace polycu_emu {
inline std::vector<std::function<void()>> held;
inline bool forked = false;
inline void hold(std::function<void()> run) {
  if (forked)
    held.push_back(std::move(run));
  else
    run();
}
}  // namespace polycu_emu
struct polycu_streams {
  int side[3];
};
inline cudaError_t polycu_streams_create(polycu_streams *s, int) {
  for (int &side : s->side) side = 1;
  return cudaSuccess;
}
inline cudaError_t polycu_fork(polycu_streams *, int) {
  polycu_emu::forked = true;
  return cudaSuccess;
}
inline cudaError_t polycu_join(polycu_streams *, int) {
  polycu_emu::forked = false;
  for (auto run = polycu_emu::held.rbegin(); run != polycu_emu::held.rend(); ++run) (*run)();
  polycu_emu::held.clear();
  return cudaSuccess;
}
inline void polycu_streams_destroy(polycu_streams *, int) {}
#define POLYCU_LAUNCH_ON(stream, kernel, grid, block, ...)                                  \
  ((void)(stream), ::polycu_emu::hold([=] { POLYCU_LAUNCH(kernel, grid, block, __VA_ARGS__); }))
#define POLYCU_LAUNCH_NOSYNC_ON(stream, kernel, grid, block, ...)                           \
  ((void)(stream),                                                                         \
   ::polycu_emu::hold([=] { POLYCU_LAUNCH_NOSYNC(kernel, grid, block, __VA_ARGS__); }))

/* A dependent launch (--dependent-launches): on a GPU it may start while the launch
   before it still runs, so its kernel's first statement waits for that launch
   (POLYCU_AFTER_PREVIOUS); here launches run in turn, and a thread that never
   waited is reported. */
namespace polycu_emu {
template <class Run>
void launch_after(const char *kernel, const Run &run) {
  launched_threads = 0;
  __atomic_store_n(&waited_threads, 0, __ATOMIC_SEQ_CST);
  run();
  const unsigned long long waited = __atomic_load_n(&waited_threads, __ATOMIC_SEQ_CST);
  if (waited != launched_threads)
    fatal("kernel %s was launched as a dependent launch, but only %llu of its %llu threads "
          "waited for the launch before it (POLYCU_AFTER_PREVIOUS())", kernel, waited,
          launched_threads);
}
}  // namespace polycu_emu
#define POLYCU_AFTER_PREVIOUS() \
  ((void)__atomic_add_fetch(&::polycu_emu::waited_threads, 1ull, __ATOMIC_RELAXED))
#define POLYCU_LAUNCH_AFTER(kernel, grid, block, ...) \
  ::polycu_emu::launch_after(#kernel, [&] { POLYCU_LAUNCH(kernel, grid, block, __VA_ARGS__); })
#define POLYCU_LAUNCH_NOSYNC_AFTER(kernel, grid, block, ...)                            \
  ::polycu_emu::launch_after(#kernel,                                                   \
                             [&] { POLYCU_LAUNCH_NOSYNC(kernel, grid, block, __VA_ARGS__); })
#define POLYCU_LAUNCH_AFTER_ON(stream, kernel, grid, block, ...)                        \
  ((void)(stream),                                                                      \
   ::polycu_emu::hold([=] { POLYCU_LAUNCH_AFTER(kernel, grid, block, __VA_ARGS__); }))
#define POLYCU_LAUNCH_NOSYNC_AFTER_ON(stream, kernel, grid, block, ...)                 \
  ((void)(stream),                                                                      \
   ::polycu_emu::hold([=] { POLYCU_LAUNCH_NOSYNC_AFTER(kernel, grid, block, __VA_ARGS__); }))

/* A program that runs in one block (polycu/codegen/single_block.py): its threads take
   the launches' threads in reverse order, and POLYCU_EMU_BLOCK_THREADS of them (not
   1024 OS threads) share each phase; the code is the same for any block size. */
#ifndef POLYCU_EMU_BLOCK_THREADS
#define POLYCU_EMU_BLOCK_THREADS 32
#endif
#define POLYCU_VIRTUAL(v, n) ((n) - 1 - (v))
#define POLYCU_BLOCK_THREADS(x, y, z) \
  ((x) < POLYCU_EMU_BLOCK_THREADS ? (x) : POLYCU_EMU_BLOCK_THREADS), (y), (z)

/* One cooperative launch (polycu/codegen/resident.py): the host's launch gets
   `bands` blocks with `bytes` of dynamic shared memory each when at most
   POLYCU_EMU_RESIDENT_BLOCKS of them are asked for (the device "holds" them), else
   that many blocks without it, as on a GPU that holds fewer.  All blocks' threads
   live at once, but blocks take turns between grid barriers, last block first, so
   that a phase missing its barrier reads what its neighbours have not written yet,
   every time; each block has dynamic shared memory of its own, poisoned.  A block
   that waits for its neighbours' flags (polycu_band_wait) gives its turn to the next
   block still running until the flags are set; a whole round of turns in which no
   block sets a flag means none ever will, and is reported instead of hanging. */
#ifndef POLYCU_EMU_RESIDENT_BLOCKS
#define POLYCU_EMU_RESIDENT_BLOCKS 4
#endif
namespace polycu_emu {
struct Turns {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t moved = PTHREAD_COND_INITIALIZER;
  unsigned blocks = 0, turn = 0, exited = 0;
  std::vector<char> gone;             /* the blocks that have exited */
  unsigned long long signals = 0;     /* flags set so far (polycu_band_signal) */
  void wait_for(unsigned block) {
    Guard guard(&lock);
    while (turn != block) pthread_cond_wait(&moved, &lock);
  }
  /* the next lower block still running, after block 0 the last one (the lock held) */
  unsigned next(unsigned block) const {
    for (unsigned k = 1; k < blocks; ++k) {
      const unsigned b = (block + blocks - k) % blocks;
      if (!gone[b]) return b;
    }
    return block;
  }
  /* the block's turn ends: the next lower block's begins, or, after block 0, the
     last block's in the next interval */
  void pass(unsigned block, bool exiting) {
    Guard guard(&lock);
    if (exiting) {
      ++exited;
      gone[block] = 1;
    } else if (exited > 0) {
      fatal("kernel %s: block %u reaches a grid barrier that %u block(s) never reach (a "
            "grid-wide barrier in divergent code)", current_kernel, block, exited);
    }
    turn = next(block);
    pthread_cond_broadcast(&moved);
  }
  /* a block waiting for a flag lets every other running block take a turn */
  void yield(unsigned block) {
    unsigned long long seen;
    {
      Guard guard(&lock);
      seen = signals;
      turn = next(block);
      pthread_cond_broadcast(&moved);
    }
    wait_for(block);
    Guard guard(&lock);
    if (signals == seen)
      fatal("kernel %s: block %u waits for a neighbour's flag that no block will set (every "
            "running block waits or has exited)", current_kernel, block);
  }
  void signalled() {
    Guard guard(&lock);
    ++signals;
  }
};
inline thread_local Turns *current_turns = nullptr;
inline thread_local unsigned char *dynamic_shared = nullptr;
inline thread_local std::size_t dynamic_bytes = 0;

inline void grid_sync() {
  if (current_turns == nullptr)
    fatal("a grid barrier in %s, which was not launched with POLYCU_LAUNCH_RESIDENT",
          current_kernel ? current_kernel : "host code");
  const unsigned block = blockIdx.x;
  current_barrier->wait(current_thread);
  if (current_thread == 0) current_turns->pass(block, false);
  current_barrier->wait(current_thread);
  current_turns->wait_for(block);
}

template <class Body>
void launch_resident(const char *kernel, long long bands, dim3 block, std::size_t bytes,
                     const Body &body) {
  const bool held = bands <= POLYCU_EMU_RESIDENT_BLOCKS;
  const dim3 grid(static_cast<unsigned>(held ? bands : POLYCU_EMU_RESIDENT_BLOCKS));
  if (!configure(kernel, grid, block)) return;
  freeze_objects();
  count_threads(grid, block);
  const unsigned threads = block.x * block.y * block.z, blocks = grid.x;
  const std::size_t given = held ? bytes : 0;
  std::vector<unsigned char> memory(given * blocks + 1, 0xFF);
  std::vector<Barrier> barriers(blocks);
  std::vector<unsigned> alive(blocks, threads);
  for (Barrier &b : barriers) b.reset(threads);
  std::vector<Warp> warps(blocks * ((threads + 31) / 32));
  for (unsigned w = 0; w < warps.size(); ++w) {
    const unsigned first = (w % ((threads + 31) / 32)) * 32;
    warps[w].barrier.reset(threads - first < 32 ? threads - first : 32);
  }
  Turns turns;
  turns.blocks = blocks;
  turns.turn = blocks - 1;
  turns.gone.assign(blocks, 0);
  bool short_team = false;
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads * blocks)
  {
    const unsigned me = static_cast<unsigned>(omp_get_thread_num());
    if (static_cast<unsigned>(omp_get_num_threads()) != threads * blocks) {
      if (me == 0) short_team = true;
    } else {
      const unsigned b = me / threads, t = me % threads;
      threadIdx = unflatten(t, block);
      blockIdx = uint3{b, 0, 0};
      blockDim = block;
      gridDim = grid;
      current_kernel = kernel;
      current_barrier = &barriers[b];
      current_thread = t;
      current_warp = &warps[b * ((threads + 31) / 32) + t / 32];
      current_turns = &turns;
      dynamic_shared = memory.data() + given * b;
      dynamic_bytes = given;
      turns.wait_for(b);
      body();
      barriers[b].leave();
      current_warp->barrier.leave();
      if (__atomic_sub_fetch(&alive[b], 1u, __ATOMIC_SEQ_CST) == 0) turns.pass(b, true);
      current_turns = nullptr;
      current_barrier = nullptr;
      current_warp = nullptr;
      current_kernel = nullptr;
      dynamic_shared = nullptr;
      dynamic_bytes = 0;
    }
  }
  check_red_zones(kernel);
  if (short_team)
    last_error = report(cudaErrorLaunchOutOfResources,
                        "launch of %s: OpenMP refused a team of %u threads (set OMP_THREAD_LIMIT "
                        "to at least %u and OMP_DYNAMIC=false)", kernel, threads * blocks,
                        threads * blocks);
}
}  // namespace polycu_emu
#define POLYCU_GRID_SYNC() ::polycu_emu::grid_sync()
/* Phase n of the block is over (codegen/resident.py): after its threads' barrier,
   thread 0 sets the block's flag. */
inline void polycu_band_signal(unsigned *flags, unsigned n) {
  if (polycu_emu::current_turns == nullptr)
    polycu_emu::fatal("a flag set in %s, which was not launched with POLYCU_LAUNCH_RESIDENT",
                      polycu_emu::current_kernel ? polycu_emu::current_kernel : "host code");
  polycu_emu::current_barrier->wait(polycu_emu::current_thread);
  if (polycu_emu::current_thread == 0) {
    __atomic_store_n(&flags[blockIdx.x], n, __ATOMIC_RELEASE);
    polycu_emu::current_turns->signalled();
  }
}
/* Thread 0 waits, giving its turn away, until both neighbouring blocks ended phase n;
   the block's barrier then lets the others on. */
inline void polycu_band_wait(const unsigned *flags, unsigned n) {
  if (polycu_emu::current_turns == nullptr)
    polycu_emu::fatal("a flag waited for in %s, which was not launched with "
                      "POLYCU_LAUNCH_RESIDENT",
                      polycu_emu::current_kernel ? polycu_emu::current_kernel : "host code");
  if (polycu_emu::current_thread == 0) {
    const unsigned b = blockIdx.x;
    const auto ended = [&](unsigned other) {
      return __atomic_load_n(&flags[other], __ATOMIC_ACQUIRE) >= n;
    };
    while (!((b == 0 || ended(b - 1)) && (b + 1 >= gridDim.x || ended(b + 1))))
      polycu_emu::current_turns->yield(b);
  }
  polycu_emu::current_barrier->wait(polycu_emu::current_thread);
}
#define POLYCU_DYNAMIC_SHARED(name) unsigned char *const name = ::polycu_emu::dynamic_shared
inline unsigned polycu_dynamic_bytes() { return static_cast<unsigned>(polycu_emu::dynamic_bytes); }
#define POLYCU_LAUNCH_RESIDENT(kernel, bands, block, bytes, ...)                             \
  ::polycu_emu::launch_resident(#kernel, (bands), (block), (bytes), [&] { kernel(__VA_ARGS__); })

/* The generated program loads its kernels' modules when it starts (a GPU's lazy
   loading); here there is nothing to load. */
template <typename... Kernels>
inline int polycu_load_kernels(Kernels... kernels) {
  return static_cast<int>(sizeof...(kernels));
}

inline void __syncthreads() {
  polycu_emu::Barrier *barrier = polycu_emu::current_barrier;
  if (barrier == nullptr)
    polycu_emu::fatal("__syncthreads() in %s, which was not launched with POLYCU_LAUNCH",
                      polycu_emu::current_kernel ? polycu_emu::current_kernel : "host code");
  if (!polycu_emu::pending_copies.empty())
    polycu_emu::fatal("kernel %s, block (%u,%u,%u): thread %u reaches __syncthreads() with %zu "
                      "cp.async copies not waited for (a missing POLYCU_COPY_WAIT)",
                      polycu_emu::current_kernel, blockIdx.x, blockIdx.y, blockIdx.z,
                      polycu_emu::current_thread, polycu_emu::pending_copies.size());
  barrier->wait(polycu_emu::current_thread);
}

/* __syncthreads_or(p): a barrier that says whether p was non-zero in some thread of
   the block.  Three barriers here (the votes, their reading, the reset before the
   next vote); cp.async copies may be in flight, as on the GPU. */
inline int __syncthreads_or(int predicate) {
  polycu_emu::Barrier *barrier = polycu_emu::current_barrier;
  if (barrier == nullptr)
    polycu_emu::fatal("__syncthreads_or() in %s, which was not launched with POLYCU_LAUNCH",
                      polycu_emu::current_kernel ? polycu_emu::current_kernel : "host code");
  if (predicate) __atomic_store_n(&barrier->vote, 1, __ATOMIC_SEQ_CST);
  barrier->wait(polycu_emu::current_thread);
  const int any = __atomic_load_n(&barrier->vote, __ATOMIC_SEQ_CST);
  barrier->wait(polycu_emu::current_thread);
  if (polycu_emu::current_thread == 0) __atomic_store_n(&barrier->vote, 0, __ATOMIC_SEQ_CST);
  barrier->wait(polycu_emu::current_thread);
  return any;
}

/* POLYCU_SHARED(T, name, N): a __shared__ T name[N] whose every access is
   checked for races.  A shadow record per element holds its last writer and
   its last two readers with their epochs (the __syncthreads() the thread has
   passed); all bytes 0xFF (the poison of each new block) mean "none".  Two
   threads touching an element in one epoch, one of them writing, is a missing
   barrier: fatal, whatever the order in which they ran. */
namespace polycu_emu {

struct Shadow { std::uint32_t writer, write_epoch, readers[2], read_epoch; };
constexpr std::uint32_t nobody = 0xFFFFFFFF;

/* Shadow updates lock one of 64 mutexes, chosen by the element's address. */
struct ShadowLocks {
  pthread_mutex_t stripes[64];
  ShadowLocks() { for (pthread_mutex_t &m : stripes) pthread_mutex_init(&m, nullptr); }
};
inline ShadowLocks shadow_locks;

inline std::uint32_t epoch() {
  return current_barrier ? static_cast<std::uint32_t>(current_barrier->passed[current_thread]) : 0;
}

[[noreturn]] inline void race(const char *array, long i, bool writes, const char *did, unsigned other) {
  fatal("kernel %s, block (%u,%u,%u): thread %u %s element %ld of shared array %s that thread %u %s "
        "with no __syncthreads() between them (a missing barrier)", current_kernel, blockIdx.x,
        blockIdx.y, blockIdx.z, current_thread, writes ? "writes" : "reads", i, array, other, did);
}

/* Template parameters spelled polycu_*: a program's macros (-DN=40) must not reach them. */
template <class polycu_T, std::size_t polycu_N, class polycu_Name> struct SharedArray {
  polycu_T data[polycu_N];
  Shadow shadow[polycu_N];

  polycu_T read(long i) {
    Shadow &s = shadow[i];
    const std::uint32_t me = current_thread, now = epoch();
    Guard guard(&shadow_locks.stripes[(reinterpret_cast<std::uintptr_t>(&s) >> 4) % 64]);
    if (s.writer == nobody) unwritten_read.note(polycu_Name::get(), i, me);
    else if (s.writer != me && s.write_epoch == now) race(polycu_Name::get(), i, false, "wrote", s.writer);
    if (s.readers[0] == nobody || s.read_epoch != now) {
      s.readers[0] = me, s.readers[1] = nobody, s.read_epoch = now;
    } else if (s.readers[0] != me && s.readers[1] == nobody) {
      s.readers[1] = me;
    }
    return data[i];
  }
  polycu_T write(long i, polycu_T value) {
    Shadow &s = shadow[i];
    const std::uint32_t me = current_thread, now = epoch();
    Guard guard(&shadow_locks.stripes[(reinterpret_cast<std::uintptr_t>(&s) >> 4) % 64]);
    if (s.writer != nobody && s.writer != me && s.write_epoch == now)
      race(polycu_Name::get(), i, true, "also wrote", s.writer);
    if (s.readers[0] != nobody && s.read_epoch == now && (s.readers[0] != me || s.readers[1] != nobody))
      race(polycu_Name::get(), i, true, "read", s.readers[0] != me ? s.readers[0] : s.readers[1]);
    s.writer = me, s.write_epoch = now;
    return data[i] = value;
  }

  /* name[i]: reads convert to polycu_T; writes are C's assignments, compound
     assignments and increments (an array resident in one block runs the program's
     own statements on it), each computed as C does: x op= v is x = (T)(x op v) in
     the usual arithmetic conversions of x and v, not x op (T)v. */
  struct Element {
    SharedArray *array;
    long i;
    operator polycu_T() const { return array->read(i); }
    polycu_T operator=(polycu_T v) const { return array->write(i, v); }
    polycu_T operator=(const Element &other) const { return array->write(i, polycu_T(other)); }
#define POLYCU_EMU_COMPOUND(op)                                                      \
    template <class polycu_U> polycu_T operator op##=(polycu_U v) const {            \
      return array->write(i, static_cast<polycu_T>(array->read(i) op v));            \
    }
    POLYCU_EMU_COMPOUND(+) POLYCU_EMU_COMPOUND(-) POLYCU_EMU_COMPOUND(*)
    POLYCU_EMU_COMPOUND(/) POLYCU_EMU_COMPOUND(%) POLYCU_EMU_COMPOUND(&)
    POLYCU_EMU_COMPOUND(|) POLYCU_EMU_COMPOUND(^) POLYCU_EMU_COMPOUND(<<)
    POLYCU_EMU_COMPOUND(>>)
#undef POLYCU_EMU_COMPOUND
    polycu_T operator++() const { return array->write(i, static_cast<polycu_T>(array->read(i) + 1)); }
    polycu_T operator--() const { return array->write(i, static_cast<polycu_T>(array->read(i) - 1)); }
    polycu_T operator++(int) const {
      const polycu_T old = array->read(i);
      array->write(i, static_cast<polycu_T>(old + 1));
      return old;
    }
    polycu_T operator--(int) const {
      const polycu_T old = array->read(i);
      array->write(i, static_cast<polycu_T>(old - 1));
      return old;
    }
  };
  Element operator[](long i) {
    if (i < 0 || i >= static_cast<long>(polycu_N))
      fatal("kernel %s, block (%u,%u,%u): thread %u accesses element %ld of shared array %s of %zu "
            "elements", current_kernel, blockIdx.x, blockIdx.y, blockIdx.z, current_thread, i,
            polycu_Name::get(), polycu_N);
    return Element{this, i};
  }
};

}  // namespace polycu_emu

#define POLYCU_SHARED(T, name, n)                                                  \
  struct polycu_shared_##name { static const char *get() { return #name; } };     \
  __shared__ ::polycu_emu::SharedArray<T, (n), polycu_shared_##name> name

/* A tile's cp.async copy (--async-copies) reads its source when issued and lands,
   as a race-checked store, when its thread waits (POLYCU_COPY_WAIT): a read of the
   element before the wait sees what was there, and a barrier reached with copies
   pending is fatal (__syncthreads above). */
#define POLYCU_COPY_ASYNC(to, from)                                                   \
  (::polycu_emu::pending_copies.push_back(                                           \
      [polycu_to = ::polycu_emu::copy_target(to), polycu_value = (from)]() mutable { \
        polycu_to = polycu_value;                                                    \
      }))
#define POLYCU_COPY_WAIT()                                                           \
  do {                                                                               \
    for (auto &polycu_copy : ::polycu_emu::pending_copies) polycu_copy();            \
    ::polycu_emu::pending_copies.clear();                                            \
  } while (0)

/* ---------------------------------------------------------------------- */
/* Device functions the kernels call                                      */
/* ---------------------------------------------------------------------- */

/* The read-only path: const __restrict__ pointers (g++ knows __restrict__) and
   __ldg loads. */
template <class polycu_T> inline polycu_T __ldg(const polycu_T *p) { return *p; }

/* Loop bounds take min/max of integers only (isl's AST expressions).  All of
   CUDA's same-type integer overloads are here, so that a call resolves, or is
   ambiguous, as it does for nvcc. */
#define POLYCU_EMU_MINMAX(T)                                   \
  inline T min(T a, T b) { return b < a ? b : a; }            \
  inline T max(T a, T b) { return a < b ? b : a; }
POLYCU_EMU_MINMAX(int)
POLYCU_EMU_MINMAX(unsigned int)
POLYCU_EMU_MINMAX(long)
POLYCU_EMU_MINMAX(unsigned long)
POLYCU_EMU_MINMAX(long long)
POLYCU_EMU_MINMAX(unsigned long long)
#undef POLYCU_EMU_MINMAX

/* Relaxed reductions (--relax-reductions) update with atomicAdd, on the element
   types polycu relaxes (ATOMIC_TYPES); it returns the old value, like CUDA's. */
namespace polycu_emu {
template <class T> inline T atomic_add(T *address, T value) {
  T old, updated;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  do {
    updated = old + value;
  } while (!__atomic_compare_exchange(address, &old, &updated, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED));
  return old;
}
}  // namespace polycu_emu

inline int atomicAdd(int *a, int v) { return polycu_emu::atomic_add(a, v); }
inline unsigned int atomicAdd(unsigned int *a, unsigned int v) { return polycu_emu::atomic_add(a, v); }
inline float atomicAdd(float *a, float v) { return polycu_emu::atomic_add(a, v); }
inline double atomicAdd(double *a, double v) { return polycu_emu::atomic_add(a, v); }

/* ---------------------------------------------------------------------- */
/* CUDA arrays, texture and surface objects                               */
/* ---------------------------------------------------------------------- */
/* For the memory placement of read-only arrays in texture objects (1-D over
   linear memory, 2-D and 3-D over CUDA arrays; doubles fetched as int2 and
   rebuilt with __hiloint2double) and of arrays read and written in one kernel
   in surface objects.  Only what polycu is to emit is emulated: point sampling
   of element types at unnormalised coordinates, clamp or border addressing;
   cudaCreateTextureObject refuses the rest.  Surface accesses outside the
   surface trap (CUDA's default boundary mode). */

enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
};
struct cudaChannelFormatDesc { int x, y, z, w; cudaChannelFormatKind f; };

/* A double texel is an int2 of its two halves. */
struct int2 { int x, y; };
inline int2 make_int2(int x, int y) { return int2{x, y}; }

inline double __hiloint2double(int hi, int lo) {
  std::uint64_t bits = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32) |
                       static_cast<std::uint32_t>(lo);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
/* The two halves of a double, as a surface writes it as an int2 texel. */
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

/* The channels of a scalar element type, or of int2. */
template <class T> inline cudaChannelFormatDesc cudaCreateChannelDesc() {
  constexpr bool pair = std::is_same<T, int2>::value;
  constexpr int bits = pair ? 32 : 8 * static_cast<int>(sizeof(T));
  cudaChannelFormatKind kind = std::is_floating_point<T>::value ? cudaChannelFormatKindFloat
                               : std::is_unsigned<T>::value    ? cudaChannelFormatKindUnsigned
                                                               : cudaChannelFormatKindSigned;
  return cudaChannelFormatDesc{bits, pair ? bits : 0, 0, 0, kind};
}

namespace polycu_emu {
inline std::size_t element_bytes(const cudaChannelFormatDesc &d) {
  return static_cast<std::size_t>(d.x + d.y + d.z + d.w) / 8;
}
}  // namespace polycu_emu

struct cudaExtent { std::size_t width, height, depth; };
inline cudaExtent make_cudaExtent(std::size_t w, std::size_t h, std::size_t d) { return cudaExtent{w, h, d}; }
struct cudaPitchedPtr { void *ptr; std::size_t pitch, xsize, ysize; };
inline cudaPitchedPtr make_cudaPitchedPtr(void *p, std::size_t pitch, std::size_t xsize, std::size_t ysize) {
  return cudaPitchedPtr{p, pitch, xsize, ysize};
}
struct cudaPos { std::size_t x, y, z; };

/* A CUDA array: a dense block of width x height x depth elements, poisoned like
   device memory. */
struct cudaArray {
  std::size_t width, height, depth, element;
  unsigned char *data;
};
typedef cudaArray *cudaArray_t;
typedef const cudaArray *cudaArray_const_t;

enum { cudaArrayDefault = 0, cudaArraySurfaceLoadStore = 2 };

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
  if (array != nullptr) {
    polycu_emu::orphan_objects(array->data, array->width * array->height * array->depth * array->element);
    std::free(array->data);
  }
  delete array;
  return cudaSuccess;
}

namespace polycu_emu {

/* Copies a box of `width` bytes x `height` rows x `depth` slices between an array,
   at byte `x` of row `y` of slice `z` of it, and linear memory whose rows are
   `pitch` bytes apart and whose slices are `rows` rows apart. */
inline cudaError_t copy_box(const char *what, const cudaArray *a, std::size_t x, std::size_t y,
                            std::size_t z, unsigned char *linear, std::size_t pitch, std::size_t rows,
                            std::size_t width, std::size_t height, std::size_t depth, bool to_array) {
  std::size_t row = a->width * a->element;
  if (x + width > row || y + height > a->height || z + depth > a->depth || width > pitch ||
      height > rows)
    return report(cudaErrorInvalidValue, "%s: the box is not inside the array or the linear memory", what);
  for (std::size_t k = 0; k < depth; ++k)
    for (std::size_t r = 0; r < height; ++r) {
      unsigned char *cell = a->data + ((z + k) * a->height + y + r) * row + x;
      unsigned char *line = linear + (k * rows + r) * pitch;
      if (to_array) std::memcpy(cell, line, width);
      else std::memcpy(line, cell, width);
    }
  return cudaSuccess;
}

}  // namespace polycu_emu

/* 2-D copies: `x` is a byte offset in the array's rows, `width` a byte count. */
inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, std::size_t x, std::size_t y, const void *src,
                                       std::size_t spitch, std::size_t width, std::size_t height,
                                       cudaMemcpyKind) {
  return polycu_emu::copy_box("cudaMemcpy2DToArray", dst, x, y, 0,
                              static_cast<unsigned char *>(const_cast<void *>(src)), spitch, height,
                              width, height, 1, true);
}
inline cudaError_t cudaMemcpy2DFromArray(void *dst, std::size_t dpitch, cudaArray_const_t src, std::size_t x,
                                         std::size_t y, std::size_t width, std::size_t height,
                                         cudaMemcpyKind) {
  return polycu_emu::copy_box("cudaMemcpy2DFromArray", src, x, y, 0, static_cast<unsigned char *>(dst),
                              dpitch, height, width, height, 1, false);
}

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;  // in elements, since one side is an array
  cudaMemcpyKind kind;
};

/* 3-D copies between an array and linear memory (either way); positions are in
   elements in the array, x in bytes in linear memory. */
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  const cudaArray *array = p->dstArray ? p->dstArray : p->srcArray;
  if (array == nullptr || (p->dstArray && p->srcArray))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaMemcpy3D: exactly one side must be an array");
  const cudaPitchedPtr &linear = p->dstArray ? p->srcPtr : p->dstPtr;
  const cudaPos &in_array = p->dstArray ? p->dstPos : p->srcPos;
  const cudaPos &in_linear = p->dstArray ? p->srcPos : p->dstPos;
  auto *base = static_cast<unsigned char *>(linear.ptr) +
               (in_linear.z * linear.ysize + in_linear.y) * linear.pitch + in_linear.x;
  std::size_t h = p->extent.height ? p->extent.height : 1, d = p->extent.depth ? p->extent.depth : 1;
  return polycu_emu::copy_box("cudaMemcpy3D", array, in_array.x * array->element, in_array.y, in_array.z,
                              base, linear.pitch, linear.ysize ? linear.ysize : 1,
                              p->extent.width * array->element, h, d, p->dstArray != nullptr);
}

enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeLinear = 2 };
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { void *devPtr; cudaChannelFormatDesc desc; std::size_t sizeInBytes; } linear;
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

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int normalizedCoords;
};

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

namespace polycu_emu {

/* What a texture or surface object refers to: elements of `element` bytes,
   rows `pitch` bytes apart, slices `slice` bytes apart; per dimension, whether
   a texture fetch outside reads 0 (border) instead of the nearest element. */
struct View {
  unsigned char *base;
  std::size_t element, pitch, slice, width, height, depth;
  bool border[3];
};

inline bool view_of(const cudaResourceDesc &r, View &v) {
  if (r.resType == cudaResourceTypeArray && r.res.array.array != nullptr) {
    const cudaArray *a = r.res.array.array;
    v = View{a->data, a->element, a->width * a->element, a->width * a->height * a->element,
             a->width, a->height, a->depth, {}};
    return true;
  }
  std::size_t e = r.resType == cudaResourceTypeLinear ? element_bytes(r.res.linear.desc) : 0;
  if (e == 0 || r.res.linear.sizeInBytes < e) return false;
  std::size_t n = r.res.linear.sizeInBytes / e;
  v = View{static_cast<unsigned char *>(r.res.linear.devPtr), e, n * e, n * e, n, 1, 1, {}};
  return true;
}

/* A texture or surface object.  On a GPU, texture fetches and surface reads go
   through caches that the writes of a launch (through pointers or surface
   writes) do not update: they may return what an element held when the launch
   began.  polycu uses an object only with a proof that no launch reads back
   through it what it wrote; so that a wrong proof shows, every launch first
   copies the bytes `live` views into `frozen` (same extents, dense rows and
   slices, owned by the object), kernels read from there and surface writes go
   to `live`.  Host code reads `live`.  `live.base` is null once the storage is
   freed. */
struct Object {
  View live, frozen;
};

/* The live objects (created, not destroyed): a program has a handful. */
struct Objects {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  Object **items = nullptr;
  std::size_t count = 0, capacity = 0;

  void add(Object *o) {
    Guard guard(&lock);
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 16;
      items = static_cast<Object **>(std::realloc(items, capacity * sizeof(Object *)));
      if (items == nullptr) fatal("out of host memory");
    }
    items[count++] = o;
  }
  /* false when o is not live (never created, or destroyed already). */
  bool remove(Object *o) {
    Guard guard(&lock);
    for (std::size_t k = 0; k < count; ++k)
      if (items[k] == o) {
        items[k] = items[--count];
        return true;
      }
    return false;
  }
};

inline Objects &objects() {
  static Objects table;
  return table;
}

/* Before every launch, before any emulated thread runs: exactly the viewed
   bytes (width elements of each row), row by row, never a pitch's padding. */
inline void freeze_objects() {
  Objects &table = objects();
  Guard guard(&table.lock);
  for (std::size_t k = 0; k < table.count; ++k) {
    const View &v = table.items[k]->live;
    if (v.base == nullptr) continue;  // its storage is gone: a kernel using it fails in lookup
    const View &f = table.items[k]->frozen;
    for (std::size_t z = 0; z < v.depth; ++z)
      for (std::size_t y = 0; y < v.height; ++y)
        std::memcpy(f.base + z * f.slice + y * f.pitch, v.base + z * v.slice + y * v.pitch,
                    v.width * v.element);
  }
}

/* cudaFree and cudaFreeArray: a later launch must not copy from freed memory,
   and using an object whose storage was freed is undefined on a GPU. */
inline void orphan_objects(const void *start, std::size_t bytes) {
  auto first = reinterpret_cast<std::uintptr_t>(start);
  Objects &table = objects();
  Guard guard(&table.lock);
  for (std::size_t k = 0; k < table.count; ++k) {
    auto base = reinterpret_cast<std::uintptr_t>(table.items[k]->live.base);
    if (base >= first && base - first < (bytes ? bytes : 1)) table.items[k]->live.base = nullptr;
  }
}

inline cudaError_t create_object(unsigned long long *handle, const View &v) {
  auto *o = new Object{v, v};
  o->frozen.pitch = v.width * v.element;
  o->frozen.slice = o->frozen.pitch * v.height;
  o->frozen.base = static_cast<unsigned char *>(std::malloc(o->frozen.slice * v.depth));
  if (o->frozen.base == nullptr) {
    delete o;
    return cudaErrorMemoryAllocation;
  }
  objects().add(o);
  *handle = reinterpret_cast<unsigned long long>(o);
  return cudaSuccess;
}

inline cudaError_t destroy_object(unsigned long long handle, const char *what) {
  if (handle == 0) return cudaSuccess;
  auto *o = reinterpret_cast<Object *>(handle);
  if (!objects().remove(o))
    return report(cudaErrorInvalidValue, "%s(%#llx): not a live texture or surface object", what, handle);
  std::free(o->frozen.base);
  delete o;
  return cudaSuccess;
}

inline Object &lookup(unsigned long long handle, std::size_t element, const char *what) {
  Object *o = reinterpret_cast<Object *>(handle);
  if (o == nullptr) fatal("%s on a null texture/surface object", what);
  if (o->live.base == nullptr)
    fatal("%s in %s on an object whose memory was freed", what,
          current_kernel ? current_kernel : "host code");
  if (o->live.element != element)
    fatal("%s of a %zu-byte type from an object of %zu-byte elements", what, element, o->live.element);
  return *o;
}

/* What a fetch or a surface read sees: in a kernel, the bytes as the launch began. */
inline const View &view(unsigned long long handle, std::size_t element, const char *what) {
  const Object &o = lookup(handle, element, what);
  return current_kernel != nullptr ? o.frozen : o.live;
}

template <class T> inline T load(const View &v, long x, long y, long z) {
  T value;
  std::memcpy(&value, v.base + z * v.slice + y * v.pitch + x * v.element, sizeof(T));
  return value;
}

/* The index that point sampling at unnormalised coordinate c of an extent n
   reads; false when border addressing says "outside".  Other modes clamp, as
   CUDA's do at unnormalised coordinates. */
inline bool texel(float c, std::size_t n, bool border, long &index) {
  long i = static_cast<long>(std::floor(c)), last = static_cast<long>(n) - 1;
  if (border && (i < 0 || i > last)) return false;
  index = i < 0 ? 0 : (i > last ? last : i);
  return true;
}

template <class T> inline T fetch(cudaTextureObject_t object, const char *what, float x, float y, float z) {
  const View &v = view(object, sizeof(T), what);
  long i, j, k;
  if (!texel(x, v.width, v.border[0], i) || !texel(y, v.height, v.border[1], j) ||
      !texel(z, v.depth, v.border[2], k))
    return T{};
  return load<T>(v, i, j, k);
}

/* The address of the element at byte column `xbytes`, row y, slice z of a
   surface (to write: in its storage; to read: in what `view` sees); outside
   it, a fatal error. */
template <class T> inline unsigned char *surface_cell(cudaSurfaceObject_t object, const char *what,
                                                      int xbytes, int y, int z, bool write) {
  const View &v = write ? lookup(object, sizeof(T), what).live : view(object, sizeof(T), what);
  if (xbytes % static_cast<int>(sizeof(T)) != 0)
    fatal("%s at byte %d, not a multiple of the element size %zu", what, xbytes, sizeof(T));
  long x = xbytes / static_cast<long>(sizeof(T));
  if (x < 0 || x >= static_cast<long>(v.width) || y < 0 || y >= static_cast<long>(v.height) || z < 0 ||
      z >= static_cast<long>(v.depth))
    fatal("%s (%ld, %d, %d) outside a %zux%zux%zu surface in %s", what, x, y, z, v.width, v.height,
          v.depth, current_kernel ? current_kernel : "host code");
  return v.base + z * v.slice + y * v.pitch + x * v.element;
}

template <class T> inline T surface_read(cudaSurfaceObject_t object, const char *what, int x, int y, int z) {
  T value;
  std::memcpy(&value, surface_cell<T>(object, what, x, y, z, false), sizeof(T));
  return value;
}
template <class T> inline void surface_write(T value, cudaSurfaceObject_t object, const char *what, int x,
                                             int y, int z) {
  std::memcpy(surface_cell<T>(object, what, x, y, z, true), &value, sizeof(T));
}

}  // namespace polycu_emu

inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t *object, const cudaResourceDesc *resource,
                                           const cudaTextureDesc *texture, const void * = nullptr) {
  polycu_emu::View v;
  if (!polycu_emu::view_of(*resource, v)) return cudaErrorInvalidValue;
  /* Launches copy all the viewed bytes: they must be device memory. */
  if (resource->resType == cudaResourceTypeLinear &&
      !polycu_emu::allocations().holds(v.base, v.width * v.element))
    return polycu_emu::report(cudaErrorInvalidValue,
                              "cudaCreateTextureObject: %zu bytes at %p are not inside one device "
                              "allocation", v.width * v.element, static_cast<void *>(v.base));
  if (texture->filterMode != cudaFilterModePoint || texture->readMode != cudaReadModeElementType ||
      texture->normalizedCoords)
    return polycu_emu::report(cudaErrorInvalidValue,
                              "cudaCreateTextureObject: only point filtering of element types at "
                              "unnormalised coordinates is emulated");
  for (int k = 0; k < 3; ++k) v.border[k] = texture->addressMode[k] == cudaAddressModeBorder;
  return polycu_emu::create_object(object, v);
}
inline cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *object, const cudaResourceDesc *resource) {
  polycu_emu::View v;
  if (resource->resType != cudaResourceTypeArray || !polycu_emu::view_of(*resource, v))
    return polycu_emu::report(cudaErrorInvalidValue, "cudaCreateSurfaceObject: needs a CUDA array");
  return polycu_emu::create_object(object, v);
}
inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
  return polycu_emu::destroy_object(object, "cudaDestroyTextureObject");
}
inline cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
  return polycu_emu::destroy_object(object, "cudaDestroySurfaceObject");
}

/* tex1Dfetch reads linear memory by integer index; outside it reads 0. */
template <class T> inline T tex1Dfetch(cudaTextureObject_t object, int x) {
  const polycu_emu::View &v = polycu_emu::view(object, sizeof(T), "tex1Dfetch");
  if (x < 0 || static_cast<std::size_t>(x) >= v.width) return T{};
  return polycu_emu::load<T>(v, x, 0, 0);
}
template <class T> inline T tex2D(cudaTextureObject_t object, float x, float y) {
  return polycu_emu::fetch<T>(object, "tex2D", x, y, 0.5f);
}
template <class T> inline T tex3D(cudaTextureObject_t object, float x, float y, float z) {
  return polycu_emu::fetch<T>(object, "tex3D", x, y, z);
}

/* Surface coordinates: x in bytes, as in CUDA. */
template <class T> inline T surf2Dread(cudaSurfaceObject_t object, int x, int y) {
  return polycu_emu::surface_read<T>(object, "surf2Dread", x, y, 0);
}
template <class T> inline void surf2Dwrite(T value, cudaSurfaceObject_t object, int x, int y) {
  polycu_emu::surface_write(value, object, "surf2Dwrite", x, y, 0);
}
template <class T> inline T surf3Dread(cudaSurfaceObject_t object, int x, int y, int z) {
  return polycu_emu::surface_read<T>(object, "surf3Dread", x, y, z);
}
template <class T> inline void surf3Dwrite(T value, cudaSurfaceObject_t object, int x, int y, int z) {
  polycu_emu::surface_write(value, object, "surf3Dwrite", x, y, z);
}

/* mma.sync.f64 (the tensor-core kernels' mma path, codegen/mma.py, built with
   POLYCU_EMULATE_MMA): each lane leaves its fragments with its warp, the lanes
   meet, each computes its own accumulators from all the warp's fragments (adding
   the products to D in ascending k: the hardware's order and rounding may differ,
   within the check's tolerance), and the lanes meet again before the fragments
   are overwritten.  Lane 4 g + t of mma.m8n8k4 holds A[g][t], B[t][g] and
   D[g][2t + e]; of mma.m16n8k8, a_r = A[g + 8 (r % 2)][t + 4 (r / 2)],
   b_r = B[t + 4 r][g] and d_r = D[g + 8 (r / 2)][2 t + r % 2]. */
namespace polycu_emu {

inline Warp &mma_meet(const double *a, int na, const double *b, int nb) {
  Warp *warp = current_warp;
  if (warp == nullptr)
    fatal("mma.sync in %s, which was not launched with POLYCU_LAUNCH",
          current_kernel ? current_kernel : "host code");
  const unsigned lane = current_thread % 32;
  for (int r = 0; r < na; ++r) warp->a[lane][r] = a[r];
  for (int r = 0; r < nb; ++r) warp->b[lane][r] = b[r];
  warp->barrier.wait(lane);
  return *warp;
}

inline void mma_m8n8k4(double &d0, double &d1, double a, double b) {
  Warp &w = mma_meet(&a, 1, &b, 1);
  const unsigned g = current_thread % 32 / 4, t = current_thread % 4;
  double d[2] = {d0, d1};
  for (unsigned e = 0; e < 2; ++e)
    for (unsigned k = 0; k < 4; ++k) d[e] += w.a[4 * g + k][0] * w.b[4 * (2 * t + e) + k][0];
  w.barrier.wait(current_thread % 32);
  d0 = d[0], d1 = d[1];
}

inline void mma_m16n8k8(double &d0, double &d1, double &d2, double &d3, double a0, double a1,
                        double a2, double a3, double b0, double b1) {
  const double a[4] = {a0, a1, a2, a3}, b[2] = {b0, b1};
  Warp &w = mma_meet(a, 4, b, 2);
  const unsigned g = current_thread % 32 / 4, t = current_thread % 4;
  double d[4] = {d0, d1, d2, d3};
  for (unsigned r = 0; r < 4; ++r) {
    const unsigned row = g + 8 * (r / 2), col = 2 * t + r % 2;
    // A[row][k]: lane 4 (row % 8) + k % 4, register row / 8 + 2 (k / 4)
    for (unsigned k = 0; k < 8; ++k)
      d[r] += w.a[4 * (row % 8) + k % 4][row / 8 + 2 * (k / 4)] * w.b[4 * col + k % 4][k / 4];
  }
  w.barrier.wait(current_thread % 32);
  d0 = d[0], d1 = d[1], d2 = d[2], d3 = d[3];
}

}  // namespace polycu_emu

#endif /* POLYCU_EMU_H */
