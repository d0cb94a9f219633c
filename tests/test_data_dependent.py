"""Data-dependent conditions inside a SCoP (issue 16): ``if (A[i] > 0) B[i] = A[i];``
is one statement of the model whose body is the whole ``if``
(``polycu/frontend/conditions.py``).  Its references are reads, its writes
may-writes; a may-write kills nothing in the dataflow analysis, so the values from
before it stay live (and the array is copied to the device).

Checked here: the model (``--dump-scop``), the exact dependences of small examples,
the emitted kernels (the condition is evaluated per instance, never as an atomic),
and whole programs (``tests/data/conditions/``), each checking its SCoP against
plain loops, built by gcc and emulated from polycu's CUDA.  What cannot be modelled
is in the bad-input corpus (``data_dependent_if_*.c``).
"""
from __future__ import annotations

import io
from pathlib import Path

import islpy as isl
import pytest
from test_inline_calls import run_program

import polycu
from polycu.deps import compute_dependences
from polycu.diagnostics import Reporter
from polycu.driver import compile_file
from polycu.model import MAY_WRITE, Scop, format_scop
from polycu.schedule.expand import expand_temporaries

PROGRAMS = Path(__file__).parent / "data" / "conditions"
SIZES = [{"n": 37}, {"n": 6}]


def model(source: str) -> Scop:
    (scop,) = polycu.load_text(source, "f.c")
    return scop


FILTER = """
#define N 100
void f(int n, double A[N], double B[N], double C[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = 0;
  for (i = 0; i < n; i++)
    if (A[i] > 0)
      B[i] = A[i];
  for (i = 0; i < n; i++)
    C[i] = B[i];
#pragma endscop
}
"""


def test_the_whole_if_is_one_statement_whose_writes_are_may_writes():
    lines = format_scop(model(FILTER)).splitlines()
    start = lines.index("    S1: if (A[i] > 0) { B[i] = A[i]; }")
    assert lines[start:start + 5] == [
        "    S1: if (A[i] > 0) { B[i] = A[i]; }",
        "      domain: [n] -> { S1[i] : 0 <= i < n }",
        "      read      [n] -> { S1[i] -> A[i] }",
        "      read      [n] -> { S1[i] -> A[i] }",
        "      may_write [n] -> { S1[i] -> B[i] }"]
    scop = model(FILTER)
    assert scop.statement("S1").reduction is None
    assert [a.kind for a in scop.statement("S0").accesses] == ["write"]


def equal(umap: isl.UnionMap, text: str) -> bool:
    return umap.is_equal(isl.UnionMap(text))


def test_a_may_write_kills_nothing():
    scop = model(FILTER)
    deps = compute_dependences(scop)
    # C[i] reads B[i] from S1[i] when A[i] > 0, else from S0[i]: both are sources
    assert equal(deps.flow, "[n] -> { S0[i] -> S2[i] : 0 <= i < n; S1[i] -> S2[i] : 0 <= i < n }")
    assert equal(deps.output, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }")
    assert deps.anti.is_empty()
    assert equal(deps.live_in, "[n] -> { S1[i] -> A[i] : 0 <= i < n }")
    # S0's value leaves the SCoP where S1's condition fails
    assert equal(deps.live_out, "[n] -> { S0[i] -> B[i] : 0 <= i < n; "
                 "S1[i] -> B[i] : 0 <= i < n; S2[i] -> C[i] : 0 <= i < n }")


def test_what_a_may_write_may_not_write_is_live_in():
    scop = model(FILTER.replace("    B[i] = 0;\n", "    C[i] = 0;\n"))
    deps = compute_dependences(scop)
    assert equal(deps.flow, "[n] -> { S1[i] -> S2[i] : 0 <= i < n; S0[i] -> S2[i] : false }")
    assert equal(deps.live_in, "[n] -> { S1[i] -> A[i] : 0 <= i < n; S2[i] -> B[i] : 0 <= i < n }")


