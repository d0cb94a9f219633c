"""Registers for some references of an array (memory/registers.py, ``_group_promotion``).

nussinov's ``table[i][j] = max(table[i][j], table[i][k] + table[k + 1][j])`` keeps
``table[i][j]`` in a register across the ``k`` loop while ``table[i][k]`` and
``table[k + 1][j]`` keep reading global memory: isl proves that at no ``k`` of a
thread do they touch the cell the register holds.  nvcc cannot, since all three go
through one pointer (nussinov LARGE on an H100: 0.675 s -> 0.145 s)."""
from __future__ import annotations

import io

import pytest
from pycparser import c_generator

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import compile_file, placement_of
from polycu.memory import registers
from polycu.options import Options
from polycu.runtime.emulate import emulate_file

MAX_PLUS = """
#define MAX(a, b) ((a) >= (b) ? (a) : (b))
void f(int n, int table[60][60])
{
  int i, j, k;
#pragma scop
  for (i = n - 1; i >= 0; i--)
    for (j = i + 1; j < n; j++)
      for (k = i + 1; k < j; k++)
        table[i][j] = MAX(table[i][j], table[i][k] + table[k + 1][j]);
#pragma endscop
}
"""

# The last term, k = 0, reads the very cell the loop accumulates into: no register.
SELF = """
void f(int n, int m, double A[50][50])
{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = m - 1; k >= 0; k--)
      A[i][0] += A[i][k] * 0.5;
#pragma endscop
}
"""

# The same with k > 0: the cell is never read by the other reference.
APART = SELF.replace("k >= 0", "k >= 1")


def loop_kernel(source: str):
    """The placement of the kernel whose statement runs the sequential loop."""
    scop = polycu.load_text(source, "test.c")[0]
    placement = placement_of(scop, Options(), Reporter(stream=io.StringIO()))
    (kernel,) = [k for k in placement.program.kernels if k.statements]
    return scop, placement, placement.kernel(kernel.name)


def held_texts(scop, placed) -> set[str]:
    (promotion,) = placed.registers
    return {c_generator.CGenerator().visit(a.node) for s in scop.statements
            for a in s.accesses if a.ref in (promotion.refs or ())}


def test_the_accumulated_cell_alone_is_held_in_a_register():
    scop, placement, placed = loop_kernel(MAX_PLUS)
    (promotion,) = placed.registers
    assert promotion.array == "table" and promotion.written and promotion.depth == 0
    assert held_texts(scop, placed) == {"table[i][j]"}
    (choice,) = placed.choices
    assert choice.kind == "register" and "for table[i][j]; its other references" in choice.reason


def test_the_kernel_loads_once_and_stores_once(tmp_path):
    path = tmp_path / "maxplus.c"
    path.write_text(MAX_PLUS)
    cuda = compile_file(str(path), Options(run_on="gpu")).cuda
    body = cuda[cuda.index("__global__"):]
    body = body[:body.index("\n}\n")]
    loop = body[body.index("for ("):]
    # inside the k loop the held cell is the register; the two other terms are not
    assert loop.count("r0[0]") >= 2 and "table[((" in loop
    assert body.count("r0[0] = table[") == 1 and body.count("] = r0[0];") == 1


def test_a_reference_that_reads_the_held_cell_prevents_the_register():
    _, _, placed = loop_kernel(SELF)
    assert not placed.registers
    scop, _, placed = loop_kernel(APART)
    assert held_texts(scop, placed) == {"A[i][0]"}


@pytest.mark.parametrize("source, sizes", [
    (MAX_PLUS, [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}, {"n": 37}, {"n": 60}]),
    (SELF, [{"n": 5, "m": 7}, {"n": 40, "m": 1}, {"n": 3, "m": 0}]),
    (APART, [{"n": 5, "m": 7}, {"n": 40, "m": 1}, {"n": 33, "m": 50}])])
def test_programs_with_held_references_run_like_the_original(emulated, source, sizes):
    emulated(source, sizes)


def test_without_the_proof_the_register_would_be_wrong(tmp_path, monkeypatch):
    # the proof is what keeps SELF right: skipping it holds A[i][0] in a register
    # while A[i][k] reads the stale memory cell at k = 0, and the emulation sees it
    monkeypatch.setattr(registers, "_apart", lambda *args: True)
    path = tmp_path / "self.c"
    path.write_text(SELF)
    (report,) = emulate_file(str(path), Options(run_on="gpu"), params={"n": 9, "m": 6},
                             seed=3, nvcc=False)
    assert not report.ok
