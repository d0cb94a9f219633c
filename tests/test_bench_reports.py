"""The report writers of ``polycu bench`` (Markdown, CSV, JSON, plots)."""
from __future__ import annotations

import csv
import json

import pytest

from polycu.bench.report import geomean, markdown, write_reports
from polycu.bench.result import BenchResult
from test_check import host_programs  # noqa: F401 - a fixture

META = {"dataset": "LARGE", "device": "NVIDIA H200", "date": "2026-11-22",
        "command": "polycu bench polybench/ --dataset LARGE",
        "ceilings": {"copy_bandwidth": 4.0e12, "fp64_peak": 30e12, "fp32_peak": 60e12},
        "cpu": "gcc 12, 16 cores"}


def _timing(kernel_s: float, e2e_s: float) -> dict:
    def samples(s):
        return {"median_s": s, "min_s": s, "max_s": s, "spread": 0.05, "samples_s": [s] * 3}
    return {"kernel": samples(kernel_s), "replay": samples(kernel_s * 2),
            "end_to_end": samples(e2e_s), "launches": 2, "copies": 1, "method": "graph"}


def _results() -> list[BenchResult]:
    gemm = BenchResult("gemm", "linear-algebra/blas", "LARGE", "gemm.c",
                       {"ni": 1000, "nj": 1100, "nk": 1200}, flops=4_000_000_000,
                       bytes=40_000_000, footprint_bytes=30_000_000, status="ok",
                       max_rel_error=1e-15, mismatches=0, timing=_timing(0.002, 0.010),
                       figures={"seconds": 0.002, "gflops": 2000.0, "gbytes": 20.0,
                                "minimum_seconds": 1e-5, "ratio_to_minimum": 200.0,
                                "roofline_fraction": 0.07},
                       cpu_s=2.0, omp_s=0.2, library_s=0.0005, library="cuBLAS (CuPy)")
    atax = BenchResult("atax", "linear-algebra/kernels", "LARGE", "atax.c", {"m": 1900},
                       flops=16_000_000, bytes=32_000_000, footprint_bytes=32_000_000,
                       status="ok", max_rel_error=0.0, mismatches=0,
                       timing=_timing(0.0001, 0.004),
                       figures={"seconds": 1e-4, "gflops": 160.0, "gbytes": 320.0,
                                "minimum_seconds": 8e-6, "ratio_to_minimum": 12.5,
                                "roofline_fraction": 0.08},
                       cpu_s=0.004, omp_s=0.001,
                       notes=["CPU baseline: gcc failed\nsecond line"])
    lu = BenchResult("lu", "linear-algebra/solvers", "LARGE", "lu.c", {"n": 2000},
                     status="mismatch", error="array A differs at [3, 7]: 1.5 vs 1.25\nmore",
                     max_rel_error=0.2, mismatches=12)
    broken = BenchResult("adi", "stencils", "LARGE", "adi.c", status="failed",
                         error="adi.c:12:3: error: no kernel")
    return [gemm, atax, lu, broken]


def test_geomean():
    assert geomean([2.0, 8.0, None]) == pytest.approx(4.0)
    assert geomean([None]) is None


def test_markdown_table_and_summary():
    text = markdown(_results(), META)
    assert text.startswith("# polycu bench: PolyBench LARGE on NVIDIA H200")
    assert "copy 4.00 TB/s, FP64 FMA 30.0 TFLOP/s" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 4  # header + one per kernel
    gemm = rows[1].split(" | ")
    assert gemm[2] == "1.0e-15"  # the check of the timed build
    # GPU ms, spread, e2e ms, GFLOP/s, GB/s, min ms, x min, roof, CPU, OMP, xCPU, xOMP, cuBLAS
    assert gemm[3:] == ["2.00", "5%", "10.0", "2000.0", "20", "0.0100", "200", "7%",
                        "2000", "200", "1000", "100", "0.500 |"]
    assert rows[3].startswith("| lu | mismatch | 2.0e-01 | – | – |")
    assert "check = the timed build (nvcc --fmad=false" in text
    # geomean over the passing kernels only: sqrt(1000 * 40) = 200, sqrt(100 * 10)
    assert "- checks passed: 2 of 4" in text
    assert "(1 thread): 200×" in text
    assert "autopar: 31.6×" in text
    assert "furthest from their theoretical minimum time: gemm (200×), atax (12×)" in text
    assert "- **lu** (mismatch): array A differs at [3, 7]: 1.5 vs 1.25" in text
    assert "- **adi** (failed): adi.c:12:3: error: no kernel" in text
    assert text.endswith("## Notes\n\n- **atax**: CPU baseline: gcc failed\n")


