"""Padded lanes: register-tiled statements run on every lane of a thread.

In a block at the edge of the iteration space some lanes of a thread have no
instance, and isl guards each remaining statement of the jammed lane loops on its
own; nvcc then loads each operand once per guard and schedules the guarded
multiply-adds apart.  Measured on an H100 (docs/results/memory.md), gemm's edge
blocks took 1.7x the time of its full ones, and a kernel whose blocks all fit in
one wave waits for its slowest block.

A statement ``S`` with lane order ``T_S`` (affine, one piece) runs instead on

    E_S = T_S^-1 ( outer(T_S(D_S)) x [0, U) )

(every lane of every thread, at every time where some thread of the block runs a
lane of ``S``: ``outer`` projects out the lanes and the thread ids), when:

1. ``S`` writes only register tiles (promotions with lanes at depth 0), and the
   lanes of ``E_S - D_S`` hold no element of them (the footprint's domain): what it
   computes there lands in registers that no instance reads and no copy loads or
   stores;
2. ``S`` reads register tiles, shared tiles, scalars passed by value and arrays
   the kernel does not write, every access relation defined on ``E_S`` (where the
   frontend cut one to ``D_S``, C's arithmetic differs from isl's outside it); each shared read of ``E_S`` falls inside its tile's
   box, which ``with_zeros`` fills (zeros outside the footprint), and each read of
   global memory inside its array, so every value it reads is defined.  With global
   reads ``S`` is padded in the blocks whose lanes are all in the members' ranges
   (``full_tiles``: there triangular guards go), elsewhere it keeps its domain;
3. its arrays are floating-point and its body neither divides nor converts to a
   type that is not floating (no trap or undefined conversion on values computed
   from a padded lane), and it is no atomic update nor a data-dependent loop
   (which might not end on a padded lane's values);
4. it runs inside a loop of the kernel (elsewhere its guards cost once).

``T_S^-1`` is one affine piece, one-to-one on the padded times, so each time still
runs one instance and each instance one time.  The padded instances need no guard,
so the lane loops of a partial block run the full block's code.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import islpy as isl
from pycparser import c_ast

from ..gpu.kernel import GpuProgram, Kernel
from ..model import Array, Statement, maps_of, sets_of
from .lanes import LaneOrder, blockwide, box, full_tiles
from .registers import Promotion
from .shared import SharedOrder, SharedTile, serving, tile_index

#: Element types whose arithmetic never traps.
FLOATING = frozenset({"float", "double"})


@dataclass(frozen=True, eq=False)
class Padding:
    """The padded statements' lane orders (``T_S`` on ``E_S``) and the storage names
    of the shared tiles they read (to be filled with zeros outside their footprints)."""

    orders: dict[str, isl.Map]
    tiles: frozenset[str]
    everywhere: frozenset[str] = frozenset()    # padded in every block, not only full ones

    @property
    def score(self) -> tuple[int, int]:
        """What it gains: statements padded in every block, then in full blocks."""
        return len(self.everywhere), len(self.orders)

    def apply(self, order: isl.UnionMap) -> isl.UnionMap:
        """``order`` with each padded statement's relation replaced."""
        for name, relation in self.orders.items():
            order = order.subtract_domain(isl.UnionSet.from_set(
                isl.Set.universe(relation.get_space().domain())))
            order = order.union(isl.UnionMap.from_map(
                relation.align_params(order.get_space())))
        return order


def padding(program: GpuProgram, kernel: Kernel, instances: LaneOrder,
            registers: tuple[Promotion, ...], shared: SharedOrder | None,
            context: isl.Set, by_value: frozenset[str]) -> Padding | None:
    """The statements of ``kernel`` that may run on every lane (see above); None
    when none needs it."""
    scop = program.scop
    lanes = len(instances.lanes)
    if not lanes or all(n == 1 for n in instances.lanes):
        return None
    tiles = serving(shared.tiles) if shared else {}
    promoted = {p.array: p for p in registers if p.lanes and p.depth == 0 and p.refs is None}
    arrays = {a.name: a for a in scop.arrays}
    full = full_tiles(kernel, context)
    orders: dict[str, isl.Map] = {}
    read_tiles: set[str] = set()
    everywhere: set[str] = set()
    read: dict[str, isl.UnionSet] = {}       # per global array, what the block reads
    for stmt in scop.statements:
        if stmt.name not in kernel.statements or stmt.name in kernel.atomic:
            continue
        found = _eligible(stmt, kernel, promoted, tiles, by_value, arrays)
        if found is None:
            continue
        relation = _relation(instances.order, stmt)
        if relation is None or not _in_a_loop(relation, lanes):
            continue
        padded = _padded(relation, instances.lanes, kernel, context)
        if padded is not None and found:          # global reads: full blocks only
            padded = padded.intersect_params(full.align_params(padded.get_space())) \
                .union(relation.align_params(padded.get_space())).coalesce()
        if padded is None or padded.domain().is_subset(relation.domain()):
            continue
        extra = padded.subtract_domain(relation.domain())
        if not _defined(padded.domain(), stmt, context):
            continue
        for name in found - set(read):
            read[name] = _block_reads(program, kernel, instances.order, name, context)
        if not _registers_free(extra, stmt, promoted, lanes, context) or \
                not _inside_tiles(padded, stmt, tiles, shared, context) or \
                not _inside_arrays(padded.domain(), stmt, found, arrays, read, context,
                                tiles):
            continue
        orders[stmt.name] = padded
        if not found:
            everywhere.add(stmt.name)
        read_tiles |= {tiles[a.ref].storage for a in stmt.accesses if a.ref in tiles}
    return Padding(orders, frozenset(read_tiles), frozenset(everywhere)) if orders else None


