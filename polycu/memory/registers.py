"""Register promotion: an array element one thread reuses across a loop, in a register.

One thread of kernel ``K`` (block ``b``, thread ``t``, launch ``h``: parameters) runs
the instances ``D_t`` in the order ``M : D_t -> [s_0 .. s_{n-1}]`` (the kernel's
schedule, flattened).  For an array ``A`` with accesses ``R : D_t -> A`` (every
reference of every statement of ``K``) and a depth ``d``, let ``P_d`` be ``M`` cut to
its first ``d`` dimensions.  ``A`` is promoted at the least ``d`` such that

    F_d = R . P_d^-1 : [s_0 .. s_{d-1}] -> A    is single-valued   (one element per
                                                                     prefix and thread)
    P_d restricted to the instances touching A  is not injective   (it is reused)

Then at each prefix the thread loads ``F_d(p)`` into a register before the first
instance with that prefix, every reference to ``A`` reads and writes the register,
and (if ``K`` writes ``A``) stores it back after the last one.  No other thread of
the launch touches a cell the thread writes: the mapping proved the mapped members
free of dependences (flow, anti and output) within a launch, and arrays that
statements of ``K`` update with atomics are never promoted.  The copies run exactly
at the prefixes in the domain of ``F_d``: the elements the thread accesses.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel
from ..model import Scop, maps_of


@dataclass(frozen=True, eq=False)
class Promotion:
    """Array ``array`` of one kernel kept in a register below schedule depth ``depth``."""

    array: str
    depth: int
    footprint: isl.UnionMap     # F_d: [s_0 .. s_{d-1}] -> A, one element per prefix
    written: bool               # the kernel writes A: the register is stored back

    @property
    def load(self) -> str:
        """The name of the copy statement that loads the register."""
        return f"polycu_load_{self.array}"

    @property
    def store(self) -> str:
        """The name of the copy statement that stores it back."""
        return f"polycu_store_{self.array}"


def thread_order(program: GpuProgram, kernel: Kernel) -> isl.UnionMap:
    """M: the instances of one thread (block b, thread t, launch h) -> their time."""
    domain = kernel.thread_domain()
    return program.schedule.intersect_domain(domain).get_map().intersect_domain(domain)


def _prefix(order: isl.UnionMap, depth: int) -> isl.UnionMap:
    """P_d: ``order`` cut to its first ``depth`` time dimensions."""
    n = maps_of(order)[0].dim(isl.dim_type.out)
    names = [f"s{k}" for k in range(n)]
    cut = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(names[:depth])}] }}")
    return order.apply_range(isl.UnionMap.from_map(cut.align_params(order.get_space())))


def promotions(program: GpuProgram, kernel: Kernel,
               arrays: frozenset[str]) -> tuple[Promotion, ...]:
    """Those of ``arrays`` (in device memory in ``kernel``) worth a register, each at
    its least depth."""
    scop = program.scop
    order = thread_order(program, kernel)
    if order.is_empty():
        return ()
    n = maps_of(order)[0].dim(isl.dim_type.out)
    domain = order.domain()
    atomic = {s.reduction_array for s in scop.statements if s.name in kernel.atomic}
    found = []
    for array in scop.arrays:
        if array.name not in arrays or array.name in atomic:
            continue
        access = _accesses(scop, kernel, array.name).intersect_domain(domain)
        touching = access.domain()
        for depth in range(n):
            prefix = _prefix(order, depth)
            footprint = prefix.reverse().apply_range(access)
            if not footprint.is_single_valued():
                continue
            if not prefix.intersect_domain(touching).reverse().is_single_valued():
                found.append(Promotion(array.name, depth, footprint,
                                       array.name in kernel.writes))
            break
    return tuple(found)


def _accesses(scop: Scop, kernel: Kernel, array: str) -> isl.UnionMap:
    """R: every access of the kernel's statements to ``array``."""
    result = isl.UnionMap.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in kernel.statements:
            for access in stmt.accesses:
                if access.array == array:
                    result = result.union(isl.UnionMap.from_map(access.relation))
    return result


# The thread's order with the copies: every instance gets a new time dimension at
# position d holding 1; the load of p runs at [p, 0, 0, ..], the store at
# [p, 2, 0, ..].  Deeper promotions are inserted first, so a shallower one's new
# dimension puts them (value 1) between its own load and store.
def with_copies(order: isl.UnionMap, found: tuple[Promotion, ...]) -> isl.UnionMap:
    """M extended with the load and store statements of ``found``."""
    result = order
    for promotion in sorted(found, key=lambda p: -p.depth):
        n = maps_of(result)[0].dim(isl.dim_type.out)
        d = promotion.depth
        names = [f"s{k}" for k in range(n)]
        insert = isl.Map(f"{{ [{', '.join(names)}] -> "
                         f"[{', '.join(names[:d] + ['1'] + names[d:])}] }}")
        result = result.apply_range(isl.UnionMap.from_map(
            insert.align_params(result.get_space())))
        result = result.union(_copy(promotion.footprint, promotion.load, d, 0, n + 1))
        if promotion.written:
            result = result.union(_copy(promotion.footprint, promotion.store, d, 2, n + 1))
    return result


def _copy(footprint: isl.UnionMap, name: str, depth: int, position: int,
          width: int) -> isl.UnionMap:
    """{ name[p, e] -> [p, position, 0, ..] : e = F_d(p) } over ``width`` dimensions."""
    (relation,) = maps_of(footprint)
    rank = relation.dim(isl.dim_type.out)
    p = [f"p{k}" for k in range(depth)]
    e = [f"e{k}" for k in range(rank)]
    time = p + [str(position)] + ["0"] * (width - depth - 1)
    cells = relation.wrap().flatten().set_tuple_name(name)
    copy = isl.Map(f"{{ {name}[{', '.join(p + e)}] -> [{', '.join(time)}] }}")
    copy = copy.align_params(cells.get_space())
    return isl.UnionMap.from_map(copy.intersect_domain(cells.align_params(copy.get_space())))
