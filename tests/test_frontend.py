"""SCoP extraction: exact isl equality of domains, accesses, schedules and dependences."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.model import Scop


def scop_of(body: str, decls: str = "", header: str = "", **kw) -> Scop:
    """The single SCoP of ``void f(<decls>) { <body> }``."""
    text = f"{header}\nvoid f({decls or 'void'})\n{{\n{body}\n}}\n"
    scops = polycu.load_text(text, "snippet.c", **kw)
    assert len(scops) == 1, scops
    return scops[0]


def domain(scop: Scop, name: str) -> isl.Set:
    return scop.statement(name).domain


def assert_set(actual: isl.Set | isl.UnionSet, expected: str) -> None:
    exp = isl.UnionSet(expected) if isinstance(actual, isl.UnionSet) else isl.Set(expected)
    assert actual.is_equal(exp), f"\n  actual:   {actual}\n  expected: {exp}"


def assert_map(actual: isl.Map | isl.UnionMap, expected: str, context: isl.Set | None = None
               ) -> None:
    exp = isl.UnionMap(expected) if isinstance(actual, isl.UnionMap) else isl.Map(expected)
    if context is not None:
        actual, exp = actual.intersect_params(context), exp.intersect_params(context)
    assert actual.is_equal(exp), f"\n  actual:   {actual}\n  expected: {exp}"


def accesses(scop: Scop, stmt: str, kind: str) -> list[str]:
    return [str(a.relation) for a in scop.statement(stmt).accesses if a.kind == kind]


def access(scop: Scop, stmt: str, kind: str, array: str) -> isl.Map:
    found = [a.relation for a in scop.statement(stmt).accesses
             if a.kind == kind and a.array == array]
    assert len(found) == 1, found
    return found[0]


# -- domains ----------------------------------------------------------------------

def test_rectangular_nest_and_parameters():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = B[j][i];
#pragma endscop""", "int n, int m, double A[n][m], double B[m][n]")
    assert set(s.parameters) == {"n", "m"}
    assert_set(domain(s, "S0"), "[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < m }")
    assert_map(access(s, "S0", "write", "A"), "[n, m] -> { S0[i, j] -> A[i, j] }")
    assert_map(access(s, "S0", "read", "B"), "[n, m] -> { S0[i, j] -> B[j, i] }")
    assert_set(s.context, "[n, m] -> { : n >= 0 and m >= 0 }")


def test_triangular_nest():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      L[i][j] = L[i][j] / L[j][j];
#pragma endscop""", "int n, double L[n][n]")
    assert_set(domain(s, "S0"), "[n] -> { S0[i, j] : 0 <= j <= i < n }")


def test_less_equal_and_greater_equal_bounds():
    s = scop_of("""  int i;
#pragma scop
  for (i = 1; i <= n - 1; i++)
    x[i] = x[i - 1] + 1.0;
#pragma endscop""", "int n, double x[n]")
    assert_set(domain(s, "S0"), "[n] -> { S0[i] : 1 <= i <= n - 1 }")
    assert_map(access(s, "S0", "read", "x"), "[n] -> { S0[i] -> x[i - 1] }")


def test_decrementing_loop_schedule_reverses_order():
    s = scop_of("""  int i;
#pragma scop
  for (i = n - 1; i >= 0; i--)
    x[i] = x[i + 1] * 0.5;
#pragma endscop""", "int n, double x[n+1]")
    assert_set(domain(s, "S0"), "[n] -> { S0[i] : 0 <= i <= n - 1 }")
    assert_map(s.schedule_map(), "[n] -> { S0[i] -> [-i] : 0 <= i < n }", s.context)
    deps = polycu.dependences(s)
    # x[i+1] read at iteration i was written at iteration i+1, which runs earlier.
    assert_map(deps.flow, "[n] -> { S0[i] -> S0[i - 1] : 1 <= i <= n - 1 }", s.context)


def test_strided_loop():
    s = scop_of("""  int i;
#pragma scop
  for (i = 1; i < n; i += 3)
    x[i] = 0.0;
#pragma endscop""", "int n, double x[n]")
    assert_set(domain(s, "S0"),
               "[n] -> { S0[i] : 1 <= i < n and exists k : i = 1 + 3k }")


def test_negative_stride_written_as_assignment():
    s = scop_of("""  int i;
#pragma scop
  for (i = n; i > 0; i = i - 2)
    x[i] = 1.0;
#pragma endscop""", "int n, double x[n+1]")
    assert_set(domain(s, "S0"),
               "[n] -> { S0[i] : 0 < i <= n and exists k : i = n - 2k }")


