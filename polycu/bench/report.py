"""The tables of a bench run: ``results.md``, ``results.csv``, ``results.json``.

In:  the ``BenchResult`` of every kernel and the run's ``meta`` (dataset, device,
date, command, device ceilings, CPU description, seed).
Out: the Markdown report (context, one row per kernel, geometric-mean summary,
failures, notes), one CSV row per kernel (times in milliseconds, missing values
empty), the JSON of every result with its derived times and speedups, and
``write_reports``, which writes them all and the plots of ``plots``.

Speedups are CPU time over GPU kernel time; the summary's geometric means take the
kernels whose check passed.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .plots import write_plots
from .result import ON_CPU, STEPS, BenchResult

CSV_COLUMNS = (
    "kernel", "category", "dataset", "parameters", "status", "error", "launches",
    "kernel_ms", "kernel_spread", "replay_ms", "end_to_end_ms", "gflops", "gbytes_per_s",
    "minimum_ms", "ratio_to_minimum", "roofline_fraction", "flops", "bytes",
    "footprint_bytes", "max_rel_error", "mismatches", "cpu_ms", "omp_ms", "library_ms",
    "library", "speedup_cpu", "speedup_omp", "speedup_library", "notes", "worker_s",
    *(f"step_{name}_s" for name in STEPS), "program", "gpu",
)


def _in_ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3


def csv_row(r: BenchResult) -> dict[str, Any]:
    """One CSV row: times in milliseconds, missing values empty."""
    fig = r.figures or {}
    timing = r.timing or {}
    return {
        "kernel": r.kernel, "category": r.category, "dataset": r.dataset,
        "parameters": " ".join(f"{k}={v}" for k, v in r.parameters.items()),
        "status": r.status, "error": r.error.strip().splitlines()[0] if r.error.strip() else "",
        "launches": timing.get("launches"),
        "kernel_ms": _in_ms(r.kernel_s),
        "kernel_spread": timing["kernel"]["spread"] if timing else None,
        "replay_ms": _in_ms(timing["replay"]["median_s"]) if timing else None,
        "end_to_end_ms": _in_ms(r.end_to_end_s),
        "gflops": fig.get("gflops"), "gbytes_per_s": fig.get("gbytes"),
        "minimum_ms": _in_ms(fig.get("minimum_seconds")),
        "ratio_to_minimum": fig.get("ratio_to_minimum"),
        "roofline_fraction": fig.get("roofline_fraction"),
        "flops": r.flops, "bytes": r.bytes, "footprint_bytes": r.footprint_bytes,
        "max_rel_error": r.max_rel_error, "mismatches": r.mismatches,
        "cpu_ms": _in_ms(r.cpu_s), "omp_ms": _in_ms(r.omp_s), "library_ms": _in_ms(r.library_s),
        "library": r.library,
        "speedup_cpu": r.speedup(r.cpu_s), "speedup_omp": r.speedup(r.omp_s),
        "speedup_library": r.speedup(r.library_s),
        "notes": "; ".join(note.strip().splitlines()[0] for note in r.notes if note.strip()),
        "worker_s": r.seconds,
        **{f"step_{name}_s": r.phases.get(name) for name in STEPS},
        "program": r.program, "gpu": r.gpu,
    }


def write_csv(results: Sequence[BenchResult], path: Path) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for r in results:
            writer.writerow({k: ("" if v is None else v) for k, v in csv_row(r).items()})


def write_json(results: Sequence[BenchResult], meta: Mapping[str, Any], path: Path) -> None:
    rows = [{**asdict(r), "kernel_s": r.kernel_s, "end_to_end_s": r.end_to_end_s,
             "speedup_cpu": r.speedup(r.cpu_s), "speedup_omp": r.speedup(r.omp_s),
             "speedup_library": r.speedup(r.library_s)} for r in results]
    path.write_text(json.dumps({"meta": dict(meta), "results": rows}, indent=2) + "\n")


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive values (None when there are none)."""
    logs = [math.log(v) for v in values if v is not None and v > 0]
    return math.exp(sum(logs) / len(logs)) if logs else None


def _fmt(value: float | None, spec: str, scale: float = 1.0) -> str:
    return "–" if value is None else format(value * scale, spec)


def _sig(value: float | None, scale: float = 1.0) -> str:
    """Three significant digits without an exponent (1234 -> '1234', 0.01234 -> '0.0123')."""
    if value is None:
        return "–"
    value *= scale
    digits = 2 - math.floor(math.log10(abs(value))) if value else 0
    return f"{value:.{max(digits, 0)}f}"


