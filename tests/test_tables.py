"""Constant tables (``frontend/tables.py``): elements of ``const`` arrays with an
initializer, subscripted by constants, are their values: ``A[i + offs[0]]`` is an
affine subscript, and the kernels need no copy of the table."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
from test_c_semantics import differential

import polycu

SMOOTH = """
#include <stdio.h>
#define N 64
static const double w[3] = {0.25, 0.5, 0.25};
const int offs[] = {-1, 0, 1};
const float grid[2][3] = {{1.5f, -2}, {0.1}};
int scale[3] = {1, 2, 3};
void f(int n, double A[N], double B[N], float C[N])
{
  const int two[2] = {2, -2};
#pragma scop
  for (int i = 1; i < n - 1; i++) {
    B[i] = w[0] * A[i + offs[0]] + w[1] * A[i + offs[1]] + w[2] * A[i + offs[2]];
    C[i] = grid[0][1] + grid[1][0] + grid[1][2] + A[i] * scale[1] + two[1] * i;
  }
  for (int i = 0; i < n; i++) {
    int w = i % 3;
    C[i] = C[i] + w;
  }
#pragma endscop
}
int main(void)
{
  static double A[N], B[N];
  static float C[N];
  for (int i = 0; i < N; i++) A[i] = (i * 37 % 101) * 0.125;
  f(N, A, B, C);
  for (int i = 0; i < N; i++) printf("%.17g %.9g\\n", B[i], C[i]);
  return 0;
}
"""


def test_constant_elements_are_their_values_and_subscripts_affine(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(SMOOTH, "smooth.c")
    s0, s1, s2 = scop.statements[:3]
    assert s0.text == ("B[i] = ((((double) 0.25) * A[i + ((int) (-1))]) + (((double) 0.5) * "
                       "A[i + ((int) 0)])) + (((double) 0.25) * A[i + ((int) 1)])")
    assert [str(a.relation) for a in s0.accesses] == [
        "[n] -> { S0[i] -> A[-1 + i] }", "[n] -> { S0[i] -> A[i] }",
        "[n] -> { S0[i] -> A[1 + i] }", "[n] -> { S0[i] -> B[i] }"]
    # -2 converted to float, a missing element 0; 'scale' is no table (the program
    # may change it), the local 'two' is one
    assert s1.text == ("C[i] = (((((float) (-2)) + ((float) 0.1)) + ((float) 0)) + "
                       "(A[i] * scale[1])) + (((int) (-2)) * i)")
    # a local 'w' hides the table
    assert s2.text.endswith("w = i % 3")
    arrays = {a.name: a for a in scop.arrays}
    assert "scale" in arrays and not {"offs", "grid", "two"} & set(arrays)
    assert (arrays["w"].element_type, arrays["w"].rank) == ("int", 0)    # the local
    assert scop.domain().is_subset(isl.UnionSet("[n] -> { S0[i] : 0 < i < n - 1; "
                                               "S1[i] : 0 < i < n - 1; S2[i]; S3[i] }"))
    expected, actual = differential(tmp_path, "smooth", SMOOTH)
    assert actual == expected and expected.splitlines()[1].split()[0] == "4.625"
