#!/usr/bin/env python3
"""Build the programs polycu emits for PolyBench with nvcc, run them on the GPU,
and compare their dumps with the original built by gcc (issue 5's GPU check).

For every kernel and dataset: ``polycu`` translates the kernel file (with
``-D<DATASET>_DATASET``), ``nvcc -O3 -arch=sm_90`` builds the .cu with the
PolyBench harness, and gcc -O3 builds the unchanged original; both run with
``-DPOLYBENCH_DUMP_ARRAYS`` and the dumps are compared value by value (a value
matches when it is within one unit of the last printed digit; integers exactly; the
GPU build for this check uses ``--fmad=false`` like gcc's x86-64 code) and
the largest relative difference ``|a - e| / max(|e|, 0.01)`` is reported.
At the timing dataset both are built again with ``-DPOLYBENCH_TIME`` and run
``--repeat`` times (median): the GPU time is the whole SCoP as the program sees
it (allocation, transfers, launches), the CPU time the original kernel.

Writes ``programs.md`` and ``programs.json`` to ``--out``.  Run it on the device:

    bash scripts/device_run.sh script scripts/gpu_programs.py --out "$OUT/programs"
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from polycu.bench import cpu  # noqa: E402
from polycu.cli import build_parser  # noqa: E402
from polycu.codegen import host_path  # noqa: E402
from polycu.driver import compile_file  # noqa: E402
from polycu.diagnostics import PolycuError  # noqa: E402
from polycu.options import COMPILE, OPTIONS, Options  # noqa: E402
from polycu.runtime.parameters import dataset_parameters  # noqa: E402
from polycu.runtime.programs import compare_dumps  # noqa: E402
from polycu.runtime.replay import replay  # noqa: E402


@dataclass
class Outcome:
    kernel: str
    dataset: str
    kernels: int = 0
    launches: int = 0
    ok: bool = False
    max_rel_error: float | None = None
    mismatches: int = 0
    gpu_s: float | None = None
    cpu_s: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)


def run(command: list[str], timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} ... failed ({proc.returncode}):\n"
                           f"{proc.stderr[-2000:]}")
    return proc


# isl's context (its operation budget included) is shared and not thread-safe:
# one translation at a time; the builds and runs around it go in parallel.
ISL_LOCK = threading.Lock()


# Extra polycu options for every translation (--polycu-flags), e.g. to measure a
# transformation against the code without it.
EXTRA: dict = {}


def translate(kernel: cpu.Kernel, dataset: str, work: Path) -> tuple[Path, dict]:
    options = Options(define=[f"{dataset}_DATASET"],
                      include_dir=[str(cpu.UTILITIES_DIR), str(kernel.directory)], **EXTRA)
    with ISL_LOCK:
        generated = compile_file(str(kernel.source), options)
    cu = work / f"{kernel.name}_{dataset}.cu"
    generated.write(cu)
    return cu, generated.description


def nvcc_build(kernel: cpu.Kernel, cu: Path, dataset: str, define: str, out: Path,
               fmad: bool = True) -> Path:
    binary = out.with_suffix("")
    run(["nvcc", "-O3", "-arch=sm_90", "-w", f"--fmad={'true' if fmad else 'false'}",
         "-I", str(cpu.UTILITIES_DIR),
         "-I", str(kernel.directory), f"-D{dataset}_DATASET", f"-D{define}",
         *os.environ.get("POLYCU_NVCC_FLAGS", "").split(),   # e.g. -DPOLYCU_STAGE_BYTES=SIZE_MAX
         str(cpu.UTILITIES_DIR / "polybench.c"), str(cu), str(host_path(cu)), "-o", str(binary),
         "-lm"], 600)
    return binary


def count_launches(kernel: cpu.Kernel, description: dict, dataset: str) -> tuple[int, int]:
    kernels = launches = 0
    for scop in description["scops"]:
        params = dataset_parameters(str(kernel.source), scop["parameters"], dataset,
                                    includes=[str(cpu.UTILITIES_DIR), str(kernel.directory)])
        kernels += len(scop["kernels"])
        launches += replay(scop["host"], params, lambda _launch: None)
    return kernels, launches


def on_the_cpu(description: dict) -> list[str]:
    """Why each SCoP the cost model left to the CPU runs there (its GPU time is then
    that of its original code, built by nvcc's host compiler)."""
    return [f"{scop['name']} {scop['where']['why']}" for scop in description["scops"]
            if scop["runs_on"] == "cpu"]


def check(kernel: cpu.Kernel, dataset: str, work: Path, timeout: float) -> Outcome:
    """Translate, build both sides with dumps, run, compare."""
    outcome = Outcome(kernel.name, dataset)
    try:
        cu, description = translate(kernel, dataset, work)
        outcome.kernels, outcome.launches = count_launches(kernel, description, dataset)
        outcome.notes += on_the_cpu(description)
        # Without FMA contraction, as gcc builds the original on x86-64: the dumps then
        # differ only where the summation order does (atomics).
        gpu_bin = nvcc_build(kernel, cu, dataset, "POLYBENCH_DUMP_ARRAYS",
                             work / f"{kernel.name}_{dataset}_gpu.dump", fmad=False)
        cpu_bin = cpu.build_kernel(kernel, dataset, work, defines=["POLYBENCH_DUMP_ARRAYS"],
                                   tag="_cpu_dump").binary
        expected = cpu.run_kernel(cpu_bin, timeout).stderr
        actual = run([str(gpu_bin)], timeout).stderr
        comparisons = compare_dumps(expected, actual)
        outcome.mismatches = sum(c.mismatches for c in comparisons)
        outcome.max_rel_error = relative_error(expected, actual)
        outcome.ok = outcome.mismatches == 0
    except (PolycuError, RuntimeError, ValueError, cpu.BuildError, cpu.RunError,
            subprocess.TimeoutExpired) as exc:
        lines = [line for line in str(exc).strip().splitlines() if line.strip()]
        outcome.error = (" | ".join(dict.fromkeys([lines[0], lines[-1]]))[:300] if lines
                         else type(exc).__name__)
    return outcome


def relative_error(expected: str, actual: str) -> float:
    """max |a - e| / max(|e|, 0.01) over all dumped values (0.01: the print resolution)."""
    want, got = cpu.parse_dump(expected), cpu.parse_dump(actual)
    worst = 0.0
    for name, values in want.items():
        for e, a in zip(values, got[name]):
            worst = max(worst, abs(a - e) / max(abs(e), 0.01))
    return worst


def time_only(kernel: cpu.Kernel, dataset: str, work: Path, timeout: float) -> Outcome:
    """Translate only (the dumps were compared in an earlier run: see --time-only)."""
    outcome = Outcome(kernel.name, dataset)
    try:
        _cu, description = translate(kernel, dataset, work)
        outcome.kernels, outcome.launches = count_launches(kernel, description, dataset)
        outcome.notes += on_the_cpu(description)
        outcome.ok = True
    except (PolycuError, RuntimeError, ValueError) as exc:
        outcome.error = str(exc).strip().splitlines()[0][:300]
    return outcome


def median_time(binary: Path, repeat: int, timeout: float) -> float:
    return statistics.median(cpu.parse_time(run([str(binary)], timeout).stdout)
                             for _ in range(repeat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["SMALL", "LARGE"])
    parser.add_argument("--time-dataset", default="LARGE",
                        help="dataset at which both programs are timed ('none': no timing)")
    parser.add_argument("--kernels", nargs="*", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--time-only", action="store_true",
                        help="skip the dump comparison (done by an earlier run) and only time")
    parser.add_argument("--build", type=Path, default=None,
                        help="directory of the builds (default: OUT/build)")
    parser.add_argument("--polycu-flags", default="",
                        help="extra polycu options, e.g. '--no-expand-scalars'")
    args = parser.parse_args(argv)
    EXTRA.update(polycu_options(args.polycu_flags))
    kernels = [k for k in cpu.find_kernels() if not args.kernels or k.name in args.kernels]
    work = args.build or args.out / "build"
    work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    jobs = [(k, d) for d in args.datasets for k in kernels]
    step = time_only if args.time_only else check
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(lambda kd: step(kd[0], kd[1], work, args.timeout), jobs))
    for o in outcomes:
        print(f"{o.dataset:6s} {o.kernel:15s} {'ok' if o.ok else 'FAIL'} "
              f"{o.error or ''}", file=sys.stderr)
    device = device_name()
    write_reports(outcomes, args, device, time.time() - started)
    if args.time_dataset == "none":
        return 0 if all(o.ok for o in outcomes) else 1
    # Timing: CPU originals in parallel (one core each), GPU programs one at a time.
    timed = {o.kernel: o for o in outcomes if o.dataset == args.time_dataset and o.ok}
    by_name = {k.name: k for k in kernels}

    def cpu_time(name: str) -> tuple[str, float | None, str]:
        try:
            binary = cpu.build_kernel(by_name[name], args.time_dataset, work,
                                      defines=["POLYBENCH_TIME"], tag="_cpu_time").binary
            return name, median_time(binary, args.repeat, args.timeout), ""
        except Exception as exc:  # noqa: BLE001 - reported per kernel, the batch goes on
            return name, None, f"cpu timing: {str(exc).splitlines()[0][:200]}"

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        cpu_future = list(pool.map(cpu_time, sorted(timed)))
        gpu_bins = dict(zip(sorted(timed), pool.map(
            lambda n: nvcc_build(by_name[n], work / f"{n}_{args.time_dataset}.cu",
                                 args.time_dataset, "POLYBENCH_TIME",
                                 work / f"{n}_{args.time_dataset}_gpu.time"), sorted(timed))))
    for name, seconds, note in cpu_future:
        timed[name].cpu_s = seconds
        if note:
            timed[name].notes.append(note)
    # The CPU times in scripts/polybench_cpu.py's format, for `polycu bench --cpu-times`.
    (args.out / f"timings_{args.time_dataset}.json").write_text(json.dumps(
        [{"kernel": n, "category": by_name[n].category, "dataset": args.time_dataset,
          "median_s": timed[n].cpu_s, "samples_s": [], "error": ""}
         for n in sorted(timed) if timed[n].cpu_s is not None], indent=1))
    for name in sorted(timed):
        try:
            timed[name].gpu_s = median_time(gpu_bins[name], args.repeat, args.timeout)
        except Exception as exc:  # noqa: BLE001
            timed[name].notes.append(f"gpu timing: {str(exc).splitlines()[0][:200]}")
        write_reports(outcomes, args, device, time.time() - started)
    write_reports(outcomes, args, device, time.time() - started)
    return 0 if all(o.ok for o in outcomes) else 1


def polycu_options(flags: str) -> dict:
    """The Options fields that the polycu command-line ``flags`` set."""
    if not flags.strip():
        return {}
    parsed = build_parser().parse_args([COMPILE, "x.c", *shlex.split(flags)])
    given, default = Options.from_namespace(parsed), Options()
    return {opt.dest: getattr(given, opt.dest) for opt in OPTIONS
            if getattr(given, opt.dest) != getattr(default, opt.dest)}


def device_name() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip() or "unknown GPU"
    except OSError:
        return "no GPU (nvidia-smi missing)"


def write_reports(outcomes: list[Outcome], args: argparse.Namespace, device: str,
                  seconds: float) -> None:
    meta = {"device": device, "date": time.strftime("%Y-%m-%d"), "datasets": args.datasets,
            "time_dataset": args.time_dataset, "repeat": args.repeat, "wall_s": seconds}
    (args.out / "programs.json").write_text(json.dumps(
        {"meta": meta, "results": [asdict(o) for o in outcomes]}, indent=1))
    shown = args.time_dataset if args.time_dataset in args.datasets else args.datasets[-1]
    lines = [f"# Emitted PolyBench programs on the GPU ({device}, {meta['date']})", "",
             "nvcc -O3 -arch=sm_90 build of `polycu`'s output vs gcc -O3 build of the original;"
             " dumps compared value by value within one unit of the last printed digit; "
             f"times are medians of {args.repeat} runs of the program's own timer "
             f"(-DPOLYBENCH_TIME) at {args.time_dataset}: GPU = the SCoP with allocation, "
             "transfers and launches; CPU = the original kernel, one thread."
             + (" This run only timed (--time-only): the dumps were compared by an "
                "earlier run." if args.time_only else ""), "",
             "| kernel | kernels | launches (" + shown + ") | "
             + " | ".join(f"{d} dump" for d in args.datasets)
             + " | max rel. error | GPU s | CPU s | CPU/GPU |",
             "|---|--:|--:|" + "---|" * len(args.datasets) + "--:|--:|--:|--:|"]
    for name in sorted({o.kernel for o in outcomes}):
        per = {o.dataset: o for o in outcomes if o.kernel == name}
        t = per.get(shown) or next(iter(per.values()))
        status = [("timed only" if args.time_only and per[d].ok else "ok" if per[d].ok else f"FAIL: {per[d].error or str(per[d].mismatches) + ' mismatches'}")
                  if d in per else "" for d in args.datasets]
        err = max((o.max_rel_error for o in per.values() if o.max_rel_error is not None),
                  default=None)
        speed = (t.cpu_s / t.gpu_s) if t.cpu_s and t.gpu_s else None
        lines.append(f"| {name} | {t.kernels} | {t.launches} | " + " | ".join(status)
                     + f" | {'' if err is None else f'{err:.1e}'} | "
                     + f"{'' if t.gpu_s is None else f'{t.gpu_s:.4f}'} | "
                     + f"{'' if t.cpu_s is None else f'{t.cpu_s:.4f}'} | "
                     + f"{'' if speed is None else f'{speed:.1f}'} |")
    notes = [f"- {o.kernel}: {n}" for o in outcomes for n in o.notes]
    if notes:
        lines += ["", "Notes:", *notes]
    (args.out / "programs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
