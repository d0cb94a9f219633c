"""Footprints of reference groups: what the threads of a block read per prefix.

A group ``G`` of reads of array ``A`` has, at the prefix ``p`` of the strip-mined
order ``P``, the thread's footprint ``P^-1(p) . R_G`` and the block's (``t``
projected out), and each has a box ``o(p) + [0, size)`` (``box_of``) that a shared
tile stores (shared.py).  References share a tile when one box holds them about as
tightly as their own boxes (``reference_groups``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import islpy as isl

from ..gpu.kernel import Kernel
from ..model import Scop, maps_of
from .lanes import blockwide


# o_k(p) = min over F(p) of e_k and size_k = 1 + max over p of (max e_k - min e_k):
# the box o(p) + [0, size) holds F(p) (isl's simple fixed box hull, by hand: islpy
# does not wrap isl_fixed_box's getters).
def box_of(footprint: isl.UnionMap) -> tuple[isl.Map, tuple[int, ...]] | None:
    """The box o(p) + [0, size) of ``footprint``'s images: o as a map [p] -> A."""
    maps = maps_of(footprint)
    if len(maps) != 1:
        return None
    (relation,) = maps
    lows, size = [], []
    for k in range(relation.dim(isl.dim_type.out)):
        low = relation.dim_min(k).coalesce()
        try:
            extent = relation.dim_max(k).sub(low).max_val()
        except isl.Error:    # a bound with a rational coefficient: no integer box
            return None
        if not extent.is_int():
            return None
        lows.append(low)
        size.append(extent.to_python() + 1)
    offset = isl.PwMultiAff.from_pw_aff(lows[0])
    for low in lows[1:]:
        offset = offset.flat_range_product(isl.PwMultiAff.from_pw_aff(low))
    offset = isl.Map.from_pw_multi_aff(offset).set_tuple_name(
        isl.dim_type.out, relation.get_tuple_name(isl.dim_type.out))
    return offset, tuple(size)


@dataclass(frozen=True, eq=False)
class Group:
    """References of one array read through one tile: their accesses, refs, the
    thread's footprint per prefix (``mine``), the block's (``block``) and the boxes
    of both (None: not a bounded box)."""

    access: isl.UnionMap
    refs: frozenset[str]
    mine: isl.UnionMap
    block: isl.UnionMap
    whole: tuple[isl.Map, tuple[int, ...]] | None
    own: tuple[isl.Map, tuple[int, ...]] | None

    @property
    def elements(self) -> int | None:
        return math.prod(self.whole[1]) if self.whole is not None else None


def group_of(access: isl.UnionMap, refs: frozenset[str], prefix: isl.UnionMap,
             kernel: Kernel, context: isl.Set) -> Group:
    """The group of the reads ``access`` (refs ``refs``) at the prefixes ``prefix``."""
    mine = prefix.reverse().apply_range(access)
    block = without_existentials(blockwide(mine, kernel, context))
    return Group(access, refs, mine, block, box_of(block), box_of(mine))


def existentials(relation: isl.Map | isl.UnionMap) -> int:
    """The existentials and integer divisions of ``relation``'s pieces."""
    maps = maps_of(relation) if isinstance(relation, isl.UnionMap) else [relation]
    return sum(b.dim(isl.dim_type.div) for m in maps for b in m.get_basic_maps())


# F = { p -> e : exists t in [0, B), x: p = P_t(x), e = R(x) } with the thread ids t
# projected out last keeps t as an existential bound by floor terms (the lanes'
# residues: i = t0 mod 16, 3i + j = t1 mod 16), though F is often a polyhedron (some
# thread of the block runs each residue).  isl's compute_divs writes each
# existential as an integer division of the variables, an equal set; where none is
# left, F is that polyhedron.
def without_existentials(footprint: isl.UnionMap) -> isl.UnionMap:
    """``footprint`` as the polyhedron it equals, or itself where it equals none (a
    strided one).

    Why: the tile's offset min F(p), its copies' domains (wrap(F) shifted by o(p), F's
    existentials twice) and every index through them carry F's existentials on, each
    step with copies of its own: fuzz seed 5633475 (3i + j mapped on 16 x 16
    threads) reached 25 in the offset, 43 in a copy's domain, 9 s in full_strips and
    isl's AST of the kernel over its budget twice, 88 s of compilation in all."""
    maps = maps_of(footprint)
    if len(maps) != 1 or not existentials(maps[0]):
        return footprint
    named = maps[0].compute_divs().coalesce()
    return footprint if existentials(named) else isl.UnionMap.from_map(named)


# References of one array share a tile when the box of their footprints together is
# bounded and no larger than their own boxes together (PPCG groups references the
# same way): gemm's one read of A gets one tile; syrk's A[i][k] and A[j][k], rows
# of two different parts of the matrix, get one each, as the box around both
# would span the matrix.  Tiles hold reads only, so two may hold the same element.
def reference_groups(scop: Scop, kernel: Kernel, array: str, domain: isl.UnionSet,
                     prefix: isl.UnionMap, context: isl.Set) -> list[Group]:
    """The reference groups of ``array``'s reads in ``kernel`` over ``domain``."""
    groups = []
    for stmt in scop.statements:
        if stmt.name not in kernel.statements:
            continue
        for access in stmt.accesses:
            relation = isl.UnionMap.from_map(access.relation).intersect_domain(domain)
            # A reference to many elements (a data-dependent loop's: frontend/
            # loop_accesses.py) reads in place: no tile index would be its element's.
            if access.array == array and access.is_read and not relation.is_empty() \
                    and access.relation.is_single_valued():
                groups.append(group_of(relation, frozenset({access.ref}), prefix, kernel,
                                       context))
    merged = True
    while merged and len(groups) > 1:
        merged = False
        for a, b in combinations(groups, 2):
            union = group_of(a.access.union(b.access), a.refs | b.refs, prefix, kernel,
                             context)
            if union.whole is not None and (a.elements is None or b.elements is None
                                            or union.elements <= a.elements + b.elements):
                groups = [g for g in groups if g is not a and g is not b] + [union]
                merged = True
                break
    return sorted(groups, key=lambda g: min(g.refs))
