"""The read-only path, textures, surfaces and constant memory (issue 13): their
legality proofs, the calibrated model's choice, the code and the emulation of each."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.diagnostics import PolycuError, Reporter
from polycu.driver import compile_file, compile_scops, placement_of
from polycu.memory import (CONSTANT, GLOBAL, READ_ONLY, SURFACE, TEXTURE, TEXTURE_2D)
from polycu.memory import kinds, warps
from polycu.memory.calibration import BANDWIDTH, COLUMNS, bandwidth
from polycu.options import Options
from polycu.runtime.device_objects import DeviceObjects
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from polycu.runtime.replay import Launch, replay

ROOT = Path(__file__).resolve().parent.parent

DATA = ROOT / "tests" / "data" / "memory_paths"
# kernel 0: A only read (5 points), B only written, v[j] along the threads in x,
# w[i] one per row of threads; kernel 1 reads each A[i][j] before it writes it.
STENCIL = (DATA / "stencil.c").read_text()

# Each thread (one i) walks its row: A[i][j] reads what the same launch wrote at j - 1.
CHAIN = """
void f(int n, double A[64][64], double B[64][64])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i][j - 1] * 0.5 + B[i][j];
#pragma endscop
}
"""


def _placed(source: str, *memory: str, tmp_path: Path, **values: object):
    path = tmp_path / "f.c"
    path.write_text(source)
    scop = polycu.load(str(path))[0]
    return scop, placement_of(scop, Options(memory=list(memory), **values),
                              Reporter(stream=io.StringIO()))


def _kinds(placement) -> list[dict[str, str]]:
    return [{c.array: c.kind for c in k.choices} for k in placement.kernels]


def test_the_model_keeps_the_default_paths_where_nothing_is_faster(tmp_path):
    _, placement = _placed(STENCIL, tmp_path=tmp_path)
    assert _kinds(placement) == [{"A": READ_ONLY, "B": GLOBAL, "v": READ_ONLY, "w": READ_ONLY},
                                 {"A": GLOBAL, "B": READ_ONLY}]
    reason = placement.kernels[0].of("w").reason
    assert "uniform accesses to 512 B" in reason and "constant " in reason


# y[i] += A[i][j] * x[j]: every thread of the launch reads x[j] at step j.  4500 rows:
# more than one warp per SM, so no tile pays by latency (test_async_copies.py has
# the launches that small).  One thread a row: --no-ordered-reductions (by default
# the double sum has an ordered tree, many threads a row: gpu/ordered.py).
MATVEC = """
void f(int n, int m, double A[4500][1000], double x[1000], double y[4500])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      y[i] = y[i] + A[i][j] * x[j];
#pragma endscop
}
"""


def test_the_model_puts_a_broadcast_vector_in_constant_memory(tmp_path, emulated):
    """Measured on an H100 at LARGE: atax, bicg, gemver and mvt 1.48-1.79x faster."""
    _, placement = _placed(MATVEC, tmp_path=tmp_path, ordered_reductions=False)
    (placed,) = placement.kernels
    assert {c.array: c.kind for c in placed.choices} == \
        {"A": READ_ONLY, "x": CONSTANT, "y": "register"}
    assert "the cheapest estimate: broadcast accesses to 8 KB; estimated constant " \
        in placed.of("x").reason
    emulated(MATVEC, [{"n": 45, "m": 30}, {"n": 4500, "m": 1000}], ordered_reductions=False)


# Gauss-Seidel in place (9 points): a skewed wavefront whose lanes, adjacent in x,
# are a row apart and two columns aside (seidel-2d).
SEIDEL = """
void f(int tsteps, int n, double A[400][400])
{
  int t, i, j;
#pragma scop
  for (t = 0; t <= tsteps - 1; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j]
                   + A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}
