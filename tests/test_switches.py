"""``switch`` statements lowered to ``if`` chains (``frontend/switches.py``): cases
that end in ``break`` or share a body, the default anywhere; a fall-through after
statements stays a located rejection."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError

SWITCHES = """#include <stdio.h>
#define N 64
enum kind { WALL, FLUID = 3, INLET };
void f(int n, double A[N], double B[N], int K[N], unsigned U[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    switch (K[i] % 5) {
    case WALL: B[i] = 0.0; break;
    case 1:
    case FLUID: B[i] = A[i] * 2.0; break;
    case -1: case -3: { B[i] = -A[i]; break; }
    case 2: break;
    default: B[i] = A[i] + 100.0;
    }
    switch (i % 3) {
    default: A[i] += 1.0; break;
    case 0: A[i] -= 1.0; break;
    }
    switch (U[i]) { case -1: U[i] = 7; break; case 5: U[i] = 9; }
  }
#pragma endscop
}
int main(void)
{
  static double A[N], B[N]; static int K[N]; static unsigned U[N];
  for (int i = 0; i < N; i++) { A[i] = i * 0.1 - 3; K[i] = i * 7 % 11 - 5; B[i] = 42; U[i] = i % 4 == 0 ? 4294967295u : i % 7; }
  f(N, A, B, K, U);
  printf("@ A double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", A[i]);
  printf("@ B double\\n"); for (int i = 0; i < N; i++) printf("%.17g\\n", B[i]);
  printf("@ U unsigned\\n"); for (int i = 0; i < N; i++) printf("%u\\n", U[i]);
  return 0;
}
"""


def test_a_switch_is_its_if_chain_and_matches_gcc(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(SWITCHES, "switches.c")
    s0, s1, s2, s3 = scop.statements
    # on data: one statement; case labels share a body; the enumerators are values
    assert s0.text == (
        "if ((K[i] % 5) == 0) { B[i] = 0.0; } else { if (((K[i] % 5) == 1) || "
        "((K[i] % 5) == 3)) { B[i] = A[i] * 2.0; } else { if (((K[i] % 5) == (-1)) || "
        "((K[i] % 5) == (-3))) { { B[i] = -A[i]; } } else { if ((K[i] % 5) == 2) { } "
        "else { B[i] = A[i] + 100.0; } } } }")
    # on the iterator: the domains, the default (written first) last
    assert (str(s1.domain), s1.text) == (
        "[n] -> { S1[i] : (i) mod 3 = 0 and 0 <= i < n }", "A[i] -= 1.0")
    assert s2.text == "A[i] += 1.0" and "3*floor((i)/3) < i" in str(s2.domain)
    # -1 converted to unsigned, as the switch converts it
    assert s3.text == "if (U[i] == (-1)) { U[i] = 7; } else { if (U[i] == 5) { U[i] = 9; } }"
    expected, actual = differential(tmp_path, "switches", SWITCHES)
    assert actual == expected and "4294967295" not in expected.split("@ U")[1]


def test_a_fall_through_after_statements_is_a_located_rejection(tmp_path: Path) -> None:
    source = tmp_path / "fall.c"
    source.write_text("void f(int n, double A[8], int K[8])\n{\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    switch (K[i]) {\n"
                      "    case 0: A[i] = 1.0;\n    case 1: A[i] += 2.0; break;\n    }\n"
                      "#pragma endscop\n}\n")
    with pytest.raises(PolycuError, match=r"fall.c:5:5: error: 'switch' is not supported"):
        polycu.load(str(source))
