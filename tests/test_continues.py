"""Guard clauses ``if (c) continue;`` folded into ``if``/``else`` around the rest of
the loop body (``frontend/continues.py``): the loop is a loop of the model again
(before, one statement run by one thread), the output is gcc's."""
from __future__ import annotations

from pathlib import Path

from test_c_semantics import differential

import polycu

GUARDS = """#include <stdio.h>
#include <math.h>
#define N 64
double A[N], B[N], C[N][40], D[N], E[N]; int K[N];
void f(int n)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    D[i] = A[i] * 2;
    if (A[i] < -1) { B[i] = 7; continue; } else if (A[i] > 2) { B[i] = 9; continue; }
    B[i] = A[i] + 0.5;
    if (K[i] == 2) continue;
    D[i] += 100;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 40; j++) {
      if (C[i][j] == 0) continue;
      C[i][j] = 1.0 / C[i][j];
      continue;
    }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 40; j++) { if (j > i) continue; E[i] += C[i][j]; }
    if (E[i] > 3) continue;
    E[i] = -E[i];
  }
  for (int i = 1; i < n; i++) {
    if (A[i] > 0) { if (K[i] > 2) continue; A[i] = A[i - 1] + 1; }
    K[i] += 1;
  }
  for (int i = 0; i < n; i++) {
    if (K[i] == 3) continue;
    double r = sqrt(fabs(A[i]));
    K[i] = (int) (r * 10);
  }
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < 10) { k++; if (k % 3 == 0) continue; D[i] += k; }
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) {
    A[i] = (i % 7) - 3.0; B[i] = -1; D[i] = 0; E[i] = 0; K[i] = i % 5;
    for (int j = 0; j < 40; j++) C[i][j] = (i + j) % 5 - 2.0;
  }
  f(N);
  printf("@ A double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", A[i]);
  printf("@ B double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", B[i]);
  printf("@ C double\\n"); for (int i = 0; i < N; i++) for (int j = 0; j < 40; j++) printf("%.17g\\n", C[i][j]);
  printf("@ D double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", D[i]);
  printf("@ E double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", E[i]);
  printf("@ K long\\n"); for (int i = 0; i < N; i++) printf("%d\\n", K[i]);
  return 0;
}
"""


def test_guard_clauses_are_ifs_around_the_rest(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(GUARDS, "guards.c")
    texts = [s.text for s in scop.statements]
    assert texts[1] == (
        "if (A[i] < (-1)) { B[i] = 7; { } } else { if (A[i] > 2) { B[i] = 9; { } } "
        "else { B[i] = A[i] + 0.5; if (K[i] == 2) { } else { D[i] += 100; } } }")
    # the trailing continue is dropped; the inner loop's affine guard is its domain
    assert texts[2] == "if (C[i][j] == 0) { } else { C[i][j] = 1.0 / C[i][j]; { } }"
    assert str(scop.statements[3].domain) == \
        "[n] -> { S3[i, j] : i < n and 0 <= j <= 39 and j <= i }"
    # the statements after a nested guard, copied into each path that reaches them
    assert texts[5] == ("if (A[i] > 0) { if (K[i] > 2) { } else { A[i] = A[i - 1] + 1; "
                        "K[i] += 1; } } else { K[i] += 1; }")
    # with a declaration the new if is one statement like a data-dependent loop
    assert texts[6] == ("if (K[i] == 3) { } else { double r = sqrt(fabs(A[i])); "
                        "K[i] = (int) (r * 10); }")
    # a while loop's continue goes to its test: folded the same way
    assert "while (k_loc < 10) { k_loc++; if ((k_loc % 3) == 0) { } else { D[i] += k_loc; } }" \
        in texts[-1]
    assert [s.iterators for s in scop.statements][:7] == [
        ("i",), ("i",), ("i", "j"), ("i", "j"), ("i",), ("i",), ("i",)]
    expected, actual = differential(tmp_path, "guards", GUARDS)
    assert actual == expected