def test_min_max_bounds():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = max(0, t - 4); i < min(n, t + 4); i++)
    for (j = i; j < (m < n ? m : n); j++)
      A[i][j] = 0.0;
#pragma endscop""", "int n, int m, int t, double A[n][n]")
    assert_set(domain(s, "S0"), "[n, m, t] -> { S0[i, j] : i >= 0 and i >= t - 4 and i < n "
               "and i < t + 4 and j >= i and j < m and j < n }")


def test_modulo_guard_and_c_truncation():
    s = scop_of("""  int i;
#pragma scop
  for (i = -n; i < n; i++)
    if (i % 2 == 0 && i / 2 != 1)
      x[i + n] = 1.0;
#pragma endscop""", "int n, double x[2*n]")
    # C's % and / truncate: -3 % 2 == -1, so only even i pass; -3 / 2 == -1.
    assert_set(domain(s, "S0"),
               "[n] -> { S0[i] : -n <= i < n and exists k : i = 2k and i != 2 and i != 3 }")


def test_division_in_bound_truncates_towards_zero():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < (n - 1) / 4; i++)
    x[i] = 2.0;
#pragma endscop""", "int n, double x[n]")
    # For n = -6, C gives (-7)/4 = -1 (no iteration either way); for n = 9, 2 iterations.
    d = domain(s, "S0")
    assert d.intersect_params(isl.Set("[n] -> { : n = 9 }")).count_val().to_python() == 2
    assert_set(d, "[n] -> { S0[i] : 0 <= i and 4i <= n - 5 }")


def test_if_else_with_or_and_not():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i < 2 || !(i < n - 2))
      x[i] = 0.0;
    else
      x[i] = y[i];
  }
#pragma endscop""", "int n, double x[n], double y[n]")
    assert_set(domain(s, "S0"), "[n] -> { S0[i] : 0 <= i < n and (i < 2 or i >= n - 2) }")
    assert_set(domain(s, "S1"), "[n] -> { S1[i] : 2 <= i < n - 2 }")


def test_fixed_size_arrays_through_macros():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] * 2;
#pragma endscop""", "double POLY2D(A, N, N)",
                header="#define N 40\n#define POLY2D(v, a, b) v[a][b]", defines=["M=3"])
    assert s.parameters == ()
    assert_set(domain(s, "S0"), "{ S0[i, j] : 0 <= i < 40 and 0 <= j < 40 }")
    assert s.array("A").extents == ("40", "40")
    assert_set(s.array("A").extent_set, "{ A[i0, i1] : 0 <= i0 < 40 and 0 <= i1 < 40 }")


def test_defines_from_the_command_line_change_extents():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < N; i++)
    x[i] = 1.0;
#pragma endscop""", "double x[N]", header="#ifndef N\n#define N 8\n#endif", defines=["N=13"])
    assert_set(domain(s, "S0"), "{ S0[i] : 0 <= i < 13 }")


def test_scalar_reduction_is_a_zero_dimensional_array():
    s = scop_of("""  int i;
  double sum;
#pragma scop
  sum = 0.0;
  for (i = 0; i < n; i++)
    sum += x[i];
  out[0] = sum;
#pragma endscop""", "int n, double x[n], double out[1]")
    assert s.array("sum").is_scalar
    st = s.statement("S1")
    assert st.reduction == "+" and st.reduction_array == "sum"
    assert_map(access(s, "S1", "write", "sum"), "[n] -> { S1[i] -> sum[] }")
    deps = polycu.dependences(s)
    assert_map(deps.reduction, "[n] -> { S1[i] -> S1[i + 1] : 0 <= i < n - 1 }", s.context)
    assert_map(deps.flow, "[n] -> { S0[] -> S1[0] : n > 0; S1[i] -> S1[i + 1] : 0 <= i < n - 1;"
               " S1[n - 1] -> S2[] : n > 0; S0[] -> S2[] : n <= 0 }", s.context)


def test_compound_assignments_and_increments():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    a[i] -= b[i];
    a[i] *= 2.0;
    a[i] /= 3.0;
    c[i]++;
    --c[i];
  }
#pragma endscop""", "int n, double a[n], double b[n], int c[n]")
    for name in ("S0", "S1", "S2"):
        assert accesses(s, name, "read")[-1] == accesses(s, name, "write")[0]
    assert s.statement("S0").reduction == "+" and s.statement("S1").reduction == "*"
    assert s.statement("S2").reduction is None  # division is not associative
    assert len(accesses(s, "S3", "read")) == 1 and len(accesses(s, "S4", "write")) == 1


