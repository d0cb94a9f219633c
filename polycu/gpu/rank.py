"""Ranking schedule candidates by the GPU program each one becomes.

In:  proven-legal ``Schedule`` values (``polycu.schedule``) and the tile and block
     ``Sizes``.
Out: ``Candidate`` values, best first: each schedule with the ``GpuProgram`` the
     mapping builds from it and that program's ``Metrics`` (cost.py).

There is one model of parallelism: the mapping's.  A candidate is measured on the
program ``map_to_gpu`` returns for it (kernels, mapped members, host loops,
privatised scalars, atomics), and the driver compiles that very program, so what
the ranking promised is what runs.  The coalescing variant of each schedule
(``coalesce_bands``) is chosen with the same measure.  Ties go to fewer kernels,
fewer host loops, fewer relaxed reductions, then to the earlier candidate
(identity first).  With a fitted model (``estimate``: ``polycu.fitted``, from
``polycu device --fit``), its estimate of each program replaces the cost; else the
kernels a later phase will run on tensor cores (``tensor``: the driver asks the
memory phase) are discounted (``cost.tensor_discounted``).
"""
from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Callable

from ..deps import Dependences
from ..diagnostics import Reporter
from ..model import Scop
from ..schedule import (MAX_OPERATIONS, BudgetExceeded, Schedule, Strategy, coalesce_bands,
                        generate, operation_budget, prove)
from ..schedule.candidates import attempt
from ..schedule.relayout import Relayout, relayout
from .cost import BLOCK_THREADS, Metrics, analyze, tensor_discounted
from .kernel import GpuProgram
from .layout import skewed_arrays
from .mapping import map_to_gpu
from .sizes import Sizes


@dataclass(frozen=True, eq=False)
class Candidate:
    """A proven-legal schedule, the program it maps to, and that program's measures."""

    schedule: Schedule
    program: GpuProgram
    metrics: Metrics
    explanation: str

    @property
    def score(self) -> float:
        """The estimated cost in nanoseconds (lower is better)."""
        return self.metrics.cost

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


def map_schedule(schedule: Schedule, sizes: Sizes | None = None) -> GpuProgram:
    """The GPU program of ``schedule`` on its own model."""
    return map_to_gpu(schedule.scop, schedule.deps, schedule.tree, relaxed=schedule.relaxed,
                      sizes=sizes)


def measure(schedule: Schedule, sizes: Sizes | None = None) -> Metrics:
    """The measures of the program ``schedule`` maps to."""
    return Mappings().measured(schedule, sizes)[1]


class Mappings:
    """The programs, and their measures, of the schedules one ranking mapped.

    A schedule is mapped again while ranking: coalescing measures the band as it
    is, the variant it keeps is mapped by ``rank``, and a relayout ranks every
    schedule again (796 mappings for PolyBench's suite at SMALL, 326 of them
    distinct).  The mapping is a function of the schedule's model, tree, relaxed
    reductions and the sizes, and its programs are immutable, so each is kept and
    shared.  Only what mapped is kept: a failure is tried (and noted) again."""

    def __init__(self) -> None:
        self._found: dict[tuple[object, ...], tuple[GpuProgram, Metrics]] = {}

    def measured(self, schedule: Schedule, sizes: Sizes | None) -> tuple[GpuProgram, Metrics]:
        """``schedule``'s program under ``sizes`` and its measures."""
        # the ids stay those of live objects: the programs kept refer to the model
        key = (id(schedule.scop), id(schedule.deps), schedule.tree.to_str(),
               tuple(sorted(schedule.relaxed)), repr(sizes))
        if key not in self._found:
            program = map_schedule(schedule, sizes)
            self._found[key] = program, analyze(program, sizes is None or sizes.single_block)
        return self._found[key]


def rank(schedules: list[Schedule], sizes: Sizes | None = None,
         reporter: Reporter | None = None,
         estimate: Callable[[GpuProgram], float] | None = None,
         tensor: Callable[[GpuProgram], frozenset[str]] | None = None,
         mappings: Mappings | None = None) -> list[Candidate]:
    """Candidates for ``schedules`` (assumed legal), best first: by ``estimate`` of
    each program (seconds) when given, else by the cost of ``Metrics`` with the
    kernels ``tensor`` names in a program discounted (``mappings``: those already
    made).

    Each is mapped within ``MAX_OPERATIONS`` isl operations; one isl fails to map,
    or maps only beyond that budget, is dropped with a note to ``reporter``.
    """
    reporter = reporter or Reporter()
    mappings = mappings or Mappings()
    scored = []
    for order, schedule in enumerate(schedules):
        found = _mapped(schedule, sizes, reporter, mappings)
        if found is None:
            continue
        program, metrics = found
        program = replace(program, single_block=metrics.single_block)
        said = explain(metrics, schedule)
        score = metrics.cost
        if estimate is not None:
            score = estimate(program)
            said += f", fitted estimate {score * 1e6:.3g} us"
        elif tensor is not None:
            fast = tensor(program)
            if fast and not metrics.single_block:
                score = tensor_discounted(metrics, fast)
                said += f", {len(fast)} kernel(s) on tensor cores: cost {score:.3g}"
        scored.append((score, metrics.n_kernels, metrics.host_loops,
                       len(schedule.relaxed), order,
                       Candidate(schedule, program, metrics, said)))
    scored.sort(key=lambda row: row[:5])
    return [row[-1] for row in scored]


