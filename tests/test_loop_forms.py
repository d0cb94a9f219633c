"""Loops with companion counters and post-decrement tests (``frontend/loop_forms.py``)
are the counted loops they are: exact domains, the same output as gcc; where the
rewritten variables are read after the loop they stay a located rejection."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError

FORMS = """#include <stdio.h>
#define N 96
double A[N], B[N], C[N], D[N]; long K[N], L[N]; unsigned char U[N]; unsigned W[N];
void f(int n)
{
  unsigned j, d; int q; long e;
#pragma scop
  for (int i = 0, r = n - 1; i < n; i++, r--) B[i] = A[r] * 2 + r;
  for (unsigned long i = n; i-- > 0;) C[i] = B[i] + (i > 0 ? A[i - 1] : 1.0) + i;
  for (int lo = 0, hi = n - 1; lo < hi; lo++, hi--) { D[lo] = A[hi] - lo; D[hi] = A[lo] + hi; }
  for (unsigned char c = 90; c--;) U[c] = (unsigned char) (U[c] + c * 3);
  for (long i = 10, k = 7, m = -3; i < n; i += 1, k += 3, m = m - 2) K[i] = k + m * 2 + K[i - 10];
  for (int i = n - 1, w = 0; i >= 0; i--, w += 2) if (w < n) A[w / 2] = A[w / 2] + i;
  for (q = 0, j = 3; q < n; q++, j--) W[q] = j * 2u;
  for (d = 60, e = 100; d > 0; d--, e -= 3) L[d] = e;
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { A[i] = i * 0.5 - 20; K[i] = i % 9 - 4; U[i] = (unsigned char) (i * 7); }
  f(N);
  printf("@ A double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", A[i]);
  printf("@ B double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", B[i]);
  printf("@ C double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", C[i]);
  printf("@ D double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", D[i]);
  printf("@ K long\\n"); for (int i = 0; i < N; i++) printf("%ld\\n", K[i]);
  printf("@ U long\\n"); for (int i = 0; i < N; i++) printf("%d\\n", U[i]);
  printf("@ W unsigned\\n"); for (int i = 0; i < N; i++) printf("%u\\n", W[i]);
  printf("@ L long\\n"); for (int i = 0; i < N; i++) printf("%ld\\n", L[i]);
  return 0;
}
"""


def test_companion_counters_and_post_decrements_are_counted_loops(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(FORMS, "forms.c")
    domains = [str(s.domain) for s in scop.statements]
    assert domains == [
        "[n] -> { S0[i] : 0 <= i < n }",
        # i-- > 0 from n: the body sees n - 1 down to 0, written (unsigned long) (i - 1)
        "[n] -> { S1[i] : 0 < i <= n }",
        # lo < hi with hi = n - 1 - lo: 2 lo < n - 1
        "[n] -> { S2[lo] : lo >= 0 and 2lo <= -2 + n }",
        "[n] -> { S3[lo] : lo >= 0 and 2lo <= -2 + n }",
        "[n] -> { S4[c] : 0 < c <= 90 }",
        "[n] -> { S5[i] : 10 <= i < n }",
        # w = 2 (n - 1 - i) < n
        "[n] -> { S6[i] : i < n and 2i >= -1 + n }",
        "[n] -> { S7[q] : 0 <= q < n }",
        "[n] -> { S8[d] : 0 < d <= 60 }",
    ]
    assert "(unsigned long) (i - 1)" in scop.statements[1].text
    assert "(long long) (n - 1)" in scop.statements[0].text
    assert scop.statements[7].text == (
        "W[q] = ((unsigned) (((unsigned) 3) + ((unsigned) (-1 * (((long long) q) - "
        "((long long) 0)))))) * 2u")
    # an unsigned counter counting down: d - 60 is negative, in long long (in
    # unsigned it wrapped: e was 2^32 too large, session 45)
    assert scop.statements[8].text == (
        "L[d] = (long) (((long long) 100) + (3 * (((long long) d) - ((long long) 60))))")


def test_loop_forms_match_gcc(tmp_path: Path) -> None:
    # W: an unsigned companion counts down past zero and wraps as its steps do
    expected, actual = differential(tmp_path, "forms", FORMS)
    assert "4294967294\n4294967292" in expected
    assert actual == expected


@pytest.mark.parametrize("loop,after", [
    ("for (i = 0, j = n - 1; i < n; i++, j--) A[i] = j;", "A[0] = j;"),
    ("for (i = n; i-- > 0;) A[i] = 1.0;", "A[0] = i;"),
    ("for (i = 0, j = 0; i < n; i++, j++) { j = j + 1; A[i] = j; }", ""),
])
def test_live_or_written_counters_stay_rejected(loop: str, after: str) -> None:
    text = ("void f(int n, double A[100])\n{\n  int i, j;\n#pragma scop\n  "
            f"{loop}\n#pragma endscop\n  {after}\n}}\n")
    with pytest.raises(PolycuError):
        polycu.load_text(text, "live.c")
