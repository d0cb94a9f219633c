"""Shared-memory tiles: what a block reads across a loop, loaded once, together.

A thread's order ``M : D_t -> [s_0 .. s_{n-1}, u]`` (``lanes.py``) is strip-mined at
its first loop ``s_q`` (a dimension that takes several values at one prefix over
the instances reading the candidates) by ``T_s``:

    M_s : S[i] -> [s_0 .. s_{q-1}, floor(s_q / T_s), 3, s_q mod T_s, s_{q+1} .., u]

which runs every instance in ``M``'s order.  Let ``P : D_t -> [s_0 .. s_{q-1},
floor(s_q / T_s)]`` be its prefix and ``B`` the block's instances (``D_t`` over
all threads ``t``).  A group ``G`` of the reads of an array ``A`` that the kernel
only reads (footprint.py: all of them, or each where one box around all would be
larger than theirs together) gets the tile

    F(p) = { A[e] : e in R_G(B), P = p }     (the block's footprint at prefix p)

stored at ``e - o(p)`` in a ``__shared__`` array the size of ``F``'s box hull
``o(p) + [0, size)`` (isl's simple fixed box hull; the last extent padded to an odd
number, so that a warp reading a column hits 32 banks).  At each prefix ``p`` the
block runs ``sync0[p]``, then the copy ``copy_A[p, e]`` for ``e`` in ``F(p)``
split among its ``N`` threads so that consecutive thread ids load consecutive
elements of a row (coalesced), then ``sync1[p]``, then the instances (phase 3).
``sync0`` keeps the previous prefix's readers ahead of the overwrite, ``sync1``
the copy ahead of the readers.  ``prove`` checks, exactly, that the copies of all
threads load ``F`` (so each read finds its value), and the barriers' domain is the
block's prefixes (no ``t``): every thread passes the same barriers.

``A`` is worth a tile when several warps of the block read the same elements: the
threads along a mapped axis whose id a thread's footprint does not depend on read
the same elements (``sharing``, the product of those axes' block sizes), and they
lie in different warps unless the axis is ``x`` with ``B_x <= 32``, where the warp
reads one address at a time anyway (a broadcast).  Measured on an H100 (docs/
results/memory.md): a tile that only turns an uncoalesced read into a coalesced
copy, or that only serves one warp, costs more in barriers than L1 saves.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import islpy as isl

from ..gpu.cost import LATENCY_THREADS
from ..gpu.kernel import AXES, GpuProgram, Kernel, MappedMember
from ..gpu.where import point_of, problem_sizes
from ..frontend.ctype import parse_type
from ..model import maps_of, sets_of
from .footprint import reference_groups
from .lanes import LaneOrder, blockwide
from .registers import accesses, insert_dimension, keep
from .recurrence import carried

#: Phases of one strip: barrier, copies, barrier, the instances.
SYNC_BEFORE, COPY, SYNC_AFTER, RUN = 0, 1, 2, 3
#: The barrier statements of the two barrier phases (printed as __syncthreads()).
BARRIERS = ("polycu_sync0", "polycu_sync1")
#: The strip of the loop the tiles follow.
STRIP = 16
#: The strip of a kernel whose tiles pay by latency (``latency_bound``): copying 64
#: steps at once, a warp waited out 4.3 times less latency than loading them one by
#: one (gramschmidt's R[k][j] at LARGE on an H200, docs/results/async_copies.md).
LATENCY_STRIP = 64
#: The element sizes cp.async copies (asynchronous.py; 16 is no C scalar type).
COPY_BYTES = (4, 8)


@dataclass(frozen=True, eq=False)
class SharedTile:
    """Array ``array`` of one kernel read through a ``__shared__`` tile."""

    array: str
    storage: str                 # the __shared__ array's name
    offset: isl.Map              # o: [p] -> A, the tile's first element at prefix p
    size: tuple[int, ...]        # the box's extents
    extents: tuple[int, ...]     # the storage's extents (last one padded to odd)
    copies: isl.UnionSet         # this thread's copy instances copy_A[p, e]
    sharing: int                 # threads of the block reading each element
    warps: int                   # of them in different warps
    footprint: isl.Map           # F: p -> A, the block's footprint
    references: frozenset[str]   # the refs (Access.ref) of the reads it serves
    zeros: isl.UnionSet | None = None   # this thread's zero fills zero_A[p, e] (padding)
    scale: str | None = None     # a by-value scalar c: the tile holds c * A[e] (scaled)
    asynchronous: bool = False   # copied with cp.async (asynchronous.py)
    latency: bool = False        # worth it only for the latency it hides (latency_bound)

    @property
    def copy(self) -> str:
        """The name of the copy statement that loads the tile."""
        return copy_name(self.storage)

    @property
    def zero(self) -> str:
        """The name of the statement that fills the box outside the footprint."""
        return f"polycu_zero_{self.storage}"

    @property
    def elements(self) -> int:
        return math.prod(self.extents)


def copy_name(storage: str) -> str:
    """The copy statement of the tile stored in ``storage``."""
    return f"polycu_copy_{storage}"


def serving(tiles: tuple[SharedTile, ...]) -> dict[str, SharedTile]:
    """The tile each promoted reference (``Access.ref``) reads."""
    return {ref: tile for tile in tiles for ref in tile.references}


@dataclass(frozen=True, eq=False)
class SharedOrder:
    """The strip-mined order with its copies and barriers (``M_s``), the tiles, and
    the prefix depth ``depth`` (``q + 1``) at which they are loaded."""

    order: isl.UnionMap
    depth: int
    tiles: tuple[SharedTile, ...]
    lanes: LaneOrder              # M_s's shape: its outer dimensions and lanes
    strip: int = STRIP            # T_s


def strip_mine(lanes: LaneOrder, q: int, strip: int) -> LaneOrder:
    """M_s without copies: s_q -> [floor(s_q / T_s), RUN, s_q mod T_s]."""
    n = lanes.width
    names = [f"s{k}" for k in range(n)]
    mined = names[:q] + [f"floor(s{q} / {strip})", str(RUN), f"s{q} - {strip} * "
                         f"floor(s{q} / {strip})"] + names[q + 1:]
    change = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(mined)}] }}")
    order = lanes.order.apply_range(isl.UnionMap.from_map(
        change.align_params(lanes.order.get_space())))
    return LaneOrder(order, lanes.outer + 2, lanes.lanes)


def first_loop(lanes: LaneOrder, domain: isl.UnionSet) -> int | None:
    """q: the first outer dimension of M that takes several values at one prefix
    over ``domain`` (the instances reading the candidates)."""
    order = lanes.order.intersect_domain(domain)
    if order.is_empty():
        return None
    for q in range(lanes.outer):
        upto = order.apply_range(keep(lanes.width, q + 1, 0, order.get_space()))
        before = order.apply_range(keep(lanes.width, q, 0, order.get_space()))
        if not before.reverse().apply_range(upto).is_single_valued():
            return q
    return None


def _x_first(kernel: Kernel) -> list[MappedMember]:
    """The mapped members in the order of their axes: x, y, z (a warp's order)."""
    axes = kernel.by_axis()
    return [axes[a] for a in AXES if a in axes]


def _thread_id(kernel: Kernel) -> tuple[str, int]:
    """The block's flat thread id as isl text (x fastest) and the thread count."""
    text, scale = [], 1
    for member in _x_first(kernel):
        text.append(f"{scale} * {member.thread_id}")
        scale *= member.block
    return " + ".join(text) or "0", scale


# A thread (t_x, t_y, t_z) loads the z = e - o(p) with z_last = t_x (mod B_x), the
# dimension before it = t_y (mod B_y), and so on; a box with fewer dimensions than
# the block has mapped axes spreads its dimension over the flat thread id.  The
# threads of a warp then load consecutive elements of a row: coalesced.
def _strides(kernel: Kernel, size: tuple[int, ...]) -> list[tuple[str, int] | None]:
    """Per dimension of the box, (thread id expression, thread count) of the threads
    it is spread over, or None for a dimension each thread runs whole."""
    axes = _x_first(kernel)
    result: list[tuple[str, int] | None] = [None] * len(size)
    if len(size) < len(axes):
        result[-1] = _thread_id(kernel)
    else:
        for k, m in enumerate(axes):
            result[len(size) - 1 - k] = (m.thread_id, m.block)
    return result


def _distribution(kernel: Kernel, size: tuple[int, ...], name: str) -> isl.Set:
    """The z = e - o(p) one thread copies (the t parameters name the thread)."""
    z = [f"z{k}" for k in range(len(size))]
    cond = [f"(z{k} - ({tid})) mod {n} = 0"
            for k, spread in enumerate(_strides(kernel, size)) if spread
            for tid, n in [spread]]
    params = ", ".join(m.thread_id for m in _x_first(kernel))
    return isl.Set(f"[{params}] -> {{ {name}[{', '.join(z)}] : {' and '.join(cond)} }}")


def copy_lanes(kernel: Kernel, size: tuple[int, ...]) -> tuple[int, ...]:
    """The trip counts of a thread's copy loops over a box of ``size``: its share of
    each dimension, ``ceil(size_k / n_k)`` along a dimension spread over ``n_k``
    threads."""
    return tuple(-(-extent // spread[1]) if spread else extent
                 for extent, spread in zip(size, _strides(kernel, size)))


# A launch of at most LATENCY_THREADS threads leaves each SM at most one warp: no other
# warp runs while a thread waits for a load, so a loop reading global memory step by
# step pays a latency a step.  threads(K) = prod over mapped members m of the largest
# (upper_m - lower_m + 1) over the launches at the problem's sizes.
def latency_bound(program: GpuProgram, kernel: Kernel) -> bool:
    """Whether every launch of ``kernel`` has at most LATENCY_THREADS threads."""
    if not kernel.mapped:
        return False
    point = point_of(program.scop, problem_sizes(program.scop))
    threads = 1
    for m in kernel.mapped:
        extent = m.upper.sub(m.lower).add_constant_val(isl.Val.one(point.get_ctx()))
        extent = extent.intersect_params(point.align_params(extent.get_space()))
        if extent.is_empty():
            return False
        most = _largest(extent)
        if not most.is_int():
            return False
        threads *= max(1, most.to_python())
    return threads <= LATENCY_THREADS


def _largest(value: isl.PwAff) -> isl.Val:
    """The largest value of ``value`` (on parameters alone).  isl's ``max_val`` refuses
    an expression it does not see as integer affine (fuzz seed 5606865: an extent with
    floors of a parameter); there, the largest integer of its range."""
    try:
        return value.max_val()
    except isl.Error:
        return isl.Map.from_pw_aff(isl.PwAff.from_range(value)).range().dim_max_val(0)


def tiles(program: GpuProgram, kernel: Kernel, lanes: LaneOrder, arrays: frozenset[str],
          budget: int, forced: frozenset[str] = frozenset(),
          latency: bool = False) -> SharedOrder | None:
    """The shared tiles of ``kernel`` (its read-only ``arrays`` worth one, or in
    ``forced``: --memory) within ``budget`` bytes, with the order running their
    copies; None when none pays.  With ``latency`` (asynchronous copies), a tile
    pays in a kernel too small to hide its loads' latency, read by one warp or not."""
    scop = program.scop
    context = kernel.context(scop.context)
    domain = lanes.order.domain()
    atomic = {s.reduction_array for s in scop.statements if s.name in kernel.atomic}
    candidates = [a for a in scop.arrays if a.name in arrays and a.name not in kernel.writes
                  and a.name not in atomic and not a.is_scalar]
    if not candidates:
        return None
    reading = isl.UnionSet.empty(domain.get_space())
    for array in candidates:
        reading = reading.union(accesses(scop, kernel, array.name).intersect_domain(
            domain).domain())
    q = first_loop(lanes, reading)
    if q is None:
        return None
    by_latency = latency and latency_bound(program, kernel) and not carried(scop, kernel)
    strip = kernel.strip or (LATENCY_STRIP if by_latency else STRIP)
    mined = strip_mine(lanes, q, strip)
    prefix = mined.order.apply_range(keep(mined.width, q + 1, 0, mined.order.get_space()))
    found: list[SharedTile] = []
    used = 0
    for array in candidates:
        for group in reference_groups(scop, kernel, array.name, domain, prefix, context):
            if group.whole is None or group.own is None:
                continue
            offset, size = group.whole
            sharing, warps = _sharing(group.own[0], kernel)
            extents = size[:-1] + (size[-1] + 1 if size[-1] % 2 == 0 and len(size) > 1
                                   else size[-1],)
            bytes_ = math.prod(extents) * element_bytes(array.element_type)
            # a tile for latency alone only where cp.async can copy it
            for_latency = warps < 2 and by_latency and \
                element_bytes(array.element_type) in COPY_BYTES
            if (warps < 2 and not for_latency and array.name not in forced) or \
                    used + bytes_ > budget:
                continue
            storage = program.names.shared_id(len(found))
            copies = _copies(group.block, offset, size, kernel, copy_name(storage))
            if not _loads_footprint(copies, group.block, kernel, context):
                continue
            used += bytes_
            found.append(SharedTile(array.name, storage, offset, size, extents, copies,
                                    sharing, warps, maps_of(group.block)[0], group.refs,
                                    latency=for_latency))
    if not found:
        return None
    room = q + 3 + max(len(t.size) for t in found) + len(mined.lanes)
    while mined.width < room:     # zeros before the lanes: the copy loops apart from them
        mined = LaneOrder(insert_dimension(mined.order, mined.outer, 0), mined.outer + 1,
                          mined.lanes)
    order = mined.order
    for index, tile in enumerate(found):
        order = order.union(_copy_order(tile.copy, tile.copies, tile, index, q + 1,
                                         mined.width, kernel))
    # Barriers at every prefix of the block (not only where it copies): the loops
    # around them then are the block's, with bounds free of the thread ids.
    prefixes = blockwide(isl.UnionMap.from_range(prefix.intersect_domain(domain).range()),
                         kernel, context).range()
    for phase, name in zip((SYNC_BEFORE, SYNC_AFTER), BARRIERS):
        order = order.union(_barrier_order(prefixes, name, phase, mined.width))
    return SharedOrder(order, q + 1, tuple(found), mined, strip)


def element_bytes(ctype: str) -> int:
    """sizeof of an element type (8 for a type polycu does not know)."""
    parsed = parse_type(ctype)
    return parsed.bits // 8 if parsed is not None else 8


# The threads along axis k read the same elements when the footprint's offset has no
# t_k in it; along x they are one warp (one address a load: a broadcast) up to 32.
def _sharing(offset: isl.Map, kernel: Kernel) -> tuple[int, int]:
    """(threads reading each element of a thread's footprint, warps among them)."""
    sharing = in_warp = 1
    lanes = 32            # a warp's threads: x fastest, then y, then z
    for member in _x_first(kernel):
        extent = max(1, min(member.block, lanes))
        lanes = max(1, lanes // member.block)
        if member.block == 1 or _involves(offset, member.thread_id):
            continue
        sharing *= member.block
        in_warp *= extent
    return sharing, max(1, sharing // in_warp)


def _involves(offset: isl.Map, name: str) -> bool:
    """Whether a thread's box offset depends on parameter ``name``."""
    for k in range(offset.dim(isl.dim_type.out)):
        for _, aff in offset.dim_max(k).get_pieces():
            pos = aff.get_space().find_dim_by_name(isl.dim_type.param, name)
            if pos >= 0 and not aff.get_coefficient_val(isl.dim_type.param, pos).is_zero():
                return True
    return False


def _shift(footprint: isl.Map, offset: isl.Map) -> isl.Map:
    """[p -> e] -> z = e - o(p) on the wrapped footprint."""
    corner = footprint.domain_map().apply_range(offset.align_params(footprint.get_space()))
    cells = footprint.range_map().align_params(corner.get_space())
    return cells.sum(corner.align_params(cells.get_space()).neg())


def _copies(block: isl.UnionMap, offset: isl.Map, size: tuple[int, ...],
            kernel: Kernel, name: str) -> isl.UnionSet:
    """copy_A[p, e] of one thread: e in F(p), with e - o(p) in the thread's share."""
    (footprint,) = maps_of(block)
    shift = _shift(footprint, offset)
    share = _distribution(kernel, size, shift.get_space().get_tuple_name(isl.dim_type.out))
    share = share.align_params(shift.get_space())
    shift = shift.align_params(share.get_space())
    mine = shift.intersect_range(share).domain()
    return isl.UnionSet.from_set(mine.flatten().set_tuple_name(name))


# A thread's copies run in its own lanes: z_k = n_k l_k + t_k along a dimension
# spread over n_k threads (z_k itself along one it runs whole), with l in the last
# dimensions of the time, where the statements' lanes are.  The loops over l then
# have constant bounds once the no-op lanes fill them (lanes.full_lanes) and are
# unrolled, so that a thread's loads of a tile are all in flight at once.
def _copy_order(name: str, instances: isl.UnionSet, tile: SharedTile, index: int,
                depth: int, width: int, kernel: Kernel) -> isl.UnionMap:
    """{ name[p, e] -> [p, COPY, index, 0 .., l] } over ``width`` dimensions for the
    copies (or zero fills) ``instances`` of ``tile``, with l the thread's lane of
    z = e - o(p)."""
    (copies,) = sets_of(instances)
    rank = len(tile.size)
    p = [f"p{k}" for k in range(depth)]
    e = [f"e{k}" for k in range(rank)]
    z = [f"z{k}" for k in range(rank)]
    instance = f"{name}[{', '.join(p + e)}]"
    prefix = isl.Map(f"{{ {instance} -> [{', '.join(p)}] }}")
    cell = isl.Map(f"{{ {instance} -> {tile.array}[{', '.join(e)}] }}")
    shift = tile_index(tile, cell, prefix)
    lanes = [f"floor(z{k} / {spread[1]})" if spread else f"z{k}"
             for k, spread in enumerate(_strides(kernel, tile.size))]
    time = p + [str(COPY), str(index)] + ["0"] * (width - depth - 2 - rank) + lanes
    timing = isl.Map(f"{{ [{', '.join(p + z)}] -> [{', '.join(time)}] }}")
    copy = prefix.align_params(shift.get_space()).flat_range_product(shift)
    copy = copy.apply_range(timing.align_params(copy.get_space()))
    copy = copy.intersect_domain(copies.align_params(copy.get_space()))
    return isl.UnionMap.from_map(copy)


def _barrier_order(prefixes: isl.UnionSet, name: str, phase: int, width: int
                   ) -> isl.UnionMap:
    """{ name[p] -> [p, phase, 0 ..] } for the block's prefixes p."""
    (points,) = sets_of(prefixes)
    depth = points.dim(isl.dim_type.set)
    p = [f"p{k}" for k in range(depth)]
    time = p + [str(phase)] + ["0"] * (width - depth - 1)
    sync = isl.Map(f"{{ {name}[{', '.join(p)}] -> [{', '.join(time)}] }}")
    sync = sync.align_params(points.get_space())
    points = points.set_tuple_name(name).align_params(sync.get_space())
    return isl.UnionMap.from_map(sync.intersect_domain(points))


# The box o(p) + [0, size) minus F(p), spread over the threads like the copies: with
# them, every element of the box is written at each prefix (padded lanes read it).
def with_zeros(shared: SharedOrder, storages: frozenset[str], kernel: Kernel,
               context: isl.Set) -> SharedOrder | None:
    """``shared`` with the tiles stored in ``storages`` set to zero outside their
    footprints, in the copy phase; None when a fill cannot be proven to cover
    exactly that."""
    order, found = shared.order, []
    for index, tile in enumerate(shared.tiles):
        rest = _box_of(tile).subtract(tile.footprint) if tile.storage in storages else None
        if rest is None or rest.is_empty():
            found.append(tile)
            continue
        rest = isl.UnionMap.from_map(rest)
        zeros = _copies(rest, tile.offset, tile.size, kernel, tile.zero)
        if not _loads_footprint(zeros, rest, kernel, context):
            return None
        order = order.union(_copy_order(tile.zero, zeros, tile, index, shared.depth,
                                        shared.lanes.width, kernel))
        found.append(replace(tile, zeros=zeros))
    return SharedOrder(order, shared.depth, tuple(found), shared.lanes, shared.strip)


def _box_of(tile: SharedTile) -> isl.Map:
    """p -> the elements o(p) + [0, size) of the tile's box."""
    cells = isl.Map.universe(tile.offset.get_space())
    for k, extent in enumerate(tile.size):
        cells = cells.lower_bound_val(isl.dim_type.out, k, isl.Val(0)).upper_bound_val(
            isl.dim_type.out, k, isl.Val(extent - 1))
    return cells.intersect_domain(tile.offset.domain()).sum(tile.offset)


# e - o(p): an element e = R(x) of a tile at the prefix p = P(x) of instance x.
def tile_index(tile: SharedTile, relation: isl.Map, prefix: isl.Map) -> isl.Map:
    """x -> the index in ``tile`` of the element ``relation`` maps x to."""
    corner = prefix.apply_range(tile.offset.align_params(prefix.get_space()))
    relation = relation.align_params(corner.get_space()).intersect_domain(corner.domain())
    index = relation.sum(corner.align_params(relation.get_space()).neg())
    return index.set_tuple_name(isl.dim_type.out, tile.storage)


# The copies of all threads, t projected out, must equal wrap(F) renamed: every
# element the block reads at a prefix is loaded there, and nothing else.
def _loads_footprint(copies: isl.UnionSet, block: isl.UnionMap, kernel: Kernel,
                     context: isl.Set) -> bool:
    """Whether the block's copies load exactly its footprint ``block``."""
    loaded = blockwide(isl.UnionMap.from_domain(copies), kernel, context).domain()
    (name,) = {s.get_tuple_name() for s in sets_of(copies)}
    (footprint,) = maps_of(block)
    wanted = isl.UnionSet.from_set(footprint.wrap().flatten().set_tuple_name(name))
    wanted = blockwide(isl.UnionMap.from_domain(wanted), kernel, context).domain()
    return loaded.is_equal(wanted)
