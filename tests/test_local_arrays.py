"""Arrays declared inside a SCoP (issue 16): local to the SCoP (device memory only,
never copied, not a parameter of the host function), expanded per iteration of the
loops around their declaration where that frees them, emulated like the original."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import choose, compile_file
from polycu.model import format_scop

# One row at a time through a temporary: with t expanded, every (i, j) is parallel.
ROW = """
void f(int n, double A[100][100], double B[100][100])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double t[100];
    for (j = 0; j < n; j++)
      t[j] = A[i][j] * 2;
    for (j = 0; j < n; j++)
      B[i][j] = t[j] + t[n - 1 - j];
  }
#pragma endscop
}
"""

# A variable-length temporary: its extent is the parameter m.
VLA = """
void f(int n, int m, double A[100][100], double B[100][100])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double t[m];
    for (j = 0; j < m; j++)
      t[j] = A[i][j] + i;
    for (j = 0; j < m; j++)
      B[i][m - 1 - j] = t[j] * t[j];
  }
#pragma endscop
}
"""

# Declared outside every loop: one temporary for the whole SCoP, nothing to expand by.
FLAT = """
void f(int n, double a[100], double b[100])
{
  int j;
#pragma scop
  {
    double t[100];
    for (j = 0; j < n; j++)
      t[j] = a[j] * a[j];
    for (j = 0; j < n; j++)
      b[j] = t[n - 1 - j] - t[j];
  }
#pragma endscop
}
"""


def test_a_local_array_is_part_of_the_model_and_dead_after_the_scop():
    (scop,) = polycu.load_text(ROW, "row.c")
    t = scop.array("t")
    assert t.local and t.dead_after and t.extents == ("100",)
    assert "double t[100] (local)" in format_scop(scop)


def test_a_local_row_is_expanded_and_every_iteration_runs_in_parallel(emulated):
    (scop,) = polycu.load_text(ROW, "row.c")
    best = choose(scop, polycu.dependences(scop), reporter=Reporter(stream=io.StringIO()))
    assert best.name.startswith("expand(t_x0)+")
    assert best.scop.array("t_x0").extents == (None, "100")
    cuda = compile_file(str(emulated(ROW, [{"n": n} for n in (0, 1, 2, 37, 100)]))).cuda
    assert "polycu_malloc((void **)&dev_t_x0" in cuda
    assert "double *t" not in cuda.split("_gpu(", 1)[1].split(")", 1)[0]


@pytest.mark.parametrize("n, m", [(0, 4), (3, 0), (5, 7), (30, 100)])
def test_a_variable_length_local_array(emulated, n, m):
    (scop,) = polycu.load_text(VLA, "vla.c")
    assert scop.array("t").extents == ("m",)
    emulated(VLA, [{"n": n, "m": m}])


def test_a_local_array_outside_every_loop_stays_one_array(emulated):
    (scop,) = polycu.load_text(FLAT, "flat.c")
    best = choose(scop, polycu.dependences(scop), reporter=Reporter(stream=io.StringIO()))
    assert not best.name.startswith("expand(")
    cuda = compile_file(str(emulated(FLAT, [{"n": n} for n in (0, 1, 64, 100)]))).cuda
    assert "polycu_malloc((void **)&dev_t," in cuda and "polycu_copy_in(dev_t," not in cuda


PROGRAMS = Path(__file__).parent / "data" / "local_arrays"


@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.c")))
def test_self_checking_programs_compute_what_gcc_computes(tmp_path: Path, name: str) -> None:
    # each main compares its SCoP with plain loops (also run on the GPU:
    # scripts/run_selfcheck.sh)
    from test_inline_calls import run_program
    for result in run_program(tmp_path, PROGRAMS / name):
        assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr
