"""Many seeds in a process pool; failing programs kept; JSON and Markdown summaries.

In:  a first seed, a count, a number of worker processes, an output directory.
Out: ``DIR/<class>/<seed>.c`` with ``.log`` (and the emitted ``.cu``) for every
failing program (all programs with ``keep``), ``DIR/summary.json`` and
``DIR/summary.md``: counts per class, the causes grouped, timings.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable

from .features import features
from .generate import generate
from .run import CLASSES, FAILURES, STAGES, Timeouts, run_file


def run_seed(seed: int, out_dir: str, keep: bool = False, stages: tuple[str, ...] = STAGES,
             timeouts: Timeouts | None = None, extra: tuple[str, ...] = ()) -> dict:
    """Generate, run and classify one seed (``extra``: polycu options added to the
    program's own); save its files when it fails (or ``keep``)."""
    out = Path(out_dir)
    start = time.monotonic()
    try:
        fin = generate(seed)
    except Exception as exc:  # a generator bug: reported, never hidden
        return {"seed": seed, "cls": "invalid", "stage": "generate", "key": type(exc).__name__,
                "detail": str(exc)[:300], "failures": [], "seconds": {}, "features": []}
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{seed}-", dir=work) as tmp:
        source = Path(tmp) / f"{seed}.c"
        source.write_text(fin.text)
        try:
            outcome = run_file(source, Path(tmp) / "w", stages=stages, timeouts=timeouts,
                               extra=extra)
        except Exception:  # a harness bug
            text = traceback.format_exc()
            return {"seed": seed, "cls": "invalid", "stage": "harness",
                    "key": text.strip().splitlines()[-1][:200], "detail": text[-300:],
                    "failures": [], "seconds": {}, "features": []}
        outcome.seed = seed
        if outcome.cls in FAILURES or keep:
            dest = out / outcome.cls
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, dest / f"{seed}.c")
            (dest / f"{seed}.log").write_text(
                f"class: {outcome.cls}\nstage: {outcome.stage}\nkey: {outcome.key}\n"
                f"detail: {outcome.detail}\nseconds: {outcome.seconds}\n\n{outcome.log}")
            for name, suffix in (("out.cu", ".cu"), ("out_host.c", "_host.c")):
                produced = Path(tmp) / "w" / name
                if produced.exists():
                    shutil.copy(produced, dest / f"{seed}{suffix}")
    record = outcome.record()
    record["features"] = sorted(features(fin))
    record["wall"] = round(time.monotonic() - start, 3)
    return record


def _has(seed: int, feature: str) -> bool:
    try:
        return feature in features(generate(seed))
    except Exception:  # a generator bug: the campaign itself reports it
        return True


def select_seeds(first: int, count: int, feature: str, jobs: int = 1) -> list[int]:
    """The seeds of ``first .. first + count - 1`` whose programs use ``feature``
    (``features.py``): a campaign aimed at one construct."""
    seeds = range(first, first + count)
    if jobs <= 1:
        return [s for s in seeds if _has(s, feature)]
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        found = pool.map(_has, seeds, [feature] * count, chunksize=16)
        return [s for s, keep in zip(seeds, found) if keep]


def _initializer() -> None:
    # blocks run in parallel with OpenMP: two threads each, next to the other workers
    os.environ.setdefault("OMP_NUM_THREADS", "2")