def _eligible(stmt: Statement, kernel: Kernel, promoted: dict[str, Promotion],
              tiles: dict[str, SharedTile], by_value: frozenset[str],
              arrays: dict[str, Array]) -> frozenset[str] | None:
    """The arrays ``stmt`` reads from global memory if it may be padded (conditions
    1 and 3, and 2 up to the proofs), else None."""
    globals_ = set()
    for access in stmt.accesses:
        array = arrays[access.array]
        if array.element_type not in FLOATING:
            return None
        if access.is_write and access.array not in promoted:
            return None
        if access.is_read and not (access.array in promoted or access.ref in tiles
                                   or access.array in by_value):
            if access.array in kernel.writes or array.extent_set is None:
                return None
            globals_.add(access.array)
    return None if stmt.loop or _may_trap(stmt.body) else frozenset(globals_)


def _may_trap(node: c_ast.Node) -> bool:
    """Whether the C body ``node`` divides, takes a remainder or converts to a type
    that is not floating (undefined for a padded lane's value out of range)."""
    if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)) and \
            node.op in ("/", "%", "/=", "%="):
        return True
    if isinstance(node, c_ast.Cast) and not (
            isinstance(node.to_type.type, c_ast.TypeDecl)
            and isinstance(node.to_type.type.type, c_ast.IdentifierType)
            and " ".join(node.to_type.type.type.names) in FLOATING):
        return True
    return any(_may_trap(child) for _, child in node.children())


def _relation(order: isl.UnionMap, stmt: Statement) -> isl.Map | None:
    """T_S: ``stmt``'s part of the lane order, if it has one."""
    part = order.intersect_domain(isl.UnionSet.from_set(
        isl.Set.universe(stmt.domain.get_space()).align_params(order.get_space())))
    found = maps_of(part)
    return found[0] if len(found) == 1 else None


# A statement outside every loop of the kernel runs its lanes once per thread: its
# guards cost once, and padding it gains nothing.
def _in_a_loop(relation: isl.Map, lanes: int) -> bool:
    """Whether T_S takes several times outside the lanes (for some parameters)."""
    times = relation.range()
    width = times.dim(isl.dim_type.set)
    outer = times.project_out(isl.dim_type.set, width - lanes, lanes)
    return not outer.lexmin().is_equal(outer)


# E_S = T_S^-1(outer(T_S(D_S)) x box): the inverse of T_S (time -> instance, one
# affine piece: the lanes are an affine change of the mapped members), taken on the
# whole padded box of times, at every time where some thread of the block runs S
# (so that no guard on the thread ids is left around the lane loops).
def _padded(relation: isl.Map, lanes: tuple[int, ...], kernel: Kernel,
            context: isl.Set) -> isl.Map | None:
    """T_S on E_S, or None when T_S^-1 is not one affine piece or is not one-to-one
    on the padded times."""
    pieces: list[isl.MultiAff] = []
    isl.PwMultiAff.from_map(relation.reverse()).foreach_piece(
        lambda _, piece: pieces.append(piece))
    if len(pieces) != 1:
        return None
    (inverse,) = pieces
    times = relation.range()
    width = times.dim(isl.dim_type.set)
    outer = times.project_out(isl.dim_type.set, width - len(lanes), len(lanes))
    (outer,) = sets_of(blockwide(isl.UnionMap.from_range(isl.UnionSet.from_set(outer)),
                                 kernel, context).range())
    full = outer.flat_product(box(lanes).align_params(outer.get_space()))
    padded = isl.Map.from_multi_aff(inverse).intersect_domain(
        full.align_params(inverse.get_space())).reverse().coalesce()
    return padded if padded.is_single_valued() else None


