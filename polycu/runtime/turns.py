"""Turns on a GPU: one process at a time runs on it, however many share it.

In:  the GPU of this process's CUDA context (its PCI bus id names it for every
     process of the host, whatever ``CUDA_VISIBLE_DEVICES`` each one sees).
Out: ``turn()``, a context manager around the code that runs on the GPU (a check's
     run, a timing, a library baseline, the device's measurement); ``waited()``
     and ``held()``, the seconds this process has spent waiting for its turns and
     holding them (the GPU's busy time, as far as this process is concerned).

Why: a timing measured while another process's kernels share the GPU is the
timing of both (contexts of different processes time-slice the GPU), so processes
that share a GPU (``polycu bench --workers-per-gpu``, or two polycu commands at
once) take turns for everything they run on it, and do everything else (polycu's
compile, gcc's reference, nvcc) while another runs.  The turn is an exclusive
``flock`` on a file named for the GPU in /tmp: the kernel
releases it when its holder exits, however it exits.  Turns nest: the inner one
is the outer one's.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
import time
from typing import Iterator

_depth = 0         # the depth of the turns this process is in
_waited = 0.0      # seconds spent waiting for turns
_held_s = 0.0      # seconds spent holding them


def lock_path(gpu: str) -> str:
    """The file whose lock is the turn on the GPU called ``gpu`` (a PCI bus id): in
    /tmp, whatever TMPDIR a process has (scripts/scaleout.sh gives each run its
    own, for PyCUDA's caches), so that every process of the host finds it."""
    where = "/tmp" if os.access("/tmp", os.W_OK) else tempfile.gettempdir()
    return os.path.join(where, "polycu-gpu-" + re.sub(r"[^\w-]", "_", gpu) + ".lock")


def this_gpu() -> str:
    """The PCI bus id of the GPU of this process's current CUDA context (made by
    ``device.import_pycuda`` before anything runs on the GPU); 'none' without PyCUDA
    or a context, where nothing of this process runs on a GPU (the CPU stand-ins of
    the tests)."""
    try:
        import pycuda.driver as drv     # an optional dependency
        return drv.Context.get_device().pci_bus_id()
    except Exception:  # noqa: BLE001 - ImportError, or PyCUDA's own error: no context
        return "none"


@contextlib.contextmanager
def turn(gpu: str | None = None) -> Iterator[None]:
    """Hold the turn on ``gpu`` (default: this process's GPU) for the block."""
    global _depth, _waited, _held_s
    if _depth:
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
        return
    fd = os.open(lock_path(gpu if gpu is not None else this_gpu()), os.O_RDWR | os.O_CREAT,
                 0o666)
    try:
        start = time.perf_counter()
        fcntl.flock(fd, fcntl.LOCK_EX)
        got = time.perf_counter()
        _waited += got - start
        _depth = 1
        try:
            yield
        finally:
            _depth = 0
            _held_s += time.perf_counter() - got
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def waited() -> float:
    """Seconds this process has waited for turns so far."""
    return _waited


def held() -> float:
    """Seconds this process has held turns so far."""
    return _held_s
