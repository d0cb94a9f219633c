"""The cost model's recurrences (polycu/gpu/cost.py, ``KernelCost.recurrent``): a
statement of a latency-bound kernel that reads what its own thread stored in another
cell is timed by its chain, not by its memory traffic.  The sets are checked exactly
on adi, nussinov and bicg (measured on an H200 at LARGE, docs/results/staging.md,
session 35: adi's identity 1.10x its smart fusion, nussinov's fused wavefront 4.6x
slower than its split one) and on a small program."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import candidates
from polycu.gpu.cost import LATENCY_THREADS, _cost

POLYBENCH = Path(__file__).resolve().parent.parent / "polybench"


def ranked(name: str) -> list[polycu.Candidate]:
    path = next(POLYBENCH.rglob(f"{name}.c"))
    scop = polycu.load(str(path), includes=[str(POLYBENCH / "utilities"), str(path.parent)])[0]
    return candidates(scop, polycu.dependences(scop), reporter=Reporter(stream=open("/dev/null", "w")))


def recurrences(candidate: polycu.Candidate) -> list[tuple[tuple[str, ...], set[str]]]:
    return [(k.statements, set(k.recurrent)) for k in candidate.metrics.kernels if k.depth]


def test_adi_ranks_its_sweeps_in_one_loop_first():
    by_name = {c.schedule.name: c for c in ranked("adi")}
    assert next(iter(by_name)) == "identity"
    # column sweep: q[i][0] = v[0][i] (S15), p's and q's recurrences along j (S16,
    # S17), v's backward substitution (S19); the row sweep the same with u (S22-S26)
    assert recurrences(by_name["identity"]) == [
        (("S13", "S14", "S15", "S16", "S17", "S18", "S19"), {"S15", "S16", "S17", "S19"}),
        (("S20", "S21", "S22", "S23", "S24", "S25", "S26"), {"S22", "S23", "S24", "S26"})]
    assert recurrences(by_name["isl-smartfuse"])[1:] == [
        (("S20", "S22", "S24"), {"S22", "S24"}), (("S25", "S26"), {"S26"})]
    assert by_name["identity"].metrics.cost < by_name["isl-smartfuse"].metrics.cost


def test_accumulations_and_reductions_are_not_recurrences():
    # nussinov's table[i][j] = max(table[i][j], ...) accumulates in one cell; bicg's
    # sums are reductions: neither schedule changes, and no statement is recurrent
    nussinov = ranked("nussinov")
    assert nussinov[0].schedule.name == "isl-minfuse"
    assert all(not r for c in nussinov if c.schedule.name != "identity"
               for _, r in recurrences(c))
    bicg = ranked("bicg")
    assert bicg[0].schedule.name == "isl-smartfuse"
    assert all(not r for c in bicg for _, r in recurrences(c))


SOURCE = """
void f(double p[64][64], double y[64], double A[64][64]) {
  int i, j;
#pragma scop
  for (i = 0; i < 64; i++)
    for (j = 1; j < 64; j++)
      p[i][j] = p[i][j - 1] * 0.5 + A[i][j];
  for (i = 0; i < 64; i++)
    for (j = 0; j < 64; j++)
      y[i] = y[i] + A[i][j] * p[i][j];
#pragma endscop
}
"""


def test_recurrence_on_a_small_program():
    scop = polycu.load_text(SOURCE, "f.c")[0]
    best = candidates(scop, polycu.dependences(scop),
                      reporter=Reporter(stream=open("/dev/null", "w")))[0]
    # fused, one thread a row: S0 reads p[i][j - 1], S1 p[i][j], both stored by
    # the thread's S0 (another cell than theirs); S1's y[i] accumulates in one cell
    assert recurrences(best) == [(("S0", "S1"), {"S0", "S1"})]
    # the same S1 alone (the accumulation without S0's stores) is not recurrent
    alone = polycu.load_text(SOURCE.replace("* p[i][j]", ""), "g.c")[0]
    assert recurrences(candidates(alone, polycu.dependences(alone),
                                  reporter=Reporter(stream=open("/dev/null", "w")))[0]) \
        == [(("S0", "S1"), {"S0"})]


@pytest.mark.parametrize("parallel", [64.0, float(LATENCY_THREADS) * 4])
def test_a_recurrence_costs_its_chain_only_in_few_threads(parallel):
    scop = polycu.load_text(SOURCE, "f.c")[0]
    best = candidates(scop, polycu.dependences(scop),
                      reporter=Reporter(stream=open("/dev/null", "w")))[0]
    kernel = next(k for k in best.metrics.kernels if "S0" in k.recurrent)
    kernel = replace(kernel, parallel=parallel, coalesced=0.0)
    chained, plain = _cost([kernel]), _cost([replace(kernel, recurrent=frozenset())])
    if parallel <= LATENCY_THREADS:
        assert chained < plain
    else:
        assert chained == plain
