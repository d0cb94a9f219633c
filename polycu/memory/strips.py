"""Full strips: the strips of a shared tile's loop whose points are all in range get
a loop of their own.

``M_s`` (shared.py) strip-mines the loop ``s_q`` into its strip ``z = floor(s_q /
T_s)`` and point ``r = s_q mod T_s``.  Where the last strip is partial, isl bounds
the point loop of every strip by ``min(T_s - 1, ..)`` and guards each copy of a
tile, so nvcc neither unrolls the point loop nor drops the guards (gemm's inner
loop).  With ``p`` the prefix ``[s_0 .. s_{q-1}]`` and ``R`` the block's points
``{ [p, z, r] }`` of the instances (phase ``RUN``, thread ids projected out, so
that every thread splits alike and the barriers stay uniform), strip ``z`` is full
at ``p`` when ``R(p, z) = [0, T_s)``.  Let ``Z1(p)`` hold the strips from the first
full strip to the last, ``Z0(p)`` the strips before them, ``Z2(p)`` the rest (all
strips when ``p`` has no full one).  The order

    M_f : [p, z, rest] -> [p, c, z, rest]     with c = k for z in Z_k(p)

runs the same times in the same order (``c`` does not decrease as ``z`` grows, at
each ``p``), and isl prints the strips of ``Z1`` as a loop of their own whose
point loop runs from 0 to ``T_s - 1``.
"""
from __future__ import annotations

import islpy as isl

from ..gpu.kernel import Kernel
from ..model import maps_of, sets_of
from .lanes import blockwide
from .registers import Promotion
from .shared import RUN, SharedOrder

#: The point loop's time dimension, counted from the classes' (c, z, phase, r).
POINT = 3


def apart(order: isl.UnionMap, shared: SharedOrder | None, registers: tuple[Promotion, ...],
          kernel: Kernel, context: isl.Set
          ) -> tuple[isl.UnionMap, tuple[int, isl.UnionMap] | None]:
    """The kernel's order (``shared``'s strips, the ``registers``' copies) with a class
    dimension 0, and the position of that dimension with ``M_f``; ``order`` itself
    and None when no strip is full (or no tile follows a loop)."""
    if shared is None:
        return order, None
    at = shared.depth - 1 + sum(1 for p in registers if p.depth < shared.depth)
    split = full_strips(order, at, shared.strip, kernel, context)
    return (order, None) if split is None else (one_class(order, at), (at, split))


def full_strips(order: isl.UnionMap, q: int, strip: int, kernel: Kernel,
                context: isl.Set) -> isl.UnionMap | None:
    """``order`` (``M_s`` with its copies, its strips at time dimension ``q``) with
    the class ``c`` of each strip inserted at ``q`` (``M_f`` above); None when no
    strip is full."""
    times = blockwide(isl.UnionMap.from_range(order.range()), kernel, context).range()
    found = sets_of(times)
    if len(found) != 1:
        return None
    (points,) = found
    width = points.dim(isl.dim_type.set)
    t = [f"t{k}" for k in range(width)]
    p = t[:q]
    run = isl.Map(f"{{ [{', '.join(t)}] -> [{', '.join(p + [t[q], t[q + 2]])}] : "
                  f"{t[q + 1]} = {RUN} }}").align_params(points.get_space())
    instances = points.apply(run).coalesce()
    strips = points.project_out(isl.dim_type.set, q + 1, width - q - 1).coalesce()
    whole = strips.flat_product(isl.Set(f"{{ [r] : 0 <= r < {strip} }}")
                                .align_params(strips.get_space()))
    partial = whole.subtract(instances).project_out(isl.dim_type.set, q + 1, 1)
    full = strips.subtract(partial)
    if full.is_empty():
        return None
    prefix = ", ".join(p + ["z"])
    later = isl.Map(f"{{ [{prefix}] -> [{', '.join(p + ['y'])}] : y >= z }}")
    earlier = isl.Map(f"{{ [{prefix}] -> [{', '.join(p + ['y'])}] : y <= z }}")
    after_one = full.apply(later.align_params(full.get_space()))
    before_one = full.apply(earlier.align_params(full.get_space()))
    middle = strips.intersect(after_one).intersect(before_one).coalesce()
    before = strips.intersect(before_one).subtract(middle).coalesce()
    classes = [before, middle, strips.subtract(before).subtract(middle).coalesce()]
    if not _monotone(classes, q):
        return None
    rest = t[q:]
    change = isl.UnionMap.empty(order.get_space())
    for c, members in enumerate(classes):
        if members.is_empty():
            continue
        mapping = isl.Map(f"{{ [{', '.join(t)}] -> [{', '.join(p + [str(c)] + rest)}] }}")
        mapping = mapping.align_params(members.get_space()).intersect_domain(
            members.flat_product(isl.Set.universe(isl.Space.set_alloc(
                members.get_ctx(), 0, width - q - 1)).align_params(members.get_space())))
        change = change.union(isl.UnionMap.from_map(mapping))
    return order.apply_range(change.align_params(order.get_space())).coalesce()


# M_f keeps the order of M_s iff c never decreases as z grows at one p: no z1 < z2
# at one p with z1 in Z_a, z2 in Z_b and a > b.
def _monotone(classes: list[isl.Set], q: int) -> bool:
    """Whether the strips' classes ``classes`` (sets of ``[p, z]``) are ordered."""
    names = [f"p{k}" for k in range(q)]
    later = isl.Map(f"{{ [{', '.join(names + ['z'])}] -> [{', '.join(names + ['y'])}] : "
                    "y > z }")
    for a, high in enumerate(classes):
        for low in classes[:a]:
            ahead = high.apply(later.align_params(high.get_space()))
            if not ahead.intersect(low.align_params(ahead.get_space())).is_empty():
                return False
    return True


# Where isl's code for the classes costs too much (edge blocks, their lane guards
# times the strips' residues): M_s with c = 0 everywhere, of M_f's width.
def one_class(order: isl.UnionMap, q: int) -> isl.UnionMap:
    """``order`` with a time dimension 0 inserted at ``q``."""
    result = isl.UnionMap.empty(order.get_space())
    for relation in maps_of(order):
        relation = relation.insert_dims(isl.dim_type.out, q, 1).fix_val(
            isl.dim_type.out, q, isl.Val(0))
        result = result.union(isl.UnionMap.from_map(relation))
    return result
