"""The CPU reference (polycu/runtime/reference.py) and the parts of the emulation
driver that do not need generated code: parameter choice, shapes, inputs,
comparison, and running native code in a child process."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import polybench_cpu  # scripts/, on the path by conftest.py
import pytest

import polycu
from polycu.diagnostics import PolycuError
from polycu.runtime.emulate import (array_shapes, choose_parameters, compare_arrays, evaluate_c,
                                    random_inputs)
from polycu.runtime.reference import (NativeFunction, Signature, build_cached, build_reference,
                                      reference_source)

ROOT = Path(__file__).resolve().parent.parent

# Scalars read and written, a local scalar, extents that are parameter expressions,
# a pointer parameter (sized from its accesses), a float scalar.
SNIPPET = r"""
void f(int n, int m, double A[n][m + 1], double *x, float s, double B[100])
{
  int i, j;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    double u = 1.0;
    t = 0;
    for (j = 0; j < m; j++) {
      u = A[i][j];
      t += u * x[j];
    }
    B[i] = t * s;
    x[i + m] = t;
  }
#pragma endscop
}
"""

# n + m <= 31 from the extent of C.
DIAGONAL = r"""
void g(int n, int m, double C[30], double D[40][40])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      C[i + j] = C[i + j] + D[i][j];
#pragma endscop
}
"""


def snippet(text: str = SNIPPET, **kwargs: object) -> polycu.Scop:
    return polycu.load_text(text, "snippet.c", **kwargs)[0]


def test_signature_is_parameters_then_non_local_arrays_in_order() -> None:
    sig = Signature.of(snippet())
    assert sig.parameters == ("n", "m")
    assert [a.name for a in sig.arrays] == ["t", "A", "x", "s", "B"]  # not the local u
    assert sig.prototype("f") == ("void f(int n, int m, double *polycu_arg_t, "
                                  "double *polycu_arg_A, double *polycu_arg_x, "
                                  "float *polycu_arg_s, double *polycu_arg_B)")


def test_reference_source_declares_arrays_as_rows_of_the_original_extents() -> None:
    text = reference_source(snippet())
    assert "double (*A)[m + 1] = (double (*)[m + 1]) polycu_arg_A;" in text
    assert "double *x = polycu_arg_x;" in text
    assert "float s = *polycu_arg_s;" in text
    assert "*polycu_arg_t = t;" in text
    assert "int i;" in text and "int j;" in text


def test_reference_computes_the_snippet() -> None:
    scop = snippet()
    params = choose_parameters(scop)
    assert params == {"n": 37, "m": 37}
    data = random_inputs(scop, params, seed=3)
    before = {k: v.copy() for k, v in data.items()}
    build_reference(scop)(params, data)
    n, m = params["n"], params["m"]
    A, x, s = before["A"], before["x"].copy(), np.float32(before["s"][()])
    B = before["B"].copy()
    for i in range(n):
        t = float(np.dot(A[i, :m], x[:m]))
        B[i] = t * float(s)
        x[i + m] = t
    assert data["t"][()] == pytest.approx(t, rel=1e-14)
    np.testing.assert_allclose(data["B"], B, rtol=1e-14)
    np.testing.assert_allclose(data["x"], x, rtol=1e-14)
    np.testing.assert_array_equal(data["A"], A)


def test_choose_parameters_keeps_accesses_inside_the_arrays() -> None:
    scop = snippet()
    assert choose_parameters(scop, limit=200) == {"n": 100, "m": 200}  # B[100] bounds n
    diagonal = snippet(DIAGONAL)
    assert choose_parameters(diagonal) == {"n": 16, "m": 15}     # balanced, n + m <= 31
    assert choose_parameters(diagonal, fixed={"m": 10}) == {"n": 21, "m": 10}
    with_context = snippet(DIAGONAL, ctx="[n] -> { : n % 4 = 1 }")
    assert choose_parameters(with_context) == {"n": 17, "m": 14}


def test_choose_parameters_reports_impossible_requests() -> None:
    diagonal = snippet(DIAGONAL)
    with pytest.raises(PolycuError, match="no values of the parameters of g_scop0 in 1..37 "
                                          "with m=40 keep every access inside its array"):
        choose_parameters(diagonal, fixed={"m": 40})
    with pytest.raises(PolycuError, match=r"k is not a parameter of g_scop0 \(parameters: n, m\)"):
        choose_parameters(diagonal, fixed={"k": 1})


def test_array_shapes_come_from_extents_or_from_accesses() -> None:
    scop = snippet()
    shapes = array_shapes(scop, {"n": 5, "m": 7})
    assert shapes == {"t": (), "A": (5, 8), "x": (12,), "s": (), "B": (100,)}


def test_random_inputs_are_seeded() -> None:
    scop = snippet()
    params = {"n": 4, "m": 3}
    first, again = random_inputs(scop, params, 11), random_inputs(scop, params, 11)
    other = random_inputs(scop, params, 12)
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert not np.array_equal(first["A"], other["A"])
    assert first["s"].dtype == np.float32 and first["A"].dtype == np.float64


@pytest.mark.parametrize("expr, value", [
    ("1000 + 0", 1000), ("(n - 7) / 2", -3), ("(n - 7) % 2", -1), ("0x10 + 010", 24),
    ("10L * n + 3u", 3), ("(int) (n + 4) / 3 * 2", 2), ("n < 1 ? 5 : 6", 5),
])
def test_extents_evaluate_with_c_semantics(expr: str, value: int) -> None:
    assert evaluate_c(expr, {"n": 0}) == value


def test_extent_with_unknown_name_is_a_located_error() -> None:
    with pytest.raises(PolycuError, match="uses 'N', which is not a parameter"):
        evaluate_c("N + 1", {"n": 1})


def test_compare_arrays_finds_the_first_mismatch_and_nans() -> None:
    expected = np.array([[1.0, 2.0, np.nan], [4.0, 1e-20, 6.0]])
    same = expected.copy()
    same[1, 1] = 3e-20  # tiny next to the array's scale: not a mismatch
    ok = compare_arrays("A", expected, same)
    assert ok.ok and ok.nan_expected == 1 and ok.nan_actual == 1
    wrong = expected.copy()
    wrong[0, 2], wrong[1, 2] = 0.0, 6.0 * (1 + 1e-6)
    bad = compare_arrays("A", expected, wrong)
    assert (bad.mismatches, bad.first_mismatch, bad.nan_mismatch) == (2, (0, 2), (0, 2))
    assert bad.max_rel_error == pytest.approx(1e-6)
    assert "first at A[0][2]: expected nan, got 0.0" in bad.describe()
    assert compare_arrays("A", expected, wrong, rtol=1e-5).mismatches == 1
    ints = compare_arrays("I", np.array([1, 2, 3], np.int32), np.array([1, 2, 4], np.int32))
    assert (ints.mismatches, ints.first_mismatch, ints.actual) == (1, (2,), 4)


def test_float_arrays_are_judged_on_their_largest_magnitude() -> None:
    expected = np.array([1.0, 8.26e-6, 0.5], np.float32)
    close = expected.copy()
    close[1] = 8.255e-6   # 6e-4 of its own value, 5e-9 of the array's scale: a match
    assert compare_arrays("y", expected, close).ok
    far = expected.copy()
    far[1] = 8.26e-6 + 2e-4   # 2e-4 of the array's scale: a mismatch
    bad = compare_arrays("y", expected, far)
    assert bad.mismatches == 1 and bad.first_mismatch == (1,)
    # the same pair in double precision is judged on its own value (scale 1e-3)
    assert not compare_arrays("y", expected.astype(np.float64), close.astype(np.float64)).ok


def test_the_error_norm_of_huge_values_does_not_overflow() -> None:
    expected = np.array([1e300, -2e300, 3.0])
    with np.errstate(over="raise", invalid="raise"):
        result = compare_arrays("x", expected, expected * (1 + 1e-12))
    assert result.ok and result.norm_error == pytest.approx(1e-12, rel=1e-3)


# -- running native code in a child -----------------------------------------------

def native(body: str) -> NativeFunction:
    source = f"#include <stdio.h>\n#include <stdlib.h>\nvoid probe(int n) {{ {body} }}\n"
    library = build_cached(source, ["gcc", "-O0", "-fPIC", "-shared"], suffix=".so",
                           language="c")
    return NativeFunction(library, "probe", Signature(("n",), ()), "the probe")


def test_a_crash_is_a_report_with_what_was_printed() -> None:
    crash = native('printf("before\\n"); fflush(stdout); if (n) *(volatile int *)0 = 1;')
    assert crash({"n": 0}, {}).output == "before\n"
    with pytest.raises(PolycuError,
                       match=r"(?s)the probe crashed \(SIGSEGV\); it printed:\nbefore"):
        crash({"n": 1}, {})


def test_a_hang_and_an_exit_are_reports() -> None:
    with pytest.raises(PolycuError, match="did not finish within 1 s"):
        native("volatile int k = n; while (k) {}")({"n": 1}, {}, timeout=1)
    with pytest.raises(PolycuError, match="the probe exited with status 3"):
        native("exit(3);")({"n": 1}, {})


# -- every PolyBench SCoP -----------------------------------------------------------

KERNELS = polybench_cpu.find_kernels()


@functools.lru_cache(maxsize=None)
def polybench_scop(name: str, dataset: str = "MINI") -> polycu.Scop:
    kernel = next(k for k in KERNELS if k.name == name)
    return polycu.load(str(kernel.source), includes=[str(polybench_cpu.UTILITIES_DIR),
                                                     str(kernel.directory)],
                       defines=[f"{dataset}_DATASET"])[0]


@pytest.mark.parametrize("name", [k.name for k in KERNELS])
def test_reference_of_every_polybench_scop_runs_deterministically(name: str) -> None:
    scop = polybench_scop(name)
    params = choose_parameters(scop)
    reference = build_reference(scop)
    runs = []
    for _ in range(2):
        data = random_inputs(scop, params, seed=7)
        reference(params, data)
        runs.append(data)
    for array in runs[0]:
        np.testing.assert_array_equal(runs[0][array], runs[1][array])
    assert any(not np.array_equal(runs[0][a], random_inputs(scop, params, seed=7)[a])
               for a in runs[0]), "the SCoP changed nothing"


def test_reference_of_gemm_matches_numpy() -> None:
    scop = polybench_scop("gemm")
    params = choose_parameters(scop)
    data = random_inputs(scop, params, seed=1)
    ni, nj, nk = params["ni"], params["nj"], params["nk"]
    C = data["C"].copy()
    C[:ni, :nj] = (data["beta"] * C[:ni, :nj]
                   + data["alpha"] * data["A"][:ni, :nk] @ data["B"][:nk, :nj])
    build_reference(scop)(params, data)
    np.testing.assert_allclose(data["C"], C, rtol=1e-13)


def test_reference_of_jacobi_1d_matches_numpy() -> None:
    scop = polybench_scop("jacobi-1d")
    params = choose_parameters(scop)
    data = random_inputs(scop, params, seed=2)
    A, B = data["A"].copy(), data["B"].copy()
    n = params["n"]
    for _ in range(params["tsteps"]):
        B[1:n - 1] = 0.33333 * (A[0:n - 2] + A[1:n - 1] + A[2:n])
        A[1:n - 1] = 0.33333 * (B[0:n - 2] + B[1:n - 1] + B[2:n])
    build_reference(scop)(params, data)
    np.testing.assert_allclose(data["A"], A, rtol=1e-13)
    np.testing.assert_allclose(data["B"], B, rtol=1e-13)
