"""Scale-out (docs/scale-out.md): ``polycu tune`` and ``polycu bench`` over several
workers, local processes or Ray actors, give what one worker gives.

CPU only.  The tuning checks every configuration by emulation for real; its time is
made a function of the generated code (``CodeTimed``), so that the local search,
which follows the fastest configuration, decides the same in every run and two runs
compare exactly.  The bench runs ``bench_kernel`` for real with the GPU program
replaced by test_check's ``HostProgram`` (the CPU reference, a fixed time) in each
worker.  The per-GPU workers on a real GPU are the ``gpu`` test at the end.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import pytest

import polycu
from polycu.bench import plan as bench_plan
from polycu.bench import run as bench_run
from polycu.cli import main
from polycu.options import Options
from polycu.runtime import check, workers
from polycu.runtime.device import DeviceInfo
from polycu.tune import run as tune_run
from polycu.tune.evaluate import Built, EmulationEvaluator, EvaluatorRecipe, Measured
from polycu.tune.search import Evaluation
from test_check import HostProgram

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "examples" / "gemm.c"
UTILITIES = str(ROOT / "polybench" / "utilities")
SIZES = {"ni": 10, "nj": 9, "nk": 8}


class CodeTimed(EmulationEvaluator):
    """The emulation's check, a time that depends on the code only, and the worker's
    process id as the detail (which process measured)."""

    def measure(self, entry: Mapping[str, Any]) -> Measured:
        outcome = super().measure(entry)
        if outcome.status != "ok":
            return outcome
        return Measured("ok", 1e-3 + int(Built(entry).code, 16) % 997 * 1e-6,
                        f"pid {os.getpid()}")


class CodeTimedRecipe(EvaluatorRecipe):
    """``EvaluatorRecipe`` building ``CodeTimed`` evaluators, wherever it runs."""

    def evaluator(self, target: check.Target) -> CodeTimed:
        return CodeTimed(target, self.seed, repeat=self.repeat, init=self.init)


def _tune(monkeypatch: pytest.MonkeyPatch, **where: Any) -> tune_run.Tuning:
    monkeypatch.setattr(tune_run, "EvaluatorRecipe", CodeTimedRecipe)
    options = Options(evaluator="emulate", strategy="local", max_configs=3, jobs=2, repeat=1,
                      **where)
    return tune_run.tune_file(str(GEMM), options, params=SIZES, seed=11, progress=False)


def _outcomes(evaluations: tuple[Evaluation, ...]) -> list[tuple[Any, ...]]:
    return [(e.config, e.status, e.seconds, e.same_as) for e in evaluations]


def _measured_by(tuning: tune_run.Tuning) -> set[str]:
    return {e.detail for e in tuning.evaluations if e.status == "ok" and e.same_as is None}


@pytest.fixture(scope="module")
def one_worker() -> tune_run.Tuning:
    """The tuning with the one worker in this process: what every spread must give."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        tuning = _tune(monkeypatch)
    assert tuning.entry is not None
    assert _measured_by(tuning) == {f"pid {os.getpid()}"}
    assert sum(1 for e in tuning.evaluations if e.same_as is None) == 3
    return tuning


def _same_as(tuning: tune_run.Tuning, one: tune_run.Tuning) -> None:
    assert _outcomes(tuning.evaluations) == _outcomes(one.evaluations)
    assert tuning.entry is not None and one.entry is not None
    assert tuning.entry.changes == one.entry.changes and tuning.entry.kernel_s == \
        one.entry.kernel_s and tuning.entry.slot == one.entry.slot


