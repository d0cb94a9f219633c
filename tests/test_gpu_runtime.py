"""The PyCUDA runtime on a real GPU: a hand-written description through the
runner, ``polycu check`` on PolyBench kernels, ``polycu device`` and ``polycu bench``.

Skipped, with the reason, where PyCUDA or a CUDA device is missing (CI).
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

pytest.importorskip("pycuda.driver", reason="PyCUDA is not installed")
try:
    # imported for its side effect: it creates the CUDA context (or fails without a device)
    importlib.import_module("pycuda.autoinit")
except Exception as exc:  # pycuda raises its own types when no device is usable
    pytest.skip(f"no usable CUDA device: {exc}", allow_module_level=True)

from polycu import cli  # noqa: E402
from polycu.options import Options  # noqa: E402
from polycu.runtime import device  # noqa: E402
from polycu.runtime.check import check_target, targets  # noqa: E402
from polycu.runtime.pycuda_run import DeviceProgram  # noqa: E402
from test_tensor_cores import GEMM_ODD, TRIANGLE_ODD  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
UTILITIES = str(REPO / "polybench" / "utilities")


def _e(c: str) -> dict[str, str]:
    return {"c": c}   # the runtimes evaluate the C text (polycu.runtime.cexpr)


# y <- a * x + y + h0 for h0 = 0 .. t-1, one launch per host step; z is a scratch
# buffer copied neither way, w is copied in but never out.
AXPY = {
    "name": "axpy_scop",
    "parameters": ["n", "t"],
    "arrays": [
        {"name": "a", "element_type": "double", "by_value": True},
        {"name": "x", "element_type": "double", "count": _e("n"), "copy_in": True,
         "copy_out": False, "by_value": False},
        {"name": "y", "element_type": "double", "count": _e("n"), "copy_in": True,
         "copy_out": True, "by_value": False},
    ],
    "device_source": """
