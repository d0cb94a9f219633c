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
not faulted in here: the lanes' eight threads write its pages, and fault them in,
side by side.  Faulting them in beforehand as well gained nothing in the default
build and, with buffers from the memory pool, made deriche's kernels wait 12-15 ms
behind the faults (H200, LARGE, session 31, ``docs/results/transfers.md``).
"""
from __future__ import annotations

from typing import Any, Mapping

HELPERS = r"""
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
   staged is left to the lanes, which fault in its pages themselves. */
#ifndef POLYCU_PREFAULT_BYTES
#define POLYCU_PREFAULT_BYTES ((size_t)1 << 20)
#endif
struct polycu_prefault {
  std::vector<std::pair<char *, size_t> > ranges;   /* whole pages */
  std::vector<std::thread> threads;
  size_t total = 0;
  void add(void *host, size_t bytes)
  {
#ifdef __linux__
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t first = (size_t)host / page * page;
    const size_t last = ((size_t)host + bytes + page - 1) / page * page;
    if (bytes == 0 || polycu_copy_staged(bytes))
      return;
    ranges.push_back(std::make_pair((char *)first, last - first));
    total += last - first;
#endif
  }
  /* Faults in bytes [begin, end) of the ranges laid end to end. */
  void run(size_t begin, size_t end) const
  {
#ifdef __linux__
    size_t at = 0;
    for (const std::pair<char *, size_t> &r : ranges) {
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
      threads.emplace_back([this, at, end] { run(at, end); });
    }
#endif
  }
  void wait()
  {
    for (std::thread &t : threads)
      t.join();
    threads.clear();
  }
};
"""


def prefaulted(buffered: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Of the host program's arrays with a device buffer, those copied out and
    possibly not in."""
    return [a for a in buffered if a["copy_out"] and (not a["copy_in"] or a.get("covered"))]


def start(arrays: list[Mapping[str, Any]]) -> list[str]:
    """Lines that start faulting in ``arrays`` (``prefaulted``)."""
    if not arrays:
        return []
    return (["polycu_prefault polycu_faults;"]
            + [f"polycu_faults.add({a['name']}, {a['device']}_bytes);" for a in arrays]
            + ["polycu_faults.start();"])


def wait(arrays: list[Mapping[str, Any]]) -> list[str]:
    """Lines that wait for the pages of ``arrays`` before the copies out."""
    return ["polycu_faults.wait();"] if arrays else []