def test_two_local_workers_tune_like_one(one_worker: tune_run.Tuning,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    tuning = _tune(monkeypatch, gpus="2")
    _same_as(tuning, one_worker)
    # measured in two other processes, both of them
    pids = _measured_by(tuning)
    assert len(pids) == 2 and f"pid {os.getpid()}" not in pids


def test_two_ray_actors_tune_like_one(one_worker: tune_run.Tuning,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    # the actors import this module (CodeTimedRecipe) and test_check's scripts/
    path = [str(ROOT / "tests"), str(ROOT / "scripts"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, path)))
    assert not ray.is_initialized()
    try:
        tuning = _tune(monkeypatch, gpus="2", ray="local")
        assert ray.is_initialized() and ray.cluster_resources().get("CPU", 0) >= 2
    finally:
        ray.shutdown()
    _same_as(tuning, one_worker)
    assert len(_measured_by(tuning)) == 2 and f"pid {os.getpid()}" not in _measured_by(tuning)


def test_ray_missing_says_how_to_install_it_and_runs_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)         # as if not installed
    cache = tmp_path / "cache.json"
    code = main(["tune", str(GEMM), "--evaluator", "emulate", "--max-configs", "1",
                 "--jobs", "1", "--repeat", "1", "--seed", "3",
                 *[f"--param={k}={v}" for k, v in SIZES.items()], "--out", str(tmp_path),
                 "--tune-cache", str(cache), "--ray"])
    err = capsys.readouterr().err
    assert "--ray: warning: Ray is not installed (pip install 'polycu[ray]'); the workers " \
        "run on this host" in err
    assert code == 0 and len(json.loads(cache.read_text())["entries"]) == 1
    tried = json.loads((tmp_path / "gemm.json").read_text())["evaluations"]
    assert [(e["status"], e["flags"]) for e in tried] == [("ok", [])]


def test_worker_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "--ray", str(GEMM), str(GEMM)]) == 1   # a file taken for the address
    assert f"--ray: error: not a Ray address: '{GEMM}'" in capsys.readouterr().err
    assert main(["bench", str(GEMM), "--gpus", "0"]) == 1
    assert "--gpus: error: --gpus must be a positive integer or 'all', not '0'" in \
        capsys.readouterr().err


def test_local_workers_keep_the_order_and_pin_their_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,7")
    assert workers.local_gpus() == ["5", "7"]
    with workers.open_workers(os.getpid, count="all", gpu=True) as pool:
        assert isinstance(pool, workers.LocalWorkers) and pool.count == 2
        seen = list(pool.map(_slowly, range(6)))
    assert [item for _, _, item in seen] == list(range(6))
    # each worker's state (its process id, made by the recipe where it runs) keeps
    # one GPU of its own
    gpu_of: dict[int, str] = {}
    for pid, gpu, _ in seen:
        assert gpu_of.setdefault(pid, gpu) == gpu
    assert sorted(gpu_of.values()) == ["5", "7"] and os.getpid() not in gpu_of
    with pytest.raises(polycu.PolycuError, match="3 GPU workers asked for, but this host "
                                                 "has 2 GPUs"):
        workers.open_workers(os.getpid, count="3", gpu=True)


