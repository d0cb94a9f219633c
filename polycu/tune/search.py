"""Search strategies over a SCoP's configurations, within a budget.

In:  the ranked candidates, a way to build configurations (in parallel) and one to
     measure built ones (in parallel, on the workers), the strategy,
     ``max_configs`` and a time budget.
Out: ``Evaluation`` of every configuration tried, in the order tried; the first is
     polycu's own choice.

Strategies (``--strategy``):
* ``exhaustive``: the whole ``space.space``, in order, up to ``max_configs``;
* ``random``: polycu's choice, then a uniform sample of the space;
* ``local``: polycu's choice (its first neighbours fill the rest of the first
  batch), then the neighbours (``space.neighbours``) of the best configuration
  found so far, batch by batch; when every neighbour of the
  best was tried, those of the next best.  A greedy descent that restarts from
  the runners-up, so it does not stop at the first local minimum;
* ``auto``: exhaustive when the space fits ``max_configs``, else local.

Configurations whose generated code is identical to one already measured share
its outcome without a second run (``Evaluation.same_as``) and do not count
against ``max_configs``; at most ``4 * max_configs`` are built in all.

The search goes batch by batch (``jobs`` configurations): a batch is built, the
configurations to record and the code to measure are chosen from the builds
alone, the new code is measured at once (one configuration per worker) and the
outcomes are recorded in the batch's order.  So the decisions, the evaluations
and the winner are those of one worker measuring one after the other, however
many workers measured (timings aside).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from ..gpu.rank import Candidate
from ..tuned import config_flags
from .evaluate import Built, Measured
from .space import Config, neighbours, space


@dataclass(frozen=True)
class Evaluation:
    """One configuration tried: its outcome, or the earlier one with the same code."""

    config: Config
    status: str                 # ok, mismatch, failed (to build or to run)
    seconds: float | None = None
    detail: str = ""
    same_as: int | None = None  # index of the evaluation whose code this is

    @property
    def flags(self) -> list[str]:
        return config_flags(self.config.changes())

    def as_json(self) -> dict[str, object]:
        return {"flags": self.flags, "changes": self.config.changes(), "status": self.status,
                "seconds": self.seconds, "detail": self.detail, "same_as": self.same_as}


Builder = Callable[[Sequence[Config]], list[Built]]
Measure = Callable[[Sequence[Built]], list[Measured]]   # outcomes in the order given
Progress = Callable[[int, Evaluation, "Evaluation | None"], None]


def search(ranked: Sequence[Candidate], build: Builder, measure: Measure, *,
           strategy: str, max_configs: int, budget_s: float, jobs: int, seed: int,
           progress: Progress | None = None, reorder: bool = False) -> list[Evaluation]:
    """Every configuration tried, polycu's choice first (see the module docstring);
    ``reorder``: the space has tree reductions too (``space.space``)."""
    rng = random.Random(seed)
    everything = space(ranked, reorder)
    if strategy == "auto":
        strategy = "exhaustive" if len(everything) <= max_configs else "local"
    state = _State(build, measure, max_configs, time.monotonic() + budget_s, progress)
    if strategy == "exhaustive":
        batches: Iterator[list[Config]] = _chunks(everything, jobs)
    elif strategy == "random":
        rest = everything[1:]
        sample = [everything[0]] + rng.sample(rest, min(len(rest), 4 * max_configs))
        batches = _chunks(sample, jobs)
    else:
        batches = _local(state, ranked, rng, jobs, reorder)
    for batch in batches:
        if state.done():
            break
        state.run(batch)
    return state.evaluations


def best(evaluations: Sequence[Evaluation]) -> Evaluation | None:
    """The fastest configuration that passed its check (the earlier on a tie)."""
    ok = [e for e in evaluations if e.status == "ok" and e.seconds is not None]
    return min(ok, key=lambda e: e.seconds) if ok else None  # type: ignore[arg-type, return-value]


class _State:
    """The evaluations so far, the code already measured, and the limits."""

    def __init__(self, build: Builder, measure: Measure, max_configs: int, deadline: float,
                 progress: Progress | None):
        self.build, self.measure, self.progress = build, measure, progress
        self.max_configs, self.deadline = max_configs, deadline
        self.evaluations: list[Evaluation] = []
        self.tried: set[Config] = set()
        self.by_code: dict[str, int] = {}

    def measured(self) -> int:
        return sum(1 for e in self.evaluations if e.same_as is None)

    def done(self) -> bool:
        """Whether to stop before the next batch: the counts are reached or the
        budget is spent (never before the first batch, polycu's choice)."""
        return bool(self.evaluations) and (self._full(len(self.evaluations), self.measured())
                                           or time.monotonic() >= self.deadline)

    def _full(self, evaluations: int, measured: int) -> bool:
        """Whether the counts are reached.  Not the budget: a batch once built is
        measured (the configurations under way are finished), so polycu's choice,
        the first batch, is measured however long the build took (correlation,
        2mm, 3mm and deriche at LARGE outran a 15 s budget building theirs, and the
        search ended with no configuration)."""
        return measured >= self.max_configs or evaluations >= 4 * self.max_configs

    def run(self, batch: Sequence[Config]) -> None:
        """Build the batch, measure its new code at once, record it in order (see
        the module docstring)."""
        fresh = [c for c in dict.fromkeys(batch) if c not in self.tried]
        self.tried |= set(fresh)
        taken: list[tuple[Config, Built]] = []
        new: dict[str, Built] = {}          # code first seen in this batch, in order
        own = self.measured()               # evaluations that are not another's code
        for config, built in zip(fresh, self.build(fresh)):
            if self._full(len(self.evaluations) + len(taken), own):
                break
            taken.append((config, built))
            if built.entry is None:
                own += 1
            elif built.code not in self.by_code and built.code not in new:
                new[built.code] = built
                own += 1
        outcomes = dict(zip(new, self.measure(list(new.values()))))
        for config, built in taken:
            self.evaluations.append(self._evaluate(config, built, outcomes))
            if self.progress is not None:
                self.progress(len(self.evaluations), self.evaluations[-1],
                              best(self.evaluations))

    def _evaluate(self, config: Config, built: Built,
                  outcomes: dict[str, Measured]) -> Evaluation:
        if built.entry is None:
            return Evaluation(config, "failed", detail=built.error)
        earlier = self.by_code.get(built.code)
        if earlier is not None:
            first = self.evaluations[earlier]
            return Evaluation(config, first.status, first.seconds, first.detail, earlier)
        self.by_code[built.code] = len(self.evaluations)
        outcome = outcomes[built.code]
        return Evaluation(config, outcome.status, outcome.seconds, outcome.detail)


def _chunks(configs: Sequence[Config], size: int) -> Iterator[list[Config]]:
    for start in range(0, len(configs), size):
        yield list(configs[start:start + size])


def _local(state: _State, ranked: Sequence[Candidate], rng: random.Random,
           jobs: int, reorder: bool) -> Iterator[list[Config]]:
    """Batches of the local search: polycu's choice (with ``reorder``, it with tree
    reductions beside it: the one step that can change a kernel's time several-fold)
    and, in the rest of that first batch, its first neighbours (builds that would
    otherwise wait: the first batch is often all a short budget allows), then untried
    neighbours of the best configuration not yet exhausted, fastest first."""
    first = [Config(), Config(parallel_reductions=True)] if reorder else [Config()]
    pending: dict[Config, list[Config]] = {
        Config(): [c for c in neighbours(Config(), ranked, rng, reorder) if c not in first]}
    spare = pending[Config()][:max(0, jobs - len(first))]
    pending[Config()] = pending[Config()][len(spare):]
    yield first + spare
    exhausted: set[Config] = set()
    while True:
        ranked_ok = sorted((e for e in state.evaluations
                            if e.status == "ok" and e.same_as is None
                            and e.config not in exhausted),
                           key=lambda e: e.seconds or 0.0)
        if not ranked_ok:
            return
        centre = ranked_ok[0].config
        if centre not in pending:
            pending[centre] = neighbours(centre, ranked, rng, reorder)
        batch = [c for c in pending[centre] if c not in state.tried][:jobs]
        if not batch:
            exhausted.add(centre)
            continue
        pending[centre] = [c for c in pending[centre] if c not in batch]
        yield batch
