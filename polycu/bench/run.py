"""Batch runs over many kernels (``polycu bench``): the orchestration.

In:  C files or directories of PolyBench-style kernels, a dataset, options.
Out: one ``BenchResult`` per kernel and the reports in ``--out`` (see ``report``).

Each kernel goes through: load at the dataset's sizes, count its work
(``runtime.metrics``), compile it, check the GPU against the CPU reference on
the same random inputs (``runtime.check``), time the very program that was
checked (``runtime.pycuda_run``; a kernel whose check fails is not timed),
then the baselines: cuBLAS through CuPy for the gemm-class kernels (``library``)
and the CPU builds of the unchanged program (``baseline``), which run beside the
GPU work: first the single-thread builds, three at a time, then the
autoparallelised ones one at a time.  A kernel that fails any step is reported
with its error; the batch goes on, and the tables so far are rewritten after
each kernel, so that an interrupted batch still reports.

The kernels are checked and timed by the workers of ``runtime.workers``: here (the
default), one process per GPU (``--gpus``) or Ray actors (``--ray``), each building
its own state (``BenchSetup``).  Several workers take the kernels longest first,
the kernels an earlier bench (``--history``) saw hold a GPU longest spread over the
GPUs (``plan``); the reports keep the files' order, so they are those of one worker
(docs/scale-out.md).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping, Sequence

from ..diagnostics import error
from ..options import OPTIONS, Options
from ..runtime.device import DeviceInfo
from ..runtime.turns import held, this_gpu, turn, waited
from ..runtime.workers import Workers, open_workers
from . import cpu as cpu_suite
from .baseline import SERIAL_WORKERS, cpu_baselines, cpu_description, read_cpu_times
from .library import library_seconds
from .plan import Plan, instances_estimate, plan, read_history
from .report import markdown, write_csv, write_reports
from .result import ON_CPU, STEPS, BenchResult, failure_reason, program_digest


def polybench_cpu() -> ModuleType:
    """The CPU suite (``polycu.bench.cpu``: kernel discovery, gcc builds), which the
    batch's functions take as their ``cpu`` argument."""
    return cpu_suite


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


def bench_kernel(kernel: Any, dataset: str, options: Options, ceilings: Any, *, seed: int,
                 repeat: int, cpu_times: Mapping[str, float] | None = None) -> BenchResult:
    """Every measurement of one kernel; a failing step is recorded, never raised."""
    from ..runtime.check import check_target, targets
    from ..runtime.metrics import figures, scop_work

    started = lap = time.perf_counter()
    waited_before, held_before = waited(), held()
    result = BenchResult(kernel.name, kernel.category, dataset, str(kernel.source))

    def step(name: str) -> None:        # the seconds since the last step (STEPS)
        nonlocal lap
        now = time.perf_counter()
        result.phases[name] = round(now - lap, 2)
        lap = now

    try:
        found = targets(str(kernel.source), options, dataset=dataset)
        if len(found) != 1:
            raise error(f"bench times files of exactly one SCoP; {kernel.source} has "
                        f"{len(found)}")
        target = found[0]
        result.program = program_digest(target.description)
        result.parameters = dict(target.params)
        work = scop_work(target.scop, target.params)
        result.flops, result.bytes = work.flops, work.bytes
        result.footprint_bytes = work.footprint_bytes
        step("compile")
        # The program that is timed below is the one that was checked.
        checked = check_target(target, seed, init=options.init, fmad=options.fmad)
        step("check")
        arrays = checked.report.arrays
        result.max_rel_error = max((c.max_rel_error for c in arrays), default=0.0)
        result.mismatches = sum(c.mismatches for c in arrays)
        failure = checked.report.first_failure
        if checked.program is None:     # left to the CPU: its time is the CPU baseline's
            result.status = ON_CPU
            result.notes.append(checked.report.on_cpu)
        elif failure is not None:
            result.status, result.error = "mismatch", failure.describe()
        else:
            with turn():
                timing = checked.program.time(repeat=repeat)
            step("time")
            result.timing = timing.as_dict()
            result.figures = asdict(figures(work, timing.kernel.median, ceilings))
            result.status = "ok"
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not stop the batch
        result.status, result.error = "failed", failure_reason(exc)
    # Baselines: a failure is a note, the kernel's own outcome stands.
    if result.status == "ok":
        try:
            with turn():
                result.library_s = library_seconds(kernel.name, result.parameters, repeat)
            result.library = "cuBLAS (CuPy)" if result.library_s is not None else ""
        except Exception as exc:  # noqa: BLE001
            result.notes.append(f"cuBLAS baseline: {failure_reason(exc)}")
        step("library")
    if result.phases:       # compiled: the steps that followed may have used the GPU
        result.phases["wait"] = round(waited() - waited_before, 2)
        result.phases["gpu"] = round(held() - held_before, 2)
        result.gpu = this_gpu()
    if cpu_times is not None:
        result.cpu_s = cpu_times.get(kernel.name)
        if result.cpu_s is None:
            result.notes.append("CPU baseline: not in the --cpu-times file")
    result.seconds = round(time.perf_counter() - started, 2)
    return result


