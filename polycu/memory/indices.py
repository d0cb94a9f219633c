"""Where a promoted reference lives: the index of a tile's element or of a lane's
register, as a function of the instance (code generation prints it).

In:  a kernel's placement (its order of instances, its shared tiles and registers).
Out: per statement and copy, its references' index maps.
"""
from __future__ import annotations

import islpy as isl

from ..model import Scop, maps_of, sets_of
from .placement import KernelPlacement
from .shared import serving, tile_index


#: The keys of a shared copy's own index and of an instance's lanes in ``indices``.
COPY_INDEX = -1
LANE_INDEX = -2


# Where a promoted reference lives, as a function of the instance:
#   a statement's read of a tile:  S[i] -> e - o(p)  (e = R(S[i]), p = P(S[i]))
#   the tile's copy:               copy[p, e] -> e - o(p)
#   an instance's lanes (the index of its registers):  S[i] -> u,  load[p, u, e] -> u
def indices(scop: Scop, placed: KernelPlacement) -> dict[str, list[tuple[int, isl.Map]]]:
    """Per statement and copy, the index maps of its references to shared tiles and
    its lanes: (position in ``Statement.accesses``, ``COPY_INDEX`` or ``LANE_INDEX``,
    instance -> index)."""
    result: dict[str, list[tuple[int, isl.Map]]] = {}
    if placed.instances is None:
        return result
    tiles = serving(placed.shared)
    for stmt in scop.statements:
        order = placed.instances.intersect_domain(isl.UnionSet(
            f"{{ {stmt.name}[{', '.join(f'i{k}' for k in range(len(stmt.iterators)))}] }}"
        ).align_params(placed.instances.get_space()))
        if order.is_empty():
            continue
        (time,) = maps_of(order)
        width = time.dim(isl.dim_type.out)
        if placed.lanes:
            result.setdefault(stmt.name, []).append(
                (LANE_INDEX, time.project_out(isl.dim_type.out, 0, width - len(placed.lanes))
                 .set_tuple_name(isl.dim_type.out, "lane")))
        for position, access in enumerate(stmt.accesses):
            if access.ref in tiles:
                prefix = time.project_out(isl.dim_type.out, placed.tile_depth,
                                          width - placed.tile_depth)
                result.setdefault(stmt.name, []).append(
                    (position, tile_index(tiles[access.ref], access.relation, prefix)))
    for promotion in placed.registers:
        if not promotion.lanes:
            continue
        (relation,) = maps_of(promotion.footprint)
        cells = relation.wrap().flatten()
        n = cells.dim(isl.dim_type.set)
        lanes = isl.Map.identity(cells.get_space().map_from_set()).project_out(
            isl.dim_type.out, n - relation.dim(isl.dim_type.out),
            relation.dim(isl.dim_type.out)).project_out(isl.dim_type.out, 0, promotion.depth)
        for name in (promotion.load, promotion.store):
            result[name] = [(LANE_INDEX, lanes.set_tuple_name(isl.dim_type.in_, name)
                             .set_tuple_name(isl.dim_type.out, "lane"))]
    for tile in placed.shared:
        for name, instances in ((tile.copy, tile.copies), (tile.zero, tile.zeros)):
            if instances is None:
                continue
            (copies,) = sets_of(instances)
            rank = len(tile.size)
            depth = copies.dim(isl.dim_type.set) - rank
            identity = isl.Map.identity(copies.get_space().map_from_set()).intersect_domain(
                copies)
            cells = identity.project_out(isl.dim_type.out, 0, depth).set_tuple_name(
                isl.dim_type.out, tile.array)
            points = identity.project_out(isl.dim_type.out, depth, rank)
            result[name] = [(COPY_INDEX, tile_index(tile, cells, points))]
    return result