def _registers_free(extra: isl.Map, stmt: Statement, promoted: dict[str, Promotion],
                    lanes: int, context: isl.Set) -> bool:
    """Whether the lanes of the padded instances ``extra`` hold no element of the
    register tiles ``stmt`` writes (proof 1)."""
    used = extra.range()
    width = used.dim(isl.dim_type.set)
    used = used.project_out(isl.dim_type.set, 0, width - lanes)
    used = used.reset_tuple_id()
    for array in {a.array for a in stmt.accesses if a.is_write}:
        (footprint,) = maps_of(promoted[array].footprint)
        held = footprint.domain().reset_tuple_id()
        clash = used.align_params(held.get_space()).intersect(
            held.align_params(used.get_space()))
        if not clash.intersect_params(context.align_params(clash.get_space())).is_empty():
            return False
    return True


# A padded read of A[e] is defined when e lies in the array's extents or is read by
# a real instance of the block (what the program reads, it may read).
def _inside_arrays(domain: isl.Set, stmt: Statement, names: frozenset[str],
                   arrays: dict[str, Array], real: Mapping[str, isl.UnionSet],
                   context: isl.Set, tiles: Mapping[str, SharedTile]) -> bool:
    """Whether every read of ``stmt``'s padded instances ``domain`` from the global
    arrays ``names`` (through no tile) falls inside the array or among the elements
    ``real[A]`` that the block's real instances read (proof 2 for global memory)."""
    for access in stmt.accesses:
        if not (access.is_read and access.array in names) or access.ref in tiles:
            continue
        cells = isl.UnionSet.from_set(domain).apply(isl.UnionMap.from_map(
            access.relation.align_params(domain.get_space())))
        cells = cells.intersect_params(context.align_params(cells.get_space()))
        allowed = isl.UnionSet.from_set(arrays[access.array].extent_set).align_params(
            cells.get_space()).union(real[access.array].align_params(cells.get_space()))
        if not cells.is_subset(allowed):
            return False
    return True


# The model's access relations hold only where C's arithmetic is isl's: the frontend
# cuts a relation to the statement's domain where it is not (fuzz seed 5600798:
# dim3[k][(j - 3u) + 3u] is dim3[k][j] for 0 <= j <= 5, and C's unsigned sum reads
# 2^32 + j at a padded lane's j < 0).  Nothing is proven of a padded instance outside
# a relation's domain.
def _defined(domain: isl.Set, stmt: Statement, context: isl.Set) -> bool:
    """Whether every access relation of ``stmt`` is defined on its padded instances
    ``domain`` (within ``context``)."""
    domain = domain.intersect_params(context.align_params(domain.get_space()))
    for access in stmt.accesses:
        if not domain.is_subset(access.relation.domain().align_params(domain.get_space())):
            return False
    return True


def _block_reads(program: GpuProgram, kernel: Kernel, order: isl.UnionMap, name: str,
                 context: isl.Set) -> isl.UnionSet:
    """The elements of array ``name`` that the real instances of the block read."""
    domain = order.domain()
    read = isl.UnionMap.empty(domain.get_space())
    for stmt in program.scop.statements:
        for access in stmt.accesses:
            if access.is_read and access.array == name:
                read = read.union(isl.UnionMap.from_map(
                    access.relation.align_params(domain.get_space())))
    cells = domain.apply(read.align_params(domain.get_space()))
    return blockwide(isl.UnionMap.from_range(cells), kernel, context).range()


def _inside_tiles(padded: isl.Map, stmt: Statement, tiles: dict[str, SharedTile],
                  shared: SharedOrder | None, context: isl.Set) -> bool:
    """Whether every shared read of the padded instances falls inside its tile's box
    (proof 2)."""
    if shared is None:
        return True
    width = padded.dim(isl.dim_type.out)
    prefix = padded.project_out(isl.dim_type.out, shared.depth, width - shared.depth)
    for access in stmt.accesses:
        if access.ref not in tiles:
            continue
        tile = tiles[access.ref]
        index = tile_index(tile, access.relation, prefix)
        cells = index.range()
        cells = cells.intersect_params(context.align_params(cells.get_space()))
        if not cells.is_subset(box(tile.size, tile.storage).align_params(cells.get_space())):
            return False
        # every padded instance finds its tile's corner (the prefix has a tile)
        if not padded.domain().is_subset(index.domain()):
            return False
    return True
