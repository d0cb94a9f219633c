"""Scalar privatisation: which scalars are dead after the SCoP (frontend), the
dependences each candidate carries (deps.py), when the mapping gives every thread
its own copy and what that buys (gpu/mapping.py), and the code that follows
(codegen: a local variable, no argument, no device buffer)."""
from __future__ import annotations

import re
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.driver import program_of
from polycu.codegen.cuda import layouts
from polycu.codegen.kernel import kernel_args, kernel_source
from polycu.codegen.host import transfers
from polycu.gpu.mapping import map_to_gpu
from polycu.memory import place
from polycu.options import Options
from polycu.schedule import identity

ROOT = Path(__file__).resolve().parent.parent

# C[i][j] = sum_k A[i][k] B[k][j] through the scalar t: i is parallel once every thread
# has its own t (the identity tree has one band per loop: i is the kernel's band).
DOT = """
void f(int n, int m, double A[100][100], double B[100][100], double C[100][100])
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t = 0;
      for (k = 0; k < m; k++)
        t += A[i][k] * B[k][j];
      C[i][j] = t;
    }
#pragma endscop
}
"""

# The value of s flows from every (i, j) to the next: nothing may be parallel.
RUNNING_SUM = """
void f(int n, double A[100][100], double B[100][100])
{
  int i, j;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s += A[i][j];
      B[i][j] = s;
    }
#pragma endscop
}
"""

# s is summed by one kernel and read by another: its value crosses kernels.
SUM_THEN_SCALE = """
void f(int n, double A[100], double B[100])
{
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    s += A[i];
  for (i = 0; i < n; i++)
    B[i] = s * A[i];
#pragma endscop
}
"""

# Iteration i reads the t that iteration i - 1 wrote (and i = 0 the value from before).
UPWARD_EXPOSED = """
void f(int n, double A[100], double B[100])
{
  int i;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    B[i] = t;
    t = A[i];
  }
#pragma endscop
}
"""


def scop_of(text: str) -> polycu.Scop:
    return polycu.load_text(text, "t.c")[0]


def identity_program(text: str):
    scop = scop_of(text)
    deps = polycu.dependences(scop)
    return map_to_gpu(scop, deps, identity(scop, deps).tree)


def dead_after(text: str) -> dict[str, bool]:
    return {a.name: a.dead_after for a in scop_of(text).arrays if a.is_scalar}


# -- frontend: dead after the SCoP -------------------------------------------------------

def test_a_local_scalar_used_only_in_the_scop_is_dead_after_it() -> None:
    assert dead_after(DOT) == {"t": True}


@pytest.mark.parametrize("before, after, dead", [
    ("", "  C[0][0] = t;\n", False),                  # read after the SCoP
    ("  double *p = &t;\n", "", False),               # address taken
    ("  t = 1;\n", "", True),                         # written before: still dead after
])
def test_uses_outside_the_scop_decide_whether_a_scalar_is_dead_after(
        before: str, after: str, dead: bool) -> None:
    text = DOT.replace("#pragma scop", before + "#pragma scop").replace(
        "#pragma endscop\n", "#pragma endscop\n" + after)
    assert dead_after(text) == {"t": dead}


def test_a_reference_before_a_scop_inside_a_loop_keeps_the_scalar_alive() -> None:
    text = DOT.replace("#pragma scop", "  int r;\n  for (r = 0; r < 2; r++) {\n  C[0][r] = t;\n"
                       "#pragma scop").replace("#pragma endscop\n", "#pragma endscop\n  }\n")
    assert dead_after(text) == {"t": False}


def test_parameters_and_globals_are_never_dead_after() -> None:
    as_parameter = DOT.replace("double C[100][100])", "double C[100][100], double t)").replace(
        "  double t;\n", "")
    as_global = "double t;\n" + DOT.replace("  double t;\n", "")
    assert dead_after(as_parameter) == {"t": False}
    assert dead_after(as_global) == {"t": False}


# <stdio.h> declares 'int sprintf(char *restrict s, ...)': its parameter 's' is no global
# (before, it was, so the function's own s outlived the SCoP and was never private).
DOT_S = "#include <stdio.h>\n" + re.sub(r"\bt\b", "s", DOT)


def test_a_prototype_parameter_of_the_same_name_leaves_a_local_scalar_private(
        emulated) -> None:
    assert dead_after(DOT_S) == {"s": True}
    prog = identity_program(DOT_S)
    (kernel,) = prog.kernels
    assert [(m.member, m.axis) for m in kernel.mapped] == [(0, "x")]
    assert kernel.private == frozenset({"s"})
    emulated(DOT_S, [{"n": 37, "m": 5}, {"n": 3, "m": 0}])


def test_a_file_scope_variable_of_the_same_name_stays_shared(emulated) -> None:
    text = DOT_S.replace("#include <stdio.h>\n", "#include <stdio.h>\ndouble s;\n").replace(
        "  double s;\n", "")
    assert dead_after(text) == {"s": False}
    prog = identity_program(text)
    assert prog.private == frozenset()
    assert [len(k.mapped) for k in prog.kernels] == [0]
    emulated(text, [{"n": 37, "m": 5}, {"n": 3, "m": 0}])


# -- dependences on one scalar -----------------------------------------------------------