@dataclass(frozen=True)
class BenchSetup:
    """What a worker benches kernels with (picklable: it travels to spawned
    processes and Ray actors); called there, it reads its device's record."""

    dataset: str
    values: Mapping[str, Any]                 # the options, by dest
    seed: int
    repeat: int
    cpu_times: Mapping[str, float] | None

    def __call__(self) -> "Bencher":
        from ..runtime.device import device_info
        return Bencher(self, Options(**self.values), device_info())


@dataclass(frozen=True)
class Bencher:
    """A worker's state: its setup, options and device."""

    setup: BenchSetup
    options: Options
    info: DeviceInfo


def bench_on(bencher: Bencher, kernel: Any) -> BenchResult:
    """A worker's task: ``bench_kernel`` of one kernel on its device."""
    setup = bencher.setup
    return bench_kernel(kernel, setup.dataset, bencher.options, bencher.info.ceilings,
                        seed=setup.seed, repeat=setup.repeat, cpu_times=setup.cpu_times)


def device_record(bencher: Bencher, _: object) -> DeviceInfo:
    """A worker's task: the record of its device (the reports' ceilings)."""
    return bencher.info


def run_command(args: argparse.Namespace) -> int:
    """``polycu bench PATH... --dataset D``: every kernel, then the reports."""
    from ..runtime.inputs import fresh_seed

    dataset = args.dataset or "LARGE"
    out = Path(args.out or Path("out") / f"bench-{dataset}")
    cpu = polybench_cpu()
    kernels, includes = collect(args.files, cpu)
    options = Options.from_namespace(args)
    options = options.replace(include_dir=[*options.include_dir, *includes])
    seed = fresh_seed() if args.seed is None else args.seed
    cpu_times = read_cpu_times(args.cpu_times, dataset) if args.cpu_times else None
    setup = BenchSetup(dataset, {opt.dest: getattr(options, opt.dest) for opt in OPTIONS},
                       seed, max(args.repeat, 1), cpu_times)
    with open_workers(setup, count=options.gpus, gpu=True, ray=options.ray,
                      per_gpu=options.workers_per_gpu) as workers:
        return _bench(args, options, kernels, workers, out, cpu, cpu_times, seed)


def _bench(args: argparse.Namespace, options: Options, kernels: Sequence[Any],
           workers: Workers, out: Path, cpu: ModuleType,
           cpu_times: Mapping[str, float] | None, seed: int) -> int:
    """The batch on ``workers``, then the reports."""
    dataset = args.dataset or "LARGE"
    # Found while the workers start; one worker keeps the files' order.
    history = read_history(args.history, dataset) if args.history else {}
    schedule = plan([k.name for k in kernels],
                    [0 if k.name in history else instances_estimate(str(k.source), dataset,
                                                                     options)
                     for k in kernels], history, workers.lanes) if workers.count > 1 else \
        Plan(list(range(len(kernels))), [None] * len(kernels))
    (info,) = workers.map(device_record, [None])
    meta = {"dataset": dataset, "device": info.name,
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(["polycu bench", *map(shlex.quote, args.files),
                                 f"--dataset {dataset}", f"--repeat {args.repeat}",
                                 f"--seed {seed}"] + (["--fmad"] if args.fmad else [])),
            "fmad": bool(args.fmad),
            "ceilings": asdict(info.ceilings), "device_info": asdict(info), "seed": seed,
            "repeat": args.repeat, "workers": workers.label,
            "cpu": (cpu_description() if args.cpu_baseline and not cpu_times else
                    f"gcc -O3, 1 thread, from {args.cpu_times}" if cpu_times else "")}
    progress = cpu.Progress(len(kernels))
    results: list[BenchResult] = []
    baselines = args.cpu_baseline and not cpu_times
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="polycu-bench-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(1) as runner:
        cpu_work = runner.submit(cpu_baselines, cpu, kernels, dataset, Path(tmp),
                                 SERIAL_WORKERS) if baselines else None
        done: dict[int, BenchResult] = {}
        ran = workers.map(bench_on, [kernels[i] for i in schedule.order], schedule.lanes)
        for index, result in zip(schedule.order, ran):
            done[index] = result
            results = [done[i] for i in sorted(done)]
            progress.step(f"{kernels[index].name}: {result.status}")
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
    failed = [r for r in results if r.status not in ("ok", ON_CPU)]
    for r in failed:
        print(f"{r.kernel}: {r.status}: {r.error.strip().splitlines()[0] if r.error else ''}",
              file=sys.stderr)
    print(f"{len(results) - len(failed)}/{len(results)} kernels checked and timed (or left "
          "to the CPU); "
          f"reports in {out}", file=sys.stderr)
    return 1 if failed else 0