def _mapped(schedule: Schedule, sizes: Sizes | None, reporter: Reporter,
            mappings: Mappings) -> tuple[GpuProgram, Metrics] | None:
    """The program of ``schedule`` and its measures, or None (with a note) when isl
    cannot map it."""
    scop = schedule.scop
    try:
        with operation_budget(scop.context.get_ctx(), MAX_OPERATIONS):
            found = attempt(scop, reporter, schedule.name,
                            lambda: [mappings.measured(schedule, sizes)])
    except BudgetExceeded:
        reporter.note(f"mapping schedule '{schedule.name}' of SCoP '{scop.name}' exceeds "
                      f"{MAX_OPERATIONS} isl operations; it is dropped", scop.location)
        return None
    return found[0] if found else None


def candidates(scop: Scop, deps: Dependences, strategy: Strategy | None = None,
               sizes: Sizes | None = None, reporter: Reporter | None = None,
               estimate: Callable[[GpuProgram], float] | None = None,
               tensor: Callable[[GpuProgram], frozenset[str]] | None = None
               ) -> list[Candidate]:
    """Every candidate schedule of ``scop`` with its coalescing variant, each proven
    legal and mapped, best first (by ``estimate`` when given, ``tensor``'s kernels
    discounted: ``rank``).  Empty only when isl fails on all of them."""
    reporter = reporter or Reporter()
    strategy = strategy or Strategy()
    mappings = Mappings()
    found = prove(generate(scop, deps, strategy, reporter), reporter)
    variants = [v for s in found for v in _coalesced(s, sizes, reporter, mappings)]
    schedules = prove(found + variants, reporter)
    ranked = rank(schedules, sizes, reporter, estimate, tensor, mappings)
    relaid = _relaid(ranked[0], strategy, sizes, reporter, mappings) \
        if ranked and strategy.relayout and strategy.reschedule else []
    return rank(schedules + relaid, sizes, reporter, estimate, tensor, mappings) \
        if relaid else ranked


# The layout follows the best program's threads: its candidates (schedules of the
# relaid model, which may map differently) then compete with every other.
def _relaid(best: Candidate, strategy: Strategy, sizes: Sizes | None,
            reporter: Reporter, mappings: Mappings) -> list[Schedule]:
    """The schedules of ``best``'s model with its skewed arrays relaid (layout.py),
    proven, with their coalescing variants; none when no array qualifies."""
    relaid = relaid_model(best, reporter)
    if relaid is None:
        return []
    prefix = f"relayout({','.join(relaid.arrays)})+"
    quiet = Reporter(stream=io.StringIO())    # the model's notes were heard already
    found = prove([replace(s, name=prefix + s.name) for s in generate(
        relaid.scop, relaid.deps, replace(strategy, expand_scalars=False), quiet)], quiet)
    variants = [v for s in found for v in _coalesced(s, sizes, quiet, mappings)]
    return prove(found + variants, quiet)


def relaid_model(best: Candidate, reporter: Reporter) -> Relayout | None:
    """``best``'s model with the arrays its program reaches diagonally relaid, or
    None (``--load-schedule`` rebuilds a saved relayout candidate's model with it)."""
    model = best.schedule

    def relaid() -> list[Relayout | None]:
        directions = skewed_arrays(best.program)
        return [relayout(model.scop, model.deps, directions) if directions else None]

    moved = attempt(model.scop, reporter, "relayout(...)", relaid)
    return moved[0] if moved else None


def _coalesced(schedule: Schedule, sizes: Sizes | None, reporter: Reporter,
               mappings: Mappings) -> list[Schedule]:
    """``schedule``'s coalescing variant, if any; none (with a note) when isl fails or
    measuring one arrangement takes more than ``MAX_OPERATIONS`` isl operations, like
    the mapping of a candidate (``_mapped``; fuzz seed 3800164: a skewed band's
    bounds took isl minutes)."""
    scop = schedule.scop

    def cost(trial: Schedule) -> float:
        with operation_budget(scop.context.get_ctx(), MAX_OPERATIONS):
            return mappings.measured(trial, sizes)[1].cost

    try:
        return attempt(scop, reporter, f"{schedule.name}|coalesce", lambda: [
            v for v in [coalesce_bands(schedule, cost)] if v is not None])
    except BudgetExceeded:
        reporter.note(f"measuring an arrangement of schedule '{schedule.name}' of SCoP "
                      f"'{scop.name}' for coalescing exceeds {MAX_OPERATIONS} isl "
                      "operations; it keeps its own", scop.location)
        return []


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
    if metrics.single_block:
        parts.append(f"runs in one block of {BLOCK_THREADS} threads (with a launch per "
                     f"kernel and host point: cost {metrics.launch_cost:.3g})")
    return ", ".join(parts)


def format_ranking(scop: Scop, ranked: list[Candidate], chosen: Schedule) -> str:
    """``--dump-schedule``: the ranking as YAML comments, then the chosen tree.

    isl's reader skips the comments, so the output can be given to --load-schedule.
    """
    lines = [f"# schedule candidates of SCoP {scop.name} (best first; cost in estimated ns)"]
    for k, cand in enumerate(ranked):
        lines.append(f"#  {k + 1}. {cand.schedule.name}: {cand.explanation}")
    lines.append(f"# chosen: {chosen.name}")
    if chosen.relaxed:
        lines.append(f"# relaxed reductions (atomics): {', '.join(sorted(chosen.relaxed))}")
    if chosen.scop is not scop:
        for array in chosen.scop.arrays:
            if array.local and not any(a.name == array.name for a in scop.arrays):
                users = [s.name for s in chosen.scop.statements
                         if any(a.array == array.name for a in s.accesses)]
                dims = "".join(f"[{'' if e is None else e}]" for e in array.extents)
                lines.append(f"# expanded: {array.name}{dims} in {', '.join(users)}")
    return "\n".join(lines) + "\n" + chosen.yaml()
