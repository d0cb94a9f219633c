"""The thread's order with its register-tile lanes innermost (unroll-and-jam).

A mapped member ``m_k`` with tile ``T_k`` and block ``B_k < T_k`` gives each thread
``U_k = T_k / B_k`` values of it, its *lanes*

    u_k = (m_k - T_k (b_k + floor(lo_k / T_k)) - t_k) / B_k,   0 <= u_k < U_k

(exact: the mapping gives thread ``t`` the ``r_k = t_k mod B_k``).  The kernel's
order ``M : S[i] -> [h, m, inner]`` becomes

    M' : S[i] -> [h, m_d .. m_{n-1}, inner, u_0 .. u_{d-1}]

(the mapped members replaced by the lanes, moved last).  This is legal: the mapping
proved the mapped members free of dependences within a launch, so dependent
instances of one thread have equal lanes and ``M'`` orders them by the rest of
``M``, as ``M`` does.  Each value a thread loads inside the lane loops now serves
its ``U`` lanes from registers once nvcc unrolls them, which it does when the
lane loops have constant bounds (``full_lanes``).  The blocks whose tiles
lie inside the members' ranges (``full_tiles``) get code of their own, without
the guards.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel, MappedMember
from ..model import maps_of, sets_of


@dataclass(frozen=True, eq=False)
class LaneOrder:
    """``M'`` over one thread's instances (b, t, h parameters) and its shape."""

    order: isl.UnionMap          # M': instances -> [outer .., u_0 .. u_{d-1}]
    outer: int                   # the dimensions before the lanes
    lanes: tuple[int, ...]       # U_k per mapped member, in member order

    @property
    def width(self) -> int:
        return self.outer + len(self.lanes)


def lane_count(member: MappedMember) -> int:
    """U_k: the values of member ``k`` each thread runs (ceil(T / B))."""
    return -(-member.tile // member.block)


def lane_order(program: GpuProgram, kernel: Kernel) -> LaneOrder | None:
    """M' of one thread of ``kernel`` (None for a kernel without mapped members)."""
    if not kernel.mapped or kernel.order is None:
        return None
    domain = kernel.thread_domain()
    order = kernel.order.intersect_domain(domain)
    if order.is_empty():
        return None
    space = isl.Set.from_union_set(order.range()).get_space()
    width = space.dim(isl.dim_type.set)
    start = len(kernel.host_ids)
    mapped = {start + m.member: m for m in kernel.mapped}
    local = isl.LocalSpace.from_space(space)
    pieces = [isl.PwAff.var_on_domain(local, isl.dim_type.set, k)
              for k in range(width) if k not in mapped]
    outer = len(pieces)
    pieces += [_lane(member, space, position) for position, member in sorted(mapped.items())]
    target = isl.Space.set_alloc(space.get_ctx(), 0, len(pieces)).align_params(space)
    result = isl.MultiPwAff.from_pw_aff_list(space.map_from_domain_and_range(target),
                                             _pw_aff_list(pieces))
    lanes = tuple(lane_count(m) for m in sorted(kernel.mapped, key=lambda m: m.member))
    return LaneOrder(order.apply_range(isl.UnionMap.from_map(isl.Map.from_multi_pw_aff(
        result))), outer, lanes)


def _pw_aff_list(pieces: list[isl.PwAff]) -> isl.PwAffList:
    result = isl.PwAffList.alloc(pieces[0].get_ctx(), len(pieces))
    for piece in pieces:
        result = result.add(piece)
    return result


# Per statement S, with T_S = M'(D_t ∩ S) = { [s, u] }: every lane that runs S runs
# the same s, T_S = { u } x { s }.  Otherwise (the bounds of an inner loop depend on
# a mapped member: symm's k < i) the jammed lanes run different trip counts under
# guards, and measured on an H100 that lost to one lane at a time (symm 2.3x).
def uniform_lanes(lanes: LaneOrder) -> bool:
    """Whether each statement runs the same outer iterations in every lane."""
    count = len(lanes.lanes)
    for relation in maps_of(lanes.order):
        times = relation.range()
        width = times.dim(isl.dim_type.set)
        by_lane = isl.Map.from_range(times).move_dims(
            isl.dim_type.in_, 0, isl.dim_type.out, width - count, count)
        product = isl.Map.from_domain_and_range(by_lane.domain(), by_lane.range())
        if not product.is_subset(by_lane):
            return False
    return True


