"""Host pages of the arrays copied out, faulted in while the GPU works.

In:  the host program's arrays (``host.host_program``: their copy in and out and the
condition under which the copy-in is skipped).
Out: the C++ helper (``HELPERS``) and the host function's lines that start it after
the allocations (``start``) and wait for it before the copies out (``wait``).

Why.  The first write to a host page costs more than a copy into it: on an H100's
host a copy out into pages the program had never written ran at 1.2 GB/s, against
9 GB/s into written pages.  Faulting the pages in first (``MADV_POPULATE_WRITE``) ran
at 3.3 GB/s on one thread, 10.6 GB/s on four and 3.7 GB/s on eight (32 MB;
``scripts/transfer_bandwidth.cu``, ``docs/results/transfers.md``).  An array the SCoP writes but does not copy in (an
output, or one whose every element the SCoP overwrites: ``transfers._missed``) is
typically such an array.  The helper faults its pages in on up to four host threads
while the main thread copies in and launches, so the copy out finds them resident.
``MADV_POPULATE_WRITE`` leaves the contents alone (it only maps the pages writable),
so it is correct whatever the program wrote before; where the kernel or the C library
lacks it (Linux before 5.14, other systems) nothing happens.

An array whose copy out goes through the staging lanes (``staged.py``, from 8 MB) is
not faulted in then: the lanes' eight threads write its pages, and fault them in,
side by side.  Faulting them in beforehand as well gained nothing in the default
build and, with buffers from the memory pool, made deriche's kernels wait 12-15 ms
behind the faults (H200, LARGE, session 31, ``docs/results/transfers.md``).

Where the kernels are estimated long (``gpu.where.LATE_FAULTS``, the driver's
``Placement.late_faults``), those arrays, and the arrays copied in as well as out, are
faulted in later (``late``): once every launch is queued, while the GPU still runs
them, 1 MB slices on up to four threads until the event recorded after the launches
completes.  An array copied in may be untouched memory the program never wrote:
reading it for the copy in maps the kernel's shared zero page, and each page of the
copy out then still faults.  adi at LARGE copies its four 8 MB arrays in and out:
the copy out took 18-23 ms of a 225 ms program, 1.6 GB/s; with the late faults the
program ran 1.094x faster (H200, session 43).  No launch waits behind these faults,
but starting the threads and the slice in flight when the GPU finishes cost the
programs of short kernels up to 0.45 ms (gemver 0.87x), hence the estimate's gate.
"""
from __future__ import annotations

from typing import Any, Mapping

