"""How the lanes of a warp read an array: the pattern the calibration names, and
whether they read one address.

In:  a kernel (its order, its members mapped to threads, their tiles and blocks)
     and one access of a statement.
Out: ``warp_pattern``: broadcast, uniform, coalesced, diagonal or strided (the rows of
     ``calibration.BANDWIDTH``); ``warp_uniform``: whether every read of an array
     reads one address per warp and step (the proof constant memory needs).

Both compare the instances of lanes that run at the same step: ``timed_in`` puts
an access on the kernel order's time, ``warp_steps`` maps a time to its warp and
step, and the deltas of the addresses of lanes adjacent in x give the pattern.
``same_element`` and ``in_one_launch`` pair a write and a read of one element in
one launch, for the surface's hazard proof (kinds.py) and the recurrences of
recurrence.py.
"""
from __future__ import annotations

import islpy as isl

from ..gpu.cost import step_map, stride_ok
from ..gpu.kernel import Kernel
from ..model import Access, Scop, Statement, maps_of


def statement_accesses(scop: Scop, kernel: Kernel, name: str) -> list[tuple[Statement, Access]]:
    """The statements of ``kernel`` and their accesses to ``name``."""
    return [(s, a) for s in scop.statements if s.name in kernel.statements
            for a in s.accesses if a.array == name]


def same_element(kernel: Kernel, ws: Statement, write: Access, read: Access) -> isl.UnionMap:
    """The instance pairs of ``kernel`` (w -> r) where ``write`` of ``ws`` and ``read``
    touch one element: write^-1 composed with read, on the kernel's domain."""
    inside = kernel.domain.intersect(isl.UnionSet.from_set(ws.domain))
    return isl.UnionMap.from_map(write.relation).intersect_domain(inside) \
        .apply_range(isl.UnionMap.from_map(read.relation).reverse()) \
        .intersect_range(kernel.domain)


# Pairs w -> r with O(w) <=lex O(r) (<lex when strict) and O(w), O(r) equal in their
# first coordinates, the host loops' h (O: the kernel order): r follows w in one launch.
def in_one_launch(kernel: Kernel, pairs: isl.UnionMap, strict: bool) -> list[isl.Map]:
    """The time pairs of ``pairs`` (instances) whose read follows its write in one
    launch (``kernel.order`` must exist)."""
    found = []
    for m in maps_of(pairs.apply_domain(kernel.order).apply_range(kernel.order)):
        order = isl.Map.lex_lt if strict else isl.Map.lex_le
        later = m.intersect(order(m.get_space().domain()))
        for k in range(len(kernel.host_ids)):
            later = later.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        found.append(later)
    return found


# The time step of a warp: with m_k = T_k q_k + r_k (0 <= r_k < T_k) for the member
# mapped to axis k, thread t_k = r_k mod B_k runs it at step s_k = floor(r_k / B_k),
# and the warp is floor((t_x + B_x t_y + B_x B_y t_z) / 32).  Two instances run by
# one warp in one step agree on the kernel order's other coordinates, q, s and w.
def warp_steps(kernel: Kernel, width: int) -> isl.Map:
    """``[o] -> [rest of o, q, s, w]`` on the kernel order's time (``width`` dims)."""
    mapped = {len(kernel.host_ids) + m.member: m for m in kernel.mapped}
    dims = kernel.block_dims()
    stride = {"x": 1, "y": dims[0], "z": dims[0] * dims[1]}
    outs = [f"o{p}" for p in range(width) if p not in mapped]
    lanes = []
    for p, m in sorted(mapped.items()):
        r = f"(o{p} mod {m.tile})"
        outs += [f"floor(o{p} / {m.tile})", f"floor({r} / {m.block})"]
        lanes.append(f"{stride[m.axis]} * ({r} mod {m.block})")
    outs.append(f"floor(({' + '.join(lanes) or '0'}) / 32)")
    names = ", ".join(f"o{p}" for p in range(width))
    return isl.Map(f"{{ [{names}] -> [{', '.join(outs)}] }}")


