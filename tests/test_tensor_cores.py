"""Contractions on the FP64 tensor cores (memory/contraction.py, codegen/tensor.py):
which kernels are contractions, the code they get, its emulation (real barriers,
race-checked shared memory) against gcc, and nvcc builds of each of its paths."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import polycu
from polycu.codegen import mma
from polycu.diagnostics import PolycuError
from polycu.driver import compile_scops, placement_of
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit

# C = beta C + alpha A B, sizes not multiples of the 48 x 64 tiles nor of the strip
GEMM = """
void f(int ni, int nj, int nk, double alpha, double beta, double C[90][100],
       double A[90][70], double B[70][100])
{
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
"""

# both operands transposed, a k range from 2, the lower triangle of W, no init
TRIANGLE = """
void f(int n, int m, double W[80][80], double X[60][80], double Y[80][60])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      for (int k = 2; k < m - 1; k++)
        W[i][j] = W[i][j] + X[k][i] * Y[j][k];
#pragma endscop
}
"""


def _kernels(source: str, tmp_path: Path, **options: object) -> dict:
    path = tmp_path / "c.c"
    path.write_text(source)
    scop = polycu.load(str(path))[0]
    return placement_of(scop, Options(**options)).tensor


def test_gemm_is_a_contraction(tmp_path: Path) -> None:
    (found,) = _kernels(GEMM, tmp_path).values()
    assert (found.output, found.left.array, found.right.array) == ("C", "A", "B")
    assert found.left.dims == ("i", "k") and found.right.dims == ("k", "j")
    assert found.positions == (0, 1, 2) and found.init_positions == (0, 1)
    assert found.scale.name == "alpha"
    # the driver maps a contraction with 48 x 64 tiles run by 6 warps of 16 x 32 cells
    assert (found.rows.tile, found.cols.tile, found.warps) == (48, 64, (3, 2))
    # strips of 16 k in 3 buffers fill the 48 KiB of static shared memory: X's tile
    # 48 x (16 + 4) doubles, Y's 16 x (64 + 4), as the arrays are laid out
    assert (found.strip, found.stages) == (16, 3) and found.buffer() == 48 * 20 + 16 * 68
    # K = { [i, k] } on D_W's rows: here the same k for every row
    assert str(found.reduction) == "[ni, nj, nk] -> { [i0, i1] : 0 <= i1 < nk }"
    assert found.x_first and not found.triangular


def test_transposed_operands_and_a_triangle(tmp_path: Path) -> None:
    (found,) = _kernels(TRIANGLE, tmp_path).values()
    assert found.left.dims == ("k", "i") and found.right.dims == ("j", "k")
    assert found.init is None and found.scale is None
    # the tiles keep the arrays' layouts, X's k x i and Y's j x k: strips of 16 in 3
    # buffers take 8 * 3 * (16 * 52 + 64 * 20) bytes, over 48 KiB; 8 in 4 fit
    assert (found.strip, found.stages) == (8, 4) and found.buffer() == 8 * 52 + 64 * 12
    assert str(found.cells) == "[n, m] -> { [i0, i1] : m >= 4 and i0 < n and " \
        "0 <= i1 <= i0 }"


@pytest.mark.parametrize("change", [
    # the k range depends on j: the cells of a row would not sum the same products
    # (on i it may: tests/test_tensor_triangles.py)
    ("for (int k = 0; k < nk; k++)", "for (int k = j; k < nk; k++)"),
    # a bound of k with a coefficient (before: a traceback in the code generator)
    ("for (int k = 0; k < nk; k++)", "for (int k = 0; 2 * k < nk; k++)"),
    # s after the operands: C rounds (A * B) * alpha, not (alpha * A) * B
    ("alpha * A[i][k] * B[k][j]", "A[i][k] * B[k][j] * alpha"),
    # a second product in the sum
    ("alpha * A[i][k] * B[k][j]", "alpha * A[i][k] * B[k][j] + A[i][k]"),
    # an operand subscript that is not one iterator
    ("alpha * A[i][k] * B[k][j]", "alpha * A[i][k] * B[k + 1][j]"),
    # elements of another type
    ("double A[90][70]", "float A[90][70]"),
])
def test_not_contractions(tmp_path: Path, change: tuple[str, str]) -> None:
    source = GEMM.replace(*change)
    assert source != GEMM
    assert _kernels(source, tmp_path) == {}


def test_an_init_reading_another_array_runs_apart(tmp_path: Path) -> None:
    """An init that reads another array is no contraction's I: the ranking puts it in
    a kernel of its own, before the contraction of the sums, which has no I."""
    (found,) = _kernels(GEMM.replace("C[i][j] *= beta;", "C[i][j] = B[i][j];"),
                        tmp_path).values()
    assert found.init is None and found.kernel.endswith("kernel1")


def test_no_tensor_cores_option(tmp_path: Path) -> None:
    assert _kernels(GEMM, tmp_path, tensor_cores=False) == {}
    assert _kernels(GEMM, tmp_path, shared_memory=False) == {}
    # --memory chooses an array's memory: the kernel keeps the plain code that obeys it
    assert _kernels(GEMM, tmp_path, memory=["0:A=global"]) == {}
    assert _kernels(GEMM, tmp_path, memory=["*:Q=global"]) != {}    # no array of it
    path = tmp_path / "g.c"
    path.write_text(GEMM)
    on = polycu.compile(str(path), Options()).cuda
    off = polycu.compile(str(path), Options(tensor_cores=False)).cuda
    assert "polycu_mma(" in on and "mma.sync" in on
    assert "polycu_mma" not in off


#: ``_emulation``'s results by source text, in this worker.
_EMULATIONS: dict[str, tuple[polycu.Scop, str, str]] = {}


def _emulation(source: str, tmp_path: Path) -> tuple[polycu.Scop, str, str]:
    """The SCoP of ``source`` (written to ``tmp_path`` the first time), its kernels'
    translation unit and host function: compiled once a worker for each source, since
    most sources here are emulated at several sizes, mma shapes or with planted bugs."""
    if source not in _EMULATIONS:
        path = tmp_path / "e.c"
        path.write_text(source)
        scop = polycu.load(str(path))[0]
        description = compile_scops(str(path), [scop]).description["scops"][0]
        _EMULATIONS[source] = (scop, scop_translation_unit(description),
                               description["host_function"])
    return _EMULATIONS[source]


# odd row lengths: half of the pairs a thread copies are not 16-byte aligned
GEMM_ODD = GEMM.replace("C[90][100]", "C[91][101]").replace("A[90][70]", "A[91][71]") \
    .replace("B[70][100]", "B[71][101]")
# k from 1: every pair of X starts at an odd column
GEMM_K1 = GEMM.replace("int k = 0; k < nk", "int k = 1; k < nk")
# rows from 1, columns from 3, k in [2, nk - 1): pairs half inside D_W or K (the
# second element copied, the first a zero, or the reverse)
GEMM_OFFSETS = GEMM.replace("int i = 0; i < ni", "int i = 1; i < ni") \
    .replace("int j = 0; j < nj", "int j = 3; j < nj") \
    .replace("int k = 0; k < nk", "int k = 2; k < nk - 1")
# transposed operands with odd row lengths: X[k][i] and Y[j][k] copied in pairs along
# i and k, half of them unaligned
TRIANGLE_ODD = TRIANGLE.replace("W[80][80]", "W[81][81]").replace("X[60][80]", "X[61][81]") \
    .replace("Y[80][60]", "Y[81][61]")


@pytest.mark.parametrize("source, params", [
    (GEMM, {"ni": 90, "nj": 100, "nk": 70}),
    (GEMM_ODD, {"ni": 91, "nj": 101, "nk": 71}),
    (GEMM_K1, {"ni": 61, "nj": 37, "nk": 2}),
    (GEMM_OFFSETS, {"ni": 90, "nj": 100, "nk": 70}),
    (GEMM_OFFSETS, {"ni": 50, "nj": 68, "nk": 20}),
    (GEMM, {"ni": 13, "nj": 5, "nk": 1}),
    (GEMM, {"ni": 50, "nj": 70, "nk": 0}),        # no product: only C *= beta
    (TRIANGLE, {"n": 80, "m": 60}),
    (TRIANGLE, {"n": 49, "m": 12}),
    (TRIANGLE_ODD, {"n": 81, "m": 61}),
    (TRIANGLE_ODD, {"n": 77, "m": 40}),
])
def test_emulation_matches_gcc(tmp_path: Path, source: str, params: dict[str, int]) -> None:
    scop, cuda, host = _emulation(source, tmp_path)
    assert "polycu_mma(" in cuda
    report = emulate_scop(scop, cuda, host, seed=sum(params.values()), nvcc=False,
                          params=params)
    assert report.ok, report.format()


@pytest.mark.parametrize("source, params, mma", [
    (GEMM_ODD, {"ni": 91, "nj": 101, "nk": 71}, 8),
    (GEMM_OFFSETS, {"ni": 50, "nj": 68, "nk": 20}, 4),
    (GEMM_OFFSETS, {"ni": 50, "nj": 68, "nk": 20}, 8),
    (GEMM, {"ni": 50, "nj": 70, "nk": 0}, 8),
    (TRIANGLE_ODD, {"n": 77, "m": 40}, 4),
    (TRIANGLE_ODD, {"n": 77, "m": 40}, 8),
])
def test_mma_path_emulated(tmp_path: Path, source: str, params: dict[str, int],
                           mma: int) -> None:
    """The mma path itself, emulated warp by warp (polycu_emu.h): the fragments'
    lanes and registers, the pipeline's buffers (race-checked) and the sum from zero
    added once, with mma.m8n8k4 and with sm_90's m16n8k8, against gcc."""
    scop, cuda, host = _emulation(source, tmp_path)
    report = emulate_scop(scop, cuda, host, seed=sum(params.values()), nvcc=False,
                          params=params, mma=mma)
    assert report.ok, report.format()


