"""Band properties computed from the dependences: ``permutable`` and ``coincident``.

In:  any schedule tree over the SCoP's domain and the ``Dependences``.
Out: the same execution order with every band node's flags (re)computed, and
     directly nested bands combined where the combination stays permutable.

Mathematics (PPCG's semantics).  At a band node ``B`` with partial schedule
``P = (p_0 .. p_{n-1})`` let ``L_B`` be the dependences ``s -> t`` with both ends
reaching ``B`` and equal outer (prefix) schedule: the dependences no outer band
has carried.  With the distance set ``D_B = { P(t) - P(s) : (s -> t) in L_B }``

* ``B`` is permutable  iff  ``D_B`` lies in ``{ d : d_k >= 0 for all k }``;
* member ``k`` is coincident iff ``d_k = 0`` for every ``d`` in the distance set of
  ``L_B`` minus the relaxed reduction dependences.

Relaxation only ever touches coincidence, never validity or permutability.
"""
from __future__ import annotations

import islpy as isl

from ..deps import Dependences
from ..model import sets_of
from .value import is_band

_dim = isl.dim_type.set


def coincidence_dependences(deps: Dependences, relaxed: frozenset[str]) -> isl.UnionMap:
    """What must have distance 0 on a parallel member when the ``relaxed`` reductions
    are lowered atomically (``Dependences.relaxed``: the rest of the validity, kept
    with every instance of the reduction chains)."""
    return deps.relaxed(relaxed) if relaxed else deps.validity


def live_dependences(node: isl.ScheduleNode, deps: isl.UnionMap) -> isl.UnionMap:
    """``L_node``: dependences between instances reaching ``node`` not carried by outer bands.

    Both ends must reach the node (so no ancestor sequence separates them) and
    have the same prefix schedule: ``s -> t`` with ``prefix(s) = prefix(t)``.
    """
    domain = node.get_domain()
    live = deps.intersect_domain(domain).intersect_range(domain)
    if node.get_schedule_depth() > 0:
        live = live.eq_at_multi_union_pw_aff(node.get_prefix_schedule_multi_union_pw_aff())
    return live


def distances(live: isl.UnionMap, partial: isl.MultiUnionPwAff) -> isl.Set | None:
    """``{ P(t) - P(s) : (s -> t) in live }`` as one set, or None when ``live`` is empty."""
    if live.is_empty():
        return None
    pmap = isl.UnionMap.from_multi_union_pw_aff(partial)
    deltas = live.apply_domain(pmap).apply_range(pmap).deltas()
    sets = sets_of(deltas)
    if not sets:
        return None
    assert len(sets) == 1, "a band's partial schedule has a single range space"
    return sets[0]


def band_flags(valid: isl.Set | None, coinc: isl.Set | None, n: int) -> tuple[bool, list[bool]]:
    """(permutable, coincident per member) from the two distance sets of a band."""
    permutable = valid is None or all(
        valid.upper_bound_val(_dim, k, -1).is_empty() for k in range(n))
    coincident = [coinc is None or (coinc.upper_bound_val(_dim, k, -1).is_empty()
                                    and coinc.lower_bound_val(_dim, k, 1).is_empty())
                  for k in range(n)]
    return permutable, coincident


def leading_coincident(coincident: list[bool]) -> int:
    """How many outermost members are coincident (what the mapping can parallelise)."""
    count = 0
    for flag in coincident:
        if not flag:
            break
        count += 1
    return count


