"""All 30 PolyBench kernels: candidates exist, the identity is among them, and the
chosen schedule passes the legality proof (the whole file runs in about 15 s)."""
from __future__ import annotations

from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import candidates, choose
from polycu.schedule import check_legality

POLYBENCH = Path(__file__).resolve().parent.parent / "polybench"
KERNELS = sorted(p for p in POLYBENCH.rglob("*.c")
                 if p.stem == p.parent.name and p.parent.name != "utilities")


def test_the_suite_is_complete():
    assert len(KERNELS) == 30


@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_chosen_schedule_is_proven_legal(path):
    scop = polycu.load(str(path), includes=[str(POLYBENCH / "utilities"), str(path.parent)])[0]
    deps = polycu.dependences(scop)
    reporter = Reporter(stream=open("/dev/null", "w"))
    ranked = candidates(scop, deps, reporter=reporter)
    assert any("identity" in c.schedule.name for c in ranked)
    chosen = choose(scop, deps, reporter=reporter)
    assert chosen.name == ranked[0].schedule.name
    # a schedule of the SCoP with expanded scalars is proven on that model, whose
    # flow dependences are the original ones
    check_legality(chosen.scop, chosen.deps, chosen)
    assert chosen.deps.flow.is_equal(deps.flow)
    assert (chosen.scop is scop) == (chosen.deps is deps) == ("expand(" not in chosen.name)
    assert not reporter.diagnostics  # no candidate dropped, no budget hit