def timed_in(kernel: Kernel, relation: isl.Map) -> isl.Map | None:
    """``relation`` (S[i] -> ...) restricted to the kernel, with S[i] replaced by its
    time in the kernel order."""
    if kernel.order is None:
        return None
    order = [m for m in maps_of(kernel.order.intersect_domain(kernel.domain))
             if m.get_tuple_name(isl.dim_type.in_) == relation.get_tuple_name(isl.dim_type.in_)]
    if not order:
        return None
    return relation.apply_domain(order[0].align_params(relation.get_space()))


def warp_uniform(scop: Scop, kernel: Kernel, name: str) -> bool:
    """Whether every read of ``name`` in ``kernel`` reads one address per warp and
    step (exactly: the address is a function of the warp's step)."""
    for _, access in statement_accesses(scop, kernel, name):
        if not access.is_read:
            continue
        timed = timed_in(kernel, access.relation)
        if timed is None:
            if kernel.mapped:
                return False
            continue
        steps = warp_steps(kernel, timed.dim(isl.dim_type.in_))
        if not timed.apply_domain(steps.align_params(timed.get_space())).is_single_valued():
            return False
    return True


def warp_pattern(kernel: Kernel, access: Access) -> str:
    """How a warp reads through ``access``: the same address for the whole launch
    (broadcast), one address (uniform), consecutive elements (coalesced), elements a
    row or two down and a few columns aside (diagonal) or elements apart (strided),
    from the instances of threads adjacent in x (``gpu.cost``'s test)."""
    x = [m for m in kernel.mapped if m.axis == "x"]
    timed = timed_in(kernel, access.relation) if x else None
    if timed is None:
        return "uniform"
    step = step_map(timed.dim(isl.dim_type.in_), len(kernel.host_ids) + x[0].member)
    deltas = timed.reverse().apply_range(step.align_params(timed.get_space())) \
        .apply_range(timed).deltas()
    if deltas.dim(isl.dim_type.set) == 0 or deltas.is_empty():
        return "uniform"
    zero = isl.Set.universe(deltas.get_space())
    for k in range(deltas.dim(isl.dim_type.set)):
        zero = zero.fix_val(isl.dim_type.set, k, isl.Val(0))
    if deltas.is_subset(zero):
        return "broadcast" if _broadcast(kernel, timed) else "uniform"
    if stride_ok(isl.UnionSet.from_set(deltas)):
        return "coalesced"
    return "diagonal" if _diagonal(deltas) else "strided"


def _diagonal(deltas: isl.Set) -> bool:
    """Whether lanes adjacent in x read a row or two apart and one to four columns
    aside, the leading indices equal: { d : d_0 = .. = d_{r-3} = 0, 1 <= |d_{r-2}| <= 2,
    1 <= |d_{r-1}| <= 4 } (a skewed wavefront's warp: apart in linear memory, near in
    the tiles of a 2-D CUDA array)."""
    rank = deltas.dim(isl.dim_type.set)
    if rank < 2:
        return False
    names = [f"d{k}" for k in range(rank)]
    row, column = names[-2], names[-1]
    near = " and ".join([f"{n} = 0" for n in names[:-2]] + [
        f"(1 <= {row} <= 2 or -2 <= {row} <= -1)",
        f"(1 <= {column} <= 4 or -4 <= {column} <= -1)"])
    good = isl.Set(f"{{ [{', '.join(names)}] : {near} }}")
    return deltas.reset_tuple_id().is_subset(good.align_params(deltas.get_space()))


def _broadcast(kernel: Kernel, timed: isl.Map) -> bool:
    """Whether the address of ``timed`` (time -> address) is the same for every block
    and thread at each step: a function of the time without the mapped members."""
    width = timed.dim(isl.dim_type.in_)
    mapped = {len(kernel.host_ids) + m.member for m in kernel.mapped}
    names = [f"o{p}" for p in range(width)]
    drop = isl.Map(f"{{ [{', '.join(names)}] -> "
                   f"[{', '.join(n for p, n in enumerate(names) if p not in mapped)}] }}")
    return timed.apply_domain(drop.align_params(timed.get_space())).is_single_valued()