def test_the_dependences_of_a_candidate_scalar_are_its_own_exactly() -> None:
    scop = scop_of(DOT)
    scalar = polycu.dependences(scop).scalars["t"]
    assert scalar.flow.is_equal(isl.UnionMap(
        "[n, m] -> { S0[i, j] -> S1[i, j, 0] : 0 <= i < n and 0 <= j < n and m > 0;"
        " S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < n and 0 <= j < n and 0 <= k < m - 1;"
        " S1[i, j, m - 1] -> S2[i, j] : 0 <= i < n and 0 <= j < n and m > 0;"
        " S0[i, j] -> S2[i, j] : 0 <= i < n and 0 <= j < n and m <= 0 }"))
    assert scalar.uninitialised.is_empty()
    # The false dependences only order different (i, j) or come back to the write S0.
    assert not scalar.false.is_empty()
    same_ij = isl.UnionMap("{ S1[i, j, k] -> S1[i, j, k'] }")
    assert scalar.false.intersect(same_ij).is_subset(isl.UnionMap(
        "[n, m] -> { S1[i, j, k] -> S1[i, j, k + 1] }"))


def test_privatising_removes_exactly_the_false_dependences_of_the_scalar() -> None:
    # C is written once per (i, j) and A, B are only read: flow is all that stays.
    deps = polycu.dependences(scop_of(DOT))
    assert deps.validity_with_private({"t"}).is_equal(deps.flow)
    assert deps.validity_with_private(()).is_equal(deps.validity)
    assert deps.shared_false.is_empty()


def test_only_dead_after_scalars_are_candidates() -> None:
    text = DOT.replace("#pragma endscop\n", "#pragma endscop\n  C[0][0] = t;\n")
    assert dict(polycu.dependences(scop_of(text)).scalars) == {}


# -- mapping -------------------------------------------------------------------------------

def test_a_private_dot_product_temporary_makes_the_outer_loop_parallel() -> None:
    prog = identity_program(DOT)
    (kernel,) = prog.kernels
    assert [(m.member, m.axis) for m in kernel.mapped] == [(0, "x")]
    assert kernel.private == frozenset({"t"}) and prog.private == frozenset({"t"})


def test_the_same_nest_without_privatisation_is_not_parallel() -> None:
    text = DOT.replace("#pragma endscop\n", "#pragma endscop\n  C[0][0] = t;\n")
    prog = identity_program(text)
    assert prog.private == frozenset()
    assert [len(k.mapped) for k in prog.kernels] == [0]


def test_a_scalar_whose_value_crosses_iterations_gives_no_parallelism() -> None:
    # The single thread that runs the whole nest may still keep s in a register.
    prog = identity_program(RUNNING_SUM)
    assert [len(k.mapped) for k in prog.kernels] == [0]
    assert prog.private == frozenset({"s"})


def test_a_scalar_whose_value_crosses_kernels_is_private_in_none() -> None:
    prog = identity_program(SUM_THEN_SCALE)
    assert [len(k.mapped) for k in prog.kernels] == [0, 1]
    assert [k.private for k in prog.kernels] == [frozenset(), frozenset()]
    assert prog.private == frozenset()
    arrays = layouts(prog.scop)
    assert "s[0]" in kernel_source(place(prog), prog.kernels[1], arrays)
    assert [t.array.name for t in transfers(prog, arrays, "dev_")] == ["s", "A", "B"]


def test_an_upward_exposed_read_prevents_privatisation() -> None:
    prog = identity_program(UPWARD_EXPOSED)
    assert prog.private == frozenset()
    assert [len(k.mapped) for k in prog.kernels] == [0]


# -- code generation -----------------------------------------------------------------------

def test_a_private_scalar_is_a_local_variable_never_an_argument_or_a_buffer() -> None:
    prog = identity_program(DOT)
    arrays = layouts(prog.scop)
    (kernel,) = prog.kernels
    source = kernel_source(place(prog), kernel, arrays)
    assert "{\n  double t;\n" in source and "      t = 0;\n" in source
    assert "C[((32 * b0 + t0)) * 100 + c1] = t;" in source
    assert "t[0]" not in source
    assert [a.name for a in kernel_args(prog, kernel, arrays)] == ["n", "m", "A", "B", "C"]
    assert [t.array.name for t in transfers(prog, arrays, "dev_")] == ["A", "B", "C"]


# -- PolyBench -----------------------------------------------------------------------------

def polybench_program(category: str, name: str):
    path = ROOT / "polybench" / category / name / f"{name}.c"
    options = Options(define=["SMALL_DATASET"], include_dir=[str(ROOT / "polybench/utilities")],
                      expand_scalars=False)  # privatisation alone (test_expand.py: both)
    (scop,) = polycu.load(str(path), defines=options.define, includes=options.include_dir)
    return program_of(scop, options)


@pytest.mark.parametrize("category, name, mapped, private", [
    # symm: i on the host, j parallel with temp2 private (temp2 shared: no parallel
    # member at all; test_expand.py has the expanded temp2's 2-D kernel)
    ("linear-algebra/blas", "symm", [1], [{"temp2"}]),
    # ludcmp: one single-thread kernel before
    ("linear-algebra/solvers", "ludcmp", [0, 1, 0], [{"w"}, {"w"}, {"w"}]),
    # deriche: 4 kernels, 4 mapped members before
    ("medley", "deriche", [0, 1, 1, 2, 1, 1, 2],
     [{"k"}, {"xm1", "ym1", "ym2"}, {"xp1", "xp2", "yp1", "yp2"}, set(),
      {"tm1", "ym1", "ym2"}, {"tp1", "tp2", "yp1", "yp2"}, set()]),
    # doitgen's temporary is an array, not a scalar: unchanged
    ("linear-algebra/kernels", "doitgen", [1, 1], [set(), set()]),
])
def test_polybench_kernels_gain_parallelism_from_private_scalars(
        category: str, name: str, mapped: list[int], private: list[set[str]]) -> None:
    prog = polybench_program(category, name)
    assert [len(k.mapped) for k in prog.kernels] == mapped
    assert [set(k.private) for k in prog.kernels] == private
