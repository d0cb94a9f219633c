"""References through pointers read as subscripts of the array pointed into
(``frontend/pointers.py``).

Checked here: each pointer form and the exact accesses it gives, local pointers
declared inside the SCoP and defined before it (the dependences across the two names
exact), the conditions under which a local pointer is not replaced (and the error
where the SCoP also uses the array it points into), pointers swapped between time
steps left to the assumption, and whole programs against gcc (``tests/data/pointers``).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError

PROGRAMS = sorted((Path(__file__).parent / "data" / "pointers").glob("*.c"))


def _accesses(scop: polycu.Scop, statement: str) -> set[str]:
    return {f"{a.kind} {a.relation}" for a in scop.statement(statement).accesses}


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_programs_through_pointers_compute_what_gcc_computes(tmp_path: Path,
                                                             path: Path) -> None:
    expected, actual = differential(tmp_path, path.stem, path.read_text(),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected


FORMS = """
void forms(int n, int m, double *p, double A[100][100], const double *x, double *C)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *row = C + i * m;
    const double *a = A[i];
    for (int j = 0; j < m; j++)
      row[j] = a[j] * *(x + j) + (p + 1)[j] + *(&A[j][0] + i) + *(A[j] + 2) + *row;
  }
#pragma endscop
}
"""


def test_each_pointer_form_is_a_subscript_of_its_array() -> None:
    (scop,) = polycu.load_text(FORMS, "forms.c")
    assert {a.name for a in scop.arrays} == {"A", "x", "p", "C"}
    assert scop.array("C").delinearised       # row = C + i * m: rows of m elements
    assert _accesses(scop, "S0") == {
        "read [n, m] -> { S0[i, j] -> A[i, j] }", "read [n, m] -> { S0[i, j] -> x[j] }",
        "read [n, m] -> { S0[i, j] -> p[1 + j] }", "read [n, m] -> { S0[i, j] -> A[j, i] }",
        "read [n, m] -> { S0[i, j] -> A[j, 2] }", "read [n, m] -> { S0[i, j] -> C[i, 0] }",
        "write [n, m] -> { S0[i, j] -> C[i, j] }"}
    # two offsets narrower than 64 bits are added in long long, as C adds them to p
    assert "p[((long long) j) + 1]" in scop.statement("S0").text


def test_a_pointer_defined_before_the_scop_is_the_array_it_points_into() -> None:
    """Taken for two arrays, q and p would carry no dependence and the loop would be
    parallel; q[i] is p[i + 1], and the loop carries the value to the next instance."""
    (scop,) = polycu.load_text("""
void shift(int n, double *p)
{
  double *q;
  q = p + 1;
#pragma scop
  for (int i = 0; i < n - 1; i++)
    q[i] = 0.5 * p[i] + q[i];
#pragma endscop
}
""", "shift.c")
    assert [a.name for a in scop.arrays] == ["p"]
    assert _accesses(scop, "S0") == {
        "read [n] -> { S0[i] -> p[i] }", "read [n] -> { S0[i] -> p[1 + i] }",
        "write [n] -> { S0[i] -> p[1 + i] }"}


SIZE_T_ROWS = """
#include <stddef.h>
void scale(int n, int m, double *A, const double *s)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *r = A + (size_t) i * m;
    for (int j = 0; j < m; j++)
      r[j] *= s[i];
  }
#pragma endscop
}
"""


def test_a_64_bit_offset_is_added_as_it_is_and_read_as_rows() -> None:
    (scop,) = polycu.load_text(SIZE_T_ROWS, "scale.c")
    assert scop.array("A").delinearised
    assert "write [n, m] -> { S0[i, j] -> A[i, j] }" in _accesses(scop, "S0")


BEFORE = """
#include <stdlib.h>
void kernel(int n, double *p, double *x)
{{
  int k = 1;
  {definitions}
#pragma scop
  for (int i = 0; i < n; i++)
    {statement}
#pragma endscop
}}
"""


@pytest.mark.parametrize("definitions, statement, arrays", [
    # assigned twice (buffers swapped between steps): the assumption, as before
    ("double *q = p; if (n > 3) q = x;", "q[i] = p[i];", {"p", "q"}),
    # a fresh buffer points into no array the SCoP uses
    ("double *q = malloc(8 * n);", "q[i] = p[i];", {"p", "q"}),
    # a pointer into an array the SCoP does not use
    ("double *q = x + k; k++;", "q[i] = p[i];", {"p", "q"}),
    # an offset from an iterator of a loop that ends before the SCoP
    ("double *q = x; for (int t = 0; t < 2; t++) q = x + t;", "q[i] = x[i];", {"q", "x"}),
])
def test_a_pointer_that_is_not_replaced_keeps_its_name(definitions: str, statement: str,
                                                       arrays: set[str]) -> None:
    (scop,) = polycu.load_text(BEFORE.format(definitions=definitions, statement=statement),
                               "k.c")
    assert {a.name for a in scop.arrays} == arrays


@pytest.mark.parametrize("definitions, why", [
    ("double *q = p + k; k = 2;", "'k' in its offset is assigned in the function"),
    ("double *q = p + 1; p = x;", "'p' is assigned in the function"),
    ("double *q = p + (int) x[0];", "its offset reads data"),
])
def test_a_pointer_into_a_used_array_that_cannot_be_replaced_is_an_error(
        definitions: str, why: str) -> None:
    text = BEFORE.format(definitions=definitions, statement="q[i] = p[i] + 1.0;")
    with pytest.raises(PolycuError, match=f"'q' points into 'p', which the SCoP also uses, "
                       f"and {why}") as caught:
        polycu.load_text(text, "k.c")
    assert "k.c:6:" in str(caught.value)


def test_loop_nests_found_automatically_read_row_pointers() -> None:
    (scop,) = polycu.load_text("""
