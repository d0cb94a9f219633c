"""Triangular contractions on the FP64 tensor cores (memory/contraction.py,
codegen/tensor.py): sums whose k range depends on the row (symm's ``k < i``), run
on mma in the strips every row of a block sums and one k at a time, guarded, in the
strips across the block's diagonal; the ranking that picks symm's two sums as
kernels of their own (gpu/cost.py's tensor discount)."""
from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import polycu
from polycu.deps import compute_dependences
from polycu.driver import compile_scops, placement_of, program_of
from polycu.memory.contraction import contraction
from polycu.memory import Placement
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from polycu.runtime.programs import ProgramBuild, build_program

# symm, written from its definition: C = alpha A B + beta C with A symmetric, only
# its lower triangle read
SYMM = """
void f(int m, int n, double alpha, double beta, double C[70][50], double A[70][70],
       double B[70][50])
{
  double temp2;
#pragma scop
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}
"""

# k above the row, from i + 2, X transposed, an init in the same kernel
ABOVE = """
void f(int n, int m, double s, double W[75][40], double X[80][75], double Y[80][40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      W[i][j] = 0.5 * W[i][j];
      for (int k = i + 2; k < n + 3; k++)
        W[i][j] += s * X[k][i] * Y[k][j];
    }
#pragma endscop
}
"""


# sums in some rows of W only: K's condition on the row alone makes it depend on i
# (taken for a rectangle at first, rows 30 and on summed products C never adds)
SOME_ROWS = """
void f(int n, int m, double W[100][60], double X[100][100], double Y[100][60])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      W[i][j] = 0.5 * W[i][j];
      if (i < 30)
        for (int k = 0; k < n; k++)
          W[i][j] += X[i][k] * Y[k][j];
    }
#pragma endscop
}
"""

# the scale after the sums (trmm's B[i][j] = alpha * B[i][j]): no I of a contraction
POST = """
void f(int ni, int nj, int nk, double alpha, double C[90][100], double A[90][70],
       double B[70][100])
{
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      for (int k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
      C[i][j] = alpha * C[i][j];
    }
#pragma endscop
}
"""


def test_a_statement_after_the_sums_is_no_init(tmp_path: Path) -> None:
    """In one kernel with the sums, the scale that follows them is no I (before: it
    ran first, and the scale was lost: a silent wrong result, trmm's and POST's);
    the ranking gives the sums a kernel of their own, a contraction without I."""
    path = tmp_path / "p.c"
    path.write_text(POST)
    scop = polycu.load(str(path))[0]
    fused = program_of(scop, Options(run_on="gpu", schedule="identity"))
    assert len(fused.kernels) == 1 and contraction(fused, fused.kernels[0], {}) is None
    (found,) = placement_of(scop, Options(run_on="gpu")).tensor.values()
    assert found.init is None and not found.triangular


@functools.lru_cache(maxsize=None)
def _compiled(source: str) -> tuple[polycu.Scop, Placement, str, str]:
    """The SCoP of ``source``, its placement and its emulation's translation unit and
    host function, computed once per test process (symm's ranking takes seconds)."""
    path = Path(tempfile.mkdtemp()) / "c.c"
    path.write_text(source)
    scop = polycu.load(str(path))[0]
    placement = placement_of(scop, Options(run_on="gpu"))
    description = compile_scops(str(path), [scop], Options(run_on="gpu")
                                ).description["scops"][0]
    return scop, placement, scop_translation_unit(description), description["host_function"]


def test_symm_runs_both_sums_on_tensor_cores() -> None:
    found = sorted(_compiled(SYMM)[1].tensor.values(), key=lambda c: c.kernel)
    assert len(found) == 2
    temp2, update = found
    # temp2[i][j] += B[k][j] * A[i][k] over k < i: the factors in the order Y X
    assert (temp2.output, temp2.left.array, temp2.right.array) == ("temp2_x0", "A", "B")
    assert temp2.left.dims == ("i", "k") and not temp2.x_first and temp2.scale is None
    assert temp2.triangular
    assert str(temp2.reduction) == "[m, n] -> { [i0, i1] : 0 <= i1 < i0 }"
    # C[k][j] += alpha * B[i][j] * A[i][k] over i > k: W's rows are k, its sum runs
    # over i; alpha scales B, the first factor
    assert (update.output, update.left.array, update.right.array) == ("C", "A", "B")
    assert update.left.dims == ("k", "i") and update.right.dims == ("k", "j")
    assert not update.x_first and update.scale.name == "alpha" and update.triangular
    assert str(update.reduction) == "[m, n] -> { [i0, i1] : i0 < i1 < m }"