def test_workers_sharing_a_gpu_are_pinned_to_it_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    assert workers.shared_gpus(["5", "7"], 3) == ["5", "7", "5", "7", "5", "7"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,7")
    with workers.open_workers(os.getpid, count="all", gpu=True, per_gpu=2) as pool:
        assert isinstance(pool, workers.LocalWorkers) and pool.count == 4
        assert pool.label == "4 processes, 2 on each of GPUs 5,7"
        seen = list(pool.map(_slowly, range(8)))
    assert [item for _, _, item in seen] == list(range(8))
    gpu_of: dict[int, str] = {}
    for pid, gpu, _ in seen:
        assert gpu_of.setdefault(pid, gpu) == gpu
    assert sorted(gpu_of.values()) == ["5", "5", "7", "7"]
    with workers.open_workers(os.getpid, count="all", gpu=True, per_gpu=2) as pool:
        assert pool.lanes == 2
        pinned = list(pool.map(_slowly, range(6), [1, 1, 1, None, 0, None]))
    assert [gpu for _, gpu, _ in pinned[:3]] == ["7"] * 3 and pinned[4][1] == "5"
    # one GPU, shared: processes too; the emulation's CPU workers ignore the option
    with workers.open_workers(os.getpid, count="1", gpu=True, per_gpu=2) as pool:
        assert isinstance(pool, workers.LocalWorkers) and pool.count == 2
    assert isinstance(workers.open_workers(os.getpid, count="1", gpu=False, per_gpu=2),
                      workers.InProcess)


def _slowly(state: int, item: int) -> tuple[int, str, int]:
    """A task long enough that a batch of them spreads over the workers: the
    worker's state, its GPU, the item."""
    time.sleep(0.2)
    return state, os.environ.get("CUDA_VISIBLE_DEVICES", ""), item


# -- bench ---------------------------------------------------------------------------
KERNELS = [str(ROOT / "polybench" / "stencils" / "jacobi-1d" / "jacobi-1d.c"),
           str(ROOT / "polybench" / "linear-algebra" / "kernels" / "atax" / "atax.c")]


class HostBenchSetup(bench_run.BenchSetup):
    """``BenchSetup`` whose workers run ``HostProgram`` for the GPU program (the CPU
    reference, 1 ms) on a device of fixed ceilings."""

    def __call__(self) -> bench_run.Bencher:
        check.DeviceProgram = HostProgram                 # in this worker process
        HostProgram.scops = {}
        for path in KERNELS:
            scop = polycu.load(path, includes=[UTILITIES],
                               defines=[f"{self.dataset}_DATASET"])[0]
            HostProgram.scops[scop.name] = scop
        device = DeviceInfo("host", "0.0", 1, 1 << 20, 1 << 30, 1e12, 1e13, 2e13, "now",
                            1e10, 1e10, 5e10, 5e10)
        return bench_run.Bencher(self, Options(**self.values), device)


def _bench(out: Path, files: list[str], *where: str) -> dict[str, Any]:
    main(["bench", *files, "-I", UTILITIES, "--dataset", "MINI", "--seed", "5", "--repeat", "1",
          "--no-cpu-baseline", "--out", str(out), *where])
    return json.loads((out / "results.json").read_text())


def test_bench_over_two_workers_reports_like_one(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken" / "broken.c"
    broken.parent.mkdir()
    broken.write_text("this is not C\n")
    files = [KERNELS[0], str(broken), KERNELS[1]]
    monkeypatch.setattr(bench_run, "BenchSetup", HostBenchSetup)
    monkeypatch.setattr(check, "DeviceProgram", HostProgram)     # restored after the test
    monkeypatch.setattr(HostProgram, "scops", {})
    one = _bench(tmp_path / "one", files)
    two = _bench(tmp_path / "two", files, "--gpus", "2")
    # two workers sharing one GPU, taking turns on it
    shared = _bench(tmp_path / "shared", files, "--workers-per-gpu", "2")
    assert [(r["kernel"], r["status"]) for r in one["results"]] == \
        [("jacobi-1d", "ok"), ("broken", "failed"), ("atax", "ok")]
    # The same records, but for the seconds each worker spent on each kernel and on
    # each of its steps (a kernel that fails to compile has none; the wait for the
    # GPU is a part of the steps after the compile).
    runs = one["results"] + two["results"] + shared["results"]
    assert all(r["seconds"] > 0 for r in runs)
    for r in runs:
        steps = list(r["phases"])
        assert steps == ([] if r["status"] == "failed" else list(bench_run.STEPS))
        assert sum(v for k, v in r["phases"].items() if k not in ("wait", "gpu")) <= \
            r["seconds"] + 0.01 * len(steps)
        assert r["phases"].get("wait", 0) + r["phases"].get("gpu", 0) <= \
            r["seconds"] - r["phases"].get("compile", 0) + 0.02
        assert (r["gpu"] == "none") == (r["status"] != "failed")   # no CUDA context here
    for other in two, shared:
        assert [{**r, "seconds": None, "phases": None} for r in one["results"]] == \
            [{**r, "seconds": None, "phases": None} for r in other["results"]]
    assert one["meta"]["workers"] == "this process" and two["meta"]["workers"].startswith(
        "2 processes")
    assert shared["meta"]["workers"].startswith("2 processes, 2 on each of GPUs ")


def test_workers_take_the_longest_kernels_first(tmp_path: Path) -> None:
    """A pool takes jacobi-1d (2 x 10^6 instances at LARGE, boxed) after atax
    (8 x 10^6) and gemm (1.3 x 10^9 boxed: the C update's 1000 x 1100 and the
    product's 1000 x 1100 x 1200); a file that does not load counts 0, last."""
    broken = tmp_path / "broken" / "broken.c"
    broken.parent.mkdir()
    broken.write_text("this is not C\n")
    gemm = ROOT / "polybench" / "linear-algebra" / "blas" / "gemm" / "gemm.c"
    kernels = bench_run.collect([*KERNELS, str(gemm), str(broken)],
                                bench_run.polybench_cpu())[0]
    options = Options(include_dir=[UTILITIES])
    assert bench_plan.instances_estimate(str(gemm), "LARGE", options) == \
        1000 * 1100 + 1000 * 1100 * 1200
    estimates = [bench_plan.instances_estimate(str(k.source), "LARGE", options)
                 for k in kernels]
    taken = bench_plan.plan([k.name for k in kernels], estimates, {}, 2)
    assert [kernels[i].name for i in taken.order] == ["gemm", "atax", "jacobi-1d", "broken"]
    assert taken.lanes == [None] * 4        # no history: any GPU


def test_history_orders_by_seconds_and_spreads_the_gpu_heavy_kernels(tmp_path: Path) -> None:
    """Session 23's heaviest GPU users, which all landed on one GPU then: pinned
    longest first to the GPU with the least so far; the light ones go anywhere,
    a kernel the history lacks first."""
    past = {"floyd-warshall": (52.6, 13.9), "adi": (38.0, 11.2), "nussinov": (21.2, 10.4),
            "seidel-2d": (34.1, 6.2), "gemm": (20.0, 0.3), "atax": (5.0, 0.1)}
    results = [{"kernel": k, "dataset": "LARGE", "seconds": s, "phases": {"gpu": g}}
               for k, (s, g) in past.items()]
    results.append({"kernel": "adi", "dataset": "MINI", "seconds": 1.0, "phases": {}})
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"meta": {}, "results": results}))
    history = bench_plan.read_history(str(path), "LARGE")
    assert history["adi"] == bench_plan.Past(38.0, 11.2) and len(history) == 6
    names = ["atax", "adi", "new", "gemm", "nussinov", "floyd-warshall", "seidel-2d"]
    taken = bench_plan.plan(names, [0, 0, 7, 0, 0, 0, 0], history, 2)
    assert [names[i] for i in taken.order] == ["new", "floyd-warshall", "adi", "seidel-2d",
                                               "nussinov", "gemm", "atax"]
    # mean GPU seconds 7.0: floyd-warshall -> 0, adi -> 1, nussinov -> 1 (11.2 < 13.9)
    assert dict(zip((names[i] for i in taken.order), taken.lanes)) == {
        "new": None, "floyd-warshall": 0, "adi": 1, "seidel-2d": None, "nussinov": 1,
        "gemm": None, "atax": None}
    assert set(bench_plan.plan(names, [0] * 7, history, 1).lanes) == {None}
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(polycu.PolycuError, match="--history: error: cannot read the bench "
                                                 "results"):
        bench_plan.read_history(str(broken), "LARGE")
    for text in ('{"results": [{"dataset": "LARGE"}]}',       # a record without its kernel
                 '{"results": [{"kernel": "a", "dataset": "LARGE", "seconds": "x"}]}'):
        broken.write_text(text)
        with pytest.raises(polycu.PolycuError, match="--history: error: cannot read"):
            bench_plan.read_history(str(broken), "LARGE")