def generate(tmp: Path, source: str):
    """polycu's output (``Generated``: .cuda, .host) for C ``source``."""
    path = tmp / "f.c"
    path.write_text(source)
    return compile_file(str(path))


def kernels_of(cuda: str) -> list[str]:
    """The text of each kernel of a .cu file, signature to closing brace."""
    return [k.split("\n}\n")[0] for k in cuda.split("__global__")[1:]]


def test_the_kernel_evaluates_the_condition_and_the_array_is_copied_in(tmp_path: Path):
    generated = generate(tmp_path, FILTER.replace("    B[i] = 0;\n", "    C[i] = 0;\n"))
    kernels = kernels_of(generated.cuda)
    assert any("if (A[" in k and "] > 0) { " in k and "blockIdx" in k for k in kernels)
    # B's elements the condition leaves alone keep their values: B goes to the device
    assert "polycu_copy_in(dev_B, B, dev_B_bytes)" in generated.cuda


ARGMAX = """
#define N 100
void f(int n, double A[N], double out[1])
{
  int i;
  double m;
#pragma scop
  m = A[0];
  for (i = 1; i < n; i++)
    if (A[i] > m)
      m = A[i];
  out[0] = m;
#pragma endscop
}
"""


def test_a_conditional_scalar_update_carries_its_loop():
    scop = model(ARGMAX)
    s1 = scop.statement("S1")
    assert [a.kind for a in s1.accesses if a.array == "m"] == ["read", MAY_WRITE]
    deps = compute_dependences(scop)
    # every later test of m depends on every earlier update: no kill between them
    assert equal(deps.flow.intersect_domain(isl.UnionSet("[n] -> { S1[i] }")).intersect_range(
        isl.UnionSet("[n] -> { S1[i] }")), "[n] -> { S1[i] -> S1[j] : 1 <= i < j < n }")
    assert equal(deps.flow.intersect_range(isl.UnionSet("[n] -> { S2[] }")),
                 "[n] -> { S0[] -> S2[]; S1[i] -> S2[] : 1 <= i < n }")


def test_the_maximum_stays_in_one_thread_and_emulates(tmp_path: Path, emulated):
    generated = generate(tmp_path, ARGMAX)
    (kernel,) = [k for k in kernels_of(generated.cuda) if "if (A[" in k]
    assert "blockIdx" not in kernel and "atomic" not in kernel
    emulated(ARGMAX, SIZES)


# A count under a condition is no reduction: the statement's body is an 'if', which
# an atomic update cannot express.
COUNT = """
#define N 64
void f(int n, double G[N][N], int K[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (G[j][i] < 0)
        K[j] += 1;
#pragma endscop
}
"""


def test_a_conditional_update_is_never_atomic(tmp_path: Path, emulated):
    assert model(COUNT).statement("S0").reduction is None
    assert not any("atomic" in k for k in kernels_of(generate(tmp_path, COUNT).cuda))
    emulated(COUNT, SIZES)


# 'last' may keep a value of any earlier iteration: a private copy per thread would
# lose it.  't' is written in every iteration before its conditional update.
SCALARS = """
#define N 100
void f(int n, double A[N], double B[N], double C[N])
{
  int i;
  double last, t;
#pragma scop
  last = 0;
  for (i = 0; i < n; i++) {
    if (A[i] > 0)
      last = A[i];
    B[i] = last;
  }
  for (i = 0; i < n; i++) {
    t = 0;
    if (A[i] < 0)
      t = A[i] * A[i];
    C[i] = t;
  }
#pragma endscop
}
"""


def test_a_conditionally_written_scalar_is_private_only_where_always_written_first(
        tmp_path: Path, emulated):
    kernels = kernels_of(generate(tmp_path, SCALARS).cuda)
    (carry,) = [k for k in kernels if "last" in k]
    (temporary,) = [k for k in kernels if " t = 0;" in k]
    assert "blockIdx" not in carry              # sequential: one thread keeps 'last'
    assert "blockIdx" in temporary and "double t;" in temporary   # parallel, t private
    emulated(SCALARS, SIZES)


