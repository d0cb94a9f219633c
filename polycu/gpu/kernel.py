"""The GPU program of one SCoP: kernels, their mapping to blocks and threads, host loops.

A ``Kernel`` executes the statement instances ``D_K`` that reach one node of the
schedule tree.  The band members above that node (the *host prefix* ``P``) run on
the host: the kernel is launched once per point ``h`` of ``L_K = P(D_K)`` and executes
``D_K(h) = { S[i] in D_K : P(S[i]) = h }``; inside it, ``h`` is a parameter.

The first ``d <= 3`` members ``m_k`` of the kernel's band are mapped: with tile size
``T_k``, block size ``B_k`` and ``lo_k(h) = min m_k over D_K(h)``, block ``b`` and thread
``t`` execute the instances with, for each mapped member,

    r_k = m_k - T_k (b_k + floor(lo_k / T_k)),   0 <= r_k < T_k,   r_k = t_k (mod B_k)

so the grid is ``floor(hi_k / T_k) - floor(lo_k / T_k) + 1`` blocks (evaluated at launch)
and every block/thread pair filters its instances exactly.  A kernel without mapped
members runs on a single thread.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from ..deps import Dependences
from ..frontend.scop import parameter_ranges
from ..model import WRITE, Scop


@dataclass(frozen=True)
class Names:
    """Prefixes of generated identifiers, chosen not to collide with the SCoP's names."""

    host: str = "h"       # host loop values, kernel parameters h0, h1, ...
    block: str = "b"      # block indices b0, b1, ... (per mapped member)
    thread: str = "t"     # thread indices t0, t1, ...
    iterator: str = "c"   # AST loop iterators c0, c1, ...
    register: str = "r"   # array elements kept in registers r0, r1, ...
    shared: str = "s"     # __shared__ tiles s0, s1, ...

    def host_id(self, k: int) -> str:
        return f"{self.host}{k}"

    def block_id(self, k: int) -> str:
        return f"{self.block}{k}"

    def thread_id(self, k: int) -> str:
        return f"{self.thread}{k}"

    def register_id(self, k: int) -> str:
        return f"{self.register}{k}"

    def shared_id(self, k: int) -> str:
        return f"{self.shared}{k}"


@dataclass(frozen=True, eq=False)
class MappedMember:
    """One band member mapped to a block index and a thread index on one axis."""

    member: int            # position in the kernel's band
    axis: str              # 'x', 'y' or 'z'
    tile: int
    block: int
    lower: isl.PwAff       # lower bound of the member over D_K(h), over (params, h)
    upper: isl.PwAff       # max of the member over D_K(h)
    block_id: str
    thread_id: str

    @property
    def tile_offset(self) -> isl.PwAff:
        """floor(lo / T): the tile index of block 0."""
        return self.lower.scale_down_val(isl.Val(self.tile)).floor()

    # T (b + floor(lo / T)): the first value of the member in block b's tile.
    def tile_start(self, space: isl.Space) -> isl.PwAff:
        """The first value of this member in the tile of block ``b`` (a parameter of
        ``space``), as a function on ``space`` (a set space, or a parameter space)."""
        local = isl.LocalSpace.from_space(space)
        b = isl.PwAff.var_on_domain(local, isl.dim_type.param,
                                    space.find_dim_by_name(isl.dim_type.param, self.block_id))
        offset = self.tile_offset.align_params(space)
        if not space.is_params():
            offset = offset.add_dims(isl.dim_type.in_, space.dim(isl.dim_type.set))
        return b.add(offset).scale_val(isl.Val(self.tile))

    @property
    def grid(self) -> isl.PwAff:
        """floor(hi / T) - floor(lo / T) + 1 blocks along this member."""
        hi = self.upper.scale_down_val(isl.Val(self.tile)).floor()
        return hi.sub(self.tile_offset).add_constant_val(isl.Val(1))


AXES = ("x", "y", "z")
#: CUDA's most blocks along x, y and z.
GRID_LIMITS = {"x": 2**31 - 1, "y": 65535, "z": 65535}


