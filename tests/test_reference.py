"""The CPU reference (polycu/runtime/reference.py) and the parts of the emulation
driver that do not need generated code: parameter choice, shapes, inputs,
comparison, and running native code in a child process."""
from __future__ import annotations

import ctypes
import dataclasses
import functools
from pathlib import Path

import numpy as np
import polybench_cpu  # scripts/, on the path by conftest.py
import pytest

import polycu
from polycu.diagnostics import PolycuError
from polycu.runtime.compare import compare_arrays
from polycu.runtime.inputs import random_inputs
from polycu.runtime.native import NativeFunction, build_cached
from polycu.runtime.parameters import choose_parameters
from polycu.runtime.reference import build_reference, free_names, reference_source, run_reference
from polycu.runtime.shapes import array_shapes
from polycu.runtime.shapes import extent_value as evaluate_c
from polycu.runtime.signature import Signature, scalar_dtype

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


def test_chosen_parameters_give_every_array_an_element() -> None:
    """Fuzz seed 4100055: ``double A[n - 37][m]`` whose loop never runs at m = 1; the
    context allows n = 37, an empty array nothing can be made with."""
    (scop,) = polycu.load_text("""
void kernel(int n, int m, double A[n - 37][m])
{
#pragma scop
  for (int i = 1; i < m; i = i + 2)
    for (int j = n - 1; j > -1; --j)
      A[i - 1][j - 1] += A[3][j];
#pragma endscop
}
""", "k.c")
    values = choose_parameters(scop)
    assert values["n"] >= 38 and values["m"] >= 1
    assert array_shapes(scop, values)["A"] == (values["n"] - 37, values["m"])


def test_a_parameter_in_bounds_only_at_0_or_past_memory_gets_0() -> None:
    """Fuzz seed 5606277, minimised: ``r <= b + 3000000000u`` is unsigned, so D's
    accesses stay in bounds at b = 0 or where the sum wraps (b >= 1294967296), where
    the VLA ``a[b + 6][b + 2]`` needs exabytes; the emulation had refused it."""
    (scop,) = polycu.load_text("""
void kernel(int b, int m, unsigned a[b + 6][b + 2], int D[1][2])
{
#pragma scop
  a[2][1] += a[1][0];
  for (long i = 0; i < m; ++i)
    for (unsigned r = 3000000000u; r <= b + 3000000000u; ++r)
      D[r - 3000000000u][i] = 1;
#pragma endscop
}
""", "k.c")
    values = choose_parameters(scop)
    assert values == {"b": 0, "m": 2}
    assert array_shapes(scop, values)["a"] == (6, 2)


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
    """(floyd-warshall overflows on inputs of both signs and runs on the fallback.)"""
    scop = polybench_scop(name)
    params = choose_parameters(scop)
    runs = [run_reference(scop, params, lambda kind: random_inputs(scop, params, 7, kind),
                          "mixed", timeout=120) for _ in range(2)]
    assert runs[0].profile == ("nonnegative-ints" if name == "floyd-warshall" else "mixed")
    for array in runs[0].expected:
        np.testing.assert_array_equal(runs[0].expected[array], runs[1].expected[array])
    assert any(not np.array_equal(runs[0].expected[a], runs[0].inputs[a])
               for a in runs[0].inputs), "the SCoP changed nothing"


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


# -- typed parameters (the contract's signature) -------------------------------------

# n is unsigned, m long: m only bounds a condition, so it may exceed any int.
TYPED = r"""
void h(unsigned n, long m, long B[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (i < m)
      B[i] = m + i;
#pragma endscop
}
"""


def typed(*types: str) -> polycu.Scop:
    """The TYPED SCoP with these parameter types (whatever the frontend found)."""
    return dataclasses.replace(snippet(TYPED), parameter_types=types)


def test_signature_passes_each_parameter_with_its_c_type() -> None:
    sig = Signature.of(typed("unsigned", "long"))
    assert sig.prototype("h") == "void h(unsigned n, long m, long *polycu_arg_B)"
    assert sig.argtypes() == [ctypes.c_uint32, ctypes.c_int64, ctypes.c_void_p]
    assert "void polycu_reference_h_scop0(unsigned n, long m, long *polycu_arg_B)" \
        in reference_source(typed("unsigned", "long"))