"""


def test_a_skewed_wavefront_reads_its_diagonals_through_a_surface(tmp_path, emulated):
    """Measured on an H200 (seidel-2d, MEDIUM, docs/results/memory_ablation.md): the
    surface 1.2x faster than global memory, where the calibration of the diagonal
    pattern has the 2-D kinds 2.1x faster at 8 MiB.  The surface is copied in once
    and back once (no other kernel uses A), not around every launch.  (With
    --no-relayout: by default A is stored along its diagonals instead, which beat the
    surface 1.69x on seidel-2d at LARGE; test_relayout.py.)"""
    _, placement = _placed(SEIDEL, tmp_path=tmp_path, relayout=False)
    (placed,) = placement.kernels
    assert placed.of("A").kind == SURFACE
    assert "the cheapest estimate: diagonal accesses to 1.28 MB" in placed.of("A").reason
    emulated(SEIDEL, [{"tsteps": 3, "n": 20}, {"tsteps": 2, "n": 67}], relayout=False)
    # a warp down one column (each lane its own row of A) is strided, not diagonal
    _, chain = _placed(CHAIN, tmp_path=tmp_path)
    assert "strided accesses" in chain.kernels[0].of("A").reason


def test_a_read_only_field_beside_a_wavefront_is_read_through_a_surface(tmp_path, emulated,
                                                                        monkeypatch):
    """examples/weighted_seidel.c: W is read along the wavefront's diagonals like A.
    A surface the kernel only reads is copied in like a 2-D texture and never back,
    and reads diagonals 1-2% faster in the calibration: measured on an H200 (N 2000,
    100 sweeps), W in a surface 15.9 ms, a 2-D texture 16.5, the read-only path 18.1.
    (With --no-relayout, as the surface test above.)"""
    source = (ROOT / "examples" / "weighted_seidel.c").read_text()
    _, placement = _placed(source, tmp_path=tmp_path, relayout=False)
    (placed,) = placement.kernels
    assert (placed.of("W").kind, placed.of("A").kind) == (SURFACE, SURFACE)
    assert "the cheapest estimate: diagonal " \
        "accesses to 32 MB; estimated surface 5.1 ms, texture-2d 5.18 ms, texture 6.72 ms, " \
        "read-only 8.01 ms" in placed.of("W").reason
    # at one rate for every kind, the estimates differ by the copies alone: W's
    # surface is copied in once, as its texture is; A's also goes back once
    monkeypatch.setattr(kinds, "bandwidth", lambda *_: 1000.0)
    program, scop = placement.program, placement.program.scop
    w = kinds.analyse(program, program.kernels[0], scop.array("W"))
    a = kinds.analyse(program, program.kernels[0], scop.array("A"))
    copy = 32e6 / (kinds.COPY_BANDWIDTH * 1e9) + kinds.COPY_CALL
    assert w.of(SURFACE).seconds == w.of(TEXTURE_2D).seconds == w.of(GLOBAL).seconds + copy
    assert a.of(SURFACE).seconds == pytest.approx(a.of(GLOBAL).seconds + 2 * copy)
    emulated(source.replace("#define N 2000", "#define N 30"),
             [{"sweeps": 3, "n": 30}, {"sweeps": 2, "n": 23}], relayout=False)


def test_warp_uniform_reads_are_proven_exactly(tmp_path):
    scop, placement = _placed(STENCIL, tmp_path=tmp_path)
    kernel = placement.program.kernels[0]
    assert [m.axis for m in kernel.mapped] == ["y", "x"]
    assert warps.warp_uniform(scop, kernel, "w")        # w[i]: one row of threads a warp
    assert not warps.warp_uniform(scop, kernel, "v")    # v[j]: 32 addresses a warp
    assert not warps.warp_uniform(scop, kernel, "A")


def test_a_surface_is_legal_exactly_when_no_value_of_the_launch_is_read_back(tmp_path):
    scop, placement = _placed(STENCIL, tmp_path=tmp_path)
    k0, k1 = placement.program.kernels
    assert kinds.surface_hazard(scop, k0, "B").is_empty()   # written only
    assert kinds.surface_hazard(scop, k1, "A").is_empty()   # each read before its write
    scop, placement = _placed(CHAIN, tmp_path=tmp_path)
    (kernel,) = placement.program.kernels
    hazard = kinds.surface_hazard(scop, kernel, "A")
    # the write at j - 1 -> the read at j, for every row and 2 <= j < n: exactly
    (pairs,) = _maps(hazard)
    deltas = pairs.deltas()
    width = deltas.dim(isl.dim_type.set)
    assert deltas.is_equal(isl.Set(
        "[n] -> { [" + ", ".join(f"d{k}" for k in range(width)) + "] : "
        + " and ".join(f"d{k} = 0" for k in range(width - 1)) + f" and d{width - 1} = 1"
        " and n >= 3 }").align_params(deltas.get_space()))


def _maps(union: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    union.foreach_map(found.append)
    return found


@pytest.mark.parametrize("forced, message", [
    ("0:v=constant", "the threads of a warp read different addresses"),
    ("0:B=texture", "the kernel writes it"),
    ("1:A=texture-2d", "the kernel writes it"),
])
def test_illegal_kinds_forced_by_memory_are_located_errors(tmp_path, forced, message):
    with pytest.raises(PolycuError, match=message):
        _placed(STENCIL, forced, tmp_path=tmp_path)


def test_a_surface_with_a_hazard_is_refused(tmp_path):
    with pytest.raises(PolycuError, match="a value written in a launch would be read back"):
        _placed(CHAIN, "0:A=surface", tmp_path=tmp_path)


def test_constant_memory_holds_64_kb_in_all(tmp_path):
    # vectors of 32 KB and 40 KB read warp-uniformly: the first fits, the second not
    source = """
