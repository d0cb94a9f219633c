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
A smaller copy, a pool the GPU refused or a device other than the pool's goes
through ``cudaMemcpy``.

The emulation (``polycu_emu.h``) stages every copy, in chunks of 200 bytes, and runs
each stream's copies only when an event or the stream is waited for: a slot written
before the copy that reads it was waited for sends the newer bytes, and the result
differs from the original program's.
"""
from __future__ import annotations

from typing import Any, Mapping

HELPERS = r"""
#include <condition_variable>
#ifdef __linux__
#include <unistd.h>
#endif
#include <functional>
#include <initializer_list>
#include <mutex>

/* Copies between host arrays and device buffers (codegen/staged.py): from
   POLYCU_STAGE_BYTES on, through two page-locked slots of POLYCU_STAGE_CHUNK bytes
   for each of up to POLYCU_STAGE_WORKERS host threads, thread w moving chunks w,
   w + W, ...; smaller copies, or where no slots could be made, with cudaMemcpy. */
#ifndef POLYCU_STAGE_BYTES
#define POLYCU_STAGE_BYTES ((size_t)8 << 20)
#endif
#ifndef POLYCU_STAGE_CHUNK
#define POLYCU_STAGE_CHUNK ((size_t)2 << 20)
#endif
#ifndef POLYCU_STAGE_WORKERS
#define POLYCU_STAGE_WORKERS 8
#endif
struct polycu_stage_lane {
  char *slot[2];
  cudaStream_t stream;
  cudaEvent_t done[2];   /* the DMA that last used each slot */
};
struct polycu_staging {
  std::vector<polycu_stage_lane> lanes;   /* none: every copy is a cudaMemcpy */
  char *slots = nullptr;
  int device = -1;
#ifdef __linux__
  pid_t owner = getpid();                 /* the process whose threads serve the lanes */
#endif
  std::mutex busy;                        /* one copy at a time */
  /* Lanes 1.. run on threads started with the pool: a thread started during a copy
     maps its stack, which waits for the page faults of the prefault threads. */
  std::vector<std::thread> workers;
  std::mutex lock;
  std::condition_variable wake, finished;
  std::function<cudaError_t(polycu_stage_lane &, size_t)> job;
  std::vector<cudaError_t> result;
  unsigned long long round = 0;           /* jobs posted so far */
  size_t running = 0;                     /* workers still on this round's job */
  bool stopping = false;

