"""Store forwarding: the value a thread last stored to an array, kept in a register for
its next reads of that element (``--forward-stores``).

A thread of adi's sweeps runs a recurrence down its row, ``p[i][j] = -c / (a *
p[i][j - 1] + b)``: each step reads the element the step before stored.  nvcc keeps
the load, which has to wait for the store to reach L2 (about 0.9 us a step of
adi's three recurrences at LARGE on an H200: 1000 threads, so nothing hides the
latency).  Forwarding keeps, per array ``A``, the value of the thread's last store
to ``A`` and its address in two registers, ``rV`` and ``rA`` (``codegen/kernel.py``
numbers them after the promoted ones); every store to ``A`` sets both, and every
read ``A[e]`` becomes ``(rA == &A[e] ? rV : A[e])``.  The stores still go to memory.

Why that is exact without a proof over the schedule: ``rV`` holds the value the
cell at ``rA`` holds in this thread's view, as long as

* every store of the thread to ``A`` is seen (each write reference of ``A`` in the
  kernel is the left side of its statement's assignment, which is rewritten
  ``rV = (A[e] = v); rA = &A[e];``; the value of an assignment is the value
  stored), and
* no other thread writes a cell this thread reads in the same launch: the mapping
  proved the mapped members free of dependences within a launch, so this holds
  in kernels without barriers; kernels with barriers (shared tiles, tree
  reductions, tensor-core contractions, a single block running every phase) and
  arrays updated with atomics are left alone.

So a read that finds its own address in ``rA`` reads the value memory
holds, and any other read reads memory.  Arrays held in registers, shared tiles or
another memory path are not forwarded, nor scalars (registers already), nor arrays
a kernel only reads or only writes (nothing to forward).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from ..gpu.kernel import GpuProgram, Kernel
from .kinds import GLOBAL
from .registers import thread_order

if TYPE_CHECKING:
    from .placement import KernelPlacement, Placement


def forwarded(program: GpuProgram, kernel: Kernel, placed: "KernelPlacement",
              barriers: bool) -> frozenset[str]:
    """The read references of ``kernel`` that may read a value the same thread stored
    (see the module doc), the arrays of their stores forwarded; ``barriers``: the
    kernel's threads synchronise.

    A read ``R`` can find its own address in the registers only if the thread wrote
    the cell before: over the instances of one thread, with ``M`` their order and
    ``W`` the writes of ``R``'s array,

        { r -> w : R(r) = W(w) and M(w) < M(r) }   is not empty.

    The other reads keep their plain load, with no comparison (seidel-2d reads nine
    cells a step and writes one).  The test only saves comparisons: a read that is
    compared and never finds its address still reads memory."""
    if barriers or placed.barriers:
        return frozenset()
    scop = program.scop
    kept = {p.array for p in placed.registers} | {t.array for t in placed.shared}
    atomic = {s.reduction_array for s in scop.statements if s.name in kernel.atomic}
    statements = [s for s in scop.statements if s.name in kernel.statements]
    domain = kernel.thread_domain()
    order = thread_order(program, kernel)
    earlier = order.lex_gt_union_map(order)       # r -> w: M(w) < M(r)
    found: set[str] = set()
    for array in scop.arrays:
        name = array.name
        if (array.is_scalar or name in kept or name in atomic or name in kernel.private
                or name not in kernel.reads or name not in kernel.writes
                or placed.of(name).kind != GLOBAL
                or not all(_assigned(stmt, name) for stmt in statements)):
            continue
        writes = [a for s in statements for a in s.accesses if a.array == name and a.is_write]
        written = isl.UnionMap.empty(domain.get_space())
        for access in writes:
            written = written.union(isl.UnionMap.from_map(access.relation))
        cells = written.intersect_domain(domain).reverse()
        for stmt in statements:
            for access in stmt.accesses:
                if (access.array == name and access.is_read
                        and not isl.UnionMap.from_map(access.relation).intersect_domain(
                            domain).apply_range(cells).intersect(earlier).is_empty()):
                    found.add(access.ref)
    return frozenset(found)


def _assigned(stmt, array: str) -> bool:
    """Whether every write of ``stmt`` to ``array`` is the left side of the assignment
    that is its body (none: true)."""
    writes = [a for a in stmt.accesses if a.array == array and a.is_write]
    if not writes:
        return True
    body = stmt.body
    return (len(writes) == 1 and writes[0].kind == "write"
            and isinstance(body, c_ast.Assignment) and body.lvalue is writes[0].node)


def with_forwarding(placement: "Placement", barriers: frozenset[str]) -> "Placement":
    """``placement`` with the forwarded arrays of each kernel (``barriers``: the
    kernels whose threads synchronise besides shared tiles: tree reductions,
    tensor-core contractions, a single block of phases)."""
    program = placement.program
    kernels = []
    for kernel, placed in zip(program.kernels, placement.kernels):
        stops = program.single_block or kernel.name in barriers
        kernels.append(replace(placed, forwarded=forwarded(program, kernel, placed, stops)))
    return replace(placement, kernels=tuple(kernels))