def run_campaign(first: int, count: int, out_dir: str | Path, *, jobs: int = 1,
                 keep: bool = False, stages: tuple[str, ...] = STAGES,
                 timeouts: Timeouts | None = None, seeds: list[int] | None = None,
                 extra: tuple[str, ...] = (),
                 progress: Callable[[str], None] = print) -> dict:
    """Seeds ``first .. first + count - 1`` (or the list ``seeds``) in ``jobs`` worker
    processes; returns the summary (also written to ``out_dir``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    seeds = list(seeds) if seeds is not None else list(range(first, first + count))
    count = len(seeds)
    first = min(seeds, default=first)
    records: list[dict] = []
    start = time.monotonic()

    def done(record: dict) -> None:
        records.append(record)
        mark = "" if record["cls"] in ("match", "rejection") else "  <=="
        progress(f"[{len(records):5d}/{count}] seed {record['seed']}: {record['cls']}"
                 f"{' (' + record['stage'] + ')' if record['stage'] else ''}"
                 f" {record.get('wall', 0):.1f} s{mark}"
                 + (f"  {record['key']}" if record["cls"] != "match" else ""))

    if jobs <= 1:
        for seed in seeds:
            done(run_seed(seed, str(out), keep, stages, timeouts, extra))
    else:
        with concurrent.futures.ProcessPoolExecutor(jobs, initializer=_initializer) as pool:
            futures = [pool.submit(run_seed, seed, str(out), keep, stages, timeouts, extra)
                       for seed in seeds]
            for future in concurrent.futures.as_completed(futures):
                done(future.result())
    shutil.rmtree(out / "work", ignore_errors=True)
    records.sort(key=lambda r: r["seed"])
    summary = summarise(records, first=first, jobs=jobs, wall=time.monotonic() - start)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "summary.md").write_text(markdown(summary))
    return summary


def summarise(records: list[dict], *, first: int, jobs: int, wall: float) -> dict:
    classes = Counter(r["cls"] for r in records)
    anywhere = Counter(c for r in records for c in {f["class"] for f in r["failures"]})
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        if r["cls"] == "rejection":
            groups[("rejection", "compile", r["key"])].append(
                {"seed": r["seed"], "detail": r["detail"]})
        for f in r["failures"]:
            groups[(f["class"], f["stage"], f["key"])].append(
                {"seed": r["seed"], "detail": f["detail"]})
    group_list = [{"class": c, "stage": s, "key": k, "count": len(v),
                   "seeds": [x["seed"] for x in v][:20], "example": v[0]["detail"]}
                  for (c, s, k), v in groups.items()]
    order = {c: i for i, c in enumerate(CLASSES)}
    group_list.sort(key=lambda g: (order.get(g["class"], 99), -g["count"]))
    walls = [r.get("wall", 0.0) for r in records]
    stages: dict[str, list[float]] = defaultdict(list)
    for r in records:
        for k, v in r["seconds"].items():
            stages[k].append(v)
    feature_counts = Counter(f for r in records for f in r.get("features", []))
    accepted = [r for r in records if r["cls"] not in ("rejection",) and r["stage"] != "generate"]
    return {
        "first_seed": first, "count": len(records), "jobs": jobs, "wall_seconds": round(wall, 1),
        "classes": {c: classes.get(c, 0) for c in CLASSES},
        "failures_anywhere": {c: anywhere.get(c, 0) for c in FAILURES},
        "accepted": len(accepted),
        "unlocated_rejections": sum(1 for r in records if r["cls"] == "rejection"
                                    and "not the input" in r["detail"]),
        "timing": {"program_mean": round(statistics.mean(walls), 2) if walls else 0,
                   "program_median": round(statistics.median(walls), 2) if walls else 0,
                   "program_max": round(max(walls), 2) if walls else 0,
                   "stage_mean": {k: round(statistics.mean(v), 2) for k, v in stages.items()}},
        "groups": group_list,
        "features": dict(sorted(feature_counts.items())),
        "programs": records,
    }


def markdown(summary: dict) -> str:
    timing = summary["timing"]
    lines = [f"# polycu fuzz run: seeds {summary['first_seed']}.."
             f"{summary['first_seed'] + summary['count'] - 1}", "",
             f"{summary['count']} programs, {summary['jobs']} worker(s), "
             f"{summary['wall_seconds']} s wall; per program mean "
             f"{timing['program_mean']} s, median {timing['program_median']} s, "
             f"max {timing['program_max']} s.", "",
             "| class | programs (first failure) | programs with a failure of this class |",
             "|---|--:|--:|"]
    for c, n in summary["classes"].items():
        lines.append(f"| {c} | {n} | {summary['failures_anywhere'].get(c, '')} |")
    lines += ["", "Stage means (s): " + ", ".join(f"{k} {v}" for k, v in
                                                   summary["timing"]["stage_mean"].items()), ""]
    for title, wanted in (("Failures by cause", set(FAILURES)),
                          ("Rejections by message", {"rejection"})):
        rows = [g for g in summary["groups"] if g["class"] in wanted]
        lines += [f"## {title}", ""]
        if not rows:
            lines += ["none", ""]
            continue
        lines += ["| class | stage | cause | programs | seeds | example |",
                  "|---|---|---|--:|---|---|"]
        for g in rows:
            ex = g["example"].replace("|", "\\|").replace("\n", " ")[:200]
            key = g["key"].replace("|", "\\|")
            lines.append(f"| {g['class']} | {g['stage']} | {key} | {g['count']} | "
                         f"{' '.join(map(str, g['seeds'][:8]))} | {ex} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def failed(summary: dict) -> bool:
    return any(summary["failures_anywhere"].get(c, 0) for c in FAILURES) or \
        summary["unlocated_rejections"] > 0


def print_summary(summary: dict, stream=sys.stdout) -> None:
    print(f"{summary['count']} programs in {summary['wall_seconds']} s: " + ", ".join(
        f"{c} {n}" for c, n in summary["classes"].items()), file=stream)
    for g in summary["groups"]:
        if g["class"] in FAILURES:
            print(f"  {g['class']} ({g['stage']}) x{g['count']}: {g['key']}  seeds "
                  f"{' '.join(map(str, g['seeds'][:8]))}", file=stream)