extern "C" __global__ void axpy(int n, int h0, double a, const double *__restrict__ x,
                                double *__restrict__ y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i] + h0;
}
""",
    "kernels": [{"name": "axpy", "args": [
        {"name": "n", "type": "int", "role": "param", "array": None},
        {"name": "h0", "type": "int", "role": "iterator", "array": None},
        {"name": "a", "type": "double", "role": "scalar", "array": "a"},
        {"name": "x", "type": "const double *__restrict__", "role": "array", "array": "x"},
        {"name": "y", "type": "double *__restrict__", "role": "array", "array": "y"}]}],
    "host": [{"for": "c0", "lb": _e("0"), "ub": _e("t - 1"), "step": 1, "body": [
        {"launch": "axpy", "bind": {"h0": _e("c0")}, "grid": [_e("(n + 255) / 256"), 1, 1],
         "block": [256, 1, 1], "args": ["n", "h0", "a", "x", "y"]}]}],
}


def _axpy_inputs(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"a": np.array(0.5), "x": rng.random(n), "y": rng.random(n)}


def test_hand_written_description_runs_and_times():
    n, t = 100_000, 7
    host = _axpy_inputs(n)
    program = DeviceProgram(AXPY, {"n": n, "t": t}, host)
    result = program.run()
    expected = host["y"].copy()
    for h in range(t):
        expected = 0.5 * host["x"] + expected + h
    np.testing.assert_allclose(result["y"], expected, rtol=1e-13)
    np.testing.assert_array_equal(result["x"], host["x"])   # not copied out
    assert np.array_equal(host["y"], _axpy_inputs(n)["y"])  # the input is untouched
    timing = program.time(repeat=5, warmup=1)
    assert timing.launches == t
    assert timing.copies > 1  # 1.6 MB fits in L2: copies rotate
    for samples in (timing.kernel, timing.replay, timing.end_to_end):
        assert len(samples.values) == 5 and all(v > 0 for v in samples.values)
    assert timing.end_to_end.median > timing.kernel.median
    if importlib.util.find_spec("cuda") and importlib.util.find_spec("cuda.bindings"):
        assert timing.method == "graph", timing.note
    print(f"axpy n={n} t={t}: kernel {timing.kernel.median * 1e6:.1f} us ({timing.method} "
          f"{timing.note}), "
          f"replay {timing.replay.median * 1e6:.1f} us, "
          f"end to end {timing.end_to_end.median * 1e6:.1f} us")


def test_a_missing_copy_in_shows_as_nan():
    broken = json.loads(json.dumps(AXPY))
    broken["arrays"][1]["copy_in"] = False  # x never reaches the device
    n = 1000
    result = DeviceProgram(broken, {"n": n, "t": 1}, _axpy_inputs(n)).run()
    assert np.isnan(result["y"]).all()


@pytest.mark.parametrize("name, dataset", [
    ("linear-algebra/blas/gemm/gemm.c", "SMALL"),
    ("linear-algebra/kernels/atax/atax.c", "SMALL"),
    ("stencils/jacobi-2d/jacobi-2d.c", "MINI"),
    ("stencils/jacobi-1d/jacobi-1d.c", "SMALL"),
    ("datamining/covariance/covariance.c", "MINI"),
])
def test_check_polybench_kernels(name, dataset):
    path = str(REPO / "polybench" / name)
    found = targets(path, Options(include_dir=[UTILITIES]), dataset=dataset)
    assert len(found) == 1
    checked = check_target(found[0], seed=7)
    print(checked.report.format())
    assert checked.report.ok, checked.report.format()
    assert any(c.size > 1 for c in checked.report.arrays)


@pytest.mark.parametrize("on_chip", [True, False])
@pytest.mark.parametrize("name", ["stencils/jacobi-2d/jacobi-2d.c",
                                  "stencils/fdtd-2d/fdtd-2d.c"])
def test_resident_grids_on_the_gpu(name, on_chip):
    """One cooperative launch (--resident-grid, codegen/resident.py), planned for 4
    blocks at SMALL: the bands on chip; and with the launch told that a band needs
    more shared memory than a block has, the same kernel over device memory.
    Checked against the CPU, then timed as a graph."""
    if not (importlib.util.find_spec("cuda") and importlib.util.find_spec("cuda.bindings")):
        pytest.skip("cuda-bindings is not installed")
    path = str(REPO / "polybench" / name)
    found = targets(path, Options(include_dir=[UTILITIES], run_on="gpu", resident_grid=True,
                                  resident_blocks=4), dataset="SMALL")
    (kernel,) = found[0].description["kernels"]
    assert kernel["resident"]["bands"] == 4
    if not on_chip:
        kernel["resident"]["bytes"] = 1 << 20
    checked = check_target(found[0], seed=29)
    assert checked.report.ok, checked.report.format()
    timing = checked.program.time(repeat=3, warmup=1, kernel_only=True)
    assert timing.kernel.median > 0


@pytest.mark.parametrize("name", ["linear-algebra/kernels/bicg/bicg.c",
                                  "medley/deriche/deriche.c"])
def test_concurrent_groups_on_the_gpu(name):
    """Launches side by side on streams (codegen/concurrent.py): checked against the
    CPU, and captured into a graph with the side streams as branches."""
    path = str(REPO / "polybench" / name)
    found = targets(path, Options(include_dir=[UTILITIES], run_on="gpu"), dataset="SMALL")
    assert "polycu_fork(&polycu_sides" in found[0].description["host_source"]
    checked = check_target(found[0], seed=5)
    assert checked.report.ok, checked.report.format()
    timing = checked.program.time(repeat=3, warmup=1, kernel_only=True)
    assert timing.kernel.median > 0
    if importlib.util.find_spec("cuda") and importlib.util.find_spec("cuda.bindings"):
        assert timing.method == "graph", timing.note


@pytest.mark.parametrize("source, params", [
    (GEMM_ODD, {"ni": 91, "nj": 101, "nk": 71}),   # odd rows: 16-byte copies, fall-back
    (GEMM_ODD, {"ni": 77, "nj": 99, "nk": 33}),
    (GEMM_ODD, {"ni": 13, "nj": 5, "nk": 1}),
    (TRIANGLE_ODD, {"n": 81, "m": 61}),            # transposed operands, odd rows
    (TRIANGLE_ODD, {"n": 77, "m": 40}),
])
def test_tensor_cores_with_unaligned_pairs(tmp_path, source, params):
    """The mma path's pair copies (tests/test_tensor_cores.py) on the GPU."""
    path = tmp_path / "contraction_odd.c"
    path.write_text(source)
    found = targets(str(path), Options(run_on="gpu"), overrides=params)
    assert "mma.sync" in found[0].description["device_source"]
    checked = check_target(found[0], seed=17)
    assert checked.report.ok, checked.report.format()