# The launches a valid run can make: C(p), each integer parameter within its C type,
# and no definite write out of its array's extents (C's undefined behaviour, which
# the host's copies of the extents rely on too):
#   { p : for each write S[i] -> A[a] with i in D_S(p), a in E_A(p) }.
def launch_context(scop: Scop) -> isl.Set:
    """The parameter values at which the SCoP can run (see above): what bounds the
    grids of constant-size arrays."""
    known = scop.context.intersect(parameter_ranges(scop))
    for stmt in scop.statements:
        for access in stmt.accesses:
            array = scop.array(access.array)
            if access.kind != WRITE or array.extent_set is None or array.is_scalar:
                continue
            cells = access.relation.intersect_domain(stmt.domain).range()
            outside = cells.subtract(array.extent_set.align_params(cells.get_space())).params()
            known = known.subtract(outside.align_params(known.get_space()))
    return known.coalesce()


@dataclass(frozen=True, eq=False)
class Kernel:
    """One kernel: which instances it runs, how they map onto the grid, where it launches."""

    name: str
    index: int
    domain: isl.UnionSet          # D_K, all host points together
    prefix: isl.UnionMap          # P: S[i] -> [h] (host band members above the kernel)
    host_ids: tuple[str, ...]     # names of h inside the kernel
    band: isl.UnionMap | None     # partial schedule S[i] -> [m] of the mapped band
    mapped: tuple[MappedMember, ...]
    atomic: frozenset[str] = frozenset()   # statements lowered with atomicAdd
    statements: tuple[str, ...] = ()
    reads: frozenset[str] = frozenset()    # arrays read by the kernel
    writes: frozenset[str] = frozenset()   # arrays written by the kernel
    private: frozenset[str] = frozenset()  # scalars each thread keeps its own copy of
    # S[i] -> [h, m, inner]: the host prefix, the whole band, then the schedule below
    # it (None for a single-thread kernel).  Threads adjacent in x run instances
    # equal in all of it but the x member, at position len(host_ids) + len(mapped) - 1.
    order: isl.UnionMap | None = None
    # --sizes' tile size after the mapped members' (PPCG's tile of the next band
    # member): the strip of the first loop inside the kernel that shared tiles
    # are loaded for; None for the memory placement's default.
    strip: int | None = None

    @property
    def launch_name(self) -> str:
        """Tuple name of the kernel's launch instances K[h] in the host schedule."""
        return f"{self.name}_launch"

    @property
    def launches(self) -> isl.Set:
        """L_K = P(D_K): the host points at which the kernel is launched."""
        rng = self.prefix.intersect_domain(self.domain).range()
        return isl.Set.from_union_set(rng).set_tuple_name(self.launch_name)

    def by_axis(self) -> dict[str, MappedMember]:
        return {m.axis: m for m in self.mapped}

    def block_dims(self) -> tuple[int, int, int]:
        axes = self.by_axis()
        return tuple(axes[a].block if a in axes else 1 for a in AXES)  # type: ignore[return-value]

    def at_host_point(self) -> isl.UnionSet:
        """D_K(h): the instances of one launch, with the host values h as parameters."""
        if not self.host_ids:
            return self.domain
        n = len(self.host_ids)
        dims = ", ".join(f"v{k}" for k in range(n))
        eqs = " and ".join(f"v{k} = {h}" for k, h in enumerate(self.host_ids))
        fix = isl.Set(f"[{', '.join(self.host_ids)}] -> {{ [{dims}] : {eqs} }}")
        return self.prefix.intersect_domain(self.domain).intersect_range(
            isl.UnionSet.from_set(fix)).domain()

    # A member whose grid g(p, h) may pass CUDA's limit L on its axis (max g > L over
    # launch_context: parameters in their C types, writes in bounds) gets more blocks
    # than a launch can have; its blocks loop, b = blockIdx, blockIdx + gridDim, ... < g.
    def looped(self, scop: Scop) -> frozenset[str]:
        """The axes whose blocks the kernel loops over, the launch's grid capped at
        ``GRID_LIMITS`` there (``codegen``)."""
        context = self.host_context(launch_context(scop))
        axes = set()
        for m in self.mapped:
            grid = m.grid.intersect_params(context.align_params(m.grid.get_space()))
            try:
                most = grid.max_val()
            except isl.Error:
                # isl maximises integer affine pieces only (fuzz seed 3700025): looping
                # is legal for any grid, so the axis loops
                axes.add(m.axis)
                continue
            if not most.is_int() or most.to_python() > GRID_LIMITS[m.axis]:
                axes.add(m.axis)
        return frozenset(axes)

    def host_context(self, context: isl.Set) -> isl.Set:
        """Parameter values (params and h) at which the kernel is launched."""
        return self.at_host_point().params().intersect(context)

    def thread_domain(self) -> isl.UnionSet:
        """The instances that block b, thread t execute (b and t are parameters)."""
        domain = self.at_host_point()
        if not self.mapped:
            return domain
        band = self.band.intersect_domain(domain)
        ids = [i for m in self.mapped for i in (m.block_id, m.thread_id)]
        space = isl.Set.from_union_set(band.range()).get_space().align_params(
            isl.Set(f"[{', '.join(ids)}] -> {{ : }}").get_space())
        cons = isl.Set.universe(space)
        for m in self.mapped:
            cons = cons.intersect(_member_constraints(m, space))
        return band.intersect_range(isl.UnionSet.from_set(cons)).domain()

    def context(self, context: isl.Set) -> isl.Set:
        """What the kernel may assume: the launch point is valid, 0 <= t < B, 0 <= b < grid."""
        ctx = self.host_context(context)
        for m in self.mapped:
            bounds = isl.Set(f"[{m.block_id}, {m.thread_id}] -> {{ : 0 <= {m.thread_id} < "
                             f"{m.block} and {m.block_id} >= 0 }}")
            ctx = _intersect_params(ctx, bounds)
            b = _param_aff(ctx.get_space(), m.block_id)
            grid = m.grid.align_params(ctx.get_space())
            ctx = ctx.intersect(b.lt_set(grid).intersect(grid.domain()))
        return ctx.coalesce()


