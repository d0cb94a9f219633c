"""Data-dependent loops inside a SCoP (issue 16): a ``while``, a ``do`` loop, or a
``for`` loop whose header isl cannot describe is one statement of the model, run
by one thread for each instance of the affine loops around it
(``polycu/frontend/loops.py``, ``loop_accesses.py``).

Checked here: the model (the statement, its copies of the scalars it writes, its
exact over-approximated reads and may-writes), the dependences that decide
whether the loops around run in parallel, the emitted kernels (nvcc builds them),
the CPU emulation against gcc on random inputs, and whole programs
(``tests/data/loops/``) that check their SCoP against plain loops.  What stays
rejected is in the bad-input corpus (``while_*.c``, ``break_out_of_scop.c``).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import islpy as isl
import pytest
from test_inline_calls import run_program

import polycu
from polycu.deps import compute_dependences
from polycu.driver import compile_file
from polycu.model import MAY_WRITE, READ, WRITE, Scop, format_scop

PROGRAMS = Path(__file__).parent / "data" / "loops"
SIZES = [{"n": 37}, {"n": 6}, {"n": 1}]


def model(source: str) -> Scop:
    (scop,) = polycu.load_text(source, "f.c")
    return scop


def accesses(scop: Scop, name: str) -> list[str]:
    """``kind relation`` of each access of statement ``name``."""
    return [f"{a.kind} {a.relation}" for a in scop.statement(name).accesses]


def generate(tmp: Path, source: str):
    path = tmp / "f.c"
    path.write_text(source)
    return compile_file(str(path))


def kernels_of(cuda: str) -> list[str]:
    return [k.split("\n}\n")[0] for k in cuda.split("__global__")[1:]]


SEARCH = """
#define N 100
void f(int n, double x, double A[N][N], int pos[N])
{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    k = 0;
    while (k < n && A[i][k] != x)
      k++;
    pos[i] = k;
  }
#pragma endscop
}
"""


def test_a_while_loop_is_one_statement_with_a_copy_of_the_scalar_it_writes():
    lines = format_scop(model(SEARCH)).splitlines()
    start = lines.index("    S1: { int k_loc = k; while ((k_loc < n) && (A[i][k_loc] != x)) "
                        "{ k_loc++; } k = k_loc; }")
    # k < n guards the read of A[i][k] (C's short circuit); k is read once, written once
    assert lines[start + 1:start + 6] == [
        "      domain: [n] -> { S1[i] : 0 <= i < n }",
        "      read      [n] -> { S1[i] -> k[] }",
        "      read      [n] -> { S1[i] -> A[i, o1] : i <= 99 and 0 <= o1 <= 99 and o1 < n }",
        "      read      [n] -> { S1[i] -> x[] }",
        "      write     [n] -> { S1[i] -> k[] }"]
    scop = model(SEARCH)
    assert scop.statement("S1").loop and not scop.statement("S0").loop
    assert scop.statement("S1").reduction is None


# j, a counter declared outside, is assigned before any use: no read of its old
# value; B[i][j + 1] is written for j >= 0 only (the counter's initial value and its
# positive step), within B's extent.
BOUND = """
#define N 64
void f(int n, int L[N], double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < L[i]; j++)
      B[i][j + 1] = A[i][j] * 2;
#pragma endscop
}
"""


def test_a_data_dependent_bound_makes_the_for_loop_one_statement():
    scop = model(BOUND)
    (s0,) = scop.statements
    assert s0.text == ("{ int j_loc; for (j_loc = 0; j_loc < L[i]; j_loc++) "
                       "{ B[i][j_loc + 1] = A[i][j_loc] * 2; } j = j_loc; }")
    assert str(s0.domain) == "[n] -> { S0[i] : 0 <= i < n }"
    assert accesses(scop, "S0") == [
        "read [n] -> { S0[i] -> L[i] }",
        "read [n] -> { S0[i] -> A[i, o1] : i <= 63 and 0 <= o1 <= 63 }",
        "may_write [n] -> { S0[i] -> B[i, o1] : i <= 63 and 0 < o1 <= 63 }",
        "write [n] -> { S0[i] -> j[] }"]


def test_an_affine_for_loop_keeps_its_exact_domain():
    scop = model(BOUND.replace("j < L[i]", "j < n - 1"))
    (s0,) = scop.statements
    assert (s0.text, s0.loop) == ("B[i][j + 1] = A[i][j] * 2", False)
    assert str(s0.domain) == "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j <= -2 + n }"
    assert [a.kind for a in s0.accesses] == [READ, WRITE]


# A product bound, a counter declared in the loop (a local of the statement, outside
# the model), a negative constant step and a step that is no constant.
def test_product_bounds_declared_counters_and_steps():
    source = """
