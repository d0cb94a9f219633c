"""Schedule candidates of a SCoP, proven legal and ranked for a GPU.

In:  the SCoP, its ``Dependences`` and ``Options``.
Out: ``Candidate`` values, best first: the identity (original order, nested bands
     combined), isl's schedule under each fusion strategy (max, smart, min), the
     same with reductions relaxed where that adds parallelism (only with
     ``--relax-reductions``, off by default), and each of those
     with its kernel bands permuted for coalescing; ``choose`` returns the best,
     or the schedule loaded with ``--load-schedule``.

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
from typing import Mapping

import islpy as isl

from ..deps import Dependences
from ..diagnostics import Reporter
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
         view: tuple[Scop, Dependences] | None = None) -> list[Candidate]:
    """Candidates for ``schedules`` (assumed legal), best first.

    With ``view`` (the SCoP with its scalars expanded, and its dependences) every
    schedule is measured on that model: a schedule of the original SCoP is then
    flagged as if its expandable scalars were private to each thread, which is
    what the mapping's privatisation gives it, so both kinds compete fairly.
    """
    scored = []
    for order, schedule in enumerate(schedules):
        tree, model = schedule.tree, scop
        if view is not None:
            model = view[0]
            if schedule.scop is not view[0]:
                tree = mark_bands(tree, view[1], schedule.relaxed, split=True)
        metrics = analyze(model, tree, schedule.relaxed)
        scored.append((metrics.cost, metrics.n_kernels, metrics.host_loops,
                       len(schedule.relaxed), order,
                       Candidate(schedule, metrics.cost, explain(metrics, schedule), metrics)))
    scored.sort(key=lambda row: row[:5])
    return [row[-1] for row in scored]


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
    """Identity first, then isl's schedules; stops isl at the operation budget."""
    relaxable = reduction_statements(scop, deps) if options.relax_reductions else frozenset()
    found = [identity(scop, deps)]
    if relaxable:
        relaxed_identity = identity(scop, deps, relaxable)
        used = relaxation_used(relaxed_identity.tree, deps, relaxable)
        if used:
            found.append(identity(scop, deps, used))
    if not options.reschedule:
        return found
    strategies = FUSION_ORDER if options.fusion == "all" else (options.fusion,)
    overrides = isl_overrides(options)
    ctx = scop.domain().get_ctx()
    try:
        with operation_budget(ctx, options.schedule_max_operations):
            plain = constraints(scop, deps, frozenset())
            loose = constraints(scop, deps, relaxable) if relaxable else None
            for fusion in strategies:
                found.append(isl_candidate(scop, deps, fusion, overrides=overrides, sc=plain))
                if options.index_set_split:
                    found += _split_candidates(scop, deps, found[-1], overrides, found)
                if loose is not None:
                    relaxed = isl_candidate(scop, deps, fusion, relaxed=relaxable,
                                            overrides=overrides, sc=loose)
                    if relaxed.relaxed:
                        found.append(relaxed)
    except BudgetExceeded:
        reporter.warn(f"scheduling SCoP '{scop.name}' exceeded the isl operation budget "
                      f"({options.schedule_max_operations}, --schedule-max-operations); "
                      f"keeping the {len(found)} candidate(s) found so far, the identity "
                      f"among them", scop.location)
    return found


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
    variants = [coalesce_bands(s) for s in schedules]
    proven = []
    for schedule in _unique(schedules + [v for v in variants if v is not None]):
        try:
            check_legality(scop, deps, schedule)
        except IllegalSchedule as exc:  # a scheduler bug must never reach the GPU
            reporter.warn(f"dropping candidate '{schedule.name}': {exc.first.message}",
                          scop.location)
            continue
        proven.append(schedule)
    return proven


def candidates(scop: Scop, deps: Dependences, options: Options | None = None,
               reporter: Reporter | None = None) -> list[Candidate]:
    """Every candidate schedule of ``scop``, each proven legal, best first.

    With ``--expand-scalars`` the candidates of the SCoP with its scalars expanded
    (expand.py) compete too; their ``scop`` and ``deps`` are the expanded ones.
    """
    options = options or Options()
    reporter = reporter or Reporter()
    proven = _proven(scop, deps, _generate(scop, deps, options, reporter), reporter)
    expanded = expand_scalars(scop, deps) \
        if options.expand_scalars and options.reschedule else None
    if expanded is None:
        return rank(scop, proven)
    prefix = f"expand({','.join(expanded.arrays)})+"
    more = [replace(s, name=prefix + s.name)
            for s in _generate(expanded.scop, expanded.deps, options, reporter)]
    more = _proven(expanded.scop, expanded.deps, more, reporter)
    return rank(scop, proven + more, view=(expanded.scop, expanded.deps))


def choose(scop: Scop, deps: Dependences, options: Options | None = None,
           reporter: Reporter | None = None, *, index: int = 0) -> Schedule:
    """The schedule to compile, proven legal: the loaded one, else the best candidate.

    ``index`` is the SCoP's position in its file: SCoP k > 0 loads from and saves
    to ``scop_file(FILE, k)``.  With ``--save-schedule`` the result is written out.
    """
    options = options or Options()
    if options.load_schedule:
        chosen = _load(scop, deps, options, scop_file(options.load_schedule, index))
    else:
        chosen = candidates(scop, deps, options, reporter)[0].schedule
    check_legality(chosen.scop or scop, chosen.deps or deps, chosen)
    if options.save_schedule:
        save_schedule(chosen, scop_file(options.save_schedule, index))
    return chosen


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
    chosen = ranked[0].schedule
    if options.load_schedule or options.save_schedule:
        chosen = choose(scop, deps, options, reporter, index=index)
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
                dims = "".join(f"[{e}]" for e in array.extents)
                lines.append(f"# expanded scalar: {array.name}{dims} in {', '.join(users)}")
    return "\n".join(lines) + "\n" + chosen.yaml()
