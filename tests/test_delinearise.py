"""Flat arrays subscripted ``A[i * n + j]`` read as rows ``A[i][j]``
(``frontend/delinearise.py``).

Checked here: the strides found (two and three levels, the products in any order,
row offsets such as ``(i + 1) * m - m``), the exact accesses and what stays parallel,
the assumption that every column lies within its row (a checked assumption that
stops the host where the parameters break it), the host's shape checks on the flat
declaration, what is left alone, and whole programs against gcc
(``tests/data/delinearised``).
"""
from __future__ import annotations

import io
from pathlib import Path

import islpy as isl
import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError, Reporter
from polycu.driver import compile_file

PROGRAMS = sorted((Path(__file__).parent / "data" / "delinearised").glob("*.c"))

GEMM = """
void mm(int n, double *C, const double *A, const double *B)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i * n + j] = 0.0;
      for (int k = 0; k < n; k++)
        C[i * n + j] += A[n * i + k] * B[k * n + j];
    }
#pragma endscop
}
"""


def _accesses(scop: polycu.Scop, statement: str) -> set[str]:
    return {f"{a.kind} {a.relation}" for a in scop.statement(statement).accesses}


def test_a_flat_matrix_product_is_exact_rows_and_stays_parallel(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(GEMM, "mm.c")
    for name in "CAB":
        array = scop.array(name)
        assert array.delinearised and array.extents == (None, "n")
    assert _accesses(scop, "S1") == {
        "read [n] -> { S1[i, j, k] -> A[i, k] }", "read [n] -> { S1[i, j, k] -> B[k, j] }",
        "read [n] -> { S1[i, j, k] -> C[i, j] }", "write [n] -> { S1[i, j, k] -> C[i, j] }"}
    # every column j, k < n lies in its row: nothing is assumed
    assert scop.context.is_equal(isl.Set("[n] -> { : }"))
    source = tmp_path / "mm.c"
    source.write_text(GEMM)
    generated = compile_file(str(source), polycu.Options(run_on="gpu"))
    assert "blockIdx.x" in generated.cuda and "threadIdx" in generated.cuda
    # the host program keeps the flat declaration: its shape check is on C[0]
    assert "sizeof(C[0]) != sizeof(double)" in generated.host
    assert "C[0][0]" not in generated.host
    assert "are outside the values the GPU code assumes" not in generated.cuda


def test_strides_of_three_levels_in_any_order() -> None:
    (scop,) = polycu.load_text("""
void f(long nx, long ny, long nz, double *W, double *P)
{
#pragma scop
  for (long i = 0; i < nx; i++)
    for (long j = 0; j < ny; j++)
      for (long k = 1; k < nz; k++)
        W[(i * ny + j) * nz + k] += W[nz * (j + ny * i) + k - 1] * P[2 * (j * nz) + 2 * k];
#pragma endscop
}
""", "w.c")
    assert scop.array("W").extents == (None, "ny", "nz")
    assert scop.array("P").extents == (None, "nz")
    assert _accesses(scop, "S0") == {
        "read [nx, ny, nz] -> { S0[i, j, k] -> W[i, j, -1 + k] }",
        "read [nx, ny, nz] -> { S0[i, j, k] -> W[i, j, k] }",
        "read [nx, ny, nz] -> { S0[i, j, k] -> P[2j, 2k] }",
        "write [nx, ny, nz] -> { S0[i, j, k] -> W[i, j, k] }"}
    # P's column 2k is within its row only for 2k < nz
    assert scop.context.intersect(isl.Set("[nx, ny, nz] -> { : nx = 1 and ny = 1 and "
                                          "nz = 3 }")).is_empty()
    assert not scop.context.intersect(isl.Set("[nx, ny, nz] -> { : nx = 0 }")).is_empty()


ROW_START = """
#include <stdio.h>

void f(int m, int n, double *x, double *y)
{
#pragma scop
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      y[i * n + j] = x[i * n] + x[i * n + j + SHIFT];
#pragma endscop
}

int main(void)
{
  static double x[64], y[64];
  for (int k = 0; k < 64; k++) x[k] = k;
  f(3, 4, x, y);
  for (int k = 0; k < 16; k++) printf("%g\\n", y[k]);
  return 0;
}
"""


def test_a_column_beyond_its_row_is_a_checked_assumption(tmp_path: Path) -> None:
    """x[i * n + j + 1] reaches column n (the next row's first element) at j = n - 1:
    legal C on a flat buffer, but rows (i, n) and (i + 1, 0) would be two elements
    of the model.  The SCoP assumes the columns stay in their rows; where they do not,
    the program runs the SCoP's own lines instead of computing something else."""
    scop = polycu.load_text(ROW_START.replace("SHIFT", "1"), "r.c")[0]
    assert scop.context.intersect(isl.Set("[m, n] -> { : m = 3 and n = 4 }")).is_empty()
    assert not scop.context.intersect(isl.Set("[m, n] -> { : m = 0 }")).is_empty()
    source = tmp_path / "r.c"
    source.write_text(ROW_START.replace("SHIFT", "1"))
    reporter = Reporter(io.StringIO())
    generated = compile_file(str(source), polycu.Options(run_on="gpu"), reporter)
    (note,) = [d for d in reporter.diagnostics if "declared flat" in d.message]
    assert note.severity == "note" and str(note.location) == f"{source}:4:29"
    assert "'x' is declared flat and read as rows of n elements" in note.message
    where = note.message.split(" leave their rows where ")[1].split(" (there the program")[0]
    assert isl.Set(where).is_equal(isl.Set("[m, n] -> { : m > 0 and n > 0 }"))
    # m = 3, n = 4 break the assumption: the host function alone stops there, the
    # program runs the loops as written (the call is under f_scop0_gpu_assumes)
    assert "if (f_scop0_gpu_assumes(m, n)) {" in generated.host
    expected, actual = differential(tmp_path, "r1", ROW_START.replace("SHIFT", "1"),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected.split() == [
        str(8 * i + j + 1) for i in (0, 1, 2) for j in range(4)] + ["0"] * 4
    # x[i * n] alone needs n >= 1 where rows are read, which m = 3, n = 4 meet
    expected, actual = differential(tmp_path, "r0", ROW_START.replace(" + SHIFT", ""),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected.split() == [
        str(8 * i + j) for i in (0, 1, 2) for j in range(4)] + ["0"] * 4


def test_a_row_offset_minus_a_constant_is_the_last_columns_of_the_row() -> None:
    """x[i * n + n - 1] is row i + 1, column -1 by the terms, which no row holds:
    read as row i, column n - 1, it lies in its row wherever n >= 1."""
    (scop,) = polycu.load_text("""
void last(int m, int n, double *x, double *y)
{
#pragma scop
  for (int i = 0; i < m; i++)
    y[i] = x[i * n + n - 1] + x[(i + 1) * n - 2];
#pragma endscop
}
""", "last.c")
    assert _accesses(scop, "S0") == {
        "read [m, n] -> { S0[i] -> x[i, -1 + n] }", "read [m, n] -> { S0[i] -> x[i, -2 + n] }",
        "write [m, n] -> { S0[i] -> y[i] }"}
    assert scop.context.is_equal(isl.Set("[m, n] -> { : m <= 0 or n >= 2 }"))


@pytest.mark.parametrize("subscript, why", [
    ("i * u + j", "an unsigned stride wraps"),
    ("i * j", "no parameter divides it"),
    ("i * n * m + j", "two parameters divide it"),
    ("i * w + j", "the SCoP writes the stride"),
])
def test_what_is_left_alone(subscript: str, why: str) -> None:
    """Not rewritten: a pointer subscripted so stays an error (its extent is not known)."""
    text = f"""
void f(int n, int m, unsigned u, int w, double *A, double *x)
{{
#pragma scop
  for (int i = 0; i < n; i++) {{
    w = i + 1;
    for (int j = 0; j < n; j++)
      x[j] = A[{subscript}];
  }}
#pragma endscop
}}
"""
    with pytest.raises(PolycuError, match="extents of 'A', which are not known"):
        polycu.load_text(text, "f.c")


def test_an_array_of_known_extent_is_read_as_rows_and_its_affine_references_as_row_0(
        ) -> None:
    """Before, A[i * n + j] into double A[10000] was any element of A (a data
    subscript): every write a may-write and the loops around it sequential."""
    (scop,) = polycu.load_text("""
void f(int n, double A[10000], double *s)
{
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = s[0] * A[j];
#pragma endscop
}
""", "f.c")
    assert scop.array("A").delinearised and scop.array("A").extents == (None, "n")
    assert _accesses(scop, "S0") == {
        "read [n] -> { S0[i, j] -> A[0, j] }", "read [n] -> { S0[i, j] -> s[0] }",
        "write [n] -> { S0[i, j] -> A[i, j] }"}


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_flat_programs_compute_what_gcc_computes(tmp_path: Path, path: Path) -> None:
    expected, actual = differential(tmp_path, path.stem, path.read_text(),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected


def test_quasi_affine_parts_of_an_offset_are_atoms_of_its_polynomial() -> None:
    """t % 2, (j + 1) / 3 and MIN(j, m - 1) are no polynomials; each is one unknown, which
    the model describes exactly once it stands in a row or a column of its own."""
    (scop,) = polycu.load_text("""
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void f(int n, int m, int T, double *A, double *B)
{
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        A[((t % 2) * n + i) * m + (j + 1) / 3] += B[i * m + MIN(j, m - 1)];
#pragma endscop
}
""", "q.c")
    assert scop.array("A").extents == (None, "n", "m")
    stmt = scop.statement("S0")
    expected = {"A": "[T, n, m] -> { S0[t, i, j] -> A[t mod 2, i, floor((j + 1) / 3)] }",
                "B": "[T, n, m] -> { S0[t, i, j] -> B[i, min(j, m - 1)] }"}
    for access in stmt.accesses:
        want = isl.Map(expected[access.array]).intersect_domain(stmt.domain)
        got = access.relation.intersect_domain(stmt.domain)
        assert got.is_equal(want.align_params(got.get_space())), access
    # the columns (j + 1) / 3 <= m / 3 and j < m stay in their rows: nothing assumed
    assert scop.context.is_equal(isl.Set("[n, m, T] -> { : }"))


def test_loop_nests_found_automatically_read_flat_arrays_as_rows() -> None:
    """Without #pragma scop the region search, which tries to build each candidate
    region, reads the flat arrays as rows too (before, the nest was no SCoP at all)."""
    (scop,) = polycu.load_text(GEMM.replace("#pragma scop\n", "").replace(
        "#pragma endscop\n", ""), "auto.c")
    assert [a.name for a in scop.arrays if a.delinearised] == ["C", "A", "B"]
    assert len(scop.statements) == 2