void f(int n, double u[4096], double x[5000], double y[4096])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[i] = y[i] + u[j] * x[j];
#pragma endscop
}
"""
    _, placement = _placed(source, "0:u=constant", tmp_path=tmp_path)
    assert placement.kernels[0].of("u").kind == CONSTANT
    with pytest.raises(PolycuError, match="40000 bytes; 32768 of the 65536 bytes of constant "
                                          "memory are taken"):
        _placed(source, "0:u=constant", "0:x=constant", tmp_path=tmp_path)


def test_forced_kinds_print_objects_and_their_copies(tmp_path):
    path = tmp_path / "f.c"
    path.write_text(STENCIL)
    options = Options(memory=["0:A=texture", "0:w=constant", "0:B=surface", "1:B=texture-2d"])
    cuda = compile_file(str(path), options).cuda
    assert ("__global__ void f_scop0_kernel0(int n, cudaTextureObject_t polycu_tex_A, "
            "const double *__restrict__ v, cudaSurfaceObject_t polycu_surf_B)") in cuda
    assert ("__global__ void f_scop0_kernel1(int n, double *__restrict__ A, "
            "cudaTextureObject_t polycu_tex2d_B)") in cuda
    assert "const polycu_texture<double> A = {polycu_tex_A};" in cuda
    assert "const double *__restrict__ const w = polycu_const_f_scop0_w;" in cuda
    assert "__constant__ double polycu_const_f_scop0_w[64];" in cuda
    assert "B(" in cuda and "polycu_array_surface(polycu_carr_B)" in cuda
    assert "cudaMemcpyToSymbol(polycu_const_f_scop0_w, dev_w, dev_w_bytes, 0, " \
        "cudaMemcpyDeviceToDevice)" in cuda
    assert "cudaMemcpy2DFromArray(dev_B, (size_t)64 * sizeof(double), polycu_carr_B" in cuda
    assert "cudaDestroySurfaceObject(polycu_surf_B)" in cuda and \
        "cudaFreeArray(polycu_carr_B)" in cuda


def test_the_calibration_table_is_the_measured_one():
    rows = list(csv.DictReader(open(ROOT / "docs" / "results" / "data" / "memory_kinds.csv")))
    seen = 0
    for row in rows:
        key = (row["type"], int(row["working_set_bytes"]), row["pattern"])
        if key not in BANDWIDTH:
            # no random accesses in the model; broadcast ones from whole kernels
            assert row["pattern"] in ("random", "broadcast")
            continue
        measured = float(row["requested_GBps"]) if row["check"] == "ok" else None
        assert BANDWIDTH[key][COLUMNS.index(row["kind"])] == measured
        seen += 1
    assert seen == sum(v is not None for row in BANDWIDTH.values() for v in row)
    # data that fit a cache are read at its speed; larger than all: device memory
    assert bandwidth(8, 1000, "uniform", "constant") == BANDWIDTH[
        ("double", 2048, "uniform")][COLUMNS.index("constant")]
    assert bandwidth(8, 1e12, "strided", "tex1d") == BANDWIDTH[
        ("double", 134217728, "strided")][COLUMNS.index("tex1d")]
    assert bandwidth(8, 16000, "broadcast", "constant") == 266.0
    assert bandwidth(8, 1e6, "broadcast", "constant") is None     # over 64 KB


@pytest.mark.parametrize("forced", [
    ["0:A=texture", "0:w=constant", "0:B=surface", "1:B=texture-2d"],
    ["0:A=texture-2d", "0:v=texture", "1:A=surface", "1:B=texture"],
])
def test_every_kind_emulates_like_the_original(emulated_with, forced):
    emulated_with(STENCIL, forced, [{"n": 64}, {"n": 37}])


def test_integer_and_float_arrays_travel_as_their_own_texels(emulated_with):
    source = (DATA / "stencil_int.c").read_text()
    assert "int A[64][64]" in source and "float v[64]" in source
    emulated_with(source, ["0:A=texture-2d", "0:v=texture", "1:A=surface"], [{"n": 50}])


def test_a_wrong_surface_proof_fails_the_emulation(emulated_with, monkeypatch):
    """The emulated texture path does not see the launch's own writes, as on a GPU:
    a surface placed without its proof computes something else."""
    monkeypatch.setattr(kinds, "surface_hazard",
                        lambda scop, kernel, name: isl.UnionMap("{ }"))
    with pytest.raises(AssertionError, match="mismatch|differ"):
        emulated_with(CHAIN, ["0:A=surface"], [{"n": 20}])


def test_the_64_kb_of_constant_memory_are_shared_by_the_scops_of_a_file(tmp_path):
    one = """
