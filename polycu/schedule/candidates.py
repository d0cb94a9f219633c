"""Schedule candidates of a SCoP, proven legal and ranked for a GPU.

In:  the SCoP, its ``Dependences`` and ``Options``.
Out: ``Candidate`` values, best first: the identity (original order, nested bands
     combined), isl's schedule under each fusion strategy (max, smart, min), the
     same with reductions relaxed where that adds parallelism (only with
     ``--relax-reductions``, off by default), and each of those
     with its kernel bands permuted for coalescing; ``choose`` returns the best,
     or the schedule loaded with ``--load-schedule``; ``preferences`` lists them
     in order, then the original order (``original``), for the code generator to
     fall back on.

isl fails on some inputs (strided domains with ``%`` or ``/`` in subscripts):
a candidate whose computation, marking, proof or measurement raises an isl
error is dropped with a note, never silently replaced; the others compete as
usual.  When none is left, the original order remains: flags cleared (so the
mapping runs it in one thread) and proven like every other schedule.

Every candidate is marked (``mark_bands``) and proven (``check_legality``) before
it is ranked.  The ranking criterion is the estimated cost of ``metrics.py``: it
grows when the outermost parallel band is shallow (few threads), when the
innermost parallel member does not make accesses to the largest arrays
unit-stride, and with the number of kernel launches (kernels times host-loop
iterations).  Ties go to fewer kernels, fewer host loops, fewer relaxed
reductions, then to the earlier candidate (identity first).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Mapping, TypeVar

import islpy as isl

from ..deps import Dependences, is_quota, isl_message
from ..diagnostics import Reporter, error
from ..model import Scop, statement_names
from ..options import Options
from .bands import mark_bands, relaxation_used
from .expand import expand_scalars
from .io import load_schedule, save_schedule, scop_file
from .isl_scheduler import (ALGORITHMS, BudgetExceeded, constraints, isl_schedule,
                            operation_budget)
from .legality import IllegalSchedule, check_legality
from .metrics import Metrics, analyze
from .split import split_planes, split_schedule
from .transform import coalesce_bands
from .value import Schedule, is_band, path_of, walk

FUSION_ORDER = ("max", "smart", "min")


@dataclass(frozen=True)
class Candidate:
    """A proven-legal schedule with its ranking: ``score`` is the estimated cost."""

    schedule: Schedule
    score: float
    explanation: str
    metrics: Metrics

    @property
    def parallel_depth(self) -> int:
        return self.metrics.parallel_depth

    @property
    def coalesced(self) -> bool:
        return self.metrics.coalesced

    @property
    def kernels(self) -> int:
        return self.metrics.n_kernels

    @property
    def host_loops(self) -> int:
        return self.metrics.host_loops


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


def isl_overrides(options: Options) -> dict[str, int]:
    """The --isl-schedule-* options the user set, as isl context option values."""
    result: dict[str, int] = {}
    for name in ("outer_coincidence", "maximize_band_depth", "maximize_coincidence",
                 "serialize_sccs", "whole_component", "treat_coalescing",
                 "separate_components", "carry_self_first", "max_coefficient",
                 "max_constant_term"):
        value = getattr(options, f"isl_schedule_{name}")
        if value is not None:
            result[f"schedule_{name}"] = int(value)
    if options.isl_schedule_algorithm is not None:
        result["schedule_algorithm"] = ALGORITHMS[options.isl_schedule_algorithm]
    return result


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


def rank(scop: Scop, schedules: list[Schedule],
         view: tuple[Scop, Dependences] | None = None,
         reporter: Reporter | None = None) -> list[Candidate]:
    """Candidates for ``schedules`` (assumed legal), best first.

    With ``view`` (the SCoP with its scalars expanded, and its dependences) every
    schedule is measured on that model: a schedule of the original SCoP is then
    flagged as if its expandable scalars were private to each thread, which is
    what the mapping's privatisation gives it, so both kinds compete fairly.  A
    schedule isl fails to measure is dropped (with a note to ``reporter``).
    """
    reporter = reporter or Reporter()
    scored = []
    for order, schedule in enumerate(schedules):
        measured = _attempt(scop, reporter, schedule.name,
                            lambda: [_measure(scop, schedule, view)])
        if measured:
            metrics = measured[0]
            scored.append((metrics.cost, metrics.n_kernels, metrics.host_loops,
                           len(schedule.relaxed), order,
                           Candidate(schedule, metrics.cost, explain(metrics, schedule), metrics)))
    scored.sort(key=lambda row: row[:5])
    return [row[-1] for row in scored]


def _measure(scop: Scop, schedule: Schedule, view: tuple[Scop, Dependences] | None) -> Metrics:
    """The metrics of ``schedule``, on the model ``view`` when given (see ``rank``)."""
    tree, model = schedule.tree, scop
    if view is not None:
        model = view[0]
        if schedule.scop is not view[0]:
            tree = mark_bands(tree, view[1], schedule.relaxed, split=True)
    return analyze(model, tree, schedule.relaxed)


def explain(metrics: Metrics, schedule: Schedule) -> str:
    """One line saying why a candidate scores as it does."""
    parts = [f"cost {metrics.cost:.3g}", f"{metrics.n_kernels} kernel(s)",
             f"parallel depth {metrics.parallel_depth}",
             "coalesced" if metrics.coalesced else "not coalesced",
             f"{metrics.host_loops} host loop(s)"]
    sequential = [k for k in metrics.kernels if k.depth == 0]
    if sequential:
        parts.append(f"{len(sequential)} sequential part(s)")
    if schedule.relaxed:
        parts.append(f"atomic reductions in {', '.join(sorted(schedule.relaxed))}")
    return ", ".join(parts)


def _generate(scop: Scop, deps: Dependences, options: Options,
              reporter: Reporter) -> list[Schedule]:
    """Identity first, then isl's schedules; stops isl at the operation budget.

    A candidate isl fails on is dropped with a note (``_attempt``); the others go on.
    """
    relaxable = reduction_statements(scop, deps) if options.relax_reductions else frozenset()
    found = _attempt(scop, reporter, "identity", lambda: [identity(scop, deps)])
    if relaxable:
        found += _attempt(scop, reporter, "identity" + _relax_suffix(relaxable),
                          lambda: _relaxed_identity(scop, deps, relaxable))
    if not options.reschedule:
        return found
    strategies = FUSION_ORDER if options.fusion == "all" else (options.fusion,)
    overrides = isl_overrides(options)
    ctx = scop.domain().get_ctx()
    try:
        with operation_budget(ctx, options.schedule_max_operations):
            built = _attempt(scop, reporter, "isl-*fuse", lambda: [
                constraints(scop, deps, frozenset()),
                constraints(scop, deps, relaxable) if relaxable else None])
            if not built:
                return found
            plain, loose = built
            for fusion in strategies:
                name = f"isl-{fusion}fuse"
                unsplit = _attempt(scop, reporter, name, lambda: [
                    isl_candidate(scop, deps, fusion, overrides=overrides, sc=plain)])
                found += unsplit
                if options.index_set_split and unsplit:
                    found += _attempt(scop, reporter, f"isl-split after {name}",
                                      lambda: _split_candidates(scop, deps, unsplit[0],
                                                                overrides, found))
                if loose is not None:
                    found += _attempt(scop, reporter, name + _relax_suffix(relaxable), lambda: [
                        s for s in [isl_candidate(scop, deps, fusion, relaxed=relaxable,
                                                  overrides=overrides, sc=loose)]
                        if s.relaxed])
    except BudgetExceeded:
        reporter.warn(f"scheduling SCoP '{scop.name}' exceeded the isl operation budget "
                      f"({options.schedule_max_operations}, --schedule-max-operations); "
                      f"keeping the {len(found)} candidate(s) found so far, the identity "
                      f"among them", scop.location)
    return found


def _relaxed_identity(scop: Scop, deps: Dependences,
                      relaxable: frozenset[str]) -> list[Schedule]:
    """The identity with the reductions it really runs in parallel relaxed, if any."""
    used = relaxation_used(identity(scop, deps, relaxable).tree, deps, relaxable)
    return [identity(scop, deps, used)] if used else []


T = TypeVar("T")


def _attempt(scop: Scop, reporter: Reporter, name: str, make: Callable[[], list[T]]) -> list[T]:
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


def _proven(scop: Scop, deps: Dependences, schedules: list[Schedule],
            reporter: Reporter) -> list[Schedule]:
    """The schedules (with their coalescing variants) that the proof accepts."""
    variants = [v for s in schedules
                for v in _attempt(scop, reporter, f"{s.name}|coalesce",
                                  lambda: [v for v in [coalesce_bands(s)] if v is not None])]
    proven = []
    for schedule in _unique(schedules + variants):
        try:
            check_legality(scop, deps, schedule)
        except IllegalSchedule as exc:  # a scheduler bug must never reach the GPU
            reporter.warn(f"dropping candidate '{schedule.name}': {exc.first.message}",
                          scop.location)
            continue
        except isl.Error as exc:
            if is_quota(exc, scop.context.get_ctx()):
                raise
            reporter.note(f"isl fails on the legality proof of candidate '{schedule.name}' "
                          f"({isl_message(exc)}); it is dropped", scop.location)
            continue
        proven.append(schedule)
    return proven


def candidates(scop: Scop, deps: Dependences, options: Options | None = None,
               reporter: Reporter | None = None) -> list[Candidate]:
    """Every candidate schedule of ``scop``, each proven legal, best first.

    With ``--expand-scalars`` the candidates of the SCoP with its scalars expanded
    (expand.py) compete too; their ``scop`` and ``deps`` are the expanded ones.
    The list is empty only when isl fails on every candidate, the identity included.
    """
    options = options or Options()
    reporter = reporter or Reporter()
    proven = _proven(scop, deps, _generate(scop, deps, options, reporter), reporter)
    expanded = None
    if options.expand_scalars and options.reschedule:
        found = _attempt(scop, reporter, "expand(...)",
                         lambda: [expand_scalars(scop, deps, reporter)])
        expanded = found[0] if found else None
    if expanded is None:
        return rank(scop, proven, reporter=reporter)
    prefix = f"expand({','.join(expanded.arrays)})+"
    more = [replace(s, name=prefix + s.name)
            for s in _generate(expanded.scop, expanded.deps, options, reporter)]
    more = _proven(expanded.scop, expanded.deps, more, reporter)
    return rank(scop, proven + more, view=(expanded.scop, expanded.deps), reporter=reporter)


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


def choose(scop: Scop, deps: Dependences, options: Options | None = None,
           reporter: Reporter | None = None, *, index: int = 0) -> Schedule:
    """The schedule to compile, proven legal: the loaded one, else the best candidate
    (the original order when isl fails on every candidate).

    ``index`` is the SCoP's position in its file: SCoP k > 0 loads from and saves
    to ``scop_file(FILE, k)``.  With ``--save-schedule`` the result is written out.
    """
    options = options or Options()
    chosen = next(preferences(scop, deps, options, reporter, index=index))
    if options.save_schedule:
        save_schedule(chosen, scop_file(options.save_schedule, index))
    return chosen


def preferences(scop: Scop, deps: Dependences, options: Options | None = None,
                reporter: Reporter | None = None, *, index: int = 0) -> Iterator[Schedule]:
    """The schedules to compile, in order of preference, each proven legal: the
    loaded one (``--load-schedule``) or the ranked candidates, then ``original``
    (built only when asked for).

    The code generator takes the first one it can map and generate code for
    within its operation budget (codegen's ``program_of``).
    """
    options = options or Options()
    reporter = reporter or Reporter()
    if options.load_schedule:
        loaded = _load(scop, deps, options, scop_file(options.load_schedule, index))
        check_legality(loaded.scop or scop, loaded.deps or deps, loaded)
        yield loaded
    else:
        ranked = candidates(scop, deps, options, reporter)
        if not ranked:
            reporter.note(f"isl fails on every candidate schedule of SCoP '{scop.name}'; "
                          "it keeps its original order, in one GPU thread", scop.location)
        yield from (c.schedule for c in ranked)
    yield original(scop, deps)


def _load(scop: Scop, deps: Dependences, options: Options, path: str) -> Schedule:
    """The loaded schedule, proven on the SCoP's model or, when only that of its
    expanded scalars makes it legal (a saved ``expand(...)`` candidate: the
    expansion is deterministic), on that one."""
    try:
        return load_schedule(scop, deps, path)
    except IllegalSchedule:
        expanded = expand_scalars(scop, deps) if options.expand_scalars else None
        if expanded is None:
            raise
        try:
            return load_schedule(expanded.scop, expanded.deps, path)
        except IllegalSchedule:
            pass
        raise


def format_candidates(scop: Scop, deps: Dependences, options: Options | None = None,
                      reporter: Reporter | None = None, *, index: int = 0) -> str:
    """``--dump-schedule``: the ranking as YAML comments, then the chosen tree.

    isl's reader skips the comments, so the output can be given to --load-schedule.
    """
    options = options or Options()
    ranked = candidates(scop, deps, options, reporter)
    if options.load_schedule or options.save_schedule or not ranked:
        chosen = choose(scop, deps, options, reporter, index=index)
    else:
        chosen = ranked[0].schedule
    lines = [f"# schedule candidates of SCoP {scop.name} (best first; cost in estimated ns)"]
    for k, cand in enumerate(ranked):
        lines.append(f"#  {k + 1}. {cand.schedule.name}: {cand.explanation}")
    lines.append(f"# chosen: {chosen.name}")
    if chosen.relaxed:
        lines.append(f"# relaxed reductions (atomics): {', '.join(sorted(chosen.relaxed))}")
    if chosen.scop is not None and chosen.scop is not scop:
        for array in chosen.scop.arrays:
            if array.local and not any(a.name == array.name for a in scop.arrays):
                users = [s.name for s in chosen.scop.statements
                         if any(a.array == array.name for a in s.accesses)]
                dims = "".join(f"[{'' if e is None else e}]" for e in array.extents)
                lines.append(f"# expanded scalar: {array.name}{dims} in {', '.join(users)}")
    return "\n".join(lines) + "\n" + chosen.yaml()