def _ms(seconds: float | None) -> str:
    return _sig(seconds, 1e3)


def markdown(results: Sequence[BenchResult], meta: Mapping[str, Any]) -> str:
    """The report: context, one row per kernel, summary, failures."""
    ok = [r for r in results if r.status == "ok"]
    lines = [f"# polycu bench: PolyBench {meta.get('dataset', '')} on {meta.get('device', '?')}",
             "", f"Measured {meta.get('date', '')} with `{meta.get('command', 'polycu bench')}`.",
             ""]
    ceilings = meta.get("ceilings")
    if ceilings:
        lines += [f"Device ceilings (measured by `polycu device`): copy "
                  f"{ceilings['copy_bandwidth'] / 1e12:.2f} TB/s, FP64 FMA "
                  f"{ceilings['fp64_peak'] / 1e12:.1f} TFLOP/s, FP32 FMA "
                  f"{ceilings['fp32_peak'] / 1e12:.1f} TFLOP/s.", ""]
    if meta.get("cpu"):
        lines += [f"CPU baselines: {meta['cpu']}.", ""]
    lines += [
        "GPU = kernel time (median, data on the device); e2e = with transfers; "
        "min = compulsory bytes at the copy bandwidth; roof = roofline bound / time; "
        "speedups = baseline time / GPU kernel time; check = the timed build (nvcc "
        + ("--fmad=true, FMA-contracted like `nvcc -O3`'s build" if meta.get("fmad") else
           "--fmad=false, which rounds like the CPU reference")
        + ") against the CPU reference, "
        "ok when every element is within the tolerance (rel. err: the largest "
        "relative error).", "",
        "| kernel | check | rel. err | GPU ms | ± | e2e ms | GFLOP/s | GB/s | min ms | × min "
        "| roof | CPU ms | OMP ms | ×CPU | ×OMP | cuBLAS ms |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        fig = r.figures or {}
        spread = r.timing["kernel"]["spread"] if r.timing else None
        lines.append(
            f"| {r.kernel} | {r.status} | {_fmt(r.max_rel_error, '.1e')} "
            f"| {_ms(r.kernel_s)} "
            f"| {_fmt(spread, '.0%')} | {_ms(r.end_to_end_s)} "
            f"| {_fmt(fig.get('gflops'), '.1f')} | {_fmt(fig.get('gbytes'), '.0f')} "
            f"| {_ms(fig.get('minimum_seconds'))} "
            f"| {_sig(fig.get('ratio_to_minimum'))} "
            f"| {_fmt(fig.get('roofline_fraction'), '.0%')} "
            f"| {_ms(r.cpu_s)} | {_ms(r.omp_s)} "
            f"| {_sig(r.speedup(r.cpu_s))} | {_sig(r.speedup(r.omp_s))} "
            f"| {_ms(r.library_s)} |")
    lines += ["", "## Summary", "",
              f"- checks passed: {len(ok)} of {len(results)}",
              f"- geometric-mean speedup over gcc -O3 (1 thread): "
              f"{_sig(geomean(r.speedup(r.cpu_s) for r in ok))}×",
              f"- geometric-mean speedup over gcc -O3 autopar: "
              f"{_sig(geomean(r.speedup(r.omp_s) for r in ok))}×"]
    far = sorted((r for r in ok if r.figures), key=lambda r: -r.figures["ratio_to_minimum"])
    if far:
        lines.append("- furthest from their theoretical minimum time: " + ", ".join(
            f"{r.kernel} ({r.figures['ratio_to_minimum']:.0f}×)" for r in far[:5]))
    failed = [r for r in results if r.status not in ("ok", ON_CPU)]
    if failed:
        lines += ["", "## Failures", ""]
        for r in failed:
            first = r.error.strip().splitlines()[0] if r.error.strip() else r.status
            lines.append(f"- **{r.kernel}** ({r.status}): {first}")
    noted = [r for r in results if r.notes]
    if noted:
        lines += ["", "## Notes", ""]
        lines += [f"- **{r.kernel}**: {note.strip().splitlines()[0]}" for r in noted
                  for note in r.notes]
    return "\n".join(lines) + "\n"


def write_reports(results: Sequence[BenchResult], meta: Mapping[str, Any],
                  out: Path) -> list[Path]:
    """Every report into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(markdown(results, meta))
    write_csv(results, out / "results.csv")
    write_json(results, meta, out / "results.json")
    return [out / "results.md", out / "results.csv", out / "results.json",
            *write_plots(results, meta, out)]
