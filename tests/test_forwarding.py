"""Store forwarding (``--forward-stores``, ``memory/forwarding.py``): the exact
references forwarded, the emitted text, and the emulated kernels against gcc."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import polycu
from polycu.driver import compile_scops, placement_of
from polycu.memory import format_placement
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit

ROOT = Path(__file__).resolve().parent.parent
UTILITIES = str(ROOT / "polybench" / "utilities")
FORWARD = Options(forward_stores=True, run_on="gpu")

# One thread a row (i); each step of j reads what the step before stored in x and
# z, and S1 reads the x that S0 has just stored.  y is only read: nothing to forward.
RECURRENCE = """
void rec(int n, int m, double x[64][64], double y[64][64], double z[64][64]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++) {
      x[i][j] = 0.5 * x[i][j - 1] + y[i][j];
      z[i][j] = x[i][j] - z[i][j - 1] * y[i][j];
    }
#pragma endscop
}
"""

# A cell read before the thread stores it (the same instance) is not compared.
READ_THEN_WRITE = """
void rtw(int n, int m, double z[64][64]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      z[i][j] = 2.0 * z[i][j] + 1.0;
#pragma endscop
}
"""

def _scop(text: str, name: str, tmp_path: Path) -> polycu.Scop:
    source = tmp_path / name
    source.write_text(text)
    return polycu.load(str(source))[0]


def _references(scop: polycu.Scop, refs: frozenset[str]) -> set[tuple[str, str]]:
    """(statement, C text of the reference) of each of ``refs``."""
    from pycparser import c_generator
    printer = c_generator.CGenerator()
    return {(s.name, printer.visit(a.node)) for s in scop.statements for a in s.accesses
            if a.ref in refs}


def _emulated(scop: polycu.Scop, options: Options, params: dict[str, int]):
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    cuda = scop_translation_unit(description)
    return cuda, emulate_scop(scop, cuda, description["host_function"], seed=7,
                              nvcc=False, params=params)


def test_the_reads_of_cells_the_thread_stores_are_forwarded(tmp_path: Path) -> None:
    scop = _scop(RECURRENCE, "rec.c", tmp_path)
    (placed,) = placement_of(scop, FORWARD).kernels
    assert _references(scop, placed.forwarded) == {
        ("S0", "x[i][j - 1]"), ("S1", "x[i][j]"), ("S1", "z[i][j - 1]")}
    assert ("  forwarded: x[i][j - 1] in S0, x[i][j] in S1, z[i][j - 1] in S1 (the "
            "thread's last store") in format_placement(placement_of(scop, FORWARD))
    (plain,) = placement_of(scop, Options(run_on="gpu")).kernels
    assert plain.forwarded == frozenset()
    once = _scop(READ_THEN_WRITE, "rtw.c", tmp_path)
    assert all(p.forwarded == frozenset() for p in placement_of(once, FORWARD).kernels)


def test_forwarded_code_stores_then_keeps_the_value_and_matches_gcc(tmp_path: Path) -> None:
    scop = _scop(RECURRENCE, "rec.c", tmp_path)
    cuda, report = _emulated(scop, FORWARD, {"n": 37, "m": 45})
    assert report.ok, report.format()
    # each store to x and z sets the value and its address; the forwarded reads
    # compare the address, y's are plain
    assert len(re.findall(r"; r\d+ = &x\[", cuda)) == 1
    assert len(re.findall(r"; r\d+ = &z\[", cuda)) == 1
    assert cuda.count("== &x[") == 2 and cuda.count("== &z[") == 1
    assert "== &y[" not in cuda


def test_a_compound_assignment_to_a_forwarded_cell_reads_the_register() -> None:
    """symm sums temp2 (expanded) and C[i][j] with +=: each step adds to the cell
    the step before stored, so ``X += e`` is printed ``X = X' + (e)`` with X' the
    forwarded read; a conditional on the left of += would have written the register
    instead of memory (found by the emulation of symm)."""
    path = ROOT / "polybench" / "linear-algebra" / "blas" / "symm" / "symm.c"
    scop = polycu.load(str(path), includes=[UTILITIES], defines=["MINI_DATASET"])[0]
    cuda, report = _emulated(scop, FORWARD, {"m": 17, "n": 29})
    assert report.ok, report.format()
    compound = [line for line in cuda.splitlines() if "+=" in line and "== &" in line]
    assert compound == []
    assert re.search(r"= \((C\[[^]]*\]) = \(r\d+ == &\1 \? r\d+ : \1\) \+ ", cuda)


def test_kernels_whose_threads_share_memory_forward_nothing(tmp_path: Path) -> None:
    """A kernel whose threads synchronise (tree reductions, tensor cores, one block of
    phases: ``with_forwarding``'s ``barriers``) forwards nothing, even a recurrence;
    gemm's kernel reads shared tiles between barriers: no forwarding either."""
    from polycu.memory.forwarding import with_forwarding
    scop = _scop(RECURRENCE, "rec.c", tmp_path)
    placement = placement_of(scop, Options(run_on="gpu"))
    (kernel,) = placement.program.kernels
    assert with_forwarding(placement, frozenset()).kernels[0].forwarded
    assert with_forwarding(placement, frozenset({kernel.name})).kernels[0].forwarded \
        == frozenset()
    gemm = ROOT / "polybench" / "linear-algebra" / "blas" / "gemm" / "gemm.c"
    scop = polycu.load(str(gemm), includes=[UTILITIES], defines=["MINI_DATASET"])[0]
    placement = placement_of(scop, FORWARD)
    assert any(p.barriers for p in placement.kernels)
    assert all(p.forwarded == frozenset() for p in placement.kernels)


@pytest.mark.parametrize("name", ["adi", "seidel-2d", "lu", "nussinov"])
def test_polybench_kernels_with_forwarding_match_gcc(name: str) -> None:
    path = next((ROOT / "polybench").glob(f"**/{name}/{name}.c"))
    scop = polycu.load(str(path), includes=[UTILITIES], defines=["MINI_DATASET"])[0]
    params = dict(zip(scop.parameters, [12] * len(scop.parameters)))
    _, report = _emulated(scop, FORWARD, params)
    assert report.ok, report.format()
