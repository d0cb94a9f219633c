"""Index-set splitting: let the scheduler give pieces of a statement different times.

In:  the SCoP, its ``Dependences`` and a schedule tree whose outermost band is
     sequential (isl's schedule of the whole statements).
Out: a schedule tree over the *original* domain whose bands are piecewise affine,
     or ``None`` when no statement has a hyperplane to split at.

isl's scheduler gives each statement one affine function per band member.  In
floyd-warshall, ``path[i][j] = min(path[i][j], path[i][k] + path[k][j])``, the
instances of one ``k`` depend on each other only through row ``i = k`` and column
``j = k``; one affine function for all of them must serialise ``i`` or ``j``
(a wavefront), while the pieces ``i < k``, ``i = k``, ``i > k`` (times the same
for ``j``) can each be fully parallel once ordered among themselves.

Mathematics.  Let ``T0`` be the first member of the outermost band, not coincident.
The dependences it leaves to the inner dimensions are ``L = { s -> t in V :
T0(s) = T0(t) }``.  For each basic relation of ``L`` the affine hulls of its
sources (in the source statement's space) and of its sinks (in the sink's) are
taken; each equality ``h(x, p) = 0`` of a hull that relates two or more iterators
and does not already hold on the whole statement domain is a *hyperplane* of that
statement.  With the (at most ``MAX_HYPERPLANES``) hyperplanes ``h_1 .. h_m`` of
``S``, its domain is cut into the non-empty pieces
``S_sigma = { x in D_S : sign(h_l(x)) = sigma_l }`` for ``sigma in {-1, 0, 1}^m``.

Each piece becomes a statement of its own for isl (renaming ``R: S[x] -> S__n[x]``
on the pieces); the dependences among pieces are ``R^-1 . V . R`` restricted to
them, exact, since they are the original instance pairs.  isl's schedule of the
pieces is then pulled back through ``R`` into one tree over ``S``'s instances:
band partial schedules become piecewise (``P(S[x]) = P_n(S__n[x])`` on piece n),
filters become sets of ``S``'s instances.  The caller re-marks the bands and proves
the tree against the original dependences, so the split never has to be trusted.
"""
from __future__ import annotations

from typing import Mapping

import islpy as isl

from ..deps import Dependences, program_order
from ..model import Scop, maps_of
from .isl_scheduler import isl_schedule
from .value import is_band, walk

MAX_HYPERPLANES = 2


def _outer_member(tree: isl.Schedule) -> isl.ScheduleNode | None:
    """The outermost band when its first member is sequential (not coincident)."""
    for node in walk(tree):
        if is_band(node):
            return None if node.band_member_get_coincident(0) else node
        if node.get_type() != isl.schedule_node_type.domain:
            return None
    return None


def _uncarried(deps: isl.UnionMap, band: isl.ScheduleNode) -> isl.UnionMap:
    """``{ s -> t in deps : T0(s) = T0(t) }`` with ``T0`` the band's first member."""
    first = band.band_get_partial_schedule().get_at(0)
    return deps.eq_at_multi_union_pw_aff(isl.MultiUnionPwAff.from_union_pw_aff(first))


def _equalities(hull: isl.BasicSet, domain_hull: isl.BasicSet) -> list[isl.Aff]:
    """Equalities of ``hull`` relating two or more iterators that ``domain_hull`` lacks.

    A plane on one iterator (``s = 0``, ``s = n - 1``) only peels a boundary
    iteration, which leaves the interior's order as it was."""
    found = []
    constraints: list[isl.Constraint] = []
    hull.foreach_constraint(constraints.append)
    for constraint in constraints:
        if not constraint.is_equality():
            continue
        iterators = sum(not constraint.get_coefficient_val(isl.dim_type.set, k).is_zero()
                        for k in range(hull.dim(isl.dim_type.set)))
        if iterators < 2:
            continue
        if constraint.involves_dims(isl.dim_type.div, 0, hull.dim(isl.dim_type.div)):
            continue
        aff = constraint.get_aff()
        plane = isl.BasicSet.universe(hull.get_space()).add_constraint(constraint)
        if domain_hull.is_subset(plane):
            continue
        found.append(aff)
    return found


def _same_plane(a: isl.Aff, b: isl.Aff) -> bool:
    return a.plain_is_equal(b) or a.plain_is_equal(b.neg())


def hyperplanes(scop: Scop, deps: isl.UnionMap) -> dict[str, list[isl.Aff]]:
    """The hyperplanes of each statement (module docstring), at most MAX_HYPERPLANES."""
    planes: dict[str, list[isl.Aff]] = {}
    hulls = {s.name: s.domain.intersect_params(scop.context).affine_hull()
             for s in scop.statements}
    for dep in maps_of(deps):
        for basic in dep.get_basic_maps():
            for part in (basic.domain(), basic.range()):
                name = part.get_tuple_name()
                part = part.remove_redundancies()
                for aff in _equalities(part.affine_hull(), hulls[name]):
                    known = planes.setdefault(name, [])
                    if not any(_same_plane(aff, k) for k in known):
                        known.append(aff)
    return {name: affs for name, affs in planes.items() if len(affs) <= MAX_HYPERPLANES}


