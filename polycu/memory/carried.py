"""Carried values: what a thread's recurrence stored one or two steps before, in registers.

In:  a kernel whose thread runs its instances in the kernel's own order (no lanes,
     no shared tiles), and the arrays it keeps in plain device memory.
Out: ``Carry``s: for an array, the statements whose writes a register follows, and
     the reads that take their value from it, each with how many writes back.

Why: a thread whose loop reads what an earlier step stored (adi's sweeps,
``q[i][j] = (... - a * q[i][j - 1]) / (a * p[i][j - 1] + b)``) waits at each step for
the load after the store, and nvcc cannot forward the value itself: the division's
slow path is a call, after which a value in memory must be read again.  With the
value in a register the chain holds only the arithmetic (adi at LARGE on an H200,
written so by hand: 278.5 -> 252.6 ms, docs/results/staging.md).

Let M be one thread's order in one launch (``registers.thread_order``: block b,
thread t and the host point are parameters) and r a read of array X by statement T:

    src(k)    = lexmax { M(i) : i writes r(k), M(i) <lex M(k) }   (the value k reads)
    W         = the statements of the instances in the range of src
    last_W(k) = lexmax { M(i) : i in W, M(i) <lex M(k) }           (W's latest write)

When every instance k of T has a source (src is defined on all of T's instances:
no value comes from before the launch) and ``last_W`` equals ``src``, the value k
reads is the one W wrote last: register c0, which each statement of W reloads right
after its store (nvcc forwards that load: nothing runs between).  When
``last_W . last_W`` equals ``src``, it is the one W wrote before: c1, which the
store first shifts from c0.  Reads with the same W share the registers.  Every
read of a register then follows a write of W, so no read finds it empty; memory
still gets every store.  Other threads of the launch never write a cell the thread
reads (the mapping proved it).  The registers are the thread's own: a kernel
whose blocks run as loops of one thread (one block, one resident grid, looped
blocks) has none.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import islpy as isl

from ..frontend.conditions import BLOCKS
from ..gpu.kernel import GpuProgram, Kernel
from ..model import Access, Scop, Statement, sets_of
from .kinds import GLOBAL
from .registers import thread_order

#: At most this many values of one set of writers are kept (c0, c1).
DEPTH = 2


@dataclass(frozen=True)
class Carry:
    """Array ``array``'s values as ``writers`` store them (their one write each),
    followed in registers; ``reads`` maps a read reference to its register (0: the
    value written last, 1: the one before)."""

    array: str
    writers: tuple[str, ...]
    reads: tuple[tuple[str, int], ...]

    @property
    def depth(self) -> int:
        """How many values the registers keep."""
        return 1 + max(h for _, h in self.reads)


def carried_in(program: GpuProgram, kernel: Kernel, placed: Any) -> Any:
    """``placed`` (a ``KernelPlacement``: placement.py imports this module) with its carries (``carries``, over the arrays
    it keeps in plain device memory), and its choices saying so."""
    if placed.shared or any(n > 1 for n in placed.lanes):
        return placed
    found = carries(program, kernel, frozenset(c.array for c in placed.choices
                                                if c.kind == GLOBAL))
    if not found:
        return placed
    said: dict[str, list[Carry]] = {}
    for carry in found:
        said.setdefault(carry.array, []).append(carry)
    choices = tuple(replace(c, reason=c.reason + "; " + "; ".join(
        f"the values {', '.join(k.writers)} write(s) kept in registers too, for "
        f"{len(k.reads)} read(s) of them one or two writes later (carried.py)"
        for k in said[c.array])) if c.array in said else c for c in placed.choices)
    return replace(placed, carried=found, choices=choices)


def carries(program: GpuProgram, kernel: Kernel, arrays: frozenset[str]) -> tuple[Carry, ...]:
    """The ``Carry``s of ``kernel`` over ``arrays`` (those it keeps in plain device
    memory); none where its threads are not its own (see the module doc)."""
    scop = program.scop
    if kernel.order is None or program.single_block or program.resident \
            or kernel.looped(scop) or kernel.atomic:
        return ()
    order = thread_order(program, kernel)
    found = []
    for name in sorted((kernel.writes & kernel.reads & arrays) - kernel.private):
        if scop.array(name).rank:
            found += _of_array(scop, kernel, order, name)
    return tuple(found)


def _of_array(scop: Scop, kernel: Kernel, order: isl.UnionMap, name: str) -> list[Carry]:
    """The carries of array ``name``: its reads grouped by their writers."""
    statements = [s for s in scop.statements if s.name in kernel.statements]
    writes = [(s, a) for s in statements for a in s.accesses if a.array == name and a.is_write]
    writers = [s.name for s, _ in writes]
    if len(set(writers)) != len(writers) or not all(_plain(s, a) for s, a in writes):
        return []
    written = isl.UnionMap.empty(order.get_space().params())
    for s, a in writes:
        written = written.union(isl.UnionMap.from_map(a.relation).intersect_domain(
            order.domain()))
    grouped: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for t in statements:
        at_t = order.intersect_domain(isl.UnionSet.from_set(t.domain))
        if at_t.is_empty():
            continue
        for r in t.accesses:
            if r.array != name or not r.is_read or not _plain(t, r) \
                    or any(a.node is r.node for a in t.accesses if a.is_write):
                continue
            source = _source(at_t, r, written, order)
            if not source.domain().is_equal(at_t.domain()):
                continue               # a value from before the launch, or none
            sources = source.apply_range(order.reverse()).range()
            group = tuple(sorted(s.get_tuple_name() for s in sets_of(sources)))
            at_w = order.intersect_domain(sources.universe())
            back = _latest(at_t, at_w)
            before = _latest(at_w, at_w)
            for h in range(DEPTH):
                if back.is_equal(source):
                    grouped.setdefault(group, []).append((r.ref, h))
                    break
                back = back.apply_range(at_w.reverse()).apply_range(before)
    return [Carry(name, group, tuple(reads)) for group, reads in grouped.items()]


def _plain(stmt: Statement, access: Access) -> bool:
    """Whether ``access`` touches one element an instance, in a statement that is an
    expression (not a data-dependent if or loop, whose writes may not happen)."""
    return not isinstance(stmt.body, BLOCKS) and access.relation.is_single_valued()


# last(k) = lexmax { M_W(i) : M_W(i) <lex M_T(k) }: k -> the time of the latest
# instance of W before it.
def _latest(at_t: isl.UnionMap, at_w: isl.UnionMap) -> isl.UnionMap:
    """k -> the time of the latest instance of ``at_w``'s statements before k."""
    return at_t.lex_gt_union_map(at_w).apply_range(at_w).lexmax()


# src(k) = lexmax { M(i) : i writes r(k), M(i) <lex M(k) }: the write k reads.
def _source(at_t: isl.UnionMap, read: Access, written: isl.UnionMap, order: isl.UnionMap
            ) -> isl.UnionMap:
    """k -> the time of the last write before k of the element ``read`` reads at k."""
    same = isl.UnionMap.from_map(read.relation).intersect_domain(at_t.domain()) \
        .apply_range(written.reverse())
    return same.intersect(at_t.lex_gt_union_map(order)).apply_range(order).lexmax()