@pytest.mark.parametrize("source, forced", [
    ("stencil.c", ["0:A=texture", "0:w=constant", "0:B=surface", "1:B=texture-2d"]),
    ("stencil.c", ["0:A=texture-2d", "0:v=texture", "1:A=surface", "1:B=texture"]),
    ("stencil_int.c", ["0:A=texture-2d", "0:v=texture", "1:A=surface"]),
])
def test_textures_surfaces_and_constant_memory_on_the_gpu(source, forced):
    """Every kind of memory placement (forced), created through cuda-bindings."""
    path = str(REPO / "tests" / "data" / "memory_paths" / source)
    found = targets(path, Options(memory=forced))
    checked = check_target(found[0], seed=11)
    assert checked.report.ok, checked.report.format()
    kinds = {o["kind"] for o in found[0].description["objects"]}
    assert kinds <= {"texture", "texture-2d", "surface", "constant"} and len(kinds) >= 3


def test_check_command_exit_status(capsys):
    path = str(REPO / "polybench" / "linear-algebra/kernels/mvt/mvt.c")
    assert cli.main(["check", path, "-I", UTILITIES, "--param", "n=300", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "OK (n=300; seed 3)" in out


def test_device_measurement_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path))
    info = device.device_info()
    print(device.format_info(info))
    assert info.copy_bandwidth > 1e11 and info.fp64_peak > 1e11 and info.fp32_peak > 1e11
    # PCIe or NVLink-C2C: page-locked copies are faster than pageable ones
    assert 1e9 < info.pageable_h2d < info.pinned_h2d and 1e9 < info.pageable_d2h < info.pinned_d2h
    assert device.cached(info.name) == info
    assert device.device_info() == info  # served from the cache


def test_bench_writes_reports(tmp_path):
    root = REPO / "polybench" / "linear-algebra" / "blas"
    out = tmp_path / "bench"
    status = cli.main(["bench", str(root / "gemm" / "gemm.c"), str(root / "gesummv"
                       / "gesummv.c"), "-I", UTILITIES, "--dataset", "SMALL", "--repeat", "3",
                       "--seed", "1", "--out", str(out)])
    data = json.loads((out / "results.json").read_text())
    print((out / "results.md").read_text())
    assert status == 0, data
    gemm, gesummv = data["results"]
    assert (gemm["kernel"], gemm["status"], gesummv["status"]) == ("gemm", "ok", "ok")
    assert gemm["parameters"] == {"ni": 60, "nj": 70, "nk": 80}
    assert gemm["flops"] == 60 * 70 + 3 * 60 * 70 * 80
    assert gemm["kernel_s"] > 0 and gemm["cpu_s"] > 0 and gemm["omp_s"] > 0
    assert len(gemm["timing"]["kernel"]["samples_s"]) == 3


TALL = """
double A[4000000][4], B[4000000][4];
void tall(void) {
#pragma scop
  for (int i = 0; i < 4000000; i++)
    for (int j = 0; j < 4; j++)
      B[i][j] = A[i][j] * 2.0 + B[i][j];
#pragma endscop
}
"""


def test_a_grid_past_65535_blocks_along_y(tmp_path):
    """125,000 blocks of rows: the launch takes 65,535 and each loops (codegen/grid.py)."""
    path = tmp_path / "tall.c"
    path.write_text(TALL)
    (found,) = targets(str(path), Options(run_on="gpu"))
    assert "gridDim.y" in found.description["kernels"][0]["source"]
    checked = check_target(found, seed=13)
    assert checked.report.ok, checked.report.format()


@pytest.mark.parametrize("name, params", [
    ("atax", {"m": 190, "n": 210}), ("bicg", {"m": 190, "n": 210}), ("mvt", {"n": 200}),
    ("gesummv", {"n": 130}), ("gemver", {"n": 200}), ("gemm", {"ni": 100, "nj": 110, "nk": 120}),
])
def test_library_recipes_run(name, params):
    """cuBLAS through CuPy for the gemm-class and matrix-vector kernels (bench/library.py)."""
    pytest.importorskip("cupy")
    from polycu.bench.library import library_seconds
    seconds = library_seconds(name, params, repeat=3)
    assert seconds is not None and 0 < seconds < 0.1


def test_a_gate_keeps_the_hosts_time_out_of_a_timing():
    """Events recorded 0.2 s apart on the host: an idle GPU times the host's 0.2 s;
    behind the gate it times only what ran between them (nothing)."""
    import time

    import pycuda.driver as drv

    from polycu.runtime.gate import Gate

    stream = drv.Stream()
    gate = Gate(drv, stream)
    start, end = drv.Event(), drv.Event()
    for gated in (False, True):
        with gate.closed() if gated else contextlib.nullcontext():
            start.record(stream)
            time.sleep(0.2)
            end.record(stream)
        end.synchronize()
        ms = end.time_since(start)
        assert (ms < 5.0) if gated else (ms > 190.0), (gated, ms)
