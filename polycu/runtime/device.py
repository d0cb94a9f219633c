"""Measured ceilings of the present CUDA device (``polycu device``).

In:  the GPU PyCUDA sees.
Out: ``DeviceInfo``: the device's facts and measured ceilings (copy bandwidth,
FP64 and FP32 FMA peaks), cached as JSON in ``devices.json`` of polycu's cache
directory (``~/.cache/polycu`` or ``$POLYCU_CACHE_DIR``) keyed by device name.

Vendor figures are not what a kernel can reach, so every roofline figure polycu
prints is relative to ceilings measured here:

* copy bandwidth: a device-to-device copy of ``double2`` over buffers far larger
  than L2, counting bytes read plus bytes written (the STREAM "copy" convention);
* FMA peak: chains of dependent ``fma`` on independent accumulators, enough warps
  to hide the latency on every multiprocessor, 2 flops per FMA.  This is the
  CUDA-core peak; tensor-core DGEMM (cuBLAS) goes beyond it;
* host transfers: 64 MiB copied each way from ordinary (pageable) host memory and
  from page-locked memory, wall time around the synchronous copy.  A program's
  compulsory transfers cost at least their bytes over these rates (issue 14's
  bound for the programs whose time is mostly transfers).

The best of several timed runs is kept: a ceiling is what the device can do.
"""
from __future__ import annotations

import datetime
import importlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..diagnostics import error
from .metrics import Ceilings
from .native import cache_dir
from .turns import turn

_COPY_SOURCE = r"""
extern "C" __global__ void polycu_copy(const double2 *__restrict__ src,
                                       double2 *__restrict__ dst, long n)
{
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}
"""

# CHAINS independent accumulators, each advanced UNROLL times per iteration.
_CHAINS, _UNROLL = 8, 16
_FMA_SOURCE = r"""
template <typename T>
__device__ void fma_chains(T *out, T a, T b, int iterations)
{
  T x[%(chains)d];
  #pragma unroll
  for (int c = 0; c < %(chains)d; c++)
    x[c] = (T)(threadIdx.x + c);
  for (int it = 0; it < iterations; it++) {
    #pragma unroll
    for (int u = 0; u < %(unroll)d; u++) {
      #pragma unroll
      for (int c = 0; c < %(chains)d; c++)
        x[c] = fma(x[c], a, b);
    }
  }
  T sum = 0;
  #pragma unroll
  for (int c = 0; c < %(chains)d; c++)
    sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

extern "C" __global__ void polycu_fma_double(double *out, double a, double b, int iterations)
{ fma_chains<double>(out, a, b, iterations); }

extern "C" __global__ void polycu_fma_float(float *out, float a, float b, int iterations)
{ fma_chains<float>(out, a, b, iterations); }
""" % {"chains": _CHAINS, "unroll": _UNROLL}


@dataclass(frozen=True)
class DeviceInfo:
    """What polycu records about a device: its facts and its measured ceilings."""

    name: str
    compute_capability: str
    multiprocessors: int
    l2_bytes: int
    memory_bytes: int
    copy_bandwidth: float  # bytes/s, read + write
    fp64_peak: float       # flop/s
    fp32_peak: float       # flop/s
    measured: str          # ISO date and time of the measurement
    pageable_h2d: float    # bytes/s, host to device from pageable memory
    pageable_d2h: float
    pinned_h2d: float      # bytes/s, from and to page-locked memory
    pinned_d2h: float

    @property
    def ceilings(self) -> Ceilings:
        return Ceilings(self.name, self.copy_bandwidth, self.fp64_peak, self.fp32_peak)


def cache_path() -> Path:
    """``devices.json`` in polycu's cache directory (``~/.cache/polycu`` by default)."""
    return cache_dir() / "devices.json"


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached(name: str, path: Path | None = None) -> DeviceInfo | None:
    """The cached record of the device called ``name``, if any."""
    entry = _read_cache(path or cache_path()).get(name)
    if not isinstance(entry, dict):
        return None
    try:
        return DeviceInfo(**entry)
    except TypeError:  # a record written by another version of polycu
        return None


def store(info: DeviceInfo, path: Path | None = None) -> None:
    """Add or replace ``info`` in the cache (other devices' records are kept)."""
    path = path or cache_path()
    data = _read_cache(path)
    data[info.name] = asdict(info)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")   # workers may store at once
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)


def import_pycuda() -> Any:
    """``pycuda.driver`` with a context on device 0, or a located error."""
    try:
        # imported for its side effect: it creates the context on device 0
        importlib.import_module("pycuda.autoinit")
        import pycuda.driver as drv
    except ImportError as exc:
        raise error(f"PyCUDA is not available ({exc}); install polycu[cuda]") from exc
    except Exception as exc:  # pycuda raises its own types when no GPU is present
        raise error(f"no usable CUDA device: {exc}") from exc
    return drv


def arch_option() -> str:
    """``-arch=sm_XY`` for the present device, so SourceModule builds native code."""
    drv = import_pycuda()
    major, minor = drv.Context.get_device().compute_capability()
    return f"sm_{major}{minor}"