@pytest.mark.parametrize("mma, wrong", [
    # m16n8k8's A registers of rows g and g + 8 swapped
    (8, (r"a\[m\]\[0\], a\[m \+ 1\]\[0\]", "a[m + 1][0], a[m][0]")),
    # m8n8k4's accumulators of columns 2t and 2t + 1 swapped
    (4, (r"acc\[m\]\[n\]\[0\], acc\[m\]\[n\]\[1\], a\[m\]",
         "acc[m][n][1], acc[m][n][0], a[m]")),
])
def test_a_wrong_fragment_layout_fails_the_mma_emulation(tmp_path: Path, mma: int,
                                                         wrong: tuple[str, str]) -> None:
    """The mma emulation checks the fragments' layout: a kernel that mixes up two
    registers computes wrong sums."""
    scop, cuda, host = _emulation(GEMM, tmp_path)
    broken = re.sub(*wrong, cuda)
    assert broken != cuda
    report = emulate_scop(scop, broken, host, seed=5, nvcc=False, mma=mma,
                          params={"ni": 40, "nj": 70, "nk": 30})
    assert not report.ok and "C:" in report.format()


def test_pair_copies_along_rows_and_the_scale_applied_once(tmp_path: Path) -> None:
    """Every operand goes in pairs along its tile's rows, transposed ones too (the
    tile keeps the array's layout: TRIANGLE's X[k][i] has rows of i), and the
    tensor-core path adds alpha * acc to C at the end; the plain path (emulation,
    before sm_80) keeps C's order."""
    _, gemm, _ = _emulation(GEMM, tmp_path)
    mma_path = gemm.split("#if POLYCU_MMA\n")
    assert "POLYCU_CP16(sx, " in gemm and "POLYCU_CP16(sy, " in gemm
    assert "if (strips > 0)\n            C[i_ * 100 + j_] = C[i_ * 100 + j_] + (alpha) * " \
        "acc[m][n][e];" in gemm
    assert any(part.lstrip().startswith("#pragma unroll") and "= 0.0;" in
               part.split("#else")[0] for part in mma_path[1:])
    assert "((alpha) * sx[" in gemm                  # the plain path: (s X) Y, as C
    _, triangle, _ = _emulation(TRIANGLE, tmp_path)
    assert "POLYCU_CP8(s" not in triangle.split("kernel0(")[1]
    # X[k][i]: a thread's pair is two neighbouring i of one k, at row q / 24 of the
    # tile, whose rows are 48 + 4 long; the fragment reads run down its columns
    assert "POLYCU_CP16(sx, buf * 416 + (q / 24) * 52 + 2 * (q % 24), X + " in triangle
    # (m_ and n_: TRIANGLE's parameters are m and n)
    assert "sx[buf * 416 + (kk + t) * 52 + wi + 8 * m_ + g]" in triangle
    assert "sy[buf * 768 + (wj + 8 * n_ + g) * 12 + kk + t]" in triangle


