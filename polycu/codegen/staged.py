"""Host copies of large arrays through page-locked slots, on several host threads.

In:  the host program's arrays (``host.host_program``: element type, element count).
Out: the C++ helper (``HELPERS``: ``polycu_copy_in``, ``polycu_copy_out``,
``polycu_stage_reserve``, which ``buffers.reserve``'s line calls when the program
starts) and the host function's copy statements (``copy_in``, ``copy_out``).

Why.  The driver copies pageable memory through its own page-locked buffers on one
host thread: 13.6 GB/s into an H200 for a 32 MB array, 6.9 GB/s for 128 MB, where
page-locked memory moves 55 GB/s; page-locking the user's array first
(``cudaHostRegister``) costs about as much as the pageable copy it saves.  Eight host
threads, each with two slots of 2 MB and a stream of its own, each moving every
eighth chunk (a ``memcpy`` into one slot while the DMA of the other runs), reach
27.7 GB/s for 32 MB and 38.7 GB/s for 128 MB in both directions; one thread is slower
than the driver (8.6 GB/s), and below 8 MB starting the threads costs more than it
saves (``scripts/transfer_bandwidth.cu threaded``).  In the programs, atax, bicg,
mvt and gesummv run 2.1-2.6x faster than with the registered copies before
(``docs/results/transfers.md``, session 30).

So the copies of arrays from ``POLYCU_STAGE_BYTES`` (8 MB) on are staged.  The slots
(``POLYCU_STAGE_WORKERS`` lanes, at most one a hardware thread and none on a
host of one, 4 MB each), their
streams and the threads of lanes 1.. are made when the program starts, as the driver
makes its own staging buffers with the context, and only in programs with a device
buffer that may reach the threshold (``buffers.reserve``).  Threads started during a copy were
slower than none: each maps its stack, which waits behind the page faults of the
prefault threads (``prefault.py``; deriche's 35 MB copy in took 19 ms).  A copy out
first waits for the device (the lanes' streams do not wait for the default stream).
A smaller copy, a pool the GPU refused, a device other than the pool's, or a system
other than Linux (the helper's threads are POSIX threads: with ``<mutex>`` and
``<functional>`` every emulated file took 0.70 s to build against 0.44 s before the
helper, 0.49 s now) goes through ``cudaMemcpy``.

The emulation (``polycu_emu.h``) stages every copy, in chunks of 200 bytes, and runs
each stream's copies only when an event or the stream is waited for: a slot written
before the copy that reads it was waited for sends the newer bytes, and the result
differs from the original program's.
"""
from __future__ import annotations

from typing import Any, Mapping