def _best_seconds(drv: Any, launch: Any, repeat: int) -> float:
    launch()  # warm-up: module load and clocks
    start, end = drv.Event(), drv.Event()
    best = float("inf")
    for _ in range(repeat):
        start.record()
        launch()
        end.record()
        end.synchronize()
        best = min(best, end.time_since(start) / 1e3)
    return best


def measure(repeat: int = 10) -> DeviceInfo:
    """Measure the present device's copy bandwidth and FMA peaks (a few seconds)."""
    drv = import_pycuda()
    import numpy as np
    from pycuda.compiler import SourceModule

    dev = drv.Context.get_device()
    attr = drv.device_attribute
    sms = dev.get_attribute(attr.MULTIPROCESSOR_COUNT)
    l2 = dev.get_attribute(attr.L2_CACHE_SIZE)
    arch = arch_option()

    copy = SourceModule(_COPY_SOURCE, no_extern_c=True, arch=arch).get_function("polycu_copy")
    # Each buffer at least 16x L2 and 1 GiB, so the copy streams from HBM.
    n_bytes = max(1 << 30, 16 * l2)
    n = n_bytes // 16
    src, dst = drv.mem_alloc(n * 16), drv.mem_alloc(n * 16)
    drv.memset_d8(src, 0, n * 16)
    copy_grid = (sms * 8, 1)
    copy_time = _best_seconds(drv, lambda: copy(src, dst, np.int64(n), block=(256, 1, 1),
                                                   grid=copy_grid), repeat)
    src.free()
    dst.free()

    fma = SourceModule(_FMA_SOURCE, no_extern_c=True, arch=arch)
    peaks = {}
    blocks, threads, iterations = sms * 16, 256, 256
    out = drv.mem_alloc(blocks * threads * 8)
    for name, dtype in (("double", np.float64), ("float", np.float32)):
        kernel = fma.get_function(f"polycu_fma_{name}")
        seconds = _best_seconds(drv, lambda k=kernel, t=dtype: k(
            out, t(0.999999), t(1e-6), np.int32(iterations), block=(threads, 1, 1),
            grid=(blocks, 1)), repeat)
        fmas = blocks * threads * iterations * _UNROLL * _CHAINS
        peaks[name] = 2 * fmas / seconds
    out.free()

    rates = _transfer_rates(drv, np, repeat)
    major, minor = dev.compute_capability()
    return DeviceInfo(
        name=dev.name(), compute_capability=f"{major}.{minor}", multiprocessors=sms,
        l2_bytes=l2, memory_bytes=dev.total_memory(), copy_bandwidth=2 * n * 16 / copy_time,
        fp64_peak=peaks["double"], fp32_peak=peaks["float"],
        measured=datetime.datetime.now().isoformat(timespec="seconds"), **rates)


#: Bytes of each host transfer measured: as large as PolyBench's LARGE matrices.
TRANSFER_BYTES = 64 << 20


def _transfer_rates(drv: Any, np: Any, repeat: int) -> dict[str, float]:
    """Best bytes/s of a ``TRANSFER_BYTES`` copy each way, from pageable and from
    page-locked host memory (wall time: a pageable copy is staged by the host)."""
    n = TRANSFER_BYTES // 8
    device_buffer = drv.mem_alloc(TRANSFER_BYTES)
    rates = {}
    for kind, host in (("pageable", np.ones(n)), ("pinned", drv.pagelocked_empty(n, np.float64))):
        host[:] = 1.0                       # touch every page before timing
        for direction, copy in (("h2d", lambda h=host: drv.memcpy_htod(device_buffer, h)),
                                ("d2h", lambda h=host: drv.memcpy_dtoh(h, device_buffer))):
            copy()
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                copy()
                drv.Context.synchronize()
                best = min(best, time.perf_counter() - start)
            rates[f"{kind}_{direction}"] = TRANSFER_BYTES / best
    device_buffer.free()
    return rates


def device_info(refresh: bool = False, path: Path | None = None) -> DeviceInfo:
    """The present device's record: from the cache, or measured and cached."""
    drv = import_pycuda()
    name = drv.Context.get_device().name()
    info = None if refresh else cached(name, path)
    if info is None:
        with turn():
            info = measure()
        store(info, path)
    return info


def format_info(info: DeviceInfo) -> str:
    """The record as ``polycu device`` prints it."""
    return "\n".join([
        f"device:              {info.name} (compute capability {info.compute_capability})",
        f"multiprocessors:     {info.multiprocessors}",
        f"L2 cache:            {info.l2_bytes / 2**20:.0f} MiB",
        f"memory:              {info.memory_bytes / 2**30:.1f} GiB",
        f"copy bandwidth:      {info.copy_bandwidth / 1e12:.2f} TB/s (read + write)",
        f"FP64 FMA peak:       {info.fp64_peak / 1e12:.1f} TFLOP/s",
        f"FP32 FMA peak:       {info.fp32_peak / 1e12:.1f} TFLOP/s",
        f"host to device:      {info.pageable_h2d / 1e9:.1f} GB/s pageable, "
        f"{info.pinned_h2d / 1e9:.1f} GB/s pinned",
        f"device to host:      {info.pageable_d2h / 1e9:.1f} GB/s pageable, "
        f"{info.pinned_d2h / 1e9:.1f} GB/s pinned",
        f"measured:            {info.measured}",
    ])
