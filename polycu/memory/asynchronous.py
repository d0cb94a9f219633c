"""Asynchronous tile copies: shared tiles loaded with ``cp.async`` (``--async-copies``).

A copy ``s[z] = A[e]`` is a load into a register and a store to shared memory.  A
warp issues its instructions in order, so the store waits for the load, and the
next copy's load waits behind that store unless ptxas hoisted it; when it does
not (a strip longer than the registers it is willing to spend), each element of
a strip costs one memory latency.  ``cp.async`` (sm_80 on) copies 4, 8 or 16
bytes from global to shared memory without a register: a thread issues every
copy of its strip, then waits once for all of them.

The order of the copies and barriers does not change (shared.py); only their
text does: each copy is ``POLYCU_COPY_ASYNC(s[z], A[e])`` and each barrier of the
kernel is preceded by ``POLYCU_COPY_WAIT()`` (``__pipeline_commit();
__pipeline_wait_prior(0);``), which completes the thread's own copies before the
barrier makes them visible to the block.  So the values a statement reads from
the tile are the ones plain copies give.  The emulation lands a copy at its
thread's wait, as a race-checked store, and stops at a barrier reached with
copies pending (``polycu_emu.h``).

Left plain: a scaled tile's copy (it computes ``c * A[e]``) and element types of 1
or 2 bytes (``cp.async`` copies 4, 8 or 16).  The tensor-core and tree-reduction
kernels print their own code, which ignores the marks.

A kernel with no mapped member runs on one thread, which has no block to share a
tile with, but pays a load's latency for every element it reads in a loop
(gramschmidt's norm, ludcmp's back substitution).  So does each thread of a
launch of at most ``LATENCY_THREADS`` threads (``latency_bound``: one warp an SM
or none, nothing to hide the latency behind), each running its own loop (adi's
sweeps, a row a thread), where those are the launch's threads (not the virtual
threads of a program run as one block or one resident grid, several to a
thread).  Their arrays in device memory of 4- or 8-byte elements are marked
*staged*: codegen/staging.py copies each strip of ``LATENCY_STRIP`` iterations
of an innermost loop's reads ahead with cp.async, each thread into its own part
of the buffer, where that loop writes no element of the array.  The other
threads of the launch write none either: the mapping proved its threads
independent, unless a statement is an atomic update (such kernels stage
nothing).  Not an array of at most ``L1_BYTES`` at the problem's sizes
(--min-staged-bytes): its loads hit the L1 cache, as fast as the shared copies,
and the strips only add work (durbin's 16 KB vectors on an H200, with --run-on
gpu: 19.2 ms, and 50.3 ms staged).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..gpu.where import array_bytes, point_of, problem_sizes
from .kinds import GLOBAL, READ_ONLY, SHARED
from .shared import (COPY_BYTES, LATENCY_STRIP, LATENCY_THREADS, SharedTile, element_bytes,
                     latency_bound)

if TYPE_CHECKING:
    from ..gpu.kernel import GpuProgram, Kernel
    from ..model import Scop

_COPIED = "; copied with cp.async"
#: One SM's L1 cache and shared memory together on Hopper (sm_90).
L1_BYTES = 256 * 1024
_STAGED = (f"; its reads in a loop that does not write it copied ahead with cp.async, "
           f"{LATENCY_STRIP} iterations at once: the kernel runs on one thread, which "
           f"would wait a load's latency for each")
_STAGED_THREADS = (f"; its reads in a loop that does not write it copied ahead with "
                   f"cp.async, {LATENCY_STRIP} iterations at once: each thread would wait a "
                   f"load's latency for each, the launch having at most {LATENCY_THREADS} "
                   f"threads (one warp per SM)")
_LATENCY = (f"; copied with cp.async, a strip in flight at once: the launch has at most "
            f"{LATENCY_THREADS} threads (one warp per SM), too few to hide a load's latency")


def asynchronous(scop: Scop, tile: SharedTile) -> bool:
    """Whether ``tile``'s copy can be one ``cp.async`` per element."""
    return tile.scale is None and \
        element_bytes(scop.array(tile.array).element_type) in COPY_BYTES


def marked(program: GpuProgram, kernel: Kernel, tiles: tuple[SharedTile, ...],
           choices: tuple[Any, ...], stage_bytes: int = L1_BYTES) -> dict[str, Any]:
    """A kernel's ``tiles`` with those cp.async can copy marked so, the arrays its
    threads stage (where it runs on one thread, or its launches have few threads:
    ``latency_bound``, and it updates nothing atomically; those of more than
    ``stage_bytes``, --min-staged-bytes), and its ``choices``
    (placement.py's) saying both, as fields of its placement (the tensor-core and
    tree kernels print their own copies and ignore the marks)."""
    scop = program.scop
    tiles = tuple(replace(t, asynchronous=asynchronous(scop, t)) for t in tiles)
    copied = {t.array: t.latency for t in tiles if t.asynchronous}
    staged: frozenset[str] = frozenset()
    # a kernel's threads are its own unless the program runs as one block or one
    # resident grid: there a block's threads run several virtual threads each
    own = not (program.single_block or program.resident)
    if not kernel.mapped or (own and latency_bound(program, kernel) and not kernel.atomic):
        point = point_of(scop, problem_sizes(scop))
        staged = frozenset(
            c.array for c in choices if c.kind in (GLOBAL, READ_ONLY)
            and element_bytes(scop.array(c.array).element_type) in COPY_BYTES
            and array_bytes(scop.array(c.array), point) > stage_bytes)
    choices = tuple(replace(c, reason=c.reason + (_LATENCY if copied[c.array] else _COPIED))
                    if c.kind == SHARED and c.array in copied else
                    replace(c, reason=c.reason + (_STAGED_THREADS if kernel.mapped
                                                  else _STAGED)) if c.array in staged else c
                    for c in choices)
    return {"shared": tiles, "choices": choices, "staged": staged}
