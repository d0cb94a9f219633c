"""Carried values: what a thread's recurrence stored one or two steps before, read
from registers (--carried-values: polycu/memory/carried.py, codegen/kernel.py)."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest
from pycparser.c_generator import CGenerator

from polycu.driver import compile_scops, placement_of, program_of
from polycu.memory.carried import carries
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from test_async_copies import kernels_of, load

# adi's forward sweep, a row a thread: p's recurrence, and q's, whose denominator
# reads the p of the step before, written by p's statement before q's in this step.
SWEEP = """
void sweep(int n, double a, double b, double c, double p[40][300], double q[40][300],
           double d[40][300])
{
#pragma scop
  for (int i = 0; i < 40; i++) {
    p[i][0] = 0.0;
    q[i][0] = d[i][0];
    for (int j = 1; j < n; j++) {
      p[i][j] = -c / (a * p[i][j - 1] + b);
      q[i][j] = (d[i][j] - a * q[i][j - 1]) / (a * p[i][j - 1] + b);
    }
  }
#pragma endscop
}
"""

ON_GPU = {"run_on": "gpu"}


def compiled(scop, options: Options) -> tuple[str, dict]:
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    return scop_translation_unit(description), description


def found(scop, placed) -> set[tuple[tuple[str, ...], str, int]]:
    """(writers, 'S:reference' read, values back) of a kernel's carries."""
    text = CGenerator()
    refs = {a.ref: f"{s.name}:{text.visit(a.node)}" for s in scop.statements
            for a in s.accesses}
    return {(c.writers, refs[ref], back) for c in placed.carried for ref, back in c.reads}


def test_a_recurrence_reads_the_last_two_values_from_registers(tmp_path):
    scop = load(tmp_path, SWEEP)
    (placed,) = placement_of(scop, Options(**ON_GPU)).kernels
    p0, q0, p, q = (s.name for s in scop.statements)
    # q's statement runs after p's in a step: the p it reads is the one before the last
    assert found(scop, placed) == {((p0, p), f"{p}:p[i][j - 1]", 0),
                                   ((p0, p), f"{q}:p[i][j - 1]", 1),
                                   ((q0, q), f"{q}:q[i][j - 1]", 0)}
    assert "kept in registers too" in placed.of("p").reason
    cuda, description = compiled(scop, Options(**ON_GPU))
    (text,) = kernels_of(cuda)
    # after p's store its registers shift and the first reloads the cell just stored
    assert re.search(r"(r\d+) = (r\d+);\n\s+\2 = p\[[^\n]*c\d+\];", text)
    assert not re.search(r"\* p\[[^\n]*- 1\]", text)     # no read of p[..][j - 1] left
    for n in (1, 2, 3, 300):       # no step, one, two, many
        report = emulate_scop(scop, cuda, description["host_function"], seed=7,
                              params={"n": n}, nvcc=n == 300)
        assert report.ok, report.format()


# x[j - 1] is the value x's writers (the row's third start and the loop) stored last;
# x[j - 3] three writes back: memory.  z's first read finds a value from before the
# launch: no register could hold it, so z's reads stay in memory; its read of x[j]
# takes the loop's store of this step.
REFUSED = """
void steps(int n, double x[30][400], double y[30][400], double z[30][400])
{
#pragma scop
  for (int i = 0; i < 30; i++) {
    x[i][0] = y[i][0];
    x[i][1] = y[i][1];
    x[i][2] = y[i][2];
    for (int j = 3; j < n; j++) {
      x[i][j] = 0.5 * x[i][j - 1] + x[i][j - 3];
      z[i][j] = z[i][j - 1] * 0.5 + x[i][j];
    }
  }
#pragma endscop
}
"""


def test_only_values_proven_to_be_the_ones_read(tmp_path):
    scop = load(tmp_path, REFUSED)
    (placed,) = placement_of(scop, Options(**ON_GPU)).kernels
    x2, x, z = [s.name for s in scop.statements][2:]
    # z's statement reads the x just stored in its step: the loop's writer alone
    assert found(scop, placed) == {((x2, x), f"{x}:x[i][j - 1]", 0),
                                   ((x,), f"{z}:x[i][j]", 0)}
    cuda, description = compiled(scop, Options(**ON_GPU))
    (text,) = kernels_of(cuda)
    assert re.search(r"\+ x\[[^\]]*- 3\)?\]", text)         # three writes back: memory
    assert re.search(r"z\[[^\]]*- 1\)?\] \* 0\.5", text)    # before the launch: memory
    for n in (3, 4, 5, 400):
        report = emulate_scop(scop, cuda, description["host_function"], seed=3,
                              params={"n": n}, nvcc=n == 400)
        assert report.ok, report.format()


def test_none_without_the_option_or_where_threads_are_virtual(tmp_path):
    scop = load(tmp_path, SWEEP)
    options = Options(**ON_GPU)
    assert all(not k.carried for k in
               placement_of(scop, options.replace(carried_values=False)).kernels)
    cuda, _ = compiled(scop, options.replace(carried_values=False))
    assert not re.search(r"r\d+ > 0 \?", cuda)
    program = program_of(scop, options)
    (kernel,) = program.kernels
    arrays = frozenset({"p", "q"})
    assert carries(program, kernel, arrays)
    assert carries(replace(program, single_block=True), kernel, arrays) == ()
    assert carries(replace(program, resident=True), kernel, arrays) == ()
