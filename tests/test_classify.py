"""The classification and comparison macros of <math.h> (``frontend/classify.py``)
are expressions with glibc's values: NaN, infinities, signed zeros and subnormals of
float and double give gcc's output; ``signbit`` as a value, ``isnormal`` and
``fpclassify`` stay located rejections."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError

MACROS = """#include <stdio.h>
#include <math.h>
#define N 90
double D[N], R[N], S[N]; float F[N]; int K[N][8];
void f(int n)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    K[i][0] = isnan(D[i]) + 2 * isnan(F[i]);
    K[i][1] = isinf(D[i]) * 10 + isinf(F[i]);
    K[i][2] = isfinite(D[i]) - isfinite(F[i]);
    K[i][3] = signbit(D[i]) ? 1 : 0;
    K[i][4] = (signbit(F[i]) && !isnan(F[i])) + 2 * !signbit(D[i]) + 4 * (signbit(F[i]) != 0);
    K[i][5] = isgreater(D[i], F[i]) + 2 * isless(D[i], 1.0) + 4 * isunordered(D[i], F[i]);
    K[i][6] = islessgreater(D[i], F[i]) + 2 * isgreaterequal(F[i], 0.0f) + 4 * islessequal(D[i], -0.0);
    K[i][7] = isinf(D[i]) ? 7 : 9;
    if (isnan(D[i]) || isinf(D[i])) R[i] = 0.0; else R[i] = D[i] * 2;
    S[i] = isfinite(F[i]) ? F[i] : -1.0;
  }
#pragma endscop
}
int main(void)
{
  double sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, -2.5, 3.0, 1e308};
  for (int i = 0; i < N; i++) {
    D[i] = i < 50 ? sp[i % 10] : -sp[i % 10];   /* a NaN's sign: negation, not * -1 */
    F[i] = (float) sp[(i * 3) % 10];
  }
  f(N);
  printf("@ K long\\n"); for (int i = 0; i < N; i++) for (int k = 0; k < 8; k++) printf("%d\\n", K[i][k]);
  printf("@ R double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", R[i]);
  printf("@ S double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", S[i]);
  return 0;
}
"""


def test_macros_are_expressions_with_glibcs_values(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(MACROS, "macros.c")
    texts = [s.text for s in scop.statements]
    assert texts[0] == "K[i][0] = (D[i] != D[i]) + (2 * (F[i] != F[i]))"
    # isinf(-INFINITY) is -1 in glibc: the sign is part of the value, not of a test
    assert texts[1].startswith("K[i][1] = (((fabs(D[i]) > 1.7976931348623157e308) ? "
                               "((D[i] > 0) ? (1) : (-1)) : (0)) * 10)")
    assert texts[7] == "K[i][7] = (fabs(D[i]) > 1.7976931348623157e308) ? (7) : (9)"
    expected, actual = differential(tmp_path, "macros", MACROS)
    assert "\n-1\n" in expected
    assert actual == expected


def test_a_users_own_function_of_that_name_is_called() -> None:
    text = """static int isless(double a, double b) { return a < b - 1; }
void f(int n, double A[100], int K[100])
{
#pragma scop
  for (int i = 0; i < n; i++) K[i] = isless(A[i], 2.0);
#pragma endscop
}
"""
    (scop,) = polycu.load_text(text, "own.c")
    assert "2.0 - 1" in scop.statements[0].text


@pytest.mark.parametrize("call,message", [
    ("signbit(A[i])", "glibc's value of 'signbit' (INT_MIN for a negative float) is not "
                      "CUDA's (1): use it as a condition, e.g. 'signbit(x) != 0'"),
    ("isnormal(A[i])", "'isnormal' is not supported in a SCoP: polycu's <math.h> takes its "
                       "argument as a double, and a float's subnormal is a double's normal"),
])
def test_values_without_a_portable_form_are_refused(call: str, message: str) -> None:
    text = ("#include <math.h>\nvoid f(int n, float A[100], int K[100])\n{\n#pragma scop\n"
            f"  for (int i = 0; i < n; i++)\n    K[i] = {call};\n#pragma endscop\n}}\n")
    with pytest.raises(PolycuError) as info:
        polycu.load_text(text, "value.c")
    assert str(info.value).endswith(f"value.c:6:12: error: {message}")
