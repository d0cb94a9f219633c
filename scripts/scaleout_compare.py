"""Compare the runs of ``scripts/scaleout.sh``: are the results of N GPUs those of one
(the same checks, the same configurations tried, the same winners within timing
noise), and how much sooner did they come?

Usage: python3 scripts/scaleout_compare.py OUTDIR...  (writes the first OUTDIR's
summary.md too).  Several OUTDIRs are parts of one suite run in several calls (each
call running every part on N GPUs and on one): their wall times add up.

The one-GPU run is the reference.  A bench kernel agrees when its status, its
mismatch count and its largest relative error are the same (the seed is one, so
the inputs are); its kernel times are reported as a ratio, which is timing noise
when the GPUs are of one kind.  A tuning agrees when it tried the same
configurations in the same order with the same outcomes (built, discarded, or the
code of another); its winner agrees when it is the same configuration, or when the
two winners' times in the reference run are within ``NOISE`` of each other.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

#: Two configurations whose times differ by less than this are a tie (the spread of
#: repeated measurements of one build on one H200, docs/results/tuning.md).
NOISE = 0.03


#: A bench worker's steps on one kernel (polycu/bench/result.py's STEPS, which this
#: script, run on the device without the package installed, does not import).
STEPS = ("compile", "check", "time", "library", "wait", "gpu")

#: The status scaleout.sh records for a stage its DEADLINE stopped.
CUT = "124"


def walls(out: Path) -> dict[tuple[str, int], tuple[float, bool]]:
    """(stage, gpus) -> (wall seconds, whether DEADLINE cut the stage: the seconds are
    then a lower bound), from walls.csv (the last run of each; failed runs left out)."""
    with open(out / "walls.csv") as f:
        return {(row["stage"], int(row["gpus"])): (float(row["seconds"]), row["status"] == CUT)
                for row in csv.DictReader(f) if row["status"] in ("0", CUT)}


def bench_rows(out: Path, reference: int, other: int) -> tuple[list[str], bool]:
    """The bench's table, kernel by kernel, and whether every check agrees."""
    ref, new = _bench_results(out / f"gpus{reference}"), _bench_results(out / f"gpus{other}")
    lines = [f"| kernel | status | max rel. error | kernel ms, {reference} GPU | "
             f"kernel ms, {other} GPUs | ratio | worker s, {reference} GPU | worker s, "
             f"{other} GPUs |", "|---|---|--:|--:|--:|--:|--:|--:|"]
    same, ratios = True, []
    missing = [name for name in {**new, **ref} if name not in ref or name not in new]
    for name, a in ref.items():
        if name not in new:
            continue
        b = new[name]
        agree = all(a.get(k) == b.get(k) for k in ("status", "mismatches", "max_rel_error"))
        same &= agree
        ta, tb = a.get("kernel_s"), b.get("kernel_s")
        ratio = tb / ta if ta and tb else None
        if ratio:
            ratios.append(ratio)
        status = a["status"] if agree else f"**{a['status']} / {b.get('status')}**"
        error = a.get("max_rel_error")
        seconds = f" {a.get('seconds') or '-'} | {b.get('seconds') or '-'} |"
        lines.append((f"| {name} | {status} | {error:.1e} | {_ms(ta)} | {_ms(tb)} | "
                      f"{ratio:.3f} |" if error is not None and ratio else
                      f"| {name} | {status} | - | {_ms(ta)} | {_ms(tb)} | - |") + seconds)
    if missing:
        lines.append(f"\nnot in both runs (a run cut short): {', '.join(missing)}")
    def busy(runs: dict[str, dict]) -> str:
        seconds = [r.get("seconds") for r in runs.values()]
        return f"{sum(seconds):.1f} s" if None not in seconds else "- (not recorded)"
    longest = max((r.get("seconds") or 0.0 for r in {**ref, **new}.values()), default=0.0)
    lines.append(f"\nworkers' time on the kernels: {busy(ref)} on {reference} GPU, "
                 f"{busy(new)} over {other} GPUs; the longest kernel {longest:.1f} s")
    gpu_ref, gpu_new = gpu_part(ref), gpu_part(new)
    if gpu_ref and gpu_new:
        lines.append(f"the GPU part (seconds the workers held a GPU's turn, by GPU): "
                     f"{_by_gpu(gpu_ref)} on {reference} GPU, {_by_gpu(gpu_new)} over "
                     f"{other} GPUs: {max(gpu_ref.values()):.1f} s and "
                     f"{max(gpu_new.values()):.1f} s of the busiest GPU, a speed-up of "
                     f"{max(gpu_ref.values()) / max(gpu_new.values()):.2f}x")
    if ratios:
        lines.append(f"kernel-time ratio ({other} GPUs over 1): geometric mean "
                     f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}, "
                     f"range {min(ratios):.3f}-{max(ratios):.3f}")
    return lines + step_rows(ref, new, reference, other), same


def gpu_part(runs: dict[str, dict]) -> dict[str, float]:
    """The seconds the workers held each GPU's turn (the ``gpu`` step, by the GPU the
    kernel ran on): the bench's GPU part, GPU by GPU ({} where not recorded)."""
    busy: dict[str, float] = {}
    for r in runs.values():
        if r.get("gpu") and "gpu" in r.get("phases", {}):
            busy[r["gpu"]] = busy.get(r["gpu"], 0.0) + r["phases"]["gpu"]
    return busy


def _by_gpu(busy: dict[str, float]) -> str:
    return " + ".join(f"{seconds:.1f}" for _, seconds in sorted(busy.items())) + " s"