#define N 50
void f(int n, int m, double A[N], double B[N][N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    for (int j = i * i; j >= 0; j -= 2)
      B[i][j] = A[j];
  for (i = 0; i < n; i++)
    for (int j = 0; j < n; j += m)
      B[j][i] = 0;
#pragma endscop
}
"""
    scop = model(source)
    assert [a.name for a in scop.arrays] == ["A", "B"]      # j is no array
    assert scop.statement("S0").text == \
        "for (int j = i * i; j >= 0; j -= 2) { B[i][j] = A[j]; }"
    assert accesses(scop, "S0") == [
        "read [n, m] -> { S0[i] -> A[o0] : 0 <= o0 <= 49 }",
        "may_write [n, m] -> { S0[i] -> B[i, o1] : i <= 49 and 0 <= o1 <= 49 }"]
    # j >= 0 holds from the initial value and the positive step, whatever m is
    assert accesses(scop, "S1") == [
        "may_write [n, m] -> { S1[i] -> B[o0, i] : i <= 49 and 0 <= o0 <= 49 and o0 < n }"]


def test_a_do_loop_reads_what_its_body_may_use_before_assigning_it():
    source = """
void f(int n, int V[100], int D[100])
{
  int i, v, d;
#pragma scop
  for (i = 0; i < n; i++) {
    v = V[i];
    do {
      d = v % 10;
      v = v / 10;
    } while (v > 0);
    D[i] = d;
  }
#pragma endscop
}
"""
    scop = model(source)
    # v's value from before is read; d is assigned in the body, which runs once at least
    assert scop.statement("S1").text == ("{ int d_loc; int v_loc = v; do { d_loc = v_loc % 10; "
                                         "v_loc = v_loc / 10; } while (v_loc > 0); d = d_loc; "
                                         "v = v_loc; }")
    assert [(a.array, a.kind) for a in scop.statement("S1").accesses] == [
        ("v", READ), ("d", WRITE), ("v", WRITE)]


def test_a_loop_left_early_is_one_statement():
    source = SEARCH.replace("""    k = 0;
    while (k < n && A[i][k] != x)
      k++;
""", """    for (k = 0; k < n; k++)
      if (A[i][k] == x)
        break;
""")
    scop = model(source)
    assert scop.statement("S0").text == ("{ int k_loc; for (k_loc = 0; k_loc < n; k_loc++) "
                                         "{ if (A[i][k_loc] == x) { break; } } k = k_loc; }")
    assert accesses(scop, "S0")[0] == \
        "read [n] -> { S0[i] -> A[i, o1] : i <= 99 and 0 <= o1 <= 99 and o1 < n }"


# -- dependences: which loops around stay parallel ------------------------------------
def test_a_loop_writing_its_own_row_leaves_the_rows_parallel(tmp_path: Path):
    scop = model(SEARCH)
    deps = compute_dependences(scop)
    loop = isl.UnionSet("[n] -> { S1[i] }")
    # k's copies never cross rows: the only dependences between rows are k's, which
    # privatisation removes
    across = deps.validity.intersect_domain(loop).intersect_range(loop)
    assert across.subtract(isl.UnionMap("[n] -> { S1[i] -> S1[i'] : i' > i }")).is_empty()
    assert all(a.array == "k" for s in scop.statements for a in s.writes if a.array != "pos")
    (kernel,) = [k for k in kernels_of(generate(tmp_path, SEARCH).cuda) if "while" in k]
    assert "blockIdx" in kernel and "int k;" in kernel       # parallel, k private


WALK = """
#define N 100
void f(int n, int start[N], double x[N])
{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    k = start[i];
    while (k >= 0 && k < n && x[k] > 0.0) {
      x[k] = x[k] - 1.0;
      k = k + 2;
    }
  }
#pragma endscop
}
"""


def test_a_loop_that_may_write_any_element_serialises_the_loop_around(tmp_path: Path, emulated):
    scop = model(WALK)
    # the condition reads x[k] where 0 <= k < n; the body, which changes k, anywhere
    assert accesses(scop, "S1")[1:] == [
        "read [n] -> { S1[i] -> x[o0] : 0 <= o0 <= 99 and o0 < n }",
        "read [n] -> { S1[i] -> x[o0] : 0 <= o0 <= 99 }",
        f"{MAY_WRITE} [n] -> {{ S1[i] -> x[o0] : 0 <= o0 <= 99 }}",
        "write [n] -> { S1[i] -> k[] }"]
    flow = compute_dependences(scop).flow
    # every later walk may read what an earlier one wrote
    assert flow.intersect_domain(isl.UnionSet("[n] -> { S1[i] }")).intersect_range(
        isl.UnionSet("[n] -> { S1[i] }")).is_equal(
        isl.UnionMap("[n] -> { S1[i] -> S1[i'] : 0 <= i < i' < n }"))
    (kernel,) = [k for k in kernels_of(generate(tmp_path, WALK).cuda) if "while" in k]
    assert "blockIdx" not in kernel and "for (" in kernel    # one thread runs the i loop
    emulated(WALK, SIZES)


# -- kernels and emulation --------------------------------------------------------------
MIXED = """
#define N 64
void f(int n, double A[N][N], int L[N], unsigned int U[N], double B[N][N], double C[N],
       long D[N])
{
  int i, j;
  double t;
  long c;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < L[i] && j < n; j++)
      B[i][j] = A[i][j] + j;
    t = A[i][0];
    c = 0;
    while (t > 1.0 || t < -1.0) {
      t = t / 3;
      c += 1;
    }
    do {
      C[i] = C[i] + t;
      U[i] = U[i] / 2u;
    } while (U[i] > 5u);
    for (unsigned int u = U[i]; u < 100u; u += 7u)
      D[i] += u;
    D[i] += c;
  }