void add(int n, int m, double *C, const double *A)
{
  for (int i = 0; i < n; i++) {
    double *c = &C[i * m];
    for (int j = 0; j < m; j++)
      c[j] += *(A + i * m + j);
  }
}
""", "add.c", auto=True)
    assert {a.name for a in scop.arrays} == {"A", "C"}
    assert "write [n, m] -> { S0[i, j] -> C[i, j] }" in _accesses(scop, "S0")


def test_a_pointer_to_rows_views_a_flat_buffer_as_rows() -> None:
    """double (*A)[m] = (double (*)[m]) buf: A[i][j] is buf[i * m + j], read as rows
    of buf, so A and buf are one array of the model."""
    (scop,) = polycu.load_text("""
void rows(int n, int m, double *buf)
{
  double (*A)[m] = (double (*)[m]) buf;
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += 0.5 * buf[(i - 1) * m + j];
#pragma endscop
}
""", "rows.c")
    assert [a.name for a in scop.arrays] == ["buf"] and scop.array("buf").delinearised
    assert _accesses(scop, "S0") == {
        "read [n, m] -> { S0[i, j] -> buf[i, j] }", "read [n, m] -> { S0[i, j] -> buf[-1 + i, j] }",
        "write [n, m] -> { S0[i, j] -> buf[i, j] }"}


@pytest.mark.parametrize("definition, arrays", [
    ("float *q = (float *) p;", None),              # reinterprets p's bytes: an error
    ("double *q = (double *) (void *) p;", {"p"}),  # keeps the address
    ("double *q = malloc(n * sizeof *p);", {"p", "q"}),   # sizeof reads no pointer
])
def test_casts_of_pointers(definition: str, arrays: set[str] | None) -> None:
    element = "float" if definition.startswith("float") else "double"
    text = BEFORE.format(definitions=definition,
                         statement=f"q[i] = ({element}) p[i];")
    if arrays is None:
        with pytest.raises(PolycuError, match="'q' points into 'p', which the SCoP also uses, "
                           "and its value is no array plus integer offsets"):
            polycu.load_text(text, "k.c")
    else:
        (scop,) = polycu.load_text(text, "k.c")
        assert {a.name for a in scop.arrays} == arrays


def test_a_pointer_expression_passed_to_an_inlined_function_is_its_array() -> None:
    """axpy(m, s[i], A + i * m, &B[i * m]): the parameter x is a local pointer holding
    A + i * m, read as row i of A."""
    (scop,) = polycu.load_text("""
static void axpy(int n, double a, const double *x, double *y)
{
  for (int k = 0; k < n; k++)
    y[k] += a * x[k];
}
void rows(int n, int m, double *A, double *B, const double *s)
{
#pragma scop
  for (int i = 0; i < n; i++)
    axpy(m, s[i], A + i * m, &B[i * m]);
#pragma endscop
}
""", "rows.c")
    assert {a.name for a in scop.arrays} == {"A", "B", "s"}
    assert {f"{a.kind} {a.relation}" for a in scop.statement("S0").accesses} == {
        "read [n, m] -> { S0[i, axpy_k] -> A[i, axpy_k] }",
        "read [n, m] -> { S0[i, axpy_k] -> B[i, axpy_k] }",
        "read [n, m] -> { S0[i, axpy_k] -> s[i] }",
        "write [n, m] -> { S0[i, axpy_k] -> B[i, axpy_k] }"}