HELPERS = r"""
#include <initializer_list>
#include <vector>
#ifdef __linux__
#include <pthread.h>
#include <unistd.h>
#endif

/* Copies between host arrays and device buffers (codegen/staged.py): from
   POLYCU_STAGE_BYTES on, through two page-locked slots of POLYCU_STAGE_CHUNK bytes
   for each of up to POLYCU_STAGE_WORKERS host threads, thread w moving chunks w,
   w + W, ...; smaller copies, where no slots could be made, or off Linux (POSIX
   threads, which build faster than <mutex>), with cudaMemcpy. */
#ifndef POLYCU_STAGE_BYTES
#define POLYCU_STAGE_BYTES ((size_t)8 << 20)
#endif
#ifndef POLYCU_STAGE_CHUNK
#define POLYCU_STAGE_CHUNK ((size_t)2 << 20)
#endif
#ifndef POLYCU_STAGE_WORKERS
#define POLYCU_STAGE_WORKERS 8
#endif
#ifdef __linux__
struct polycu_staging;
struct polycu_stage_lane {
  char *slot[2];
  cudaStream_t stream;
  cudaEvent_t done[2];   /* the DMA that last used each slot */
  polycu_staging *pool;
  size_t index;
  pthread_t thread;
  cudaError_t result;
};
/* One lane's share of a copy: its chunks first, first + W, ... */
struct polycu_stage_job {
  char *to;
  const char *from;
  size_t bytes;
};
typedef cudaError_t (*polycu_stage_move)(const polycu_stage_job &, polycu_stage_lane &, size_t);
struct polycu_staging {
  std::vector<polycu_stage_lane> lanes;   /* none: every copy is a cudaMemcpy */
  char *slots = nullptr;
  int device = -1;
  pid_t owner = getpid();                 /* the process whose threads serve the lanes */
  pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;   /* one copy at a time */
  /* Lanes 1.. run on threads started with the pool: a thread started during a copy
     maps its stack, which waits for the page faults of the prefault threads. */
  size_t workers = 0;
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake = PTHREAD_COND_INITIALIZER, finished = PTHREAD_COND_INITIALIZER;
  polycu_stage_move move = nullptr;
  polycu_stage_job job = {};
  unsigned long long round = 0;           /* jobs posted so far */
  size_t running = 0;                     /* workers still on this round's job */
  bool stopping = false;

  /* Makes the lanes and their threads, once; where the GPU refuses any part, none. */
  void create()
  {
    pthread_mutex_lock(&busy);
    make();
    pthread_mutex_unlock(&busy);
  }

  void make()
  {
    if (!lanes.empty() || slots != nullptr)
      return;
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    if (count == 1)
      return;   /* one thread stages slower than cudaMemcpy moves (8.6 against 13.6 GB/s) */
    count = count < 1 ? 1 : count > POLYCU_STAGE_WORKERS ? POLYCU_STAGE_WORKERS : count;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaMallocHost((void **)&slots, 2 * count * POLYCU_STAGE_CHUNK) != cudaSuccess) {
      slots = nullptr;
      (void)cudaGetLastError();
      return;
    }
    for (long w = 0; w < count; w++) {
      polycu_stage_lane lane = {};
      if (cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking) != cudaSuccess)
        break;
      if (cudaEventCreateWithFlags(&lane.done[0], cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaStreamDestroy(lane.stream);
        break;
      }
      if (cudaEventCreateWithFlags(&lane.done[1], cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaEventDestroy(lane.done[0]);
        (void)cudaStreamDestroy(lane.stream);
        break;
      }
      for (int k = 0; k < 2; k++)
        lane.slot[k] = slots + (2 * w + k) * POLYCU_STAGE_CHUNK;
      lane.pool = this;
      lane.index = (size_t)w;
      lanes.push_back(lane);
    }
    (void)cudaGetLastError();   /* fewer lanes than asked: those made serve */
    for (size_t w = 1; w < lanes.size(); w++) {   /* the vector no longer moves */
      if (pthread_create(&lanes[w].thread, nullptr, work, &lanes[w]) != 0)
        break;
      workers = w;
    }
    if (!lanes.empty())
      lanes.resize(workers + 1);   /* the lanes whose thread did not start: unused */
    warm();
  }

  ~polycu_staging()
  {
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    for (size_t w = 1; w <= workers; w++)
      pthread_join(lanes[w].thread, nullptr);
  }

  /* A lane's thread: each posted job once, until the program ends. */
  static void *work(void *argument)
  {
    polycu_stage_lane &lane = *static_cast<polycu_stage_lane *>(argument);
    polycu_staging &pool = *lane.pool;
    const cudaError_t bound = cudaSetDevice(pool.device);
    unsigned long long seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
      while (!pool.stopping && pool.round == seen)
        pthread_cond_wait(&pool.wake, &pool.lock);
      if (pool.stopping)
        break;
      seen = pool.round;
      const polycu_stage_move move = pool.move;
      const polycu_stage_job job = pool.job;
      pthread_mutex_unlock(&pool.lock);
      const cudaError_t e = bound != cudaSuccess ? bound : move(job, lane, pool.lanes.size());
      pthread_mutex_lock(&pool.lock);
      lane.result = e;
      if (--pool.running == 0)
        pthread_cond_signal(&pool.finished);
    }
    pthread_mutex_unlock(&pool.lock);
    return nullptr;
  }

  /* A stream's first copies each way set it up in the driver (about 0.1 ms each):
     done here, when the program starts, not in the first SCoP's copies. */
  void warm()
  {
    void *dev = nullptr;
    if (lanes.empty() || cudaMalloc(&dev, 2) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    for (polycu_stage_lane &lane : lanes) {
      (void)cudaMemcpyAsync(dev, lane.slot[0], 1, cudaMemcpyHostToDevice, lane.stream);
      (void)cudaMemcpyAsync(lane.slot[1], dev, 1, cudaMemcpyDeviceToHost, lane.stream);
      (void)cudaStreamSynchronize(lane.stream);
    }
    (void)cudaFree(dev);
    (void)cudaGetLastError();
  }

  /* Whether a copy of `bytes` goes through the lanes: not in a child the program
     forked, which has none of the lanes' threads.  The lanes are made when the
     program starts, so no lock is needed. */
  bool staged(size_t bytes) const
  {
    int current = -1;
    return getpid() == owner && bytes >= POLYCU_STAGE_BYTES && bytes > 0 && !lanes.empty() &&
           cudaGetDevice(&current) == cudaSuccess && current == device;
  }

  /* Runs the move on every lane, lane 0 on this thread; the first error. */
  cudaError_t on_lanes(polycu_stage_move how, const polycu_stage_job &what)
  {
    pthread_mutex_lock(&lock);
    move = how;
    job = what;
    running = workers;
    round++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    cudaError_t first = how(what, lanes[0], lanes.size());
    pthread_mutex_lock(&lock);
    while (running != 0)
      pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
    for (size_t w = 1; w < lanes.size(); w++)
      if (first == cudaSuccess)
        first = lanes[w].result;
    return first;
  }

  static size_t chunk_bytes(size_t bytes, size_t c)
  {
    const size_t at = c * POLYCU_STAGE_CHUNK;
    return bytes - at < POLYCU_STAGE_CHUNK ? bytes - at : POLYCU_STAGE_CHUNK;
  }

  /* Host to device: fill slot k with chunk c once slot k's last DMA has read it. */
  static cudaError_t move_in(const polycu_stage_job &job, polycu_stage_lane &lane, size_t step)
  {
    const size_t chunks = (job.bytes + POLYCU_STAGE_CHUNK - 1) / POLYCU_STAGE_CHUNK;
    cudaError_t e = cudaSuccess;
    int k = 0;
    for (size_t c = lane.index; c < chunks && e == cudaSuccess; c += step, k ^= 1) {
      const size_t at = c * POLYCU_STAGE_CHUNK, n = chunk_bytes(job.bytes, c);
      e = cudaEventSynchronize(lane.done[k]);   /* slot k's last DMA has read it */
      if (e == cudaSuccess) {
        memcpy(lane.slot[k], job.from + at, n);
        e = cudaMemcpyAsync(job.to + at, lane.slot[k], n, cudaMemcpyHostToDevice, lane.stream);
      }
      if (e == cudaSuccess)
        e = cudaEventRecord(lane.done[k], lane.stream);
    }
    const cudaError_t drained = cudaStreamSynchronize(lane.stream);
    return e != cudaSuccess ? e : drained;
  }

  /* The DMA of chunk c into slot k, its event recorded after it. */
  static cudaError_t fetch(const polycu_stage_job &job, polycu_stage_lane &lane, size_t c, int k)
  {
    const cudaError_t e = cudaMemcpyAsync(lane.slot[k], job.from + c * POLYCU_STAGE_CHUNK,
                                          chunk_bytes(job.bytes, c), cudaMemcpyDeviceToHost,
                                          lane.stream);
    return e == cudaSuccess ? cudaEventRecord(lane.done[k], lane.stream) : e;
  }

  /* Device to host: chunk c + W's DMA runs while chunk c leaves slot k. */
  static cudaError_t move_out(const polycu_stage_job &job, polycu_stage_lane &lane, size_t step)
  {
    const size_t chunks = (job.bytes + POLYCU_STAGE_CHUNK - 1) / POLYCU_STAGE_CHUNK;
    cudaError_t e = lane.index < chunks ? fetch(job, lane, lane.index, 0) : cudaSuccess;
    int k = 0;
    for (size_t c = lane.index; c < chunks && e == cudaSuccess; c += step, k ^= 1) {
      if (c + step < chunks)
        e = fetch(job, lane, c + step, k ^ 1);   /* slot k ^ 1 was emptied last time */
      if (e == cudaSuccess)
        e = cudaEventSynchronize(lane.done[k]);   /* chunk c is in slot k */
      if (e == cudaSuccess)
        memcpy(job.to + c * POLYCU_STAGE_CHUNK, lane.slot[k], chunk_bytes(job.bytes, c));
    }
    const cudaError_t drained = cudaStreamSynchronize(lane.stream);
    return e != cudaSuccess ? e : drained;
  }

  cudaError_t in(void *dev, const void *host, size_t bytes)
  {
    pthread_mutex_lock(&busy);
    const cudaError_t e = staged(bytes)
        ? on_lanes(move_in, polycu_stage_job{(char *)dev, (const char *)host, bytes})
        : cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    pthread_mutex_unlock(&busy);
    return e;
  }

  cudaError_t out(void *host, const void *dev, size_t bytes)
  {
    pthread_mutex_lock(&busy);
    cudaError_t e;
    if (!staged(bytes))
      e = cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
    else if ((e = cudaDeviceSynchronize()) == cudaSuccess)   /* the kernels that write dev */
      e = on_lanes(move_out, polycu_stage_job{(char *)host, (const char *)dev, bytes});
    pthread_mutex_unlock(&busy);
    return e;
  }
};
/* One pool for the program (an inline variable: one across the generated files). */
inline polycu_staging polycu_stage;
inline cudaError_t polycu_copy_in(void *dev, const void *host, size_t bytes)
{
  return polycu_stage.in(dev, host, bytes);
}
inline cudaError_t polycu_copy_out(void *host, const void *dev, size_t bytes)
{
  return polycu_stage.out(host, dev, bytes);
}
/* Whether a copy of `bytes` goes through the lanes, whose threads then write (and
   fault in) the host pages of a copy out themselves. */
inline bool polycu_copy_staged(size_t bytes)
{
  return polycu_stage.staged(bytes);
}
#else
inline cudaError_t polycu_copy_in(void *dev, const void *host, size_t bytes)
{
  return cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
}
inline cudaError_t polycu_copy_out(void *host, const void *dev, size_t bytes)
{
  return cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
}
inline bool polycu_copy_staged(size_t)
{
  return false;
}
#endif
/* Makes the pool when the program starts if a SCoP copies an array of one of these
   sizes that reaches the threshold (SIZE_MAX: a size known only when it runs). */
inline int polycu_stage_reserve(std::initializer_list<size_t> bytes)
{
#ifdef __linux__
  for (size_t b : bytes)
    if (b >= POLYCU_STAGE_BYTES) {
      polycu_stage.create();
      break;
    }
#else
  (void)bytes;
#endif
  return 0;
}
"""


def copy_in(array: Mapping[str, Any]) -> str:
    """The statement that copies a host array into its device buffer."""
    return (f"POLYCU_CHECK(polycu_copy_in({array['device']}, {array['name']}, "
            f"{array['device']}_bytes));")


def copy_out(array: Mapping[str, Any]) -> str:
    """The statement that copies a device buffer back into its host array."""
    return (f"POLYCU_CHECK(polycu_copy_out({array['name']}, {array['device']}, "
            f"{array['device']}_bytes));")
