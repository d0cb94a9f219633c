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
    lanes = len(lane_order.lanes)
    atomic = {s.reduction_array for s in scop.statements if s.name in kernel.atomic}
    found = []
    for array in scop.arrays:
        if array.name not in arrays or array.name in atomic:
            continue
        access = accesses(scop, kernel, array.name).intersect_domain(domain)
        touching = access.domain()
        for depth in range(lane_order.outer):
            prefix = order.apply_range(keep(lane_order.outer, depth, lanes,
                                            order.get_space()))
            footprint = prefix.reverse().apply_range(access)
            if not footprint.is_single_valued():
                continue
            if not prefix.intersect_domain(touching).reverse().is_single_valued():
                found.append(Promotion(array.name, depth, footprint,
                                       array.name in kernel.writes, lane_order.lanes))
            break
    return tuple(found)


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