def test_math_calls_and_scalar_parameters_are_reads():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = sqrt(fabs(x[i])) + pow(alpha, 2.0) * exp(x[i]);
#pragma endscop""", "int n, double alpha, double x[n], double y[n]", header="#include <math.h>")
    reads = {a.array for a in s.statement("S0").reads}
    assert reads == {"x", "alpha"}
    assert s.array("alpha").is_scalar and "alpha" not in s.parameters


def test_local_declaration_inside_scop():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double t = 0.0;
    for (j = 0; j < n; j++)
      t += A[i][j];
    y[i] = t;
  }
#pragma endscop""", "int n, double A[n][n], double y[n]")
    assert s.array("t").local and s.array("t").is_scalar
    assert_set(domain(s, "S0"), "[n] -> { S0[i] : 0 <= i < n }")
    assert s.statement("S1").reduction == "+"


def test_loop_iterator_declared_in_for():
    s = scop_of("""#pragma scop
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; j += 1)
      A[i][j] = A[j][i];
#pragma endscop""", "int n, double A[n][n]")
    assert_set(domain(s, "S0"), "[n] -> { S0[i, j] : 0 <= i < j < n }")


def test_original_schedule_orders_sequences_and_loops():
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = 0.0;
    for (j = 0; j < n; j++)
      x[i] += A[i][j];
  }
  z[0] = 1.0;
#pragma endscop""", "int n, double A[n][n], double x[n], double z[1]")
    sched = s.schedule_map()
    order = sched.lex_lt_union_map(sched)
    assert not order.intersect(isl.UnionMap(
        "[n] -> { S0[i] -> S1[i, j] }")).is_empty()
    # S2 runs after every other statement instance.
    assert order.intersect(isl.UnionMap("[n] -> { S2[] -> S1[i, j] }")).is_empty()
    assert not order.intersect(isl.UnionMap("[n] -> { S1[i, j] -> S2[] }")).is_empty()


def test_time_iterated_stencil_dependences():
    s = scop_of("""  int t, i;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop""", "int T, int n, double A[n], double B[n]")
    assert set(s.parameters) == {"T", "n"}
    deps = polycu.dependences(s)
    ctx = s.context
    assert_map(deps.flow, """[T, n] -> {
        S0[t, i] -> S1[t, i'] : 0 <= t < T and 1 <= i <= n - 2 and 1 <= i' <= n - 2
                                and i - 1 <= i' <= i + 1;
        S1[t, i] -> S0[t + 1, i'] : 0 <= t < T - 1 and 1 <= i <= n - 2 and 1 <= i' <= n - 2
                                and i - 1 <= i' <= i + 1 }""", ctx)
    # A[i] read by S0 at t+1 ... anti: S0 reads of A precede S1's writes of A in step t.
    assert_map(deps.anti.intersect(isl.UnionMap("[T, n] -> { S0[t, i] -> S1[t', i'] }")),
               """[T, n] -> { S0[t, i] -> S1[t, i'] : 0 <= t < T and 1 <= i <= n - 2
                  and 1 <= i' <= n - 2 and i - 1 <= i' <= i + 1 }""", ctx)
    assert deps.live_out_arrays() == {"A", "B"}
    assert deps.live_in_arrays() == {"A", "B"}


def test_output_dependence_and_live_out():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[0] = y[i];
  for (i = 0; i < n; i++)
    z[i] = x[0];
#pragma endscop""", "int n, double x[1], double y[n], double z[n]")
    deps = polycu.dependences(s)
    assert_map(deps.output, "[n] -> { S0[i] -> S0[i + 1] : 0 <= i < n - 1 }", s.context)
    assert_map(deps.flow, "[n] -> { S0[n - 1] -> S1[i] : 0 <= i < n }", s.context)
    assert_map(deps.anti, "[n] -> { }", s.context)
    assert_map(deps.live_out, "[n] -> { S0[n - 1] -> x[0] : n > 0; S1[i] -> z[i] : 0 <= i < n }",
               s.context)


def test_global_arrays_and_pointer_parameter():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++)
    g[i] = p[2 * i + 1];
#pragma endscop""", "int n, double *p", header="double g[100];")
    assert s.array("g").extents == ("100",)
    assert s.array("p").extents == (None,)
    assert_map(access(s, "S0", "read", "p"), "[n] -> { S0[i] -> p[2i + 1] }")


