"""Batch runs over many kernels and their reports (``polycu bench``).

In:  C files or directories of PolyBench-style kernels, a dataset.
Out: one ``BenchResult`` per kernel (check, times, figures, baselines) and the
reports: ``results.md`` (Markdown table and summary), ``results.csv``,
``results.json``, and with matplotlib ``speedup.png`` and ``roofline.png``.

Each kernel goes through: load at the dataset's sizes, count its work
(``runtime.metrics``), compile it, check the GPU against the CPU reference on
the same random inputs (``runtime.check``), time the very program that was
checked (``runtime.pycuda_run``; a kernel whose check fails is not timed),
then the baselines: the unchanged PolyBench program built with gcc -O3
(single thread), the same with gcc's automatic parallelisation over all cores but
two (``-O3 -fopenmp -ftree-parallelize-loops=N``: PolyBench has no OpenMP pragmas,
so this is what gcc's OpenMP runtime gives it), and cuBLAS through CuPy for the
gemm-class kernels when CuPy is importable.  The CPU baselines run beside the GPU
work (whose CPU reference and launches keep two cores): first the single-thread
builds, three at a time, then the autoparallelised ones one at a time.  A kernel
that fails any step is reported with its error; the batch goes on.

Speedups are CPU time over GPU kernel time; the summary's geometric means take
the kernels whose check passed.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import datetime
import importlib.util
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping, Sequence

from .diagnostics import PolycuError, error
from .options import Options

REPO_ROOT = Path(__file__).resolve().parent.parent
CPU_SCRIPT = REPO_ROOT / "scripts" / "polybench_cpu.py"


@dataclass
class BenchResult:
    """Everything measured about one kernel (JSON-ready)."""

    kernel: str
    category: str
    dataset: str
    source: str
    parameters: dict[str, int] = field(default_factory=dict)
    flops: int | None = None
    bytes: int | None = None            # compulsory traffic
    footprint_bytes: int | None = None
    status: str = "failed"              # 'ok', 'mismatch' or 'failed'
    error: str = ""
    max_rel_error: float | None = None      # the check of the timed build
    mismatches: int | None = None
    timing: dict[str, Any] | None = None    # pycuda_run.Timing.as_dict()
    figures: dict[str, float] | None = None  # metrics.Figures of the kernel time
    cpu_s: float | None = None          # gcc -O3, one thread
    omp_s: float | None = None          # gcc -O3 autopar, all cores
    library_s: float | None = None      # cuBLAS via CuPy
    library: str = ""
    notes: list[str] = field(default_factory=list)  # baselines that failed

    @property
    def kernel_s(self) -> float | None:
        return self.timing["kernel"]["median_s"] if self.timing else None

    @property
    def end_to_end_s(self) -> float | None:
        return self.timing["end_to_end"]["median_s"] if self.timing else None

    def speedup(self, baseline_s: float | None) -> float | None:
        if baseline_s is None or not self.kernel_s:
            return None
        return baseline_s / self.kernel_s


# -- report writers ----------------------------------------------------------------

CSV_COLUMNS = (
    "kernel", "category", "dataset", "parameters", "status", "error", "launches",
    "kernel_ms", "kernel_spread", "replay_ms", "end_to_end_ms", "gflops", "gbytes_per_s",
    "minimum_ms", "ratio_to_minimum", "roofline_fraction", "flops", "bytes",
    "footprint_bytes", "max_rel_error", "mismatches", "cpu_ms", "omp_ms", "library_ms",
    "library", "speedup_cpu", "speedup_omp", "speedup_library", "notes",
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
        "--fmad=false, which rounds like the CPU reference) against the CPU reference, "
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
    failed = [r for r in results if r.status != "ok"]
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


def write_plots(results: Sequence[BenchResult], meta: Mapping[str, Any],
                out: Path) -> list[Path]:
    """speedup.png and roofline.png; nothing (an empty list) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    ok = [r for r in results if r.status == "ok" and r.kernel_s]
    written = []
    if ok:
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(ok) + 2), 4.5))
        xs = range(len(ok))
        width = 0.4
        for k, (label, attr) in enumerate((("vs gcc -O3, 1 thread", "cpu_s"),
                                           ("vs gcc -O3 autopar", "omp_s"))):
            ax.bar([x + (k - 0.5) * width for x in xs],
                   [r.speedup(getattr(r, attr)) or 0 for r in ok], width, label=label)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs), [r.kernel for r in ok], rotation=60, ha="right")
        ax.set_ylabel("speedup of the GPU kernels")
        ax.set_title(f"polycu, PolyBench {meta.get('dataset', '')}, {meta.get('device', '')}")
        ax.legend()
        fig.tight_layout()
        written.append(out / "speedup.png")
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)
    ceilings = meta.get("ceilings")
    points = [r for r in ok if r.figures and r.flops and r.bytes]
    if ceilings and points:
        fig, ax = plt.subplots(figsize=(7, 5))
        intensity = [r.flops / r.bytes for r in points]
        lo, hi = min(intensity + [0.01]) / 2, max(intensity + [100.0]) * 2
        bandwidth = ceilings["copy_bandwidth"]
        for peak, label in ((ceilings["fp64_peak"], "FP64 FMA"), (ceilings["fp32_peak"],
                                                                    "FP32 FMA")):
            ridge = peak / bandwidth
            xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
            ax.plot(xs, [min(peak, x * bandwidth) / 1e9 for x in xs], label=f"roof ({label})")
        ax.scatter(intensity, [r.figures["gflops"] for r in points], color="black", zorder=3)
        for x, r in zip(intensity, points):
            ax.annotate(r.kernel, (x, r.figures["gflops"]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flop per compulsory byte)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Roofline, {meta.get('device', '')}")
        ax.legend()
        fig.tight_layout()
        written.append(out / "roofline.png")
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)
    return written


