"""Register promotion: array elements one thread reuses across a loop, in registers.

One thread of kernel ``K`` (block ``b``, thread ``t``, launch ``h``: parameters) runs
the instances ``D_t`` in the order ``M : D_t -> [s_0 .. s_{n-1}, u]`` (``lanes.py``:
the kernel's schedule, flattened, with the register-tile lanes ``u`` last).  For an
array ``A`` with accesses ``R : D_t -> A`` (every reference of every statement of
``K``) and a depth ``d``, let ``P_d : D_t -> [s_0 .. s_{d-1}, u]`` keep the first
``d`` dimensions and the lanes.  ``A`` is promoted at the least ``d`` such that

    F_d = R . P_d^-1 : [s_0 .. s_{d-1}, u] -> A   is single-valued   (one element per
                                                                     prefix and lane)
    P_d restricted to the instances touching A    is not injective   (it is reused)

Then at each prefix the thread loads ``F_d(p, u)`` into register ``r[u]`` before the
first instance with that prefix, every reference to ``A`` reads and writes
``r[u]``, and (if ``K`` writes ``A``) stores it back after the last one.  No other
thread of the launch touches a cell the thread writes: the mapping proved the mapped
members free of dependences (flow, anti and output) within a launch, and arrays
that statements of ``K`` update with atomics are never promoted.  The copies run
exactly at the prefixes and lanes in the domain of ``F_d``: the elements the thread
accesses.

Where no depth makes the whole of ``R`` single-valued, a written ``A`` may still
keep the references ``G`` of one access function (``R_G``, nussinov's
``table[i][j]`` beside ``table[i][k]`` and ``table[k + 1][j]``) in registers, at the
least ``d`` where ``F_d^G`` is single-valued and reused, if at no prefix the other
references ``O`` of the thread touch a cell ``G`` holds:

    ran_u F_d^G  ∩  ran_u F_d^O = ∅   as maps from [s_0 .. s_{d-1}]   (lanes projected)

Then the other references keep reading and writing device memory, which holds no
value of those cells while the register does.  nvcc cannot do this itself: the
other references go through the same pointer (nussinov LARGE on an H100: 0.675 s
-> 0.145 s).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel
from ..model import Scop, maps_of
from .lanes import LaneOrder


@dataclass(frozen=True, eq=False)
class Promotion:
    """Array ``array`` of one kernel kept in registers below schedule depth ``depth``:
    one per lane, ``lanes`` (U_k per mapped member, () for one register)."""

    array: str
    depth: int
    footprint: isl.UnionMap     # F_d: [s_0 .. s_{d-1}, u] -> A, one element each
    written: bool               # the kernel writes A: the registers are stored back
    lanes: tuple[int, ...] = ()
    refs: frozenset[str] | None = None      # the references held; None: all of A's

    def holds(self, ref: str) -> bool:
        """Whether reference ``ref`` (of the promoted array) reads the registers."""
        return self.refs is None or ref in self.refs

    @property
    def load(self) -> str:
        """The name of the copy statement that loads the registers."""
        return f"polycu_load_{self.array}"

    @property
    def store(self) -> str:
        """The name of the copy statement that stores them back."""
        return f"polycu_store_{self.array}"


def thread_order(program: GpuProgram, kernel: Kernel) -> isl.UnionMap:
    """M: the instances of one thread (block b, thread t, launch h) -> their time."""
    domain = kernel.thread_domain()
    return program.schedule.intersect_domain(domain).get_map().intersect_domain(domain)


def keep(width: int, depth: int, lanes: int, params: isl.Space) -> isl.UnionMap:
    """[s_0 .. s_{width-1}, u] -> [s_0 .. s_{depth-1}, u]."""
    names = [f"s{k}" for k in range(width)]
    u = [f"u{k}" for k in range(lanes)]
    cut = isl.Map(f"{{ [{', '.join(names + u)}] -> [{', '.join(names[:depth] + u)}] }}")
    return isl.UnionMap.from_map(cut.align_params(params))


def promotions(program: GpuProgram, kernel: Kernel, arrays: frozenset[str],
               lane_order: LaneOrder) -> tuple[Promotion, ...]:
    """Those of ``arrays`` (in device memory in ``kernel``) worth registers, each at its
    least depth."""
    scop = program.scop
    order = lane_order.order
    if order.is_empty():
        return ()
    domain = order.domain()
    atomic = {s.reduction_array for s in scop.statements if s.name in kernel.atomic}
    found = []
    for array in scop.arrays:
        if array.name not in arrays or array.name in atomic:
            continue
        access = accesses(scop, kernel, array.name).intersect_domain(domain)
        promotion = _promotion(array.name, access, order, lane_order,
                               array.name in kernel.writes)
        if promotion is None and array.name in kernel.writes:
            promotion = _group_promotion(scop, kernel, array.name, order, lane_order)
        if promotion is not None:
            found.append(promotion)
    return tuple(found)


def _promotion(array: str, access: isl.UnionMap, order: isl.UnionMap, lane_order: LaneOrder,
               written: bool, refs: frozenset[str] | None = None,
               others: isl.UnionMap | None = None) -> Promotion | None:
    """``access`` (writing when ``written``) in registers at the least depth where its
    footprint is single-valued, if it is reused there (and touches no cell of
    ``others`` at the same prefix)."""
    lanes = len(lane_order.lanes)
    touching = access.domain()
    for depth in range(lane_order.outer):
        prefix = order.apply_range(keep(lane_order.outer, depth, lanes, order.get_space()))
        footprint = prefix.reverse().apply_range(access)
        if not footprint.is_single_valued():
            continue
        if prefix.intersect_domain(touching).reverse().is_single_valued():
            return None                             # no reuse here, nor deeper
        if others is None or _apart(footprint, prefix.reverse().apply_range(others), depth):
            return Promotion(array, depth, footprint, written, lane_order.lanes, refs)
    return None


def _group_promotion(scop: Scop, kernel: Kernel, array: str, order: isl.UnionMap,
                     lane_order: LaneOrder) -> Promotion | None:
    """The first group of ``array``'s references with one access function whose
    cells no other reference of the thread touches while registers hold them."""
    domain = order.domain()
    groups: list[tuple[isl.UnionMap, set[str]]] = []
    writes: set[str] = set()
    for stmt in scop.statements:
        if stmt.name not in kernel.statements:
            continue
        for a in stmt.accesses:
            if a.array != array:
                continue
            relation = isl.UnionMap.from_map(a.relation).intersect_domain(domain)
            if a.is_write:
                writes.add(a.ref)
            same = [g for g in groups if g[0].is_equal(relation)]
            if same:
                same[0][1].add(a.ref)
            else:
                groups.append((relation, {a.ref}))
    if len(groups) < 2:
        return None
    for relation, refs in groups:
        others = isl.UnionMap.empty(relation.get_space())
        for other, _ in groups:
            if other is not relation:
                others = others.union(other)
        found = _promotion(array, relation, order, lane_order, bool(refs & writes),
                           frozenset(refs), others)
        if found is not None:
            return found
    return None


def _apart(held: isl.UnionMap, others: isl.UnionMap, depth: int) -> bool:
    """Whether no prefix [s_0 .. s_{depth-1}] (any lane) of ``held`` and ``others``
    (both [s, u] -> A) shares a cell."""
    def by_prefix(footprint: isl.UnionMap) -> isl.UnionMap:
        result = isl.UnionMap.empty(footprint.get_space())
        for m in maps_of(footprint):
            n = m.dim(isl.dim_type.in_)
            result = result.union(isl.UnionMap.from_map(
                m.project_out(isl.dim_type.in_, depth, n - depth)))
        return result
    return by_prefix(held).intersect(by_prefix(others)).is_empty()


def accesses(scop: Scop, kernel: Kernel, array: str) -> isl.UnionMap:
    """R: every access of the kernel's statements to ``array``."""
    result = isl.UnionMap.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in kernel.statements:
            for access in stmt.accesses:
                if access.array == array:
                    result = result.union(isl.UnionMap.from_map(access.relation))
    return result


