"""``sizeof`` folded to the numbers gcc computes (``frontend/sizes.py``): in the kernels
arrays are flat pointers and nvcc compiles C++, so a ``sizeof`` left as written is
another number there (a hand-written program's ``j < sizeof(A[0]) / sizeof(double)``
ran once a row: 2064 of 2352 values wrong)."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
from test_c_semantics import differential

import polycu

UNIT = """
struct pair { double a; char b; };
double G[100][7];
void f(int n, int m, double P[8][5], double V[n][m], struct pair *S, float Q[8])
{
  static short L[6][3];
  long double ld;
#pragma scop
  for (int i = 0; i < 8; i++) {
    Q[i] = sizeof(G) + sizeof G[0] + sizeof(P) + sizeof(P[0]) + sizeof(P[i][0]);
    Q[i] = sizeof(L) + sizeof(L[1]) + sizeof(i == n) + sizeof('a') + sizeof(!i);
    Q[i] = sizeof(ld) + sizeof(_Bool) + sizeof(double[3][2]) + sizeof(float *) + sizeof(V[0]);
    Q[i] = sizeof(struct pair) + sizeof(S[0]) + sizeof(Q[i] * 2.0f) + sizeof(i << 40L);
  }
#pragma endscop
}
"""


def test_each_size_is_gccs_number() -> None:
    (scop,) = polycu.load_text(UNIT, "u.c")
    texts = [s.text for s in scop.statements]
    # an array 5600 and its row 56; a parameter declared as an array is a pointer
    # (8), its row 40; a comparison, a character constant and ! are ints in C
    assert texts[0] == "Q[i] = (((5600UL + 56UL) + 8UL) + 40UL) + 8UL"
    assert texts[1] == "Q[i] = (((36UL + 6UL) + 4UL) + 4UL) + 4UL"
    # long double 16, _Bool 1, a row of a variable-length array m doubles
    assert texts[2] == "Q[i] = (((16UL + 1UL) + 48UL) + 8UL) + (((unsigned long) m) * 8UL)"
    # structures stay: the .cu declares them as the program does; a float times a
    # float constant is a float; a shift has its left operand's promoted type
    assert texts[3] == "Q[i] = (((sizeof(struct pair)) + (sizeof(S[0]))) + 4UL) + 4UL"


IDIOMS = """
#include <stdio.h>
#define N 40
double B[N];
void f(int m, double A[N][N + 1])
{
#pragma scop
  for (int i = 0; i < sizeof(B) / sizeof(B[0]); i++)
    for (int j = 0; j < sizeof(A[0]) / sizeof(double) && j < m; j++)
      A[i][j] = A[i][j] * 0.5 + B[i] + sizeof(A[i][j] > 1.0);
#pragma endscop
}
int main(void)
{
  static double A[N][N + 1];
  for (int i = 0; i < N; i++) {
    B[i] = i * 0.25;
    for (int j = 0; j <= N; j++) A[i][j] = -7.25 * i + 0.375 * j;
  }
  f(N - 3, A);
  for (int i = 0; i < N; i++) for (int j = 0; j <= N; j++) printf("%.17g\\n", A[i][j]);
  return 0;
}
"""


def test_array_length_idioms_are_affine_and_match_gcc(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(IDIOMS, "idioms.c")
    assert scop.domain().is_equal(isl.UnionSet(
        "[m] -> { S0[i, j] : 0 <= i <= 39 and 0 <= j <= 40 and j < m }"))
    expected, actual = differential(tmp_path, "idioms", IDIOMS)
    assert actual == expected
    assert expected.split()[:3] == ["4", "4.1875", "4.375"]