AFFINE_AND_NOT = """
#define N 100
void f(int n, double A[N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (j > 1 && i * j > n && A[j - 2] < A[i])
        B[i][j] = A[i] - A[j - 2];
      else if (j > i)
        B[i][j] = -1;
#pragma endscop
}
"""


def test_affine_conjuncts_stay_in_the_domain_and_products_of_iterators_filter():
    (s0,) = model(AFFINE_AND_NOT.replace("      else if (j > i)\n        B[i][j] = -1;\n",
                                         "")).statements
    assert s0.text == "if (((i * j) > n) && (A[j - 2] < A[i])) { B[i][j] = A[i] - A[j - 2]; }"
    assert str(s0.domain) == "[n] -> { S0[i, j] : 0 <= i < n and 2 <= j < n }"
    # with an 'else' the whole condition is evaluated per instance
    (s0,) = model(AFFINE_AND_NOT).statements
    assert s0.text == ("if (((j > 1) && ((i * j) > n)) && (A[j - 2] < A[i])) "
                       "{ B[i][j] = A[i] - A[j - 2]; } else { if (j > i) { B[i][j] = -1; } }")
    assert str(s0.domain) == "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n }"
    # ... and each reference counts only where C's short circuits and branches reach it
    assert [f"{a.kind} {a.relation}" for a in s0.accesses] == [
        "read [n] -> { S0[i, j] -> A[-2 + j] : j >= 2 }",
        "read [n] -> { S0[i, j] -> A[i] : j >= 2 }",
        "read [n] -> { S0[i, j] -> A[i] : j >= 2 }",
        "read [n] -> { S0[i, j] -> A[-2 + j] : j >= 2 }",
        "may_write [n] -> { S0[i, j] -> B[i, j] : j >= 2 }",
        "may_write [n] -> { S0[i, j] -> B[i, j] : j > i }"]


# A plain statement's '?:' and '&&' guard its references too: taken everywhere,
# A[i - 1] and A[i + 1] lay outside a pointer parameter for every n >= 1, and the
# context became n <= 0 (the kernels never ran).
BLUR = """
void blur(int n, const double *A, double *B, int *C)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    B[i] = (i > 0 ? A[i - 1] : 0.0) + A[i] + (i < n - 1 ? A[i + 1] : 0.0);
    C[i] = i >= 2 && A[i - 2] > A[i];
  }
#pragma endscop
}
"""


def test_a_plain_statement_reads_only_where_its_tests_reach(emulated):
    scop = model(BLUR)
    assert scop.context.is_equal(isl.Set("[n] -> { : }"))
    assert [f"{a.kind} {a.relation}" for a in scop.statement("S0").accesses] == [
        "read [n] -> { S0[i] -> A[-1 + i] : i > 0 }",
        "read [n] -> { S0[i] -> A[i] }",
        "read [n] -> { S0[i] -> A[1 + i] : i <= -2 + n }",
        "write [n] -> { S0[i] -> B[i] }"]
    assert [f"{a.kind} {a.relation}" for a in scop.statement("S1").accesses][:1] == [
        "read [n] -> { S1[i] -> A[-2 + i] : i >= 2 }"]
    emulated(BLUR, [{"n": 1}, {"n": 2}, {"n": 37}])


def test_affine_and_nonaffine_conditions_emulate_like_the_original(emulated):
    emulated(AFFINE_AND_NOT, SIZES)


def test_an_affine_if_is_still_a_domain():
    source = FILTER.replace("if (A[i] > 0)", "if (i > 2)")
    s1 = model(source).statement("S1")
    assert (s1.text, str(s1.domain)) == ("B[i] = A[i]", "[n] -> { S1[i] : 3 <= i < n }")
    assert [a.kind for a in s1.accesses] == ["read", "write"]