void f%d(int n, double u[5000], double y[5000])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[i] = y[i] + u[j];
#pragma endscop
}
"""
    path = tmp_path / "two.c"
    path.write_text(one % 1)
    assert "__constant__ double polycu_const_f1_scop0_u[5000];" in \
        compile_file(str(path), Options(memory=["*:u=constant"])).cuda
    path.write_text(one % 1 + one % 2)
    with pytest.raises(PolycuError, match="40000 bytes; 40000 of the 65536 bytes"):
        compile_file(str(path), Options(memory=["*:u=constant"]))


def test_a_path_for_every_array_applies_where_it_is_legal(tmp_path):
    _, placement = _placed(STENCIL, "*:*=texture", tmp_path=tmp_path)
    assert _kinds(placement) == [{"A": TEXTURE, "B": GLOBAL, "v": TEXTURE, "w": TEXTURE},
                                 {"A": GLOBAL, "B": TEXTURE}]
    assert "; no texture: the kernel writes it" in placement.kernels[1].of("A").reason
    _, placement = _placed(STENCIL, "*:*=constant", tmp_path=tmp_path)
    assert _kinds(placement)[0] == {"A": READ_ONLY, "B": GLOBAL, "v": READ_ONLY,
                                    "w": CONSTANT}
    _, placement = _placed(STENCIL, "*:*=surface", "1:*=texture-2d", tmp_path=tmp_path)
    assert _kinds(placement) == [{"A": SURFACE, "B": SURFACE, "v": SURFACE, "w": SURFACE},
                                 {"A": GLOBAL, "B": TEXTURE_2D}]
    with pytest.raises(PolycuError, match="ARRAY '\\*' for every array"):
        _placed(STENCIL, "*:*=shared", tmp_path=tmp_path)


def test_surface_cells_take_every_c_assignment_with_c_conversions(tmp_path, emulated_with):
    """Regression: through a surface, ``int += double`` converted the double first
    (549 wrong elements of 4096), and ``++``, ``--``, ``%=`` and ``<<=`` did not
    compile; ``unsigned`` arrays (spelled without ``int``) had no texel type."""
    source = (DATA / "surface_updates.c").read_text()
    _, placement = _placed(source, "0:*=surface", tmp_path=tmp_path)
    assert set(_kinds(placement)[0].values()) == {SURFACE}
    emulated_with(source, ["0:*=surface"], [{"n": 40}, {"n": 13}])


# -- copies only where a value changed (codegen/objects.py) ----------------------------

STEPS = ROOT / "tests" / "data" / "memory_paths" / "steps.c"
STEPS_KINDS = ["0:A=texture-2d", "0:w=constant", "1:A=surface", "1:w=constant"]
MARK = 'fprintf(stderr, "polycu-copy %s\\n", '


def _counted(cuda: str) -> str:
    """The generated code printing a line for each copy between a buffer and a CUDA
    array or constant memory."""
    for call in ("cudaMemcpyToSymbol", "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray"):
        cuda = cuda.replace(f"POLYCU_CHECK({call}(", f'{MARK}"{call}"); POLYCU_CHECK({call}(')
    return cuda


def _steps(kinds: list[str]) -> tuple[polycu.Scop, str, str]:
    options = Options(run_on="gpu", schedule="identity", memory=kinds)
    (scop,) = polycu.load(str(STEPS))
    description = compile_scops(str(STEPS), [scop], options).description["scops"][0]
    return scop, scop_translation_unit(description), description["host_function"]


# The kinds forced on steps.c and the copies its five steps make.
STEPS_COPIES = [
    # w once; A's CUDA array once (the second kernel writes it through its surface,
    # the first reads it as it is); A's buffer once, at the end
    (STEPS_KINDS, {"cudaMemcpyToSymbol": 1, "cudaMemcpy2DToArray": 1,
                   "cudaMemcpy2DFromArray": 1}),
    # the second kernel writes A's buffer: the CUDA array is refilled every step
    (STEPS_KINDS[:2] + ["1:w=constant"], {"cudaMemcpyToSymbol": 1, "cudaMemcpy2DToArray": 5,
                                          "cudaMemcpy2DFromArray": 0}),
]


@pytest.mark.parametrize("kinds, copies", STEPS_COPIES)
def test_objects_are_copied_only_when_their_array_changed(kinds, copies):
    """Five steps of two kernels: before, every launch copied what it read through
    an object, and every surface launch copied back (15 and 10 copies of A)."""
    scop, cuda, host = _steps(kinds)
    report = emulate_scop(scop, _counted(cuda), host, seed=3, nvcc=False)
    assert report.ok, report.format()
    assert {call: report.output.count(f"polycu-copy {call}") for call in copies} == copies


def test_a_launch_that_writes_the_buffer_makes_the_cuda_array_old():
    """Without the flag the second kernel raises, the first reads A's values of the
    first step in every step: the emulation differs from gcc."""
    scop, cuda, host = _steps(STEPS_KINDS[:2] + ["1:w=constant"])
    assert cuda.count("polycu_old_carr_A = 1;") == 1
    assert not emulate_scop(scop, cuda.replace("polycu_old_carr_A = 1;", ""), host, seed=3,
                            nvcc=False).ok


def test_the_last_surface_write_is_copied_back():
    scop, cuda, host = _steps(STEPS_KINDS)
    ending = cuda.index("if (polycu_old_buf_A) {", cuda.index("polycu_old_buf_A = 1;"))
    assert not emulate_scop(scop, cuda[:ending] + cuda[ending:].replace(
        "if (polycu_old_buf_A) {", "if (0) {", 1), host, seed=3, nvcc=False).ok


@pytest.mark.parametrize("kinds, copies", STEPS_COPIES)
def test_pycuda_replay_copies_like_the_host_function(kinds, copies):
    """PyCUDA's runtime (runtime/device_objects.py) follows the same flags, from the
    description's ``buffers``: its copies recorded instead of made (no GPU here)."""
    options = Options(run_on="gpu", schedule="identity", memory=kinds)
    (scop,) = polycu.load(str(STEPS))
    description = compile_scops(str(STEPS), [scop], options).description["scops"][0]
    made: list[str] = []

    class Driver:
        @staticmethod
        def memcpy_dtod_async(*args: object) -> None:
            made.append("cudaMemcpyToSymbol")

    found = description["objects"]
    objects = DeviceObjects(Driver, None, [], {})
    objects.found = {o["name"]: o for o in found}
    objects.symbols = {o["name"]: (0, 1 << 20) for o in found if o["kind"] == CONSTANT}
    objects.buffers = {o["array"]: 0 for o in found}
    objects._copy_2d = lambda o, to_array, stream: made.append(   # type: ignore[method-assign]
        "cudaMemcpy2DToArray" if to_array else "cudaMemcpy2DFromArray")
    kernels = {k["name"]: k for k in description["kernels"]}

    def launch(item: Launch) -> None:
        objects.before(kernels[item.kernel], None)
        objects.after(kernels[item.kernel])

    objects.reset()
    assert replay(description["host"], {}, launch) == 10
    objects.finish(None)
    assert {call: made.count(call) for call in copies} == copies