def _bench_results(run: Path) -> dict[str, dict]:
    """A bench's records by kernel: results.json, or for a bench cut short the rows of
    results.csv it rewrote after each kernel."""
    path = run / "bench" / "results.json"
    if path.exists():
        return {r["kernel"]: r for r in json.loads(path.read_text())["results"]}
    with open(run / "bench" / "results.csv") as f:
        return {row["kernel"]: {
            "kernel": row["kernel"], "status": row["status"],
            "mismatches": int(row["mismatches"]) if row["mismatches"] else None,
            "max_rel_error": float(row["max_rel_error"]) if row["max_rel_error"] else None,
            "kernel_s": float(row["kernel_ms"]) / 1e3 if row["kernel_ms"] else None,
            "seconds": float(row["worker_s"]) if row.get("worker_s") else None,
            "gpu": row.get("gpu", ""),
            "phases": {step: float(row[f"step_{step}_s"]) for step in STEPS
                       if row.get(f"step_{step}_s")}}
            for row in csv.DictReader(f)}


def step_rows(ref: dict[str, dict], new: dict[str, dict], reference: int,
              other: int) -> list[str]:
    """The workers' seconds by step (bench's ``phases``) over the kernels both runs
    did: the step that grows with more workers at once is where they contend."""
    both = [name for name in ref if name in new]
    if not both or not any(ref[n].get("phases") for n in both):
        return []
    lines = ["", f"| step | workers' s, {reference} GPU | workers' s, {other} GPUs | growth |",
             "|---|--:|--:|--:|"]
    for step in STEPS:
        a = sum(ref[n].get("phases", {}).get(step, 0.0) for n in both)
        b = sum(new[n].get("phases", {}).get(step, 0.0) for n in both)
        growth = f"{(b / a - 1) * 100:+.0f}%" if a else "-"
        lines.append(f"| {step} | {a:.1f} | {b:.1f} | {growth} |")
    return lines


def tune_rows(out: Path, reference: int, other: int) -> tuple[list[str], bool]:
    """The tunings' comparison, file by file, and whether every one agrees."""
    lines, same = ["| file | configurations | same outcomes | winner, 1 GPU | winner, "
                   f"{other} GPUs | same winner |", "|---|--:|---|---|---|---|"], True
    for path in sorted((out / f"gpus{reference}" / "tune").glob("*.json")):
        a = json.loads(path.read_text())
        other_path = out / f"gpus{other}" / "tune" / path.name
        b = json.loads(other_path.read_text()) if other_path.exists() else {"evaluations": []}
        key = [(e["flags"], e["status"], e["same_as"]) for e in a["evaluations"]]
        agree = key == [(e["flags"], e["status"], e["same_as"]) for e in b["evaluations"]]
        winner = _winner_agrees(a, b)
        same &= agree and winner != "no"
        lines.append(f"| {path.stem} | {len(key)} | {'yes' if agree else '**no**'} | "
                     f"{_winner(a)} | {_winner(b)} | {winner} |")
    return lines, same


def _winner(tuning: dict) -> str:
    best = min((e for e in tuning["evaluations"] if e["seconds"]),
               key=lambda e: e["seconds"], default=None)
    if best is None:
        return "none"
    return f"`{' '.join(best['flags']) or '(defaults)'}` {best['seconds'] * 1e3:.3f} ms"


def _winner_agrees(a: dict, b: dict) -> str:
    """'yes' (the same configuration), 'tie' (another, within NOISE of it in the
    reference run) or 'no'."""
    def best(t: dict) -> dict | None:
        return min((e for e in t["evaluations"] if e["seconds"]), key=lambda e: e["seconds"],
                   default=None)
    wa, wb = best(a), best(b)
    if wa is None or wb is None:
        return "yes" if wa is wb else "no"
    if wa["flags"] == wb["flags"]:
        return "yes"
    times = {tuple(e["flags"]): e["seconds"] for e in a["evaluations"] if e["seconds"]}
    there = times.get(tuple(wb["flags"]))
    return "tie" if there and there <= wa["seconds"] * (1 + NOISE) else "no"


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:.4f}" if seconds else "-"


def main(outs: list[Path]) -> int:
    wall: dict[tuple[str, int], tuple[float, bool]] = {}
    for out in outs:
        for key, (seconds, cut) in walls(out).items():
            total, was_cut = wall.get(key, (0.0, False))
            wall[key] = (total + seconds, was_cut or cut)
    counts = sorted({n for _, n in wall})
    reference, others = 1, [n for n in counts if n != 1]
    lines = ["| stage | GPUs | wall s | speed-up over 1 GPU |", "|---|--:|--:|--:|"]
    for (stage, n), (seconds, cut) in sorted(wall.items()):
        one, one_cut = wall.get((stage, reference), (None, False))
        bound = ">= " if one_cut and not cut else ""
        speed = f"{bound}{one / seconds:.2f}x" if one and not cut else "-"
        lines.append(f"| {stage} | {n} | {'>= ' if cut else ''}{seconds:.1f} | {speed} |")
    agree = True
    for other in others:
        for out in outs:
            if (out / f"gpus{other}" / "bench").exists():
                rows, same = bench_rows(out, reference, other)
                lines += ["", f"bench ({out.name}): every check the same as on 1 GPU: "
                          f"{'yes' if same else 'NO'}", "", *rows]
                agree &= same
            if (out / f"gpus{other}" / "tune").exists():
                rows, same = tune_rows(out, reference, other)
                lines += ["", f"tune ({out.name}): the same search and winners as on 1 GPU: "
                          f"{'yes' if same else 'NO'}", "", *rows]
                agree &= same
    text = "\n".join(lines) + "\n"
    (outs[0] / "summary.md").write_text(text)
    print(text)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main([Path(p) for p in sys.argv[1:]]))