def test_user_context_constraints():
    s = scop_of("""  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[i] = 0.0;
#pragma endscop""", "int n, double *x", ctx="[n] -> { : n >= 32 }")
    assert_set(s.context, "[n] -> { : n >= 32 }")


def test_loop_bound_parameter_from_enclosing_code_in_auto_mode():
    s = scop_of("""  int i, j;
  for (i = 0; i < n; i++) {
    printf("%d", i);
    for (j = 0; j < i; j++)
      x[j] += 1.0;
  }""", "int n, double x[n]", header="#include <stdio.h>")
    # The outer loop calls printf, so only the inner loop is a SCoP; i is its parameter
    # (and n, the extent of x).
    assert set(s.parameters) == {"i", "n"}
    assert_set(domain(s, "S0"), "[i] -> { S0[j] : 0 <= j < i }")


def test_auto_scop_is_maximal_and_region_lines_are_exact():
    text = """#include <stdio.h>
void f(int n, double x[n], double y[n])
{
  int i;
  for (i = 0; i < n; i++)
    x[i] = 1.0;
  for (i = 0; i < n; i++) {
    y[i] = x[i]
         + 2.0;
  }
  printf("%f", y[0]);
  for (i = 0; i < n; i++)
    if (i > 0) y[i] = 0.0;
    else
      y[i] = 1.0;
}
"""
    scops = polycu.load_text(text, "auto.c")
    assert [s.region for s in scops] == [(5, 10), (12, 15)]
    assert len(scops[0].statements) == 2 and len(scops[1].statements) == 2


def test_an_automatic_scop_has_its_lines_to_itself():
    """The host program replaces whole lines: a loop nest that shares a line with
    other code (a call, an enclosing loop, a statement after it) is no region; it was
    one, and the call and the outer loop on its line were dropped (silently wrong)."""
    text = """void g(int n, double x[n]);
void f(int n, double x[n], double y[n])
{
  for (int t = 0; t < 3; t++) { g(n, x); for (int i = 0; i < n; i++) y[i] = x[i]; }
  for (int i = 0; i < n; i++) x[i] = 0.0; g(n, y);
  for (int i = 0; i < n; i++) x[i] += 1.0; /* a comment may follow */
  int k; for (k = 0; k < n; k++) y[k] = 2.0;
}
"""
    assert [s.region for s in polycu.load_text(text, "auto.c")] == [(6, 6)]


def test_an_automatic_scop_may_hold_its_loops_under_an_if():
    """``if (flag) { for ... }`` in a time loop that is no SCoP (it writes ``flag``):
    the ``if`` forms a SCoP whose loop is not at its top level; it was dropped."""
    text = """#define N 50
static double A[N][N], B[N];
static int flag;
int main(void)
{
  int i, j, t;
  for (t = 0; t < 4; t++) {
    if (flag) {
      for (i = 0; i < N; i++) {
        B[i] = 0;
        for (j = 0; j < N; j++)
          B[i] += A[i][j] * (t + 1);
      }
    }
    flag = !flag;
  }
  return 0;
}
"""
    (scop,) = polycu.load_text(text, "auto.c")
    assert scop.region == (8, 14) and set(scop.parameters) == {"flag", "t"}


def test_a_whole_program_with_a_one_line_time_loop_prints_what_gcc_prints(tmp_path):
    from test_c_semantics import differential
    source = Path(__file__).parent / "data" / "regions" / "one_line_loops.c"
    expected, actual = differential(tmp_path, "one_line_loops", source.read_text())
    assert actual == expected and expected.count("@ ") == 3


def test_pragma_scop_regions_only_when_present():
    text = """void f(int n, double x[n]) {
  int i;
  for (i = 0; i < n; i++) x[i] = 0.0;
#pragma scop
  for (i = 0; i < n; i++) x[i] += 1.0;
#pragma endscop
}
"""
    scops = polycu.load_text(text, "p.c")
    assert len(scops) == 1 and scops[0].region == (4, 6)
    assert len(polycu.load_text(text, "p.c", auto=True)) == 1
    assert polycu.load_text(text, "p.c", auto=True)[0].region == (3, 5)


