"""Fields of structures with pointer fields bound to names of their own
(``frontend/struct_fields.py``): ``M->data[i * M->cols + j]`` with ``M->rows`` a loop
bound.

Checked here: the bound names (an integer field a parameter, a pointer field an
array read as rows), the host call passing the fields, what leaves a structure to
``members.py`` (a field assigned, the structure used whole), pointers into a field
taken before the SCoP, and a whole program against gcc
(``tests/data/pointers/matrix_struct.c``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import PolycuError
from polycu.driver import compile_file

SCALE = """
typedef struct {{ int rows, cols; double *data; }} mat;
void scale(mat *M, double f)
{{
  {before}
#pragma scop
  for (int i = 0; i < M->rows; i++)
    for (int j = 0; j < M->cols; j++)
      {statement}
#pragma endscop
}}
"""


def _scale(statement: str = "M->data[i * M->cols + j] *= f;", before: str = "") -> str:
    return SCALE.format(statement=statement, before=before)


def test_integer_fields_are_parameters_and_a_pointer_field_an_array(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(_scale(), "scale.c")
    assert scop.parameters == ("M_rows", "M_cols")
    data = scop.array("M_data")
    assert data.delinearised and data.extents == (None, "M_cols")
    assert {str(a.relation) for a in scop.statement("S0").accesses} == {
        "[M_rows, M_cols] -> { S0[i, j] -> M_data[i, j] }",
        "[M_rows, M_cols] -> { S0[i, j] -> f[] }"}
    assert dict(scop.bindings) == {"M_rows": "M->rows", "M_cols": "M->cols",
                                   "M_data": "M->data"}
    source = tmp_path / "scale.c"
    source.write_text(_scale())
    generated = compile_file(str(source), polycu.Options(run_on="gpu"))
    assert "scale_scop0_gpu((M->rows), (M->cols), (double *)&f, (double *)(M->data));" \
        in generated.host
    assert "blockIdx" in generated.cuda


@pytest.mark.parametrize("statement, where", [
    ("{ M->data[i] = j; M->cols = 3; }", "9:25: error: 'M->cols'"),
    ("M->data = 0;", "9:7: error: 'M->data'"),                 # the pointer itself
])
def test_a_field_the_scop_assigns_is_an_error(statement: str, where: str) -> None:
    with pytest.raises(PolycuError, match="is assigned in the SCoP: polycu reads the fields "
                       "of a structure with pointer fields as values fixed") as caught:
        polycu.load_text(_scale(statement), "scale.c")
    assert where in str(caught.value)


def test_a_structure_used_whole_is_an_error() -> None:
    with pytest.raises(PolycuError, match="scale.c:9:21: error: 'M', a structure with the "
                       "pointer field 'data', is used here other than as 'M->field'"):
        polycu.load_text(_scale("M->data[i] = (M == 0);"), "scale.c")


def test_a_pointer_into_a_bound_field_is_the_field() -> None:
    """d, taken before the SCoP, and M->data are one array of the model."""
    (scop,) = polycu.load_text(_scale("d[i * M->cols + j] += M->data[j];",
                                      "double *d = M->data;"), "scale.c")
    assert [a.name for a in scop.arrays] == ["M_data"]
    assert {f"{a.kind} {a.relation}" for a in scop.statement("S0").accesses} >= {
        "write [M_rows, M_cols] -> { S0[i, j] -> M_data[i, j] }",
        "read [M_rows, M_cols] -> { S0[i, j] -> M_data[0, j] }"}


def test_two_pointers_into_one_unbound_field_are_an_error() -> None:
    with pytest.raises(PolycuError, match="'d2' and 'd1' both point into 'M.data'"):
        polycu.load_text("""
typedef struct { int rows, cols; double *data; } mat;
void shift(mat M, int n)
{
  double *d1 = M.data;
  double *d2 = M.data;
  M.rows = 0;
#pragma scop
  for (int i = 1; i < n; i++)
    d1[i] = d2[i - 1];
#pragma endscop
}
""", "shift.c")


LOCAL = """
typedef struct {{ int ld; double *data; }} mat;
void k(int n, double *A, double *B, int c)
{{
  {setup}
#pragma scop
  for (int i = 1; i < n; i++)
    {statement} += A[i - 1];
#pragma endscop
}}
"""


@pytest.mark.parametrize("setup, statement, write", [
    ("mat M = { n, A };", "M.data[i]", "A[i]"),
    ("mat M = { .data = A + 1, .ld = n }; mat *P = &M;", "P->data[i]",
     "A[((long long) i) + 1]"),
    ("mat M; M.ld = n; M.data = A;", "M.data[i]", "A[i]"),
])
def test_a_local_structure_s_pointer_field_is_the_array_it_was_set_to(
        setup: str, statement: str, write: str) -> None:
    """M.data is A: the loop carries A[i - 1] to A[i], which two arrays would hide."""
    (scop,) = polycu.load_text(LOCAL.format(setup=setup, statement=statement), "k.c")
    assert [a.name for a in scop.arrays] == ["A"]
    assert scop.statement("S0").text.startswith(write)


@pytest.mark.parametrize("setup", [
    "mat M = { n, A }; if (c) M.data = B;",          # set twice
    "mat M = { n, B }; mat N = M; M = N; M.data = A;",   # assigned whole
    "mat M = { n, B }; mat *P = &M; P->data = A;",       # set through a pointer
])
def test_a_local_structure_s_field_that_polycu_does_not_follow_is_an_error(setup: str
                                                                          ) -> None:
    with pytest.raises(PolycuError, match="'M.data' points into 'A', which the SCoP also "
                       "uses, and its field is set more than once"):
        polycu.load_text(LOCAL.format(setup=setup, statement="M.data[i]"), "k.c")