  /* Makes the lanes and their threads, once; where the GPU refuses any part, none. */
  void create()
  {
    std::lock_guard<std::mutex> hold(busy);
    if (!lanes.empty() || slots != nullptr)
      return;
    unsigned count = std::thread::hardware_concurrency();
    if (count == 1)
      return;   /* one thread stages slower than the driver's copy (8.6 against 13.6 GB/s) */
    count = count < 1 ? 1 : count > POLYCU_STAGE_WORKERS ? POLYCU_STAGE_WORKERS : count;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaMallocHost((void **)&slots, 2 * count * POLYCU_STAGE_CHUNK) != cudaSuccess) {
      slots = nullptr;
      (void)cudaGetLastError();
      return;
    }
    for (unsigned w = 0; w < count; w++) {
      polycu_stage_lane lane;
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
      lanes.push_back(lane);
    }
    (void)cudaGetLastError();   /* fewer lanes than asked: those made serve */
    result.assign(lanes.size(), cudaSuccess);
    for (size_t w = 1; w < lanes.size(); w++)
      workers.emplace_back([this, w] { work(w); });
    warm();
  }

  ~polycu_staging()
  {
    {
      std::lock_guard<std::mutex> hold(lock);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
  }

  /* Lane w's thread: each posted job once, until the program ends. */
  void work(size_t w)
  {
    const cudaError_t bound = cudaSetDevice(device);
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> hold(lock);
    for (;;) {
      wake.wait(hold, [&] { return stopping || round != seen; });
      if (stopping)
        return;
      seen = round;
      hold.unlock();
      const cudaError_t e = bound != cudaSuccess ? bound : job(lanes[w], w);
      hold.lock();
      result[w] = e;
      if (--running == 0)
        finished.notify_one();
    }
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

  /* Whether a copy of `bytes` goes through the lanes (the caller holds `busy`): not
     in a child the program forked, which has none of the lanes' threads. */
  bool staged(size_t bytes) const
  {
    int current = -1;
#ifdef __linux__
    if (getpid() != owner)
      return false;
#endif
    return bytes >= POLYCU_STAGE_BYTES && bytes > 0 && !lanes.empty() &&
           cudaGetDevice(&current) == cudaSuccess && current == device;
  }

  /* Runs move(lane w, w) on every lane, lane 0 on this thread; the first error. */
  cudaError_t on_lanes(std::function<cudaError_t(polycu_stage_lane &, size_t)> move)
  {
    {
      std::lock_guard<std::mutex> hold(lock);
      job = move;
      running = workers.size();
      round++;
    }
    wake.notify_all();
    cudaError_t first = move(lanes[0], 0);
    std::unique_lock<std::mutex> hold(lock);
    finished.wait(hold, [&] { return running == 0; });
    for (size_t w = 1; w < lanes.size(); w++)
      if (first == cudaSuccess)
        first = result[w];
    return first;
  }

  cudaError_t in(void *dev, const void *host, size_t bytes)
  {
    std::lock_guard<std::mutex> hold(busy);
    if (!staged(bytes))
      return cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    const size_t chunks = (bytes + POLYCU_STAGE_CHUNK - 1) / POLYCU_STAGE_CHUNK;
    const size_t step = lanes.size();
    return on_lanes([=](polycu_stage_lane &lane, size_t first) {
      cudaError_t e = cudaSuccess;
      int k = 0;
      for (size_t c = first; c < chunks && e == cudaSuccess; c += step, k ^= 1) {
        const size_t at = c * POLYCU_STAGE_CHUNK;
        const size_t n = bytes - at < POLYCU_STAGE_CHUNK ? bytes - at : POLYCU_STAGE_CHUNK;
        e = cudaEventSynchronize(lane.done[k]);   /* slot k's last DMA has read it */
        if (e == cudaSuccess) {
          memcpy(lane.slot[k], (const char *)host + at, n);
          e = cudaMemcpyAsync((char *)dev + at, lane.slot[k], n, cudaMemcpyHostToDevice,
                              lane.stream);
        }
        if (e == cudaSuccess)
          e = cudaEventRecord(lane.done[k], lane.stream);
      }
      const cudaError_t drained = cudaStreamSynchronize(lane.stream);
      return e != cudaSuccess ? e : drained;
    });
  }

  cudaError_t out(void *host, const void *dev, size_t bytes)
  {
    std::lock_guard<std::mutex> hold(busy);
    if (!staged(bytes))
      return cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
    const cudaError_t ready = cudaDeviceSynchronize();   /* the kernels that write dev */
    if (ready != cudaSuccess)
      return ready;
    const size_t chunks = (bytes + POLYCU_STAGE_CHUNK - 1) / POLYCU_STAGE_CHUNK;
    const size_t step = lanes.size();
    return on_lanes([=](polycu_stage_lane &lane, size_t first) {
      /* the DMA of chunk c into slot k (its event recorded after it) */
      auto fetch = [&](size_t c, int k) {
        const size_t at = c * POLYCU_STAGE_CHUNK;
        const size_t n = bytes - at < POLYCU_STAGE_CHUNK ? bytes - at : POLYCU_STAGE_CHUNK;
        cudaError_t e = cudaMemcpyAsync(lane.slot[k], (const char *)dev + at, n,
                                        cudaMemcpyDeviceToHost, lane.stream);
        return e == cudaSuccess ? cudaEventRecord(lane.done[k], lane.stream) : e;
      };
      cudaError_t e = first < chunks ? fetch(first, 0) : cudaSuccess;
      int k = 0;
      for (size_t c = first; c < chunks && e == cudaSuccess; c += step, k ^= 1) {
        if (c + step < chunks)
          e = fetch(c + step, k ^ 1);   /* slot k ^ 1 was emptied last iteration */
        if (e == cudaSuccess)
          e = cudaEventSynchronize(lane.done[k]);
        if (e == cudaSuccess) {
          const size_t at = c * POLYCU_STAGE_CHUNK;
          const size_t n = bytes - at < POLYCU_STAGE_CHUNK ? bytes - at : POLYCU_STAGE_CHUNK;
          memcpy((char *)host + at, lane.slot[k], n);
        }
      }
      const cudaError_t drained = cudaStreamSynchronize(lane.stream);
      return e != cudaSuccess ? e : drained;
    });
  }
};
/* One pool for the program (an inline variable: one across the generated files). */
inline polycu_staging polycu_stage;
/* Makes the pool when the program starts if a SCoP copies an array of one of these
   sizes that reaches the threshold (SIZE_MAX: a size known only when it runs). */
inline int polycu_stage_reserve(std::initializer_list<size_t> bytes)
{
  for (size_t b : bytes)
    if (b >= POLYCU_STAGE_BYTES) {
      polycu_stage.create();
      break;
    }
  return 0;
}
inline cudaError_t polycu_copy_in(void *dev, const void *host, size_t bytes)
{
  return polycu_stage.in(dev, host, bytes);
}
inline cudaError_t polycu_copy_out(void *host, const void *dev, size_t bytes)
{
  return polycu_stage.out(host, dev, bytes);
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