def test_dependences_of_lu_like_nest_are_exact():
    s = scop_of("""  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = k + 1; i < n; i++)
      A[i][k] = A[i][k] / A[k][k];
#pragma endscop""", "int n, double A[n][n]")
    deps = polycu.dependences(s)
    assert deps.flow.is_empty() and deps.anti.is_empty() and deps.output.is_empty()
    assert_map(deps.live_in, "[n] -> { S0[k, i] -> A[i, k] : 0 <= k < i < n; "
               "S0[k, i] -> A[k, k] : 0 <= k < i < n }", s.context)


@pytest.mark.parametrize("decls,extra", [
    ("int n, double A[n][n]", ""),
    ("double A[20][20]", "#define n 20"),
])
def test_vla_and_fixed_prototypes_give_the_same_accesses(decls, extra):
    s = scop_of("""  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[j][i];
#pragma endscop""", decls, header=extra)
    rel = access(s, "S0", "read", "A").intersect_domain(domain(s, "S0"))
    if s.parameters:
        rel = rel.intersect_params(isl.Set("[n] -> { : n = 20 }")).project_out(
            isl.dim_type.param, 0, 1)
    assert_map(rel, "{ S0[i, j] -> A[j, i] : 0 <= i < 20 and 0 <= j < 20 }")


def test_chained_assignment_writes_every_target():
    s = scop_of("""#pragma scop
  a = b = 2.0 * c;
#pragma endscop""", "double a, double b, double c")
    st = s.statement("S0")
    assert [(x.kind, x.array) for x in st.accesses] == [("read", "c"), ("write", "b"),
                                                       ("write", "a")]


POLYBENCH = sorted(p for p in Path(__file__).parents[1].glob(
    "polybench/*/**/*.c") if p.parent.name != "utilities")


@pytest.mark.parametrize("path", POLYBENCH, ids=lambda p: p.stem)
def test_every_polybench_kernel_has_one_parametric_scop(path, capsys):
    from polycu.cli import main
    status = main(["--dump-scop", "--dump-deps", "-I", "polybench/utilities",
                   "-I", str(path.parent), str(path)])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("scop kernel_") == 1 and "dependences of kernel_" in out
    scop = polycu.load(str(path), includes=["polybench/utilities", str(path.parent)])[0]
    assert scop.parameters, "PolyBench loop bounds use the size parameters"


def test_original_code_compiles_as_a_function_body(tmp_path):
    import subprocess
    s = scop_of("""  int i;
#pragma scop
  y[0] = -r[0];
  for (i = 1; i < n; i++)
    y[i] = y[i - 1] + r[i];
#pragma endscop""", "int n, double r[n], double y[n]")
    decls = "".join(f"  {d};\n" for name, d in s.declarations if name not in ("n", "r", "y"))
    src = tmp_path / "ref.c"
    src.write_text(f"void ref(int n, double r[n], double y[n])\n{{\n{decls}{s.original_code}}}\n")
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-c", str(src), "-o",
                    str(tmp_path / "ref.o")], check=True)


# -- the symbol table ------------------------------------------------------------------

# Names that are declared but are no variables of the file: the parameters of <stdio.h>'s
# prototypes (s, n, format, stream, ...), of a typedef of a function type or of a function
# pointer, of a prototype and of a definition, and the members of a structure or a union.
SYMBOLS = """#include <stdio.h>
typedef void handler(int sig);
typedef double (*binary)(double x, double y);
struct point { int px, py; };
union cell { int ci; float cf; };
int count(int n, double (*weight)(double w));
double s, grid[10][10];
struct point origin;
int count(int n, double (*weight)(double w))
{
  int k = n;
  return k + (int)weight(0.0);
}
"""


def test_only_file_scope_variables_are_globals():
    from polycu.frontend.parse import parse
    from polycu.frontend.preprocess import preprocess_text
    from polycu.frontend.symbols import collect_symbols
    unit = collect_symbols(parse(preprocess_text(SYMBOLS, "t.c")), "t.c")
    assert set(unit.globals) == {"stdin", "stdout", "stderr", "s", "grid", "origin"}
    assert unit.globals["grid"].element_type == "double" and len(unit.globals["grid"].extents) == 2
    ((func, visible),) = unit.functions
    assert func.decl.name == "count"
    assert set(visible) == set(unit.globals) | {"n", "weight", "k"}
    assert visible["weight"].pointer and visible["weight"].element_type == "<function>"
    # what the other steps need is still collected: typedefs (of function types too)
    # and the structures' definitions
    assert {"handler", "FILE", "size_t"} <= set(unit.typedefs)
    assert [m.name for m in unit.structs["struct point"].decls] == ["px", "py"]
