"""``polycu tune FILE.c``: search a SCoP's configurations, keep the winner.

In:  C files of one SCoP each, the options (``--dataset``, ``--strategy``,
     ``--max-configs``, ``--budget``, ``--evaluator``, ``--jobs``, ``--gpus``,
     ``--ray``, ...).
Out: per file a ``Tuning`` (every evaluation, the winner, its speed-up over
     polycu's defaults measured in the same run); the winner is merged into the
     cache (``polycu.tuned``), every evaluation written to ``--out``.

The configurations are built ``--jobs`` at a time in worker processes (spawned, so
that no CUDA context is inherited), then checked and timed by the evaluators of
``runtime.workers``: here, where the reference ran (one worker, the default), or
one per GPU (``--gpus``) or Ray actor (``--ray``), each with its own reference, a
batch's configurations at once.  The search records the outcomes in its own order,
so the evaluations and the winner do not depend on the workers (docs/scale-out.md).
A configuration that fails its check is reported and never cached.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import functools
import json
import multiprocessing
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..tuned import Entry, cache_path, read, scop_key, slot_of, store
from ..deps import compute_dependences
from ..diagnostics import Location, Reporter, error
from ..model import Scop
from ..driver import candidates
from ..options import OPTIONS, Options
from ..runtime.check import at_dataset, targets
from ..runtime.inputs import fresh_seed
from ..runtime.workers import in_process, open_workers
from .evaluate import (Built, EvaluatorRecipe, Measured, build, describe, device_here,
                       measure_on, need_gpu)
from .search import Evaluation, best, search
from .space import PRUNE_RATIO, Config, promising

@dataclass(frozen=True)
class Tuning:
    """The search over one file's SCoP."""

    path: str
    entry: Entry | None         # the winner, as cached (None: nothing passed)
    evaluations: tuple[Evaluation, ...]
    cached: bool = False        # the winner was found in the cache: nothing was built

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "winner": self.entry.as_json() if self.entry else None,
                "cached": self.cached, "evaluations": [e.as_json() for e in self.evaluations]}


def tune_file(path: str, options: Options, *, params: Mapping[str, int] | None = None,
              seed: int | None = None, progress: bool = True,
              cache: Path | None = None) -> Tuning:
    """Search the configurations of the one SCoP of ``path`` (see the module doc);
    ``params`` fixes parameter values (the others come from --dataset, or are chosen
    as ``polycu emulate`` chooses them).  When ``cache`` holds a winner for this
    SCoP at these sizes on the device the search would measure on, that winner is
    returned and nothing is built (a second ``polycu tune`` of a file costs next to
    nothing; ``--retune`` searches again).  With one worker here the device is known
    at once and nothing is scheduled or run either; with ``--gpus`` or ``--ray`` the
    workers are started first, to say where they measure."""
    seed = fresh_seed() if seed is None else seed
    gpu = options.evaluator == "gpu"
    if gpu and in_process(options.gpus, options.ray):
        need_gpu()
    dataset = options.dataset
    # the user's options are the defaults tuned
    base = at_dataset(options.replace(tuned=False), dataset)
    sized_by = dataset if gpu else None
    found = targets(path, base, overrides=params, limit=options.max_param, dataset=sized_by)
    if len(found) != 1:
        raise error(f"tune takes files of exactly one SCoP; this one has {len(found)}",
                    Location(path))
    target = found[0]
    device = device_here(gpu) if cache is not None and in_process(options.gpus,
                                                                    options.ray) else None
    hit = _cached(cache, target.scop, target.params, device)
    if hit is not None:
        return Tuning(path, hit, (), cached=True)
    reporter = Reporter(stream=sys.stderr)
    ranked, slow = promising(candidates(target.scop, compute_dependences(target.scop), base,
                                        reporter))
    if slow:
        reporter.note("not tried, estimated over "
                      f"{PRUNE_RATIO:g} times slower than the best candidate: "
                      + ", ".join(f"--schedule {c.schedule.name.split('=')[0]} "
                                  f"({c.score / min(k.score for k in ranked):.0f}x)"
                                  for c in slow),
                      target.scop.location)
    values = {opt.dest: getattr(base, opt.dest) for opt in OPTIONS}
    recipe = EvaluatorRecipe(path, values, dict(target.params), sized_by, gpu, seed,
                             options.repeat, options.fmad, options.init)
    context = multiprocessing.get_context("spawn")
    with open_workers(recipe, count=options.gpus, gpu=gpu, ray=options.ray,
                      here=lambda: recipe.evaluator(target)) as workers, \
            concurrent.futures.ProcessPoolExecutor(options.jobs, mp_context=context) as pool:
        if workers.count > options.jobs:
            reporter.warn(f"batches of {options.jobs} configurations keep {options.jobs} "
                          f"of the {workers.count} workers busy", Location("--jobs"))
        # asked when first needed: the emulation's builds start while the workers do
        measuring = functools.cache(lambda: next(iter(workers.map(describe, [None]))))
        if cache is not None and device is None:    # the workers say where they measure
            hit = _cached(cache, target.scop, target.params, measuring().device)
            if hit is not None:
                return Tuning(path, hit, (), cached=True)

        def build_all(configs: Sequence[Config]) -> list[Built]:
            count = len(configs)
            nvcc, arch = (measuring().nvcc_options, measuring().arch) if gpu else ((), None)
            return list(pool.map(build, [path] * count, [values] * count,
                                 [c.changes() for c in configs], [gpu] * count,
                                 [nvcc] * count, [arch] * count))

        def measure_all(built: Sequence[Built]) -> list[Measured]:
            return list(workers.map(measure_on, [b.entry for b in built]))

        evaluations = search(ranked, build_all, measure_all,
                             strategy=options.strategy, max_configs=options.max_configs,
                             budget_s=options.budget, jobs=options.jobs, seed=seed,
                             progress=_print_progress if progress else None,
                             reorder=options.reorder_reductions)
        device = measuring().device
    winner = best(evaluations)
    if winner is None:
        return Tuning(path, None, tuple(evaluations))
    default = evaluations[0]
    entry = Entry(
        target.scop.name, scop_key(target.scop), path, tuple(base.define),
        dict(target.params), device, winner.config.changes(),
        float(winner.seconds or 0.0), default.seconds if default.status == "ok" else None,
        sum(1 for e in evaluations if e.status == "ok" and e.same_as is None),
        sum(1 for e in evaluations if e.status != "ok"), options.strategy,
        datetime.datetime.now().isoformat(timespec="seconds"))
    return Tuning(path, entry, tuple(evaluations))