def test_a_long_parameter_reaches_the_reference_untruncated() -> None:
    scop = typed("unsigned", "long")
    m = 5_000_000_000  # over 2^32: an int would make it 705032704
    data = {"B": np.zeros(40, np.int64)}
    build_reference(scop)({"n": 5, "m": m}, data)
    assert data["B"].tolist() == [m + i for i in range(5)] + [0] * 35


def test_parameter_values_stay_inside_their_types() -> None:
    scop = typed("unsigned", "long")
    with pytest.raises(PolycuError, match=r"n=-1 does not fit the type 'unsigned' of parameter "
                                          r"'n' of h_scop0 \(0\.\.4294967295\)"):
        choose_parameters(scop, fixed={"n": -1})
    with pytest.raises(PolycuError, match=r"the CPU reference of h_scop0: n=-1 does not fit its "
                                          r"type 'unsigned'"):
        build_reference(scop)({"n": -1, "m": 1}, {"B": np.zeros(40, np.int64)})
    small = dataclasses.replace(snippet("void f(unsigned char n, double A[1000]) {\n"
                                        "#pragma scop\nfor (int i = 0; i < n; i++) A[i] = 1;\n"
                                        "#pragma endscop\n}\n"),
                                parameter_types=("unsigned char",))
    assert choose_parameters(small, limit=300) == {"n": 255}


@pytest.mark.parametrize("text, dtype", [
    ("unsigned", np.uint32), ("long unsigned int", np.uint64), ("const short", np.int16),
    ("long long", np.int64), ("signed char", np.int8), ("double *__restrict__", np.float64),
    ("long double", np.longdouble), ("size_t", np.uint64), ("float double", None),
    ("long long long", None), ("struct s", None),
])
def test_c_types_in_any_spelling(text: str, dtype: object) -> None:
    assert scalar_dtype(text) == (None if dtype is None else np.dtype(dtype))


# -- inputs ---------------------------------------------------------------------------

KINDS = r"""
void k(int n, double D[500], float F[500], int I[500], unsigned U[500], char C[500],
       long L[500], double s)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    D[i] = D[i] * s; F[i] = F[i] + 1; I[i] = I[i] * 2; U[i] = U[i] * 3u;
    C[i] = C[i] + 1; L[i] = L[i] - 1;
  }
#pragma endscop
}
"""


def test_inputs_take_both_signs_and_the_ranges_of_their_types() -> None:
    scop = snippet(KINDS)
    data = random_inputs(scop, {"n": 500}, seed=1)
    for name in ("D", "F"):
        values = data[name].astype(np.float64)
        assert values.min() < -1 and values.max() > 1
        assert 4 < np.abs(values).max() <= 1000          # some large magnitudes
        assert np.mean(np.abs(values) <= 4) > 0.8        # most in [-4, 4]
    assert -4 <= data["s"] <= 4                           # a coefficient: no overflow of exp
    for name in ("I", "L"):
        assert data[name].min() < -100 and data[name].max() > 100
        assert np.abs(data[name]).max() < 2 ** 10         # products of two stay in range
        assert np.count_nonzero(np.abs(data[name]) <= 3) > 100   # small values too
    assert data["U"].max() > 2 ** 31                      # unsigned: the whole range
    assert data["C"].min() < -100 and data["C"].max() > 100
    unit = random_inputs(scop, {"n": 500}, seed=1, profile="unit")
    assert 0 <= unit["D"].min() and unit["D"].max() < 1 and unit["I"].max() < 100
    nonnegative = random_inputs(scop, {"n": 500}, seed=1, profile="nonnegative-ints")
    assert nonnegative["I"].min() >= 0 and nonnegative["C"].min() >= 0
    assert nonnegative["D"].min() < -1


# -- memory ---------------------------------------------------------------------------

HUGE = r"""
void big(int n, float A[50000][50000])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i][i] = 0;
#pragma endscop
}
"""


