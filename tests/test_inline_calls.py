"""Calls of functions defined in the same file, inside a SCoP (issue 16): inlined by
the frontend (``polycu/frontend/inline.py``) before the statements are built, so the
model holds the callee's loops and references, the emulated kernels compute what the
original computes, and the emitted CUDA calls nothing of the user's.

Each construct is checked twice: its model (statements, domains, accesses, exactly)
and its emulation against the CPU reference.  The reference is compiled from the
inlined text, so ``test_programs_compute_what_gcc_computes`` also builds whole
programs (``tests/data/inline/``), each checking its SCoP against plain loops: once
as gcc compiles the original, once as polycu emits it (emulated).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import PolycuError
from polycu.driver import compile_file
from polycu.model import Scop
from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env

PROGRAMS = Path(__file__).parent / "data" / "inline"
SIZES = [{"n": 40}, {"n": 7}]


def model(source: str) -> Scop:
    (scop,) = polycu.load_text(source, "f.c")
    return scop


def statements(scop: Scop) -> list[tuple[str, str, list[str]]]:
    """Each statement as (text, domain, accesses as 'kind relation')."""
    return [(s.text, str(s.domain), [f"{a.kind} {a.relation}" for a in s.accesses])
            for s in scop.statements]


# -- call statements: rows, element addresses, scalars by address -----------------------
ROWS = """
#define N 100
static void copy(double dst[N], double src[N], int n)
{
  for (int k = 0; k < n; k++)
    dst[k] = src[k];
}
static void add_one(double *p) { *p += 1; }
void f(int n, double A[N][N], double B[N][N], double x[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    copy(A[i], B[i], n);
    add_one(&x[i]);
  }
#pragma endscop
}
"""


def test_a_row_argument_binds_the_parameter_to_the_row_and_an_address_to_the_element():
    assert statements(model(ROWS)) == [
        ("A[i][copy_k] = B[i][copy_k]",
         "[n] -> { S0[i, copy_k] : 0 <= i < n and 0 <= copy_k < n }",
         ["read [n] -> { S0[i, copy_k] -> B[i, copy_k] }",
          "write [n] -> { S0[i, copy_k] -> A[i, copy_k] }"]),
        ("x[i] += 1", "[n] -> { S1[i] : 0 <= i < n }",
         ["read [n] -> { S1[i] -> x[i] }", "write [n] -> { S1[i] -> x[i] }"]),
    ]


def test_call_statements_emulate_like_the_original_and_the_cuda_calls_nothing(emulated):
    generated = compile_file(str(emulated(ROWS, SIZES)))
    # no call of either function is left in the CUDA (comments may say "copy")
    assert re.search(r"\b(copy|add_one)\s*\(", generated.cuda) is None
    # the host program is the original with the SCoP replaced: only the definitions remain
    assert generated.host.count("copy(") == generated.host.count("static void copy(") == 1
    assert generated.host.count("add_one(") == 1


# -- every kind of array and pointer parameter, and scalars by address --------------------
PARAMETERS = """
#define N 100
static void put(double *p, double v) { p[0] = v; }
static void add_one(double *p) { *p += 1; }
static void scale(int n, double M[N][N], double f)
{
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++)
      if (r != c)
        M[r][c] *= f;
}
static void negate(double row[], int n) { for (int k = 0; k < n; k++) row[k] = -row[k]; }
static void twice(double *p, int n) { for (int k = 0; k < n; k++) p[k] = 2 * p[k]; }
void f(int n, double A[N][N], double B[N], double *y, double s, double t)
{
#pragma scop
  add_one(&s);
  put(&t, A[0][0]);
  scale(n, A, B[0]);
  negate(A[1], n);
  twice(y, n);
#pragma endscop
}
"""


def test_matrix_unsized_and_pointer_parameters_and_scalars_by_address():
    assert statements(model(PARAMETERS)) == [
        ("s += 1", "[n] -> { S0[] }",
         ["read [n] -> { S0[] -> s[] }", "write [n] -> { S0[] -> s[] }"]),
        ("t = A[0][0]", "[n] -> { S1[] }",
         ["read [n] -> { S1[] -> A[0, 0] }", "write [n] -> { S1[] -> t[] }"]),
        ("A[scale_r][scale_c] *= B[0]",
         "[n] -> { S2[scale_r, scale_c] : (scale_r < n and 0 <= scale_c < scale_r) or "
         "(scale_r >= 0 and scale_r < scale_c < n) }",
         ["read [n] -> { S2[scale_r, scale_c] -> B[0] }",
          "read [n] -> { S2[scale_r, scale_c] -> A[scale_r, scale_c] }",
          "write [n] -> { S2[scale_r, scale_c] -> A[scale_r, scale_c] }"]),
        ("A[1][negate_k] = -A[1][negate_k]", "[n] -> { S3[negate_k] : 0 <= negate_k < n }",
         ["read [n] -> { S3[negate_k] -> A[1, negate_k] }",
          "write [n] -> { S3[negate_k] -> A[1, negate_k] }"]),
        ("y[twice_k] = 2 * y[twice_k]", "[n] -> { S4[twice_k] : 0 <= twice_k < n }",
         ["read [n] -> { S4[twice_k] -> y[twice_k] }",
          "write [n] -> { S4[twice_k] -> y[twice_k] }"]),
    ]


def test_parameters_of_every_kind_emulate_like_the_original(emulated):
    emulated(PARAMETERS, SIZES)


ADDRESS_IN_ROW = """
#define N 100
static void twice(double *p, int m) { for (int k = 0; k < m; k++) p[k] = 2 * p[k]; }
void f(int n, double A[N][N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    twice(&A[i][i], n - i);
#pragma endscop
}
"""


def test_an_address_inside_a_row_offsets_the_last_subscript(emulated):
    assert statements(model(ADDRESS_IN_ROW)) == [
        ("A[i][i + twice_k] = 2 * A[i][i + twice_k]",
         "[n] -> { S0[i, twice_k] : i >= 0 and 0 <= twice_k < n - i }",
         ["read [n] -> { S0[i, twice_k] -> A[i, i + twice_k] }",
          "write [n] -> { S0[i, twice_k] -> A[i, i + twice_k] }"]),
    ]
    emulated(ADDRESS_IN_ROW, SIZES)


# -- calls in expressions ------------------------------------------------------------------
EXPRESSIONS = """
#include <math.h>
#define N 100
static double get(double *a, int i) { return a[i]; }
static double sq(double x) { return x * x; }
static double norm(double x, double y) { return sqrt(x * x + y * y); }
static int half(int v) { return v / 2; }
void f(int n, double A[N][N], double B[N], int D[N])
{
  int i;
  double x;
#pragma scop
  for (i = 0; i < n; i++) {
    x = get(B, i);
    B[i] = sq(A[i][i]) + norm(x, A[i][0]);
    D[i] = half(A[i][1]);
  }
#pragma endscop
}
"""


def test_a_single_return_function_is_substituted_with_c_conversions():
    assert statements(model(EXPRESSIONS)) == [
        ("x = B[i]", "[n] -> { S0[i] : 0 <= i < n }",
         ["read [n] -> { S0[i] -> B[i] }", "write [n] -> { S0[i] -> x[] }"]),
        ("B[i] = (A[i][i] * A[i][i]) + sqrt((x * x) + (A[i][0] * A[i][0]))",
         "[n] -> { S1[i] : 0 <= i < n }",
         ["read [n] -> { S1[i] -> A[i, i] }", "read [n] -> { S1[i] -> A[i, i] }",
          "read [n] -> { S1[i] -> x[] }", "read [n] -> { S1[i] -> x[] }",
          "read [n] -> { S1[i] -> A[i, 0] }", "read [n] -> { S1[i] -> A[i, 0] }",
          "write [n] -> { S1[i] -> B[i] }"]),
        # half(int v) called with a double: C converts the argument to int
        ("D[i] = ((int) A[i][1]) / 2", "[n] -> { S2[i] : 0 <= i < n }",
         ["read [n] -> { S2[i] -> A[i, 1] }", "write [n] -> { S2[i] -> D[i] }"]),
    ]


def test_calls_in_expressions_emulate_like_the_original(emulated):
    emulated(EXPRESSIONS, SIZES)


# Guarded returns fold into one conditional, each branch converted to the result
# type as its return converts it (a long beside a double would otherwise go
# through double).
EARLY = """
#define N 100
static double relu(double x) { if (x < 0) return 0; return x; }
static int sat(long v, int lo, int hi) { if (v < lo) return lo; if (v > hi) { return hi; } return v; }
static float sgn(float v) { if (v > 0) return 1; else return -1.5; }
void f(int n, double A[N], int D[N], float F[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = relu(A[i] - 1.0);
    D[i] = sat(D[i] * 3L - 50, -100, 100);
    F[i] = sgn(F[i]);
  }
#pragma endscop
}
"""


def test_guarded_returns_are_one_conditional_and_emulate_like_the_original(emulated):
    assert [s.text for s in model(EARLY).statements] == [
        "A[i] = ((A[i] - 1.0) < 0) ? ((double) 0) : ((double) (A[i] - 1.0))",
        "D[i] = (((D[i] * 3L) - 50) < (-100)) ? ((int) (-100)) : ((int) ((((D[i] * 3L) - 50) "
        "> 100) ? ((int) 100) : ((int) ((D[i] * 3L) - 50))))",
        "F[i] = (F[i] > 0) ? ((float) 1) : ((float) (-1.5))"]
    emulated(EARLY, SIZES)


AFFINE = """
#define N 100
static int last(int n) { return n - 1; }
static int mirror(int n, int i) { return n - 1 - i; }
void f(int n, double A[N], int D[N])
{
  int i;
#pragma scop
  for (i = 0; i < last(n); i++)
    D[mirror(n, i)] = i > 2 ? last(i) : 0;
#pragma endscop
}
"""


def test_integer_functions_stay_affine_in_bounds_subscripts_and_conditions():
    assert statements(model(AFFINE)) == [
        ("D[(n - 1) - i] = (i > 2) ? (i - 1) : (0)", "[n] -> { S0[i] : 0 <= i <= -2 + n }",
         ["write [n] -> { S0[i] -> D[-1 + n - i] }"]),
    ]


def test_affine_functions_emulate_like_the_original(emulated):
    emulated(AFFINE, SIZES)


# -- bodies with statements before their return, nested calls, fresh names -------------
DOT = """
#define N 100
static double dot(double a[N], double b[], int n)
{
  double s = 0;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}
void f(int n, double A[N][N], double B[N][N], double C[N])
{
  int i, dot_s;
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = dot(A[i], B[i], n) - dot(B[i], B[i], n - 1);
#pragma endscop
}
"""


def test_statements_before_the_return_go_before_the_call_with_fresh_names():
    scop = model(DOT)
    # 'dot_s' is the caller's own variable: the inlined locals take other names
    assert [s.text for s in scop.statements] == [
        "dot_s_2 = 0", "dot_s_2 += A[i][dot_k] * B[i][dot_k]",
        "dot_s_3 = 0", "dot_s_3 += B[i][dot_k_2] * B[i][dot_k_2]",
        "C[i] = dot_s_2 - dot_s_3"]
    assert str(scop.statements[3].domain) == \
        "[n] -> { S3[i, dot_k_2] : 0 <= i < n and 0 <= dot_k_2 <= -2 + n }"
    assert [(a.name, a.local, a.dead_after) for a in scop.arrays if a.name.startswith("dot")] \
        == [("dot_s_2", True, True), ("dot_s_3", True, True)]
    assert "double dot_s_2 = 0;" in scop.original_code


def test_statements_before_the_return_emulate_like_the_original(emulated):
    emulated(DOT, SIZES)


NESTED = """
#define N 100
static void set(double *p, double v) { p[0] = v; }
static void bump_row(double *row, int n)
{
  for (int k = 0; k < n; k++)
    set(&row[k], row[k] + 1);
}
static void shift(double *a, double v, int n)
{
  double w = v;
  w = w * 2;
  for (int k = 0; k < n; k++)
    a[k] = a[k] - w;
}
void f(int n, double A[N][N], double x[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    bump_row(A[i], n);
  shift(x, x[0], n);
#pragma endscop
}
"""


def test_nested_calls_inline_recursively_and_arguments_the_call_overwrites_are_copied():
    assert statements(model(NESTED)) == [
        # set(&row[k], row[k] + 1): the value reads the array the call writes
        ("set_v = A[i][bump_row_k] + 1",
         "[n] -> { S0[i, bump_row_k] : 0 <= i < n and 0 <= bump_row_k < n }",
         ["read [n] -> { S0[i, bump_row_k] -> A[i, bump_row_k] }",
          "write [n] -> { S0[i, bump_row_k] -> set_v[] }"]),
        ("A[i][bump_row_k] = set_v",
         "[n] -> { S1[i, bump_row_k] : 0 <= i < n and 0 <= bump_row_k < n }",
         ["read [n] -> { S1[i, bump_row_k] -> set_v[] }",
          "write [n] -> { S1[i, bump_row_k] -> A[i, bump_row_k] }"]),
        # shift(x, x[0], n): x[0] is read once, before the loop overwrites it
        ("shift_v = x[0]", "[n] -> { S2[] }",
         ["read [n] -> { S2[] -> x[0] }", "write [n] -> { S2[] -> shift_v[] }"]),
        ("shift_w = shift_v", "[n] -> { S3[] }",
         ["read [n] -> { S3[] -> shift_v[] }", "write [n] -> { S3[] -> shift_w[] }"]),
        ("shift_w = shift_w * 2", "[n] -> { S4[] }",
         ["read [n] -> { S4[] -> shift_w[] }", "write [n] -> { S4[] -> shift_w[] }"]),
        ("x[shift_k] = x[shift_k] - shift_w", "[n] -> { S5[shift_k] : 0 <= shift_k < n }",
         ["read [n] -> { S5[shift_k] -> x[shift_k] }",
          "read [n] -> { S5[shift_k] -> shift_w[] }",
          "write [n] -> { S5[shift_k] -> x[shift_k] }"]),
    ]


def test_nested_calls_emulate_like_the_original(emulated):
    emulated(NESTED, SIZES)


WRITTEN_PARAMETER = """
#define N 100
static int store(double *p, double v)
{
  v = v * 3;
  *p = v;
  return 1;
}
void f(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    store(&A[i], B[i]);
#pragma endscop
}
"""


def test_a_written_scalar_parameter_is_a_fresh_local_and_an_unused_result_is_dropped():
    assert [s.text for s in model(WRITTEN_PARAMETER).statements] == [
        "store_v = B[i]", "store_v = store_v * 3", "A[i] = store_v"]


def test_written_parameters_emulate_like_the_original(emulated):
    emulated(WRITTEN_PARAMETER, SIZES)


def test_calls_are_inlined_in_automatically_found_scops():
    source = NESTED.replace("#pragma scop\n", "").replace("#pragma endscop\n", "")
    scops = polycu.load_text(source, "f.c")
    assert [s.function for s in scops] == ["bump_row", "shift", "f"]
    assert [s.text for s in scops[-1].statements][:2] == [
        "set_v = A[i][bump_row_k] + 1", "A[i][bump_row_k] = set_v"]


# -- what stays rejected -----------------------------------------------------------------
def rejected(source: str) -> str:
    with pytest.raises(PolycuError) as info:
        polycu.load_text(source, "f.c")
    return str(info.value)


def scop_calling(call: str, *functions: str) -> str:
    return "\n".join(functions) + f"""
void f(int n, double A[100][100], double B[100], double *p)
{{
  int i;
  double x;
#pragma scop
  for (i = 0; i < n; i++)
    {call};
#pragma endscop
}}
"""


@pytest.mark.parametrize("call,functions,message", [
    ("fill(A, n)", ["static void fill(double *row, int n) { row[0] = n; }"],
     "f.c:8:10: error: argument 'A' of 'fill' has 2 dimensions, its parameter 'row' 1"),
    ("fill(A[i], n)", ["static void fill(int *row, int n) { row[0] = n; }"],
     "f.c:8:10: error: argument 'A[i]' of 'fill' has elements of type 'double', its "
     "parameter 'row' of type 'int'"),
    ("fill(A, n)", ["static void fill(double M[100][50], int n) { M[0][0] = n; }"],
     "f.c:8:10: error: argument 'A' of 'fill' has rows of [100] elements, its parameter "
     "'M' rows of [50]: the extents must be the same"),
    ("fill(&x, n)", ["static void fill(double *q, int n) { q[1] = n; }"],
     "f.c:1:38: error: 'q[1]': 'q' points to the scalar 'x', so only 'q[0]' and '*q' name "
     "it (from inlining 'fill' called at line 8)"),
    ("fill(B, n)", ["static void fill(double *q, int n) { q = q + n; }"],
     "f.c:1:38: error: 'fill' assigns its pointer parameter 'q' itself, which cannot be "
     "inlined (from inlining 'fill' called at line 8)"),
    ("B[i] = sum(A[i], n)",
     ["static double sum(double *r, int n) { double s = 0; for (int k = 0; k < n; k++) "
      "s += r[k]; return s; }"], None),
    ("B[i] = i > 0 ? sum(A[i], n) : 0",
     ["static double sum(double *r, int n) { double s = 0; for (int k = 0; k < n; k++) "
      "s += r[k]; return s; }"],
     "f.c:8:20: error: 'sum' has statements before its 'return' (or calls a function that "
     "has): a call of it in a branch of '?:', '&&' or '||' cannot be inlined"),
    ("B[i] = take(&B[i])", ["static double take(double *q) { q[0] = 0; return 1; }"],
     "f.c:8:12: error: 'take' writes 'B' through its parameters: a call inside an "
     "expression cannot be inlined (call it as a statement)"),
    ("B[i] = take2(&B[i])", ["static void put(double *q) { q[0] = 0; }",
                             "static double take2(double *q) { put(q); return 1; }"],
     "f.c:9:12: error: 'take2' writes 'B' through its parameters: a call inside an "
     "expression cannot be inlined (call it as a statement)"),
    ("B[i] = early(B[i])",
     ["static double early(double v) { if (v > 0) { v = 2 * v; return v; } return -v; }"],
     "f.c:1:57: error: 'return' before the end of 'early' cannot be inlined (polycu inlines "
     "bodies that return only at their end) (from inlining 'early' called at line 8)"),
    ("nothing(B)", ["static void nothing(double *q, ...) { }"],
     "f.c:8:5: error: 'nothing' has variadic, unnamed or old-style parameters and cannot "
     "be inlined"),
])
def test_calls_that_cannot_be_inlined_are_located_errors(call: str, functions: list[str],
                                                        message: str | None) -> None:
    source = scop_calling(call, *functions)
    if message is None:       # the same function is fine outside a conditional branch
        assert model(source).statements[-1].text == "B[i] = sum_s"
    else:
        assert rejected(source) == message


def test_a_preamble_in_a_loop_bound_and_a_hidden_global_are_located_errors():
    bound = """
static int count(int n) { int c = n; return c; }
void f(int n, double B[100])
{
  int i;
#pragma scop
  for (i = 0; i < count(n); i++)
    B[i] = 0;
#pragma endscop
}
"""
    assert rejected(bound) == ("f.c:7:19: error: 'count' has statements before its 'return' "
                               "(or calls a function that has): a call of it in a loop bound "
                               "or a condition cannot be inlined")
    hidden = """
double g[100];
static void load(double *q, int i) { q[0] = g[i]; }
void f(int n, double B[100])
{
  int i, g;
#pragma scop
  for (i = 0; i < n; i++)
    load(&B[i], i);
#pragma endscop
}
"""
    assert rejected(hidden) == (
        "f.c:3:45: error: 'load' uses the global 'g', which 'f' does not see (declared after "
        "it, or hidden by its own variable of that name) (from inlining 'load' called at "
        "line 9)")


def test_library_calls_are_not_inlined_and_keep_their_diagnostics():
    source = "#include <math.h>\n#include <stdlib.h>\n" + scop_calling(
        "B[i] = fabs(B[i]) + (double) rand()")
    assert rejected(source) == ("f.c:10:34: error: call to 'rand' may have side effects and "
                                "is not supported in a SCoP")


# -- whole programs: gcc's build of the original and polycu's, each checking itself -----
def run_program(tmp: Path, path: Path) -> tuple[subprocess.CompletedProcess[str], ...]:
    """The original built by gcc, and polycu's .cu built by g++ with the emulation
    header (its host program by gcc), each run."""
    original = tmp / "original"
    subprocess.run(["gcc", "-std=c99", "-O1", str(path), "-o", str(original)], check=True,
                   capture_output=True, text=True)
    source = tmp / f"{path.stem}.cu"
    host = compile_file(str(path)).write(source)
    emulated = tmp / "emulated"
    subprocess.run(["gcc", "-std=c99", "-c", str(host), "-o", f"{emulated}_host.o"],
                   check=True, capture_output=True, text=True)
    subprocess.run(["g++", *EMULATION_FLAGS, "-x", "c++", "-I", str(INCLUDE_DIR), str(source),
                    "-x", "none", f"{emulated}_host.o", "-o", str(emulated)],
                   check=True, capture_output=True, text=True)
    return tuple(subprocess.run([str(binary)], capture_output=True, text=True, timeout=120,
                                env=emulation_env()) for binary in (original, emulated))


@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.c")))
def test_programs_compute_what_gcc_computes(tmp_path: Path, name: str) -> None:
    for result in run_program(tmp_path, PROGRAMS / name):
        assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr


def test_there_are_at_least_six_programs() -> None:
    assert len(list(PROGRAMS.glob("*.c"))) >= 6
