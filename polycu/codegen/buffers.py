"""Device buffers from the device's memory pool, mapped when the program starts.

In:  the host program's arrays (``host.host_program``: element type, element count,
whether they are copied).
Out: the C++ helper (``HELPERS``: ``polycu_malloc``, ``polycu_free``,
``polycu_buffers_ready``, ``polycu_reserve``) and the file-scope line that reserves
a SCoP's buffers and staging lanes when the program starts (``reserve``).

Why.  ``cudaMalloc`` maps new memory and ``cudaFree`` unmaps it: a traced atax at
LARGE on an H200 spent 0.19 ms allocating its 32 MB matrix and 0.17 ms freeing it,
gemver 0.30 and 0.20 ms, of programs of 2.3 and 3.4 ms.  So the buffers come from the
device's default memory pool (``cudaMallocAsync`` on the default stream), whose
release threshold the program raises when it starts, so that freed memory stays
mapped; and each SCoP's buffers of known size are allocated together and freed once
then, as the program's host arrays are allocated before its timers start.  The pool
then holds the largest set of one SCoP's buffers for the whole program.  The buffers
are usable on other streams (the staged copies' lanes) and by texture objects once
the default stream has passed their allocation (``polycu_buffers_ready``).  A device
without memory pools, or a build with ``-DPOLYCU_NO_POOL``, gets ``cudaMalloc`` and
``cudaFree``.

Measured on an H200 at LARGE (session 31, ``docs/results/transfers.md``), with the
prefault change below: 14 programs 1.04-1.52x faster than session 30's cudaMalloc
build (jacobi-1d 0.68 -> 0.52 ms, gesummv 2.53 -> 1.67); all 30 programs' dumps
equal to gcc's at SMALL and LARGE.  (Session 30's deriche, 1.24x slower with the
pool, was the prefault threads: ``prefault.py``.)
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

HELPERS = r"""
/* Device buffers from the default memory pool, which keeps what is freed
   (codegen/buffers.py); with -DPOLYCU_NO_POOL, or where the device has no pools,
   cudaMalloc. */
inline bool polycu_pooled()
{
#ifndef POLYCU_NO_POOL
  static const bool pooled = [] {
    int device = 0, supported = 0;
    cudaMemPool_t pool;
    unsigned long long keep = ~0ull;   /* never hand freed memory back */
    const bool ready = cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) ==
            cudaSuccess && supported &&
        cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
    (void)cudaGetLastError();
    return ready;
  }();
  return pooled;
#else
  return false;
#endif
}
inline cudaError_t polycu_malloc(void **buffer, size_t bytes)
{
  return polycu_pooled() ? cudaMallocAsync(buffer, bytes, 0) : cudaMalloc(buffer, bytes);
}
inline cudaError_t polycu_free(void *buffer)
{
  return polycu_pooled() ? cudaFreeAsync(buffer, 0) : cudaFree(buffer);
}
/* After a SCoP's allocations: the default stream has passed them, so other streams
   and texture objects may use the buffers. */
inline cudaError_t polycu_buffers_ready()
{
  return polycu_pooled() ? cudaStreamSynchronize(0) : cudaSuccess;
}
/* When the program starts: the staging lanes if a buffer may reach their threshold,
   and the pool's memory for a SCoP's buffers (SIZE_MAX: a size known only when it
   runs, not reserved). */
inline int polycu_reserve(std::initializer_list<size_t> bytes)
{
  polycu_stage_reserve(bytes);
  if (!polycu_pooled())
    return 0;
  std::vector<void *> made;
  for (size_t b : bytes) {
    void *buffer = nullptr;
    if (b == SIZE_MAX || b == 0)
      continue;
    if (cudaMallocAsync(&buffer, b, 0) != cudaSuccess)
      break;
    made.push_back(buffer);
  }
  for (void *buffer : made)
    (void)cudaFreeAsync(buffer, 0);
  (void)cudaStreamSynchronize(0);
  (void)cudaGetLastError();
  return 0;
}
"""

#: A C element count with no name in it (``(size_t)1 * 2000 * 1300``) is known when
#: the program starts.
_NAME = re.compile(r"[A-Za-z_]\w*")


def _known(count: str) -> bool:
    return all(name == "size_t" for name in _NAME.findall(count))


def reserve(function: str, arrays: Sequence[Mapping[str, Any]]) -> list[str]:
    """The file-scope line that reserves the SCoP's buffers and, where one of them
    may reach their threshold, the staging lanes when the program starts: the
    bytes of each device buffer, ``SIZE_MAX`` where its count depends on the SCoP's
    parameters; none without buffers."""
    sizes = [f"{a['count']['c']} * sizeof({a['element_type']})"
             if _known(a["count"]["c"]) else "SIZE_MAX" for a in arrays]
    if not sizes:
        return []
    return [f"static const int {function}_reserved = polycu_reserve({{{', '.join(sizes)}}});"]


def allocate(array: Mapping[str, Any]) -> str:
    """The statement that allocates an array's device buffer."""
    return f"POLYCU_CHECK(polycu_malloc((void **)&{array['device']}, {array['device']}_bytes));"


def free(array: Mapping[str, Any]) -> str:
    """The statement that frees an array's device buffer."""
    return f"POLYCU_CHECK(polycu_free({array['device']}));"