#pragma endscop
}
"""


def test_loops_emulate_like_gcc_on_random_inputs(emulated):
    emulated(MIXED, SIZES)
    emulated(SEARCH, SIZES)
    emulated(BOUND.replace("j < L[i]", "j < L[i] && j < n - 1"), SIZES)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_builds_the_kernels(tmp_path: Path):
    for name, source in (("mixed", MIXED), ("search", SEARCH), ("walk", WALK)):
        cuda = tmp_path / f"{name}.cu"
        cuda.write_text(generate(tmp_path, source).cuda)
        result = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-c", str(cuda), "-o",
                                 str(tmp_path / f"{name}.o")], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# -- whole programs: gcc's build of the original and polycu's, each checking itself -----
@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.c")))
def test_programs_compute_what_gcc_computes(tmp_path: Path, name: str) -> None:
    for result in run_program(tmp_path, PROGRAMS / name):
        assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr


def test_there_are_at_least_six_programs() -> None:
    assert len(list(PROGRAMS.glob("*.c"))) >= 6


# -- with the rest of the frontend ---------------------------------------------------
def test_an_inlined_function_may_hold_a_data_dependent_loop(emulated):
    source = """
static void clear(double *row, int n)
{
  int k = 0;
  while (k < n && row[k] > 0.0) {
    row[k] = 0;
    k++;
  }
}

void f(int n, double A[100][100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    clear(A[i], n);
#pragma endscop
}
"""
    scop = model(source)
    assert scop.statement("S1").text == (
        "{ int clear_k_loc = clear_k; while ((clear_k_loc < n) && (A[i][clear_k_loc] > 0.0)) "
        "{ A[i][clear_k_loc] = 0; clear_k_loc++; } clear_k = clear_k_loc; }")
    emulated(source, SIZES)


def test_automatic_scops_leave_a_loop_around_loops_to_the_host():
    # a while loop around loop nests is rejected, so the nests inside are the SCoP
    source = """
#define N 100
void relax(int n, double A[N][N], double B[N][N], double tol)
{
  int i, j;
  double err = 1.0;
  while (err > tol) {
    err = 0.0;
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.5 * (A[i - 1][j] + A[i + 1][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++) {
        err += B[i][j] - A[i][j];
        A[i][j] = B[i][j];
      }
  }
}
"""
    (scop,) = polycu.load_text(source, "f.c")
    assert [s.loop for s in scop.statements] == [False] * 4
    assert scop.statements[0].text == "err = 0.0"