def test_arrays_too_big_to_emulate_are_refused_before_allocation() -> None:
    scop = snippet(HUGE)
    message = (r"array 'A' needs 10\.0 GB \(float\[50000\]\[50000\]\); emulation is "
               r"limited to 2 GiB")
    with pytest.raises(PolycuError, match=message) as refused:
        choose_parameters(scop)
    assert str(refused.value).startswith("snippet.c:2:23: error:")   # at A
    with pytest.raises(PolycuError, match=message):
        random_inputs(scop, {"n": 3}, seed=1)


def test_parameters_shrink_until_the_arrays_fit() -> None:
    scop = snippet("void f(int n, double A[n][n][n][n]) {\n#pragma scop\n"
                   "for (int i = 0; i < n; i++) A[i][i][i][i] = 1;\n#pragma endscop\n}\n")
    assert choose_parameters(scop) == {"n": 37}
    # 19^4 doubles are 1,042,568 bytes, 20^4 would be 1,280,000.
    assert choose_parameters(scop, memory=1 << 20) == {"n": 19}
    with pytest.raises(PolycuError, match=r"array 'A' needs 1\.3 MB \(double\[20\]\[20\]\[20\]"
                                          r"\[20\]\); emulation is limited to 1 MiB"):
        choose_parameters(scop, fixed={"n": 20}, memory=1 << 20)


# -- names the SCoP declares again ------------------------------------------------------

# The SCoP uses variables of the function that it also declares itself, at another
# depth: the reference declares the outer ones and keeps the inner ones inside.
SHADOWED = {
    "loop counter": (r"""
void f(int n, double A[100], double B[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = i;
  for (int i = 0; i < n; i++)
    B[i] = A[i] + 1;
#pragma endscop
}
""", lambda a, b, n: (np.r_[np.arange(n), a[n:]], np.r_[np.arange(n) + 1, b[n:]])),
    "scalar in an inner block": (r"""
void f(int n, double A[100], double B[100])
{
  double t;
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    t = A[i];
    B[i] = t;
  }
  {
    double t;
    for (int i = 0; i < n; i++) {
      t = B[i];
      A[i] = t + 1;
    }
  }
#pragma endscop
}
""", lambda a, b, n: (np.r_[a[:n] + 1, a[n:]], np.r_[a[:n], b[n:]])),
    "declared at the SCoP's top level": (r"""
void f(int n, double A[100], double B[100])
{
  double t;
  int i;
  {
#pragma scop
    for (i = 0; i < n; i++) {
      t = A[i];
      B[i] = t;
    }
    double t = 2;
    for (int i = 0; i < n; i++)
      A[i] = A[i] * t;
#pragma endscop
  }
}
""", lambda a, b, n: (np.r_[a[:n] * 2, a[n:]], np.r_[a[:n], b[n:]])),
}


#: One name for two variables of the model (one outside, one inside the SCoP): the
#: frontend rejects these (tests/test_c_semantics.py); the counter case is accepted.
AMBIGUOUS = {"scalar in an inner block", "declared at the SCoP's top level"}


@pytest.mark.parametrize("case", SHADOWED)
def test_reference_of_a_scop_that_declares_outer_names_again(case: str) -> None:
    text, expect = SHADOWED[case]
    if case in AMBIGUOUS:
        with pytest.raises(PolycuError, match="names a variable declared outside the SCoP"):
            snippet(text)
        return
    scop = snippet(text)
    params = choose_parameters(scop)
    data = random_inputs(scop, params, seed=5)
    a, b = expect(data["A"].copy(), data["B"].copy(), params["n"])
    build_reference(scop)(params, data)
    np.testing.assert_array_equal(data["A"], a)
    np.testing.assert_array_equal(data["B"], b)


def test_free_names_follow_c_scopes() -> None:
    code = ("for (i = 0; i < n; i++) { double t = x[i]; s.f += t; }\n"
            "for (int j = 0; j < m; j++) y[j] = exp(t) + j;\n{ int k = 2; z = k; }")
    assert free_names(code) == ["i", "n", "x", "s", "m", "y", "t", "z"]
    assert free_names("real_t v = 1;") is None   # an unknown type name: cannot tell
