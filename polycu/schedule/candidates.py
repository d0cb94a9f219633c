"""Schedule candidates of a SCoP, each proven legal.

In:  the SCoP, its ``Dependences`` and a ``Strategy`` (which schedules to try).
Out: ``Schedule`` values: the identity (original order, nested bands combined),
     isl's schedule under each fusion strategy (max, smart, min), the same cut at
     dependence hyperplanes (split.py), the same with reductions relaxed where that
     adds parallelism (only with ``relax_reductions``, off by default), and all of
     those again for the SCoP with its temporaries expanded (expand.py; such schedules
     carry the expanded model).  ``original`` is the last resort: the original
     order with no parallelism promised.  Ranking them is the mapping's job
     (``polycu.gpu.rank``): it measures the program each one becomes.

isl fails on some inputs (strided domains with ``%`` or ``/`` in subscripts):
a candidate whose computation, marking or proof raises an isl error is dropped
with a note, never silently replaced; the others go on.  When none is left, the
original order remains: flags cleared (so the mapping runs it in one thread) and
proven like every other schedule.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, TypeVar

import islpy as isl

from ..deps import Dependences, is_quota, isl_message
from ..diagnostics import Reporter, error
from ..model import Scop, statement_names
from .bands import mark_bands, relaxation_used
from .expand import Expanded, expand_temporaries
from .io import load_schedule
from .isl_scheduler import (ALGORITHMS, BudgetExceeded, constraints, isl_schedule,
                            operation_budget)
from .legality import IllegalSchedule, check_legality
from .split import split_planes, split_schedule
from .value import Schedule, is_band, path_of, walk

FUSION_ORDER = ("max", "smart", "min")


@dataclass(frozen=True)
class Strategy:
    """Which schedules to try (the driver fills it from the options of the same names)."""

    reschedule: bool = True              # isl's scheduler, not only the original order
    fusion: str = "all"                  # 'max', 'smart', 'min' or 'all' of them
    index_set_split: bool = True
    expand_scalars: bool = True
    relax_reductions: bool = False
    relayout: bool = True                # gpu/rank.py: arrays along a skewed basis
    max_operations: int = 20_000_000     # isl budget for scheduling one SCoP (0: none)
    isl_options: Mapping[str, int] = field(default_factory=dict)  # schedule_* of isl's ctx


def identity(scop: Scop, deps: Dependences, relaxed: frozenset[str] = frozenset()) -> Schedule:
    """The original execution order, nested bands combined where permutable."""
    tree = scop.schedule.intersect_domain(scop.domain())
    name = "identity" + _relax_suffix(relaxed)
    return Schedule(name, mark_bands(tree, deps, relaxed, split=True), relaxed, scop, deps)


def _relax_suffix(relaxed: frozenset[str]) -> str:
    return f"+relax({','.join(sorted(relaxed))})" if relaxed else ""


# Reductions the GPU can update in parallel: '+' on the types atomicAdd supports.
ATOMIC_OPERATORS = frozenset({"+"})
ATOMIC_TYPES = frozenset({"double", "float", "int", "unsigned int", "unsigned"})


def reduction_statements(scop: Scop, deps: Dependences) -> frozenset[str]:
    """Reduction statements worth relaxing: they have reduction dependences and an
    operator and element type with a native atomic update (the mapping's lowering)."""
    names = set(statement_names(deps.reduction.domain()))
    return frozenset(
        s.name for s in scop.statements
        if s.name in names and s.reduction in ATOMIC_OPERATORS
        and scop.array(s.reduction_array).element_type in ATOMIC_TYPES)


def isl_candidate(scop: Scop, deps: Dependences, fusion: str, *,
                  relaxed: frozenset[str] = frozenset(),
                  overrides: Mapping[str, int] | None = None,
                  sc: isl.ScheduleConstraints | None = None) -> Schedule:
    """isl's schedule for one fusion strategy, marked; ``relaxed`` trimmed to what is used."""
    tree = isl_schedule(scop, deps, fusion, relaxed=relaxed, overrides=overrides, sc=sc)
    tree = mark_bands(tree, deps, relaxed, split=True)
    if relaxed:
        relaxed = relaxation_used(tree, deps, relaxed)
        tree = mark_bands(tree, deps, relaxed, split=True)
    return Schedule(f"isl-{fusion}fuse{_relax_suffix(relaxed)}", tree, relaxed, scop, deps)


def _generate(scop: Scop, deps: Dependences, strategy: Strategy,
              reporter: Reporter) -> list[Schedule]:
    """Identity first, then isl's schedules; stops isl at the operation budget.

    A candidate isl fails on is dropped with a note (``attempt``); the others go on.
    """
    relaxable = reduction_statements(scop, deps) if strategy.relax_reductions else frozenset()
    found = attempt(scop, reporter, "identity", lambda: [identity(scop, deps)])
    if relaxable:
        found += attempt(scop, reporter, "identity" + _relax_suffix(relaxable),
                          lambda: _relaxed_identity(scop, deps, relaxable))
    if not strategy.reschedule:
        return found
    strategies = FUSION_ORDER if strategy.fusion == "all" else (strategy.fusion,)
    overrides = strategy.isl_options
    ctx = scop.domain().get_ctx()
    try:
        with operation_budget(ctx, strategy.max_operations):
            built = attempt(scop, reporter, "isl-*fuse", lambda: [
                constraints(scop, deps, frozenset()),
                constraints(scop, deps, relaxable) if relaxable else None])
            if not built:
                return found
            plain, loose = built
            for fusion in strategies:
                name = f"isl-{fusion}fuse"
                unsplit = attempt(scop, reporter, name, lambda: [
                    isl_candidate(scop, deps, fusion, overrides=overrides, sc=plain)])
                found += unsplit
                if strategy.index_set_split and unsplit:
                    found += attempt(scop, reporter, f"isl-split after {name}",
                                      lambda: _split_candidates(scop, deps, unsplit[0],
                                                                overrides, found))
                if loose is not None:
                    found += attempt(scop, reporter, name + _relax_suffix(relaxable), lambda: [
                        s for s in [isl_candidate(scop, deps, fusion, relaxed=relaxable,
                                                  overrides=overrides, sc=loose)]
                        if s.relaxed])
    except BudgetExceeded:
        reporter.warn(f"scheduling SCoP '{scop.name}' exceeded the isl operation budget "
                      f"({strategy.max_operations}, --schedule-max-operations); "
                      f"keeping the {len(found)} candidate(s) found so far, the identity "
                      f"among them", scop.location)
    return found


def _relaxed_identity(scop: Scop, deps: Dependences,
                      relaxable: frozenset[str]) -> list[Schedule]:
    """The identity with the reductions it really runs in parallel relaxed, if any."""
    used = relaxation_used(identity(scop, deps, relaxable).tree, deps, relaxable)
    return [identity(scop, deps, used)] if used else []


T = TypeVar("T")


def attempt(scop: Scop, reporter: Reporter, name: str, make: Callable[[], list[T]]) -> list[T]:
    """``make()``, or nothing when isl fails on it: the candidate ``name`` is then
    dropped with a note (its siblings and the identity remain).  Running out of
    the operation budget is not such a failure: it propagates to the budget's owner."""
    try:
        return make()
    except isl.Error as exc:
        if is_quota(exc, scop.context.get_ctx()):
            raise
        reporter.note(f"isl fails on the candidate schedule '{name}' of SCoP '{scop.name}' "
                      f"({isl_message(exc)}); it is dropped", scop.location)
        return []


def _split_candidates(scop: Scop, deps: Dependences, unsplit: Schedule,
                      overrides: Mapping[str, int], found: list[Schedule]) -> list[Schedule]:
    """isl's schedule of the pieces of ``unsplit``'s statements (split.py), unless an
    earlier candidate was split at the same hyperplanes."""
    planes = split_planes(scop, deps, unsplit.tree)
    if not planes:
        return []
    cuts = ";".join(f"{stmt}:" + ",".join(_plane_text(aff) for aff in affs)
                    for stmt, affs in sorted(planes.items()))
    name = f"isl-split({cuts})"
    if any(s.name == name for s in found):
        return []
    tree = split_schedule(scop, deps, planes, overrides=overrides)
    return [Schedule(name, mark_bands(tree, deps, frozenset(), split=True), frozenset(),
                     scop, deps)]


def _plane_text(aff: isl.Aff) -> str:
    """``-k+j`` for the hyperplane ``j - k = 0``: the constant, then each iterator
    and parameter with its coefficient, in isl's order."""
    terms = []
    constant = aff.get_constant_val().to_python()
    if constant:
        terms.append(str(constant))
    for kind in (isl.dim_type.param, isl.dim_type.in_):
        for k in range(aff.dim(kind)):
            c = aff.get_coefficient_val(kind, k).to_python()
            if c:
                factor = {1: "+", -1: "-"}.get(c, f"{c:+d}")
                terms.append(factor + aff.get_dim_name(kind, k))
    return "".join(terms).lstrip("+") or "0"


def _signature(schedule: Schedule) -> tuple:
    """The band structure and flags: with the schedule map, what the mapping sees."""
    bands = []
    for node in walk(schedule.tree):
        if is_band(node):
            n = node.band_n_member()
            bands.append((path_of(node), n, bool(node.band_get_permutable()),
                          tuple(bool(node.band_member_get_coincident(k)) for k in range(n))))
    return (schedule.relaxed, tuple(bands))


def _unique(schedules: list[Schedule]) -> list[Schedule]:
    """Drop schedules equal to an earlier one (same time of every instance, same bands).

    The survivor's name lists the others (``identity=isl-maxfuse``).
    """
    kept: list[tuple[tuple, isl.UnionMap, Schedule]] = []
    for schedule in schedules:
        signature, relation = _signature(schedule), schedule.get_map()
        for k, (sig, rel, first) in enumerate(kept):
            if sig == signature and rel.is_equal(relation):
                kept[k] = (sig, rel, replace(first, name=f"{first.name}={schedule.name}"))
                break
        else:
            kept.append((signature, relation, schedule))
    return [schedule for _, _, schedule in kept]


def prove(schedules: list[Schedule], reporter: Reporter) -> list[Schedule]:
    """The schedules the legality proof accepts, each on its own model, after
    dropping those equal to an earlier one of the same model."""
    proven = []
    models: list[Scop] = []
    for schedule in schedules:
        if not any(m is schedule.scop for m in models):
            models.append(schedule.scop)
    for model in models:
        for schedule in _unique([s for s in schedules if s.scop is model]):
            if _legal(schedule, reporter):
                proven.append(schedule)
    return proven


def _legal(schedule: Schedule, reporter: Reporter) -> bool:
    """Whether ``schedule`` is proven legal; a failed proof is reported, never ignored."""
    scop = schedule.scop
    try:
        check_legality(scop, schedule.deps, schedule)
    except IllegalSchedule as exc:  # a scheduler bug must never reach the GPU
        reporter.warn(f"dropping candidate '{schedule.name}': {exc.first.message}",
                      scop.location)
        return False
    except isl.Error as exc:
        if is_quota(exc, scop.context.get_ctx()):
            raise
        reporter.note(f"isl fails on the legality proof of candidate '{schedule.name}' "
                      f"({isl_message(exc)}); it is dropped", scop.location)
        return False
    return True


def generate(scop: Scop, deps: Dependences, strategy: Strategy | None = None,
             reporter: Reporter | None = None) -> list[Schedule]:
    """The candidate schedules of ``scop``, not yet proven (``prove``).

    With ``expand_scalars`` the schedules of the SCoP with its temporaries expanded
    (expand.py) follow, then those of the SCoP with its reads of values from
    before it also served by snapshots where there are such reads (snapshot.py);
    their ``scop`` and ``deps`` are the transformed ones.
    """
    strategy = strategy or Strategy()
    reporter = reporter or Reporter()
    found = _generate(scop, deps, strategy, reporter)
    if not (strategy.expand_scalars and strategy.reschedule):
        return found
    quiet = Reporter(stream=io.StringIO())   # the second model repeats the first's notes
    models: list[Expanded] = []
    for snapshot, heard in ((False, reporter), (True, quiet)):
        model = attempt(scop, reporter, "expand(...)",
                        lambda: [expand_temporaries(scop, deps, heard, snapshot)])
        if model and model[0] is not None \
                and all(m.arrays != model[0].arrays for m in models):
            models.append(model[0])
    for model in models:
        prefix = f"expand({','.join(model.arrays)})+"
        found += [replace(s, name=prefix + s.name)
                  for s in _generate(model.scop, model.deps, strategy, reporter)]
    return found


#: The name of ``original``'s schedule, the last of the ``preferences``.
ORIGINAL = "original"


def original(scop: Scop, deps: Dependences) -> Schedule:
    """The original execution order with every band flag cleared, proven legal.

    The last resort when isl fails on every other schedule or on what follows it
    (mapping, AST generation): it needs no scheduler, promises no parallelism (the
    mapping runs it in one thread) and is proven like every other schedule.
    """
    tree = scop.schedule.intersect_domain(scop.domain())
    schedule = Schedule(ORIGINAL, _unflagged(tree.get_root()).get_schedule(), frozenset(),
                        scop, deps)
    try:
        check_legality(scop, deps, schedule)
    except isl.Error as exc:
        if is_quota(exc, scop.context.get_ctx()):
            raise
        raise error(f"isl cannot prove even the original order of SCoP '{scop.name}' legal "
                    f"({isl_message(exc)})", scop.location) from None
    return schedule


def _unflagged(node: isl.ScheduleNode) -> isl.ScheduleNode:
    """The subtree at ``node`` with no band permutable and no member coincident."""
    if is_band(node):
        node = node.band_set_permutable(0)
        for k in range(node.band_n_member()):
            node = node.band_member_set_coincident(k, 0)
    for i in range(node.n_children()):
        node = _unflagged(node.child(i)).parent()
    return node


def load(scop: Scop, deps: Dependences, path: str, expand: bool = True) -> Schedule:
    """The schedule saved in ``path`` (``--load-schedule``), proven on the SCoP's model
    or, when only that of its expanded scalars makes it legal (a saved
    ``expand(...)`` candidate: the expansion is deterministic), on that one."""
    try:
        return load_schedule(scop, deps, path)
    except IllegalSchedule:
        if not expand:
            raise
        for snapshot in (False, True):
            expanded = expand_temporaries(scop, deps, snapshot=snapshot)
            if expanded is None:
                continue
            try:
                return load_schedule(expanded.scop, expanded.deps, path)
            except IllegalSchedule:
                pass
        raise