def _intersect_params(a: isl.Set, b: isl.Set) -> isl.Set:
    space = a.get_space()
    b = b.align_params(space)
    return a.align_params(b.get_space()).intersect(b)


def _param_aff(space: isl.Space, name: str) -> isl.PwAff:
    pos = space.find_dim_by_name(isl.dim_type.param, name)
    return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space.params()),
                                   isl.dim_type.param, pos)


# { [m] : r = m_k - T (b + floor(lo/T)), 0 <= r < T, r = t (mod B) } for one member.
def _member_constraints(m: MappedMember, space: isl.Space) -> isl.Set:
    local = isl.LocalSpace.from_space(space)
    member = isl.PwAff.var_on_domain(local, isl.dim_type.set, m.member)
    t = isl.PwAff.var_on_domain(
        local, isl.dim_type.param, space.find_dim_by_name(isl.dim_type.param, m.thread_id))
    r = member.sub(m.tile_start(space))
    zero = isl.PwAff.zero_on_domain(local)
    inside = r.ge_set(zero).intersect(r.lt_set(zero.add_constant_val(isl.Val(m.tile))))
    if m.block < m.tile:
        return inside.intersect(r.sub(t).mod_val(isl.Val(m.block)).eq_set(zero))
    return inside.intersect(r.eq_set(t))


@dataclass(frozen=True, eq=False)
class GpuProgram:
    """A SCoP mapped to the GPU: the schedule kernels are cut from, kernels, host schedule."""

    scop: Scop
    deps: Dependences
    schedule: isl.Schedule
    kernels: tuple[Kernel, ...]
    host: isl.Schedule            # over the launch instances K[h] of every kernel
    names: Names = field(default_factory=Names)
    # Run as one launch of one block (gpu.cost.single_block_cost, chosen by the
    # ranking): every launch of the host program becomes a phase of that block.
    single_block: bool = False
    # Run as one cooperative launch with its arrays resident in shared memory
    # (memory/resident.py, chosen by the driver): every launch becomes a phase of the grid.
    resident: bool = False
    # The host and kernel ASTs and grid sizes once built (codegen.ast.Asts, a later
    # phase's value: the driver's program_of builds them under an isl operation budget
    # to know that this program can be generated before choosing it).
    asts: Any = None

    @property
    def private(self) -> frozenset[str]:
        """The privatised scalars: local variables of every kernel that uses them, never
        in device memory."""
        return frozenset().union(*(k.private for k in self.kernels))

    def kernel(self, launch_name: str) -> Kernel:
        for k in self.kernels:
            if k.launch_name == launch_name:
                return k
        raise KeyError(launch_name)