def test_csv_and_json(tmp_path):
    files = write_reports(_results(), META, tmp_path)
    names = {p.name for p in files}
    assert {"results.md", "results.csv", "results.json"} <= names
    with open(tmp_path / "results.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["kernel"] for r in rows] == ["gemm", "atax", "lu", "adi"]
    gemm = rows[0]
    assert gemm["parameters"] == "ni=1000 nj=1100 nk=1200"
    assert float(gemm["kernel_ms"]) == pytest.approx(2.0)
    assert float(gemm["replay_ms"]) == pytest.approx(4.0)
    assert float(gemm["speedup_cpu"]) == pytest.approx(1000.0)
    assert float(gemm["speedup_library"]) == pytest.approx(0.25)
    assert gemm["launches"] == "2"
    assert rows[2]["error"] == "array A differs at [3, 7]: 1.5 vs 1.25"  # first line only
    assert rows[3]["kernel_ms"] == "" and rows[3]["status"] == "failed"
    assert rows[1]["notes"] == "CPU baseline: gcc failed"
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["meta"]["device"] == "NVIDIA H200"
    first = data["results"][0]
    assert first["timing"]["kernel"]["samples_s"] == [0.002] * 3
    assert first["speedup_omp"] == pytest.approx(100.0)
    assert data["results"][3]["kernel_s"] is None


def test_plots(tmp_path):
    pytest.importorskip("matplotlib")
    files = write_reports(_results(), META, tmp_path)
    for name in ("speedup.png", "roofline.png"):
        path = tmp_path / name
        assert path in files
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000


def test_kernel_discovery_and_cpu_baseline(tmp_path):
    from pathlib import Path

    from polycu.bench.baseline import cpu_seconds
    from polycu.bench.run import collect, polybench_cpu

    cpu = polybench_cpu()
    root = Path(__file__).resolve().parent.parent / "polybench"
    kernels, includes = collect([str(root / "stencils")], cpu)
    assert [k.name for k in kernels] == ["adi", "fdtd-2d", "heat-3d", "jacobi-1d",
                                         "jacobi-2d", "seidel-2d"]
    assert includes == []  # stencils/ has no utilities/ of its own
    single, _ = collect([str(root / "stencils" / "jacobi-1d" / "jacobi-1d.c")], cpu)
    assert (single[0].name, single[0].category) == ("jacobi-1d", "stencils")
    _, includes = collect([str(root)], cpu)
    assert includes == [str(root / "utilities")]
    seconds = cpu_seconds(cpu, single[0], "MINI", tmp_path, parallel=False, repeat=2)
    assert 0 < seconds < 1.0
    assert (tmp_path / "jacobi-1d_MINI_serial").is_file()


def test_cpu_baselines_time_serial_then_autopar_and_note_failures(tmp_path):
    from pathlib import Path

    from polycu.bench.baseline import cpu_baselines
    from polycu.bench.run import collect, polybench_cpu

    cpu = polybench_cpu()
    root = Path(__file__).resolve().parent.parent / "polybench" / "stencils"
    kernels, _ = collect([str(root / "jacobi-1d"), str(root / "jacobi-2d")], cpu)
    broken = tmp_path / "broken" / "broken.c"
    broken.parent.mkdir()
    broken.write_text("this is not C\n")
    more, _ = collect([str(broken)], cpu)
    times = cpu_baselines(cpu, kernels + more, "MINI", tmp_path, workers=2)
    for k in kernels:
        serial, autopar, notes = times[k.name]
        assert 0 < serial < 1.0 and 0 < autopar < 1.0 and not notes
        assert (tmp_path / f"{k.name}_MINI_autopar").is_file()
    serial, autopar, notes = times["broken"]
    assert serial is None and autopar is None
    assert [n.split(":")[0] for n in notes] == ["CPU baseline (serial)", "CPU baseline (autopar)"]


def test_bench_times_the_checked_build_and_nothing_that_fails(host_programs):
    """The timed program is the one compared with the reference; a program whose
    results are off is a mismatch, and is not timed."""
    from pathlib import Path

    from polycu.bench.run import bench_kernel, collect, polybench_cpu
    from polycu.options import Options
    from polycu.runtime.metrics import Ceilings

    root = Path(__file__).resolve().parent.parent / "polybench"
    (kernel,), _ = collect([str(root / "stencils" / "jacobi-1d" / "jacobi-1d.c")],
                           polybench_cpu())
    options = Options(include_dir=[str(root / "utilities")])
    ceilings = Ceilings("test", copy_bandwidth=1e12, fp64_peak=1e13, fp32_peak=2e13)
    result = bench_kernel(kernel, "MINI", options, ceilings, seed=3, repeat=1)
    assert result.status == "ok", result.error
    assert [(p.exact, p.timed) for p in host_programs.built] == [(True, True)]
    assert result.max_rel_error == 0 and result.kernel_s == 1e-3

    host_programs.built.clear()
    host_programs.wrong = True
    result = bench_kernel(kernel, "MINI", options, ceilings, seed=3, repeat=1)
    assert result.status == "mismatch" and result.timing is None
    assert result.max_rel_error == pytest.approx(0.01)
    assert not any(p.timed for p in host_programs.built)
