"""All 30 PolyBench kernels: candidates exist, the identity is among them, the
chosen schedule passes the legality proof, and the parallelism the ranking counted
is the parallelism of the program generated (the whole file runs in about 40 s)."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import candidates, program_of
from polycu.gpu.cost import analyze
from polycu.schedule import check_legality

POLYBENCH = Path(__file__).resolve().parent.parent / "polybench"
KERNELS = sorted(p for p in POLYBENCH.rglob("*.c")
                 if p.stem == p.parent.name and p.parent.name != "utilities")


def test_the_suite_is_complete():
    assert len(KERNELS) == 30


# One test a kernel: the ranking, then the driver's own choice (program_of ranks
# again, as the compiler does), so each SCoP is ranked twice, not four times (CI).
@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_chosen_schedule_is_proven_legal_and_generated_as_ranked(path):
    scop = polycu.load(str(path), includes=[str(POLYBENCH / "utilities"), str(path.parent)])[0]
    deps = polycu.dependences(scop)
    reporter = Reporter(stream=open("/dev/null", "w"))
    ranked = candidates(scop, deps, reporter=reporter)
    assert any("identity" in c.schedule.name for c in ranked)
    best = ranked[0]
    chosen = best.schedule
    # a schedule of the SCoP with expanded temporaries is proven on that model, whose
    # flow dependences are the original ones but for those of its copy statements
    check_legality(chosen.scop, chosen.deps, chosen)
    original = {s.name for s in scop.statements}
    copies = isl.UnionSet.empty(deps.flow.get_space())
    for s in chosen.scop.statements:
        if s.name not in original:
            copies = copies.union(isl.UnionSet.from_set(s.domain))
    assert chosen.deps.flow.subtract_domain(copies).subtract_range(copies).is_equal(deps.flow)
    transformed = "expand(" in chosen.name or "relayout(" in chosen.name
    assert (chosen.scop is scop) == (chosen.deps is deps) == (not transformed)
    # the parallelism the ranking counted is the program's that code generation prints
    program = program_of(scop, reporter=reporter)
    assert program.scop.name == scop.name
    assert [(k.name, len(k.mapped), len(k.host_ids)) for k in program.kernels] == \
        [(k.name, k.depth, k.host_loops) for k in best.metrics.kernels]
    looped = [len(k.mapped) for k in program.kernels
              if any(program.scop.statement(s).domain.dim(isl.dim_type.set) for s in k.statements)]
    assert best.parallel_depth == min(looped, default=0)
    assert analyze(program) == best.metrics
    assert not reporter.diagnostics  # no candidate dropped, no budget hit