def test_symm_is_ranked_by_its_tensor_kernels() -> None:
    """The fused kernel, estimated cheaper without tensor cores, loses to the
    schedule whose two sums are contractions; without tensor cores it wins."""
    scop = _compiled(SYMM)[0]
    deps = compute_dependences(scop)
    on = polycu.candidates(scop, deps, Options())
    off = polycu.candidates(scop, deps, Options(tensor_cores=False))
    assert "2 kernel(s) on tensor cores" in on[0].explanation
    assert on[0].kernels == 4 and off[0].kernels == 1
    assert not any("tensor" in c.explanation for c in off)


@pytest.mark.parametrize("source, params, mma", [
    (SYMM, {"m": 70, "n": 50}, None),
    (SYMM, {"m": 53, "n": 11}, 8),
    (SYMM, {"m": 70, "n": 33}, 4),
    (ABOVE, {"n": 75, "m": 40}, None),
    (ABOVE, {"n": 61, "m": 9}, 8),
    (SOME_ROWS, {"n": 97, "m": 41}, None),
    (SOME_ROWS, {"n": 97, "m": 41}, 8),
    (POST, {"ni": 90, "nj": 100, "nk": 70}, None),
    (POST, {"ni": 51, "nj": 30, "nk": 70}, 8),
])
def test_emulation_matches_gcc(source: str, params: dict[str, int], mma: int | None) -> None:
    """The plain path (C's order, bit for bit) and the mma path emulated warp by warp
    (within the check's tolerance), at sizes whose blocks have full and diagonal
    strips and partial tiles."""
    scop, placement, cuda, host = _compiled(source)
    assert cuda.count("polycu_mma(acc") == {SYMM: 4, POST: 1}.get(source, 2)
    assert all(c.triangular == (source is not POST) for c in placement.tensor.values())
    report = emulate_scop(scop, cuda, host, seed=sum(params.values()), nvcc=False,
                          params=params, mma=mma)
    assert report.ok, report.format()


# Y's row 60 is infinite, X's elements above the diagonal (never read by C) too: a
# zero in place of a product C does not compute, times an infinity, would give NaN
# in rows 48 to 60; every other value is a small integer, so any order sums exactly
INFINITE = r"""
#include <stdio.h>
#include <math.h>
static double W[70][40], X[70][70], Y[70][40];
static void f(int n, int m)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < i; k++)
        W[i][j] += X[i][k] * Y[k][j];
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < 70; i++)
    for (int j = 0; j < 70; j++) {
      X[i][j] = j >= i ? INFINITY : (double)((3 * i + j) % 5 + 1);
      if (j < 40) {
        W[i][j] = (double)((i + j) % 5 - 2);
        Y[i][j] = i == 60 ? INFINITY : (double)((5 * i + j) % 9 - 4);
      }
    }
  f(70, 40);
  for (int i = 0; i < 70; i++)
    for (int j = 0; j < 40; j++)
      printf("%d %d %.17g\n", i, j, W[i][j]);
  return 0;
}
"""


def test_infinities_outside_the_sums_stay_outside(tmp_path: Path) -> None:
    source = tmp_path / "inf.c"
    source.write_text(INFINITE)
    cu = tmp_path / "inf.cu"
    subprocess.run([sys.executable, "-m", "polycu", str(source), "--run-on", "gpu", "-o",
                    str(cu)], check=True, capture_output=True)
    assert "polycu_mma16(" in cu.read_text()
    reference = tmp_path / "reference"
    subprocess.run(["gcc", "-O1", "-std=c99", str(source), "-lm", "-o", str(reference)],
                   check=True)
    expected = subprocess.run([str(reference)], capture_output=True, text=True).stdout
    assert "inf" in expected and "nan" not in expected
    emulated = tmp_path / "emulated"
    build_program(cu, emulated, ProgramBuild(defines=("POLYCU_EMULATE_MMA=8",),
                                             cflags=("-std=c99", "-O1")), emulate=True)
    got = subprocess.run([str(emulated)], capture_output=True, text=True).stdout
    assert got == expected
