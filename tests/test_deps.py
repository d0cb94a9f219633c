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


def test_an_input_isl_crashes_on_falls_back_to_the_definition():
    """isl's compute_flow crashed the process on this input (a segmentation fault,
    fuzz seed 5606725, minimised): the kill and the sink bound no parameter the may
    source bounds.  It runs in a child process; the result is the definition's."""
    from polycu.deps import dataflow, dataflow_by_lexmax, flat_schedule
    sink = isl.UnionMap("[n, m] -> { S2[t, d, j] -> W[d - 1, 1 + j] : (d) mod 2 = 0 and "
                        "0 <= m <= 100 and 0 <= t < n and 0 <= d <= 1 + n and -1 <= j <= d }")
    may = isl.UnionMap("[n, m] -> { S0[t, d, j] -> W[j - 1, m - d] : (d) mod 2 = 0 and "
                       "n <= 100 and m <= 100 and 0 <= t < n and 0 <= d <= 100 and d <= m and "
                       "d <= 1 + n and -1 <= j <= d }")
    schedule = isl.Schedule.from_domain(sink.domain().union(may.domain())).insert_partial_schedule(
        isl.MultiUnionPwAff("[n, m] -> [{ S0[t, d, j] -> [(t)]; S2[t, d, j] -> [(t)] }, "
                            "{ S0[t, d, j] -> [(d)]; S2[t, d, j] -> [(d)] }, "
                            "{ S0[t, d, j] -> [(j)]; S2[t, d, j] -> [(j)] }, "
                            "{ S0[t, d, j] -> [(0)]; S2[t, d, j] -> [(1)] }]"))
    flow = dataflow(sink, schedule, may=may, kill=sink)
    expected = dataflow_by_lexmax(sink, flat_schedule(schedule), may=may, kill=sink)
    assert flow.may.is_equal(expected.may) and not flow.may.is_empty()
    assert flow.must.is_equal(expected.must) and flow.no_source.is_equal(expected.no_source)
