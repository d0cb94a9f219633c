"""Dependence analysis: reductions and their relaxation, exactly."""
from __future__ import annotations

import islpy as isl

import polycu

COLUMN_SUMS = """
void f(int n, double A[n][n], double y[n], double z[n])
{
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    y[j] = 0.0;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[j] += A[i][j];
  for (j = 0; j < n; j++)
    z[j] = y[j];
#pragma endscop
}
"""


def test_reduction_dependences_are_the_update_chain():
    scop = polycu.load_text(COLUMN_SUMS, "sums.c")[0]
    deps = polycu.dependences(scop)
    chain = isl.UnionMap("[n] -> { S1[i, j] -> S1[i + 1, j] : 0 <= i < n - 1 and 0 <= j < n }")
    assert deps.reduction.intersect_params(scop.context).is_equal(
        chain.intersect_params(scop.context))
    assert deps.reductions_of(["S1"]).is_equal(deps.reduction)
    assert deps.reductions_of(["S0"]).is_empty()


def test_relaxation_orders_every_other_dependence_with_the_whole_chain():
    scop = polycu.load_text(COLUMN_SUMS, "sums.c")[0]
    deps = polycu.dependences(scop)
    relaxed = deps.relaxed(["S1"]).intersect_params(scop.context)
    # The initialisation precedes every update and every update precedes the copy,
    # although the value-based dependences only link the first and last update.
    expected = isl.UnionMap("[n] -> { S0[j] -> S1[i, j] : 0 <= i < n and 0 <= j < n; "
                            "S1[i, j] -> S2[j] : 0 <= i < n and 0 <= j < n }")
    assert relaxed.is_equal(expected.intersect_params(scop.context))
    assert deps.relaxed([]).is_equal(deps.validity)