HELPERS = r"""
#include <atomic>
#include <thread>
#include <utility>
#include <vector>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#endif

/* Faults in the pages of host arrays on up to four threads (codegen/prefault.py):
   add() the arrays, start(), and wait() before the transfers into them.  Below
   POLYCU_PREFAULT_BYTES in all, nothing is started.  An array whose copy out is
   staged, and one add_late() names (copied in too), waits for while_busy(): after
   the launches, while the GPU runs them. */
#ifndef POLYCU_PREFAULT_BYTES
#define POLYCU_PREFAULT_BYTES ((size_t)1 << 20)
#endif
struct polycu_prefault {
  typedef std::vector<std::pair<char *, size_t> > Ranges;   /* whole pages */
  Ranges ranges, late;
  std::vector<std::thread> threads;
  size_t total = 0, late_total = 0;
  void add(void *host, size_t bytes)
  {
    if (bytes != 0 && polycu_copy_staged(bytes))
      add_late(host, bytes);
    else
      put(ranges, total, host, bytes);
  }
  void add_late(void *host, size_t bytes) { put(late, late_total, host, bytes); }
  static void put(Ranges &to, size_t &sum, void *host, size_t bytes)
  {
#ifdef __linux__
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t first = (size_t)host / page * page;
    const size_t last = ((size_t)host + bytes + page - 1) / page * page;
    if (bytes == 0)
      return;
    to.push_back(std::make_pair((char *)first, last - first));
    sum += last - first;
#endif
  }
  /* Faults in bytes [begin, end) of `of` laid end to end. */
  static void run(const Ranges &of, size_t begin, size_t end)
  {
#ifdef __linux__
    size_t at = 0;
    for (const std::pair<char *, size_t> &r : of) {
      const size_t lo = begin > at ? begin : at, hi = end < at + r.second ? end : at + r.second;
      if (lo < hi)
        (void)madvise(r.first + (lo - at), hi - lo, MADV_POPULATE_WRITE);
      at += r.second;
    }
#endif
  }
  void start()
  {
#ifdef __linux__
    if (total < POLYCU_PREFAULT_BYTES)
      return;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned workers = std::thread::hardware_concurrency();
    workers = workers < 1 ? 1 : workers > 4 ? 4 : workers;   /* 8 contend */
    const size_t slice = (total / workers + page - 1) / page * page;
    for (size_t at = 0; at < total; at += slice) {
      const size_t end = at + slice < total ? at + slice : total;
      threads.emplace_back([this, at, end] { run(ranges, at, end); });
    }
#endif
  }
  void wait()
  {
    for (std::thread &t : threads)
      t.join();
    threads.clear();
  }
  /* Faults in the late ranges a slice of 1 MB at a time on up to four threads, each
     taking the next slice while busy() holds (the GPU still runs), and returns when
     they are done or it no longer holds. */
  template <typename Busy> void while_busy(Busy busy)
  {
#ifdef __linux__
    if (late_total < POLYCU_PREFAULT_BYTES)
      return;
    const size_t slice = (size_t)1 << 20;
    std::atomic<size_t> next(0);
    unsigned workers = std::thread::hardware_concurrency();
    workers = workers < 1 ? 1 : workers > 4 ? 4 : workers;
    for (unsigned w = 0; w < workers; w++)
      threads.emplace_back([this, &next, &busy, slice] {
        for (size_t at = next.fetch_add(slice); at < late_total && busy();
             at = next.fetch_add(slice))
          run(late, at, at + slice < late_total ? at + slice : late_total);
      });
    wait();
#endif
  }
};

/* The late ranges of `faults` faulted in while the work queued on the default
   stream runs (an event recorded after it not yet complete).  Only the pages'
   residency changes, so stopping early or not starting is always correct. */
inline void polycu_fault_while_busy(polycu_prefault &faults)
{
  cudaEvent_t done;
  if (faults.late_total < POLYCU_PREFAULT_BYTES ||
      cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess)
    return;
  if (cudaEventRecord(done, 0) == cudaSuccess)
    faults.while_busy([done] { return cudaEventQuery(done) == cudaErrorNotReady; });
  (void)cudaEventDestroy(done);
}
"""


def prefaulted(buffered: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Of the host program's arrays with a device buffer, those copied out and
    possibly not in (faulted in from the start)."""
    return [a for a in buffered if a["copy_out"] and (not a["copy_in"] or a.get("covered"))]


def late(buffered: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Those copied in and out: faulted in while the GPU runs the launches."""
    early = prefaulted(buffered)
    return [a for a in buffered if a["copy_out"] and a not in early]


def start(buffered: list[Mapping[str, Any]], late_faults: bool = False) -> list[str]:
    """Lines that hand the arrays copied out (of ``buffered``) to the helper and start
    faulting in those not copied in; with ``late_faults`` the others too, later."""
    early, later = prefaulted(buffered), late(buffered) if late_faults else []
    if not early and not later:
        return []
    return (["polycu_prefault polycu_faults;"]
            + [f"polycu_faults.add({a['name']}, {a['device']}_bytes);" for a in early]
            + [f"polycu_faults.add_late({a['name']}, {a['device']}_bytes);" for a in later]
            + ["polycu_faults.start();"])


def wait(buffered: list[Mapping[str, Any]], late_faults: bool = False) -> list[str]:
    """Lines after the launches, before the copies out: wait for the first faults and,
    with ``late_faults``, fault in the rest while the GPU runs."""
    early, later = prefaulted(buffered), late(buffered) if late_faults else []
    if not early and not later:
        return []
    return ["polycu_faults.wait();"] + (["polycu_fault_while_busy(polycu_faults);"]
                                        if late_faults else [])