class _Marker:
    """Recomputes flags band by band, top-down, combining nested bands on the way."""

    def __init__(self, deps: Dependences, relaxed: frozenset[str], combine: bool, split: bool):
        self.validity = deps.validity
        self.coincidence = coincidence_dependences(deps, relaxed)
        self.combine = combine
        self.split = split

    def flags(self, node: isl.ScheduleNode, partial: isl.MultiUnionPwAff
              ) -> tuple[bool, list[bool]]:
        valid = distances(live_dependences(node, self.validity), partial)
        coinc = distances(live_dependences(node, self.coincidence), partial)
        return band_flags(valid, coinc, partial.dim(isl.dim_type.set))

    def visit(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        if is_band(node):
            node = self.mark(node)
        for i in range(node.n_children()):
            node = self.visit(node.child(i)).parent()
        return node

    def mark(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        partial = node.band_get_partial_schedule()
        permutable, coincident = self.flags(node, partial)
        while self.combine and node.n_children() == 1 and is_band(node.child(0)):
            merged = self.try_merge(node, partial, coincident)
            if merged is None:
                break
            node, partial, permutable, coincident = merged
        if self.split and len(coincident) > 1 and not coincident[0]:
            # A sequential head member runs on the host: cut it off; the rest is
            # marked on its own, below it, once the head has carried what it carries.
            node = node.band_split(1)
            permutable, coincident = self.flags(node, node.band_get_partial_schedule())
        node = node.band_set_permutable(int(permutable))
        for k, flag in enumerate(coincident):
            node = node.band_member_set_coincident(k, int(flag))
        return node

    def try_merge(self, node: isl.ScheduleNode, partial: isl.MultiUnionPwAff,
                  coincident: list[bool]):
        """Combine ``node`` with its child band when the result is permutable.

        The combination is refused when the outer band has no leading coincident
        member while the inner one has some: the inner band would then lose its
        parallel prefix (``(t, i)`` with only ``i`` parallel is worse for the GPU
        than a host loop ``t`` around a parallel band ``i``).
        """
        child = node.child(0)
        child_partial = child.band_get_partial_schedule()
        combined = partial.flat_range_product(child_partial)
        permutable, merged_coincident = self.flags(node, combined)
        if not permutable:
            return None
        if leading_coincident(coincident) == 0:
            _, child_coincident = self.flags(child, child_partial)
            if any(child_coincident):
                return None
        node = node.delete().delete().insert_partial_schedule(combined)
        return node, combined, permutable, merged_coincident


# mark_bands: for every band B, permutable(B) <=> D_B >= 0 member-wise and
# coincident_k(B) <=> d_k = 0 on D_B computed without the relaxed reductions.
def mark_bands(tree: isl.Schedule, deps: Dependences,
               relaxed: frozenset[str] = frozenset(), *, combine: bool = True,
               split: bool = False) -> isl.Schedule:
    """The tree with every band's flags computed from ``deps``.

    Flags found on the input are ignored: trees loaded from files or built by hand
    are marked exactly like the scheduler's output, so the mapping can trust them.
    ``combine`` merges a band with its only child band when the result stays
    permutable (and keeps its parallel prefix); ``split`` cuts a band whose first
    member is not coincident after that member, the GPU view where such a member
    is a host loop and the rest may still be parallel.  Neither changes the
    execution order.
    """
    marker = _Marker(deps, frozenset(relaxed), combine, split)
    return marker.visit(tree.get_root()).get_schedule()


# relaxation_used: S is needed iff some band member k marked coincident has a
# reduction dependence of S, live at that band, with distance d_k != 0.
def relaxation_used(tree: isl.Schedule, deps: Dependences,
                    relaxed: frozenset[str]) -> frozenset[str]:
    """The relaxed statements whose reductions some coincident member really parallelises.

    Only these need atomics; the others can be dropped from ``relaxed`` without
    changing any flag.
    """
    used: set[str] = set()
    per_statement = {name: deps.reductions_of([name]) for name in relaxed}
    stack = [tree.get_root()]
    while stack:
        node = stack.pop()
        stack.extend(node.child(i) for i in range(node.n_children()))
        if not is_band(node):
            continue
        n = node.band_n_member()
        members = [k for k in range(n) if node.band_member_get_coincident(k)]
        if not members:
            continue
        partial = node.band_get_partial_schedule()
        for name, reduction in per_statement.items():
            if name in used:
                continue
            dist = distances(live_dependences(node, reduction), partial)
            if dist is not None and not all(band_flags(None, dist, n)[1][k] for k in members):
                used.add(name)
    return frozenset(used)