def write_reports(results: Sequence[BenchResult], meta: Mapping[str, Any],
                  out: Path) -> list[Path]:
    """Every report into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(markdown(results, meta))
    write_csv(results, out / "results.csv")
    write_json(results, meta, out / "results.json")
    return [out / "results.md", out / "results.csv", out / "results.json",
            *write_plots(results, meta, out)]


# -- running the batch ------------------------------------------------------------------

def polybench_cpu() -> ModuleType:
    """``scripts/polybench_cpu.py`` of the source tree (kernel discovery, CPU builds)."""
    if not CPU_SCRIPT.is_file():
        raise error(f"polycu bench needs {CPU_SCRIPT} (run it from polycu's source tree)")
    spec = importlib.util.spec_from_file_location("polybench_cpu", CPU_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def collect(paths: Sequence[str], cpu: ModuleType) -> tuple[list[Any], list[str]]:
    """Kernels named by ``paths`` (files, or directories searched like PolyBench's
    tree) and the include directories they need (each tree's ``utilities/``)."""
    kernels, includes = [], []
    for path in map(Path, paths):
        if path.is_dir():
            found = cpu.find_kernels(path)
            if not found:
                raise error(f"no kernel (<name>/<name>.c) under {path}")
            kernels += found
            if (path / "utilities").is_dir():
                includes.append(str(path / "utilities"))
        elif path.is_file():
            kernels.append(cpu.Kernel(path.stem, path.parent.parent.name, path))
        else:
            raise error(f"no such file or directory: {path}")
    return kernels, includes


AUTOPAR_THREADS = max(1, (os.cpu_count() or 1) - 2)
# Single-thread baselines timed at once: more would share the memory bandwidth and
# the last-level cache (with 7 at a time, times varied by up to 1.8x between runs).
SERIAL_WORKERS = max(1, min(3, (os.cpu_count() or 2) // 2 - 1))


def cpu_seconds(cpu: ModuleType, kernel: Any, dataset: str, build_dir: Path, *,
                parallel: bool, repeat: int) -> float:
    """Median time printed by the PolyBench harness of the unchanged program."""
    cflags = ("-O3", f"-ftree-parallelize-loops={AUTOPAR_THREADS}") if parallel else ("-O3",)
    build = cpu.build_kernel(kernel, dataset, build_dir, defines=["POLYBENCH_TIME"],
                             cflags=cflags, openmp=parallel,
                             tag="_autopar" if parallel else "_serial")
    return statistics.median(cpu.parse_time(cpu.run_kernel(build.binary).stdout)
                             for _ in range(repeat))


GEMM_CLASS = ("gemm", "2mm", "3mm")


def _gemm_class(cp: Any, name: str, p: Mapping[str, int]) -> Callable[[], None]:
    """cuBLAS (through CuPy) doing a gemm-class kernel's job, on random data."""
    import cupy.cublas
    gemm = cupy.cublas.gemm

    def rand(*shape: int) -> Any:
        return cp.random.random(shape, dtype=cp.float64)

    if name == "gemm":
        a, b, c = rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"]), rand(p["ni"], p["nj"])
        return lambda: gemm("N", "N", a, b, out=c, alpha=1.5, beta=1.2)
    if name == "2mm":
        a, b = rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"])
        c, d, tmp = rand(p["nj"], p["nl"]), rand(p["ni"], p["nl"]), rand(p["ni"], p["nj"])

        def two() -> None:
            gemm("N", "N", a, b, out=tmp, alpha=1.5, beta=0.0)
            gemm("N", "N", tmp, c, out=d, alpha=1.0, beta=1.2)
        return two
    if name == "3mm":
        a, b, c, d = (rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"]), rand(p["nj"], p["nm"]),
                      rand(p["nm"], p["nl"]))
        e, f, g = rand(p["ni"], p["nj"]), rand(p["nj"], p["nl"]), rand(p["ni"], p["nl"])

        def three() -> None:
            gemm("N", "N", a, b, out=e)
            gemm("N", "N", c, d, out=f)
            gemm("N", "N", e, f, out=g)
        return three
    raise ValueError(f"no cuBLAS recipe for {name}")


def library_seconds(name: str, params: Mapping[str, int], repeat: int) -> float | None:
    """Median time of cuBLAS doing the kernel's job; None when CuPy or a recipe is missing."""
    if name not in GEMM_CLASS:
        return None
    try:
        import cupy as cp
    except ImportError:
        return None
    run = _gemm_class(cp, name, params)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(2):
        run()
    times = []
    for _ in range(repeat):
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, PolycuError):
        return str(exc)
    return "internal error: " + "".join(traceback.format_exception_only(exc)).strip()


def bench_kernel(kernel: Any, dataset: str, options: Options, ceilings: Any, *, seed: int,
                 repeat: int, cpu_times: Mapping[str, float] | None = None) -> BenchResult:
    """Every measurement of one kernel; a failing step is recorded, never raised."""
    from .runtime.check import check_target, targets
    from .runtime.metrics import figures, scop_work

    result = BenchResult(kernel.name, kernel.category, dataset, str(kernel.source))
    try:
        found = targets(str(kernel.source), options, dataset=dataset)
        if len(found) != 1:
            raise error(f"bench times files of exactly one SCoP; {kernel.source} has "
                        f"{len(found)}")
        target = found[0]
        result.parameters = dict(target.params)
        work = scop_work(target.scop, target.params)
        result.flops, result.bytes = work.flops, work.bytes
        result.footprint_bytes = work.footprint_bytes
        # The program that is timed below is the one that was checked.
        checked = check_target(target, seed, init=options.init)
        arrays = checked.report.arrays
        result.max_rel_error = max((c.max_rel_error for c in arrays), default=0.0)
        result.mismatches = sum(c.mismatches for c in arrays)
        failure = checked.report.first_failure
        if failure is not None:
            result.status, result.error = "mismatch", failure.describe()
        else:
            timing = checked.program.time(repeat=repeat)
            result.timing = timing.as_dict()
            result.figures = asdict(figures(work, timing.kernel.median, ceilings))
            result.status = "ok"
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not stop the batch
        result.status, result.error = "failed", _reason(exc)
    # Baselines: a failure is a note, the kernel's own outcome stands.
    if result.status == "ok":
        try:
            result.library_s = library_seconds(kernel.name, result.parameters, repeat)
            result.library = "cuBLAS (CuPy)" if result.library_s is not None else ""
        except Exception as exc:  # noqa: BLE001
            result.notes.append(f"cuBLAS baseline: {_reason(exc)}")
    if cpu_times is not None:
        result.cpu_s = cpu_times.get(kernel.name)
        if result.cpu_s is None:
            result.notes.append("CPU baseline: not in the --cpu-times file")
    return result


# Baselines run beside the GPU work: the one-thread builds on ``workers`` cores at
# once, then the autoparallelised builds one at a time on all cores but two (the
# GPU loop and its CPU reference keep those).
def cpu_baselines(cpu: ModuleType, kernels: Sequence[Any], dataset: str, build_dir: Path,
                  workers: int) -> dict[str, tuple[float | None, float | None, list[str]]]:
    """(serial seconds, autoparallelised seconds, notes) of every kernel."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        serial = {k.name: pool.submit(cpu_seconds, cpu, k, dataset, build_dir,
                                      parallel=False, repeat=1) for k in kernels}
    found: dict[str, tuple[float | None, float | None, list[str]]] = {}
    for kernel in kernels:
        notes: list[str] = []

        def attempt(what: str, run: Callable[[], float]) -> float | None:
            try:
                return run()
            except Exception as exc:  # noqa: BLE001 - a baseline's failure is a note
                notes.append(f"CPU baseline ({what}): {_reason(exc)}")
                return None

        one = attempt("serial", serial[kernel.name].result)
        autopar = attempt("autopar", lambda: cpu_seconds(cpu, kernel, dataset, build_dir,
                                                         parallel=True, repeat=1))
        found[kernel.name] = (one, autopar, notes)
    return found


def read_cpu_times(path: str, dataset: str) -> dict[str, float]:
    """Median seconds per kernel from scripts/polybench_cpu.py's timings JSON."""
    try:
        rows = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise error(f"cannot read --cpu-times '{path}': {exc}") from None
    return {row["kernel"]: row["median_s"] for row in rows
            if row.get("dataset") == dataset and row.get("median_s") is not None}


def _cpu_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True)
    return (f"gcc {gcc.stdout.strip()} -O3 on {model}, 1 thread and "
            f"-ftree-parallelize-loops={AUTOPAR_THREADS}")


def run_command(args: argparse.Namespace) -> int:
    """``polycu bench PATH... --dataset D``: every kernel, then the reports."""
    from .runtime.check import fresh_seed
    from .runtime.device import device_info

    dataset = args.dataset or "LARGE"
    out = Path(args.out or Path("out") / f"bench-{dataset}")
    cpu = polybench_cpu()
    kernels, includes = collect(args.files, cpu)
    options = Options.from_namespace(args)
    options = options.replace(include_dir=[*options.include_dir, *includes])
    info = device_info()
    seed = fresh_seed() if args.seed is None else args.seed
    cpu_times = read_cpu_times(args.cpu_times, dataset) if args.cpu_times else None
    meta = {"dataset": dataset, "device": info.name,
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(["polycu bench", *map(shlex.quote, args.files),
                                 f"--dataset {dataset}", f"--repeat {args.repeat}",
                                 f"--seed {seed}"]),
            "ceilings": asdict(info.ceilings), "device_info": asdict(info), "seed": seed,
            "repeat": args.repeat,
            "cpu": (_cpu_description() if args.cpu_baseline and not cpu_times else
                    f"gcc -O3, 1 thread, from {args.cpu_times}" if cpu_times else "")}
    progress = cpu.Progress(len(kernels))
    results: list[BenchResult] = []
    baselines = args.cpu_baseline and not cpu_times
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="polycu-bench-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(1) as runner:
        cpu_work = runner.submit(cpu_baselines, cpu, kernels, dataset, Path(tmp),
                                 SERIAL_WORKERS) if baselines else None
        for kernel in kernels:
            results.append(bench_kernel(kernel, dataset, options, info.ceilings, seed=seed,
                                        repeat=max(args.repeat, 1), cpu_times=cpu_times))
            progress.step(f"{kernel.name}: {results[-1].status}")
            # The tables so far, so that an interrupted batch still reports.
            out.mkdir(parents=True, exist_ok=True)
            (out / "results.md").write_text(markdown(results, meta))
            write_csv(results, out / "results.csv")
        if cpu_work is not None:
            print("waiting for the CPU baselines", file=sys.stderr)
            times = cpu_work.result()
            for result in results:
                result.cpu_s, result.omp_s, notes = times[result.kernel]
                result.notes += notes
    meta["wall_s"] = round((datetime.datetime.now() - started).total_seconds(), 1)
    for path in write_reports(results, meta, out):
        print(path)
    failed = [r for r in results if r.status != "ok"]
    for r in failed:
        print(f"{r.kernel}: {r.status}: {r.error.strip().splitlines()[0] if r.error else ''}",
              file=sys.stderr)
    print(f"{len(results) - len(failed)}/{len(results)} kernels checked and timed; "
          f"reports in {out}", file=sys.stderr)
    return 1 if failed else 0