def _cached(cache: Path | None, scop: Scop, params: Mapping[str, int],
            device: str | None) -> Entry | None:
    """The cached winner of ``scop`` at ``params`` on ``device``, if any."""
    if cache is None or device is None:
        return None
    return read(cache).get(slot_of(scop_key(scop), params, device))


def _print_progress(count: int, evaluation: Evaluation, leader: Evaluation | None) -> None:
    what = f"{evaluation.seconds * 1e3:.3f} ms" if evaluation.seconds is not None \
        else evaluation.status
    if evaluation.same_as is not None:
        what += f" (same code as #{evaluation.same_as + 1})"
    lead = f"{leader.seconds * 1e3:.3f} ms" if leader and leader.seconds else "-"
    flags = shlex.join(evaluation.flags) or "(polycu's defaults)"
    print(f"[{count:3d}] {what:>28s}  best {lead:>11s}  {flags}", file=sys.stderr, flush=True)


def report(tuning: Tuning) -> str:
    """What the search found, in a few lines."""
    entry = tuning.entry
    tried = len(tuning.evaluations)
    if entry is None:
        return f"{tuning.path}: no configuration passed its check ({tried} tried)"
    default = f"{entry.default_s * 1e3:.3f} ms" if entry.default_s else "failed"
    gain = f", {entry.default_s / entry.kernel_s:.2f}x" if entry.default_s else ""
    if tuning.cached:
        return (f"{tuning.path}: {entry.scop} was tuned on {entry.device} on {entry.date} "
                f"({entry.evaluated} measured; polycu's defaults {default}, best "
                f"{entry.kernel_s * 1e3:.3f} ms{gain}): nothing built (--retune searches "
                f"again)\n  best configuration: {shlex.join(entry.flags()) or '(the defaults)'}")
    lines = [f"{tuning.path}: {entry.scop} on {entry.device} at "
             + ", ".join(f"{k}={v}" for k, v in sorted(entry.params.items())),
             f"  tried {tried}: {entry.evaluated} measured, {entry.discarded} discarded, "
             f"{tried - entry.evaluated - entry.discarded} with the code of another",
             f"  polycu's defaults: {default}; best: {entry.kernel_s * 1e3:.3f} ms{gain}",
             f"  best configuration: {shlex.join(entry.flags()) or '(the defaults)'}"]
    for e in tuning.evaluations:
        if e.status not in ("ok",) and e.same_as is None:
            lines.append(f"  discarded ({e.status}): {shlex.join(e.flags)}: "
                         f"{e.detail.splitlines()[0] if e.detail else ''}")
    return "\n".join(lines)


def run_command(args: argparse.Namespace, params: Mapping[str, int]) -> int:
    """``polycu tune FILE.c...``: tune each file, merge the winners into the cache,
    write every evaluation to --out; non-zero when a file has no passing
    configuration."""
    options = Options.from_namespace(args)
    seed = fresh_seed() if args.seed is None else args.seed
    out = Path(args.out or Path("out") / f"tune-{options.dataset or 'default'}")
    out.mkdir(parents=True, exist_ok=True)
    cache = cache_path(options.tune_cache)
    failed = []
    for path in args.files:
        tuning = tune_file(path, options, params=params, seed=seed,
                           cache=None if options.retune else cache)
        print(report(tuning))
        if not tuning.cached:   # a hit keeps the evaluations file of the search it found
            (out / f"{Path(path).stem}.json").write_text(json.dumps(tuning.as_json(),
                                                                    indent=1))
        if tuning.entry is None:
            failed.append(path)
        elif not tuning.cached:
            store(cache, [tuning.entry])
    print(f"cache: {cache}; every evaluation: {out}/ (seed {seed})")
    if failed:
        raise error(f"no configuration of {', '.join(failed)} passed its check")
    return 0