def test_a_removed_barrier_is_caught_as_a_race(tmp_path: Path) -> None:
    scop, cuda, host = _emulation(GEMM, tmp_path)
    params = {"ni": 60, "nj": 70, "nk": 40}
    assert cuda.count("__syncthreads();") == 1
    broken = cuda.replace("__syncthreads();", "")
    with pytest.raises(PolycuError, match=r"shared array sx?y? .*\(a missing barrier\)"):
        emulate_scop(scop, broken, host, seed=3, nvcc=False, params=params)


MMA_SHAPES = {"sm_90": {"m16n8k8"}, "sm_80": {"m8n8k4"}, "sm_75": set()}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("source", [GEMM, TRIANGLE], ids=["gemm", "transposed"])
@pytest.mark.parametrize("arch", sorted(MMA_SHAPES))
def test_nvcc_builds_every_path(tmp_path: Path, arch: str, source: str) -> None:
    """sm_90 builds the m16n8k8 path, sm_80 the m8n8k4 one, sm_75 the plain one,
    without spills; a 6-warp block asks for three blocks an SM, which ptxas grants
    with 96 registers (a sub-partition's 16384 for five warps) on the paths that run
    on tensor cores."""
    path = tmp_path / "g.c"
    path.write_text(source)
    cu = tmp_path / "g.cu"
    cuda = polycu.compile(str(path), Options()).cuda
    cu.write_text(cuda)
    assert re.search(r"void POLYCU_BOUNDS\(192, 3\) \w+\(", cuda)
    built = subprocess.run(["nvcc", f"-arch={arch}", "-O3", "-c", "-Xptxas", "-v", str(cu),
                            "-o", str(tmp_path / "g.o")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "0 bytes spill stores" in built.stderr
    registers = int(re.search(r"Used (\d+) registers, used 1 barriers", built.stderr)[1])
    assert (registers <= 96) == (arch != "sm_75"), registers   # sm_75: its own
    ptx = subprocess.run(["nvcc", f"-arch={arch}", "-ptx", str(cu), "-o", "-"],
                         capture_output=True, text=True).stdout
    assert set(re.findall(r"mma\.sync\.aligned\.(m\w+?)\.", ptx)) == MMA_SHAPES[arch]


def test_registers_of_a_sub_partition() -> None:
    """Three 6-warp blocks put five warps on a sub-partition: 16384 / 5 registers a
    warp, whole units of 256, are 96 a thread; two blocks leave 168, four 80."""
    assert [mma.thread_registers(b, 6) for b in (1, 2, 3, 4)] == [255, 168, 96, 80]
    assert mma.thread_registers(4, 4) == 128


def test_conditions_print_type_limits_in_long_long() -> None:
    """A constant past 2^30 (isl's guards carry C's type limits) is a long long
    literal, so that the sum with a parameter does not overflow an int (codegen/
    cuda.py's BIG_LITERAL; fuzz seed 5602003 in the kernels' own printer)."""
    import islpy as isl
    from polycu.codegen.constraints import condition
    bset = isl.BasicSet("[n] -> { [k] : 0 <= k <= n + 2147483645 }")
    assert set(condition(bset, ["k"]).split(" && ")) == {
        "(k >= 0)", "(-1 * k + n + 2147483645LL >= 0)"}