def insert_dimension(order: isl.UnionMap, depth: int, value: int) -> isl.UnionMap:
    """``order`` with a new time dimension at ``depth`` holding ``value``."""
    n = maps_of(order)[0].dim(isl.dim_type.out)
    names = [f"s{k}" for k in range(n)]
    insert = isl.Map(f"{{ [{', '.join(names)}] -> "
                     f"[{', '.join(names[:depth] + [str(value)] + names[depth:])}] }}")
    return order.apply_range(isl.UnionMap.from_map(insert.align_params(order.get_space())))


# The thread's order with the copies: every instance gets a new time dimension at
# position d holding 1; the load of (p, u) runs at [p, 0, 0, .., u], the store at
# [p, 2, 0, .., u].  Deeper promotions are inserted first, so a shallower one's new
# dimension puts them (value 1) between its own load and store.
def with_copies(order: isl.UnionMap, found: tuple[Promotion, ...]) -> isl.UnionMap:
    """M extended with the load and store statements of ``found``."""
    result = order
    for promotion in sorted(found, key=lambda p: -p.depth):
        result = insert_dimension(result, promotion.depth, 1)
        n = maps_of(result)[0].dim(isl.dim_type.out)
        result = result.union(_copy(promotion, promotion.load, 0, n))
        if promotion.written:
            result = result.union(_copy(promotion, promotion.store, 2, n))
    return result


def _copy(promotion: Promotion, name: str, position: int, width: int) -> isl.UnionMap:
    """{ name[p, u, e] -> [p, position, 0, .., u] : e = F_d(p, u) } over ``width``
    dimensions."""
    (relation,) = maps_of(promotion.footprint)
    rank = relation.dim(isl.dim_type.out)
    depth = promotion.depth
    p = [f"p{k}" for k in range(depth)]
    u = [f"u{k}" for k in range(len(promotion.lanes))]
    e = [f"e{k}" for k in range(rank)]
    time = p + [str(position)] + ["0"] * (width - depth - 1 - len(u)) + u
    cells = relation.wrap().flatten().set_tuple_name(name)
    copy = isl.Map(f"{{ {name}[{', '.join(p + u + e)}] -> [{', '.join(time)}] }}")
    copy = copy.align_params(cells.get_space())
    return isl.UnionMap.from_map(copy.intersect_domain(cells.align_params(copy.get_space())))