def test_pinned_items_wait_for_their_gpu_and_the_others_fill_in() -> None:
    """List scheduling over two pools of one worker: item 0 pinned to pool 1 and
    item 1 pinned there too; the free items go to pool 0 meanwhile."""
    submitted: list[tuple[int, int]] = []

    def submit(pool: int, item: int) -> "concurrent.futures.Future[int]":
        submitted.append((pool, item))
        future: concurrent.futures.Future[int] = concurrent.futures.Future()
        future.set_result(item * 10)
        return future

    results = list(workers._scheduled([1, 1], 4, [1, 1, None, None], submit))
    assert results == [0, 10, 20, 30]
    assert set(submitted[:2]) == {(0, 2), (1, 0)}       # both pools busy at once
    assert sorted(submitted) == [(0, 2), (0, 3), (1, 0), (1, 1)]
    free: list[tuple[int, int]] = []
    assert list(workers._scheduled([2, 2], 4, None, lambda p, i: free.append((p, i))
                                   or submit(p, i))) == [0, 10, 20, 30]
    assert [p for p, _ in free] == [0, 1, 0, 1]         # the pools in turn


# -- real per-GPU workers ------------------------------------------------------------
@pytest.mark.gpu
def test_gpu_workers_tune_like_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two spawned workers with PyCUDA, each pinned to a GPU (the first two of the
    host, or one GPU twice), evaluate what the one worker in this process does."""
    pytest.importorskip("pycuda.driver", reason="PyCUDA is not installed")
    from polycu.tune.evaluate import need_gpu
    try:
        need_gpu()
    except polycu.PolycuError as exc:
        pytest.skip(f"no usable CUDA device: {exc}")
    options = Options(strategy="exhaustive", max_configs=4, jobs=2, repeat=2)
    one = tune_run.tune_file(str(GEMM), options, params=SIZES, seed=11, progress=False)
    devices = workers.local_gpus() or ["0"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", ",".join((devices * 2)[:2]))
    two = tune_run.tune_file(str(GEMM), options.replace(gpus="2"), params=SIZES, seed=11,
                             progress=False)
    assert [(e.config, e.status, e.same_as) for e in two.evaluations] == \
        [(e.config, e.status, e.same_as) for e in one.evaluations]
    assert one.entry is not None and two.entry is not None
    assert two.entry.device == one.entry.device and two.entry.slot == one.entry.slot


def test_more_ray_workers_than_the_cluster_has_is_an_error() -> None:
    """GPU actors on a cluster without GPUs would wait forever: a located error."""
    from types import SimpleNamespace
    cluster = SimpleNamespace(cluster_resources=lambda: {"CPU": 2.0})
    with pytest.raises(polycu.PolycuError, match=r"--ray: error: 1 workers of one GPU "
                       r"asked for, but the Ray cluster has 0 GPUs"):
        workers._ray_count(cluster, "1", gpu=True)
    with pytest.raises(polycu.PolycuError, match=r"--gpus: error: 3 workers of one CPU"):
        workers._ray_count(cluster, "3", gpu=False)
    assert workers._ray_count(cluster, "all", gpu=False) == 2
    assert workers._ray_count(cluster, "2", gpu=False) == 2


def test_scaleout_compare_sums_the_steps_of_both_runs(tmp_path: Path) -> None:
    """scripts/scaleout_compare.py on two runs of one part: wall times, the check
    agreement and the workers' seconds by step, with their growth."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("scaleout_compare",
                                                  ROOT / "scripts" / "scaleout_compare.py")
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    assert compare.STEPS == bench_run.STEPS
    (tmp_path / "walls.csv").write_text("stage,gpus,seconds,status\nbench,2,60.0,0\n"
                                        "bench,1,100.0,0\n")
    columns = ["kernel", "status", "mismatches", "max_rel_error", "kernel_ms", "worker_s",
               *(f"step_{s}_s" for s in bench_run.STEPS), "gpu"]
    # steps: compile, check, time, library, wait, gpu; then the GPU's bus id
    rows = {1: [("a", "ok", 0, 0.0, 1.0, 40.0, 10, 20, 5, 5, 3, 8, "g0"),
                ("b", "ok", 0, 0.0, 2.0, 60.0, 20, 30, 5, 5, 4, 12, "g0")],
            2: [("a", "ok", 0, 0.0, 1.0, 44.0, 11, 23, 5, 5, 1, 9, "g1"),
                ("b", "ok", 0, 0.0, 2.0, 66.0, 22, 34, 5, 5, 2, 11, "g0")]}
    for n, table in rows.items():
        (tmp_path / f"gpus{n}" / "bench").mkdir(parents=True)
        lines = [",".join(columns)] + [",".join(map(str, row)) for row in table]
        (tmp_path / f"gpus{n}" / "bench" / "results.csv").write_text("\n".join(lines) + "\n")
    assert compare.main([tmp_path]) == 0
    summary = (tmp_path / "summary.md").read_text()
    assert "| bench | 2 | 60.0 | 1.67x |" in summary
    assert "every check the same as on 1 GPU: yes" in summary
    assert "| compile | 30.0 | 33.0 | +10% |" in summary
    assert "| check | 50.0 | 57.0 | +14% |" in summary
    assert "| time | 10.0 | 10.0 | +0% |" in summary
    # the GPU part: 20 s on one GPU; 11 s of the busier of two
    assert "20.0 s on 1 GPU, 11.0 + 9.0 s over 2 GPUs: 20.0 s and 11.0 s of the busiest " \
        "GPU, a speed-up of 1.82x" in summary