# u = floor((m - T (b + floor(lo / T)) - t) / B) on the time space of M.
def _lane(member: MappedMember, space: isl.Space, position: int) -> isl.PwAff:
    """The lane of ``member`` (at time dimension ``position``) as a function of time."""
    local = isl.LocalSpace.from_space(space)
    value = isl.PwAff.var_on_domain(local, isl.dim_type.set, position)
    t = isl.PwAff.var_on_domain(local, isl.dim_type.param,
                                space.find_dim_by_name(isl.dim_type.param, member.thread_id))
    r = value.sub(member.tile_start(space))
    return r.sub(t).scale_down_val(isl.Val(member.block)).floor()


def blockwide(umap: isl.UnionMap, kernel: Kernel, context: isl.Set) -> isl.UnionMap:
    """``umap`` (over one thread's instances, t parameters) over all threads of the
    block: t projected out within 0 <= t < B (``context``: the kernel's)."""
    result = umap.intersect_params(context.align_params(umap.get_space()))
    for member in kernel.mapped:
        space = result.get_space()
        pos = space.find_dim_by_name(isl.dim_type.param, member.thread_id)
        if pos >= 0:
            result = result.project_out(isl.dim_type.param, pos, 1)
    return result


# The block's tile lies inside [lo, hi] on every mapped member whose threads run
# several lanes: T (b + floor(lo/T)) >= lo and T (b + floor(lo/T)) + T - 1 <= hi.
def full_tiles(kernel: Kernel, context: isl.Set) -> isl.Set:
    """The parameters (with b, h) at which no lane of a thread falls outside the
    members' ranges: code for them needs no guard on the lanes."""
    result = context
    for member in kernel.mapped:
        if lane_count(member) == 1:
            continue
        space = result.get_space()
        start = member.tile_start(space)
        end = start.add_constant_val(isl.Val(member.tile - 1))
        result = result.intersect(start.ge_set(member.lower.align_params(space)))
        result = result.intersect(end.le_set(member.upper.align_params(space)))
    return result.coalesce()


def box(extents: tuple[int, ...], name: str = "") -> isl.Set:
    """{ name[x] : 0 <= x_k < extents_k }."""
    dims = ", ".join(f"x{k}" for k in range(len(extents)))
    bounds = " and ".join(f"0 <= x{k} < {n}" for k, n in enumerate(extents))
    return isl.Set(f"{{ {name}[{dims}] : {bounds} }}")


# Loops over the lanes index registers, so nvcc must unroll them: their bounds must
# be the constants 0 and U - 1.  isl bounds a loop by the union of the domains in
# it, so a statement that does nothing, LANES_S[s, u] at [s, u] for every s at which
# statement S (or a register copy) runs lane loops and every u in [0, U), makes the
# bounds constant; isl guards the real statements inside.  One no-op per statement:
# one for all would join the times of different statements into one set, and isl
# would loop over a sequence's positions with a guard for each.
LANES = "polycu_lanes"


def full_lanes(timed: isl.UnionMap, lanes: tuple[int, ...], kernel: Kernel,
               context: isl.Set) -> isl.UnionMap:
    """The no-op ``LANES`` statements that make the lane loops of ``timed`` (the
    instances and register copies, whose last dimensions are lanes) full, for every
    thread of the block alike (so no thread-dependent guard hoists)."""
    count = len(lanes)
    lane_box = box(lanes)
    result = isl.UnionMap.empty(timed.get_space())
    for relation in maps_of(timed):
        times = blockwide(isl.UnionMap.from_range(isl.UnionSet.from_set(relation.range())),
                          kernel, context).range()
        (points,) = sets_of(times)
        width = points.dim(isl.dim_type.set)
        outer = points.project_out(isl.dim_type.set, width - count, count)
        full = outer.flat_product(lane_box.align_params(outer.get_space()))
        noop = isl.Map.identity(full.get_space().map_from_set()).intersect_domain(full)
        name = f"{LANES}_{relation.get_tuple_name(isl.dim_type.in_)}"
        result = result.union(isl.UnionMap.from_map(noop.set_tuple_name(isl.dim_type.in_,
                                                                          name)))
    return result