# -- whole programs: gcc's build of the original and polycu's, each checking itself -----
@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.c")))
def test_programs_compute_what_gcc_computes(tmp_path: Path, name: str) -> None:
    for result in run_program(tmp_path, PROGRAMS / name):
        assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr


def test_there_are_at_least_six_programs() -> None:
    assert len(list(PROGRAMS.glob("*.c"))) >= 6


# w holds the maximum of row i: every value it carries stays inside iteration i, so
# the model with w expanded (w_x0[i]) is proven to compute the same values; when w is
# read after the SCoP its final value could not be copied out of the expansion (a
# may-write need not leave it there).
ROW_MAXIMUM = """
#define N 64
void f(int n, double B[N][N], double C[N])
{
  int i, j;
  double w;
#pragma scop
  for (i = 0; i < n; i++) {
    w = B[i][0];
    for (j = 1; j < n; j++)
      if (B[i][j] > w)
        w = B[i][j];
    C[i] = w;
  }
#pragma endscop
}
"""


def test_a_conditionally_updated_temporary_expands_only_where_proven(emulated):
    scop = model(ROW_MAXIMUM)
    expanded = expand_temporaries(scop, compute_dependences(scop))
    assert expanded is not None and expanded.arrays == ("w_x0",)
    s1 = expanded.scop.statement("S1")
    assert s1.text == "if (B[i][j] > w_x0[i]) { w_x0[i] = B[i][j]; }"
    assert [a.kind for a in s1.accesses if a.array == "w_x0"] == ["read", MAY_WRITE]
    live = model(ROW_MAXIMUM.replace("#pragma endscop\n", "#pragma endscop\n  C[0] = w;\n"))
    notes = io.StringIO()
    assert expand_temporaries(live, compute_dependences(live), Reporter(stream=notes)) is None
    assert "some of its writes may not happen" in notes.getvalue()
    emulated(ROW_MAXIMUM, SIZES)


BRANCH_LOCALS = """#include <stdio.h>
#include <math.h>
#define N 80
double A[N], B[N], C[N], M[N][N]; int K[N];
void f(int n)
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (A[i] > 0) { double r = sqrt(A[i]); B[i] = r * 2 + r; }
    else { int k = (int) A[i]; C[i] = k * k; K[i] = k; }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (M[i][j] != 0) { double inv = 1.0 / M[i][j]; inv = inv * inv; M[i][j] = inv; }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) {
    A[i] = (i % 9) - 4.5; B[i] = C[i] = -1; K[i] = 0;
    for (int j = 0; j < N; j++) M[i][j] = (i * j) % 7 - 3;
  }
  f(N);
  printf("@ B double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", B[i]);
  printf("@ C double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", C[i]);
  printf("@ K long\\n"); for (int i = 0; i < N; i++) printf("%d\\n", K[i]);
  printf("@ M double\\n"); for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%.17g\\n", M[i][j]);
  return 0;
}
"""


def test_variables_declared_under_a_condition_on_data_are_the_statements_own(
        tmp_path: Path) -> None:
    # refused before (session 45): a data-dependent if declaring scalars is one
    # statement like a data-dependent loop, its variables no accesses, the loops parallel
    from test_c_semantics import differential
    (scop,) = polycu.load_text(BRANCH_LOCALS, "locals.c")
    s0, s1 = scop.statements
    assert [str(a.relation) for a in s0.accesses if a.array in ("r", "k")] == []
    assert (str(s1.domain), sorted({(a.kind, str(a.relation)) for a in s1.accesses})) == (
        "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }",
        [("may_write", "[n] -> { S1[i, j] -> M[i, j] }"),
         ("read", "[n] -> { S1[i, j] -> M[i, j] }")])
    expected, actual = differential(tmp_path, "locals", BRANCH_LOCALS)
    assert actual == expected