def _pieces(domain: isl.Set, affs: list[isl.Aff]) -> list[isl.Set]:
    """The non-empty sign classes of ``affs`` on ``domain``."""
    pieces = [domain]
    for aff in affs:
        zero = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(aff.get_domain_space()))
        cut = []
        for piece in pieces:
            for side in (aff.lt_set(zero), aff.eq_set(zero), aff.gt_set(zero)):
                part = piece.intersect(side)
                if not part.is_empty():
                    cut.append(part)
        pieces = cut
    return pieces


def renaming(scop: Scop, planes: Mapping[str, list[isl.Aff]]) -> isl.UnionMap:
    """``R``: each instance of a split statement to its piece ``S__n``, others to themselves."""
    result = isl.UnionMap.empty(scop.context.get_space())
    for statement in scop.statements:
        domain = statement.domain.intersect_params(scop.context)
        identity = isl.Map.identity(domain.get_space().map_from_set())
        if statement.name not in planes:
            result = result.union(isl.UnionMap.from_map(identity.intersect_domain(domain)))
            continue
        for n, piece in enumerate(_pieces(domain, planes[statement.name])):
            renamed = identity.intersect_domain(piece).set_tuple_name(
                isl.dim_type.out, f"{statement.name}__{n}")
            result = result.union(isl.UnionMap.from_map(renamed))
    return result


def _copy(source: isl.ScheduleNode, target: isl.ScheduleNode,
          back: isl.UnionMap) -> isl.ScheduleNode:
    """Insert below ``target`` the subtree under ``source``, statements mapped by ``back``;
    returns ``target``'s position in the new tree."""
    kind = source.get_type()
    if kind == isl.schedule_node_type.leaf:
        return target
    if kind == isl.schedule_node_type.band:
        partial = isl.UnionMap.from_multi_union_pw_aff(source.band_get_partial_schedule())
        target = target.insert_partial_schedule(
            isl.MultiUnionPwAff.from_union_map(partial.apply_domain(back)))
        return _copy(source.child(0), target.child(0), back).parent()
    if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        filters = isl.UnionSetList.alloc(source.get_ctx(), source.n_children())
        for k in range(source.n_children()):
            filters = filters.add(source.child(k).filter_get_filter().apply(back))
        insert = (target.insert_sequence if kind == isl.schedule_node_type.sequence
                  else target.insert_set)
        target = insert(filters)
        for k in range(source.n_children()):
            target = _copy(source.child(k).child(0), target.child(k).child(0), back)
            target = target.parent().parent()
        return target
    if kind == isl.schedule_node_type.filter:
        target = target.insert_filter(source.filter_get_filter().apply(back))
        return _copy(source.child(0), target.child(0), back).parent()
    raise ValueError(f"unexpected schedule node type {kind} in isl's schedule")


def pull_back(tree: isl.Schedule, domain: isl.UnionSet, rename: isl.UnionMap) -> isl.Schedule:
    """The tree of the pieces as a tree over ``domain`` (the original statements)."""
    back = rename.reverse()
    target = isl.Schedule.from_domain(domain).get_root().child(0)
    return _copy(tree.get_root().child(0), target, back).get_schedule()


# The point of a split is parallelism inside the sequential outer loop, so each
# piece gets its own loop nest (min fusion) with as many coincident members as isl
# can find; the user's --isl-schedule-* overrides still win.
SPLIT_OPTIONS = {"schedule_maximize_coincidence": 1}
SPLIT_FUSION = "min"


def split_planes(scop: Scop, deps: Dependences,
                 unsplit: isl.Schedule) -> dict[str, list[isl.Aff]]:
    """The hyperplanes of each statement left to the inner dimensions by the
    sequential outermost member of ``unsplit`` (empty when it is parallel)."""
    band = _outer_member(unsplit)
    if band is None:
        return {}
    return hyperplanes(scop, _uncarried(deps.validity, band))


def split_schedule(scop: Scop, deps: Dependences, planes: Mapping[str, list[isl.Aff]], *,
                   overrides: Mapping[str, int] | None = None) -> isl.Schedule:
    """isl's schedule of the statements cut at ``planes``, over the original domain
    (flags still to be recomputed)."""
    rename = renaming(scop, planes)
    domain = scop.domain()
    pieces = domain.apply(rename)

    def moved(umap: isl.UnionMap) -> isl.UnionMap:
        return umap.apply_domain(rename).apply_range(rename).coalesce()

    validity = moved(deps.validity)
    proximity = moved(deps.flow)
    sc = (isl.ScheduleConstraints.on_domain(pieces).set_context(scop.context)
          .set_validity(validity).set_proximity(proximity).set_coincidence(validity))
    tree = isl_schedule(scop, deps, SPLIT_FUSION, overrides={**SPLIT_OPTIONS, **(overrides or {})},
                        sc=sc, order=moved(program_order(scop)), optional=True)
    return pull_back(tree, domain, rename)
