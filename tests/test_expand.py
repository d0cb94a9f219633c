"""Scalar expansion (schedule/expand.py): which scalars are expanded and how, the
proof that every read keeps its write, and the programs that follow (ludcmp)."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.codegen import compile_file, program_of
from polycu.diagnostics import Reporter
from polycu.options import Options
from polycu.runtime.emulate import emulate_file
from polycu.schedule import IllegalSchedule, candidates, choose
from polycu.schedule.expand import expand_scalars

ROOT = Path(__file__).resolve().parent.parent

# Left-looking LU of one row at a time through the scalar w (ludcmp's first nest).
ROW_LU = """
void f(int n, double A[60][60])
{
  int i, j, k;
  double w;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
#pragma endscop
}
"""

# s carries a value from every i to the next: one live range spans the whole loop.
RUNNING = """
void f(int n, double a[100], double b[100])
{
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++) {
    s += a[i];
    b[i] = s;
  }
#pragma endscop
}
"""

# t is read before the SCoP writes it: its value comes from outside.
UPWARD = """
void f(int n, double a[100], double t)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    a[i] = t;
    t = a[i] + 1;
  }
#pragma endscop
}
"""

# An inner extent that is an expression of a parameter (m + 1): the linearised
# subscript must multiply by the whole of it.
WIDE = """
void f(int n, int m, double A[n][m + 1], double B[n][m + 1])
{
  int i, j;
  double w;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= m; j++) {
      w = A[i][j] * 2;
      B[i][j] = w + A[i][m - j];
    }
#pragma endscop
}
"""


# t lives inside one (i, j) iteration, but the SCoP's arrays are 1-D: t gets one
# cell per i only.
DEEP = """
void f(int n, double a[100], double b[100])
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t = a[j];
      for (k = 0; k < n; k++)
        t += a[k];
      b[i] = t;
    }
#pragma endscop
}
"""


def model(source: str):
    scop = polycu.load_text(source, "test.c")[0]
    return scop, polycu.dependences(scop)


def test_w_becomes_one_cell_per_row_and_column():
    scop, deps = model(ROW_LU)
    expanded = expand_scalars(scop, deps)
    assert expanded is not None and expanded.arrays == ("w_x0",)
    array = expanded.scop.array("w_x0")
    assert array.local and array.extents == ("n", "n - 1")
    for s in expanded.scop.statements:
        (access,) = [a for a in s.accesses if a.array == "w_x0"][:1]
        cells = isl.Map(f"{{ {s.name}[{', '.join(s.iterators)}] -> w_x0[i, j] }}")
        assert access.relation.is_equal(cells.align_params(access.relation.get_space()))
        assert "w_x0[i][j]" in s.text and "w " not in s.text
    # the proof: the same flow, instance pair for instance pair; w's order is gone
    assert expanded.deps.flow.is_equal(deps.flow)
    assert expanded.deps.anti.is_subset(deps.anti)
    assert not deps.anti.is_subset(expanded.deps.anti)


def test_the_expanded_schedule_runs_k_outermost_with_a_parallel_band():
    scop, deps = model(ROW_LU)
    quiet = Reporter(stream=open("/dev/null", "w"))
    best = choose(scop, deps, reporter=quiet)
    assert best.name.startswith("expand(w_x0)+")
    assert best.scop is not scop and best.scop.array("w_x0").local
    unexpanded = candidates(scop, deps, Options(expand_scalars=False), reporter=quiet)
    assert not any("expand" in c.schedule.name for c in unexpanded)
    ranked = candidates(scop, deps, reporter=quiet)
    assert ranked[0].score < unexpanded[0].score / 10


def test_a_live_range_across_iterations_is_not_expanded():
    scop, deps = model(RUNNING)
    assert expand_scalars(scop, deps) is None


def test_a_scalar_read_before_written_is_not_expanded():
    scop, deps = model(UPWARD)
    assert expand_scalars(scop, deps) is None


def test_expanded_program_allocates_the_temporary_on_the_device_only(tmp_path):
    source = tmp_path / "lu.c"
    source.write_text(ROW_LU)
    generated = compile_file(str(source))
    cuda = generated.cuda
    assert "cudaMalloc((void **)&dev_w_x0" in cuda
    assert "cudaMemcpy(dev_w_x0" not in cuda and "cudaMemcpy(w_x0" not in cuda
    for n in (1, 2, 45):
        (report,) = emulate_file(str(source), Options(), params={"n": n}, seed=11)
        assert report.ok, report.format()


def test_compound_inner_extents_are_parenthesised(tmp_path):
    source = tmp_path / "wide.c"
    source.write_text(WIDE)
    assert "* (m + 1) +" in compile_file(str(source)).cuda
    (report,) = emulate_file(str(source), Options(), params={"n": 9, "m": 6}, seed=5)
    assert report.ok, report.format()


def test_ludcmp_program_uses_expanded_temporaries_and_parallel_kernels():
    path = ROOT / "polybench/linear-algebra/solvers/ludcmp/ludcmp.c"
    options = Options(define=["SMALL_DATASET"], include_dir=[str(ROOT / "polybench/utilities")])
    (scop,) = polycu.load(str(path), defines=options.define, includes=options.include_dir)
    program = program_of(scop, options)
    assert {a.name for a in program.scop.arrays if a.local} >= {"w_x0", "w_x2"}
    mapped = [len(k.mapped) for k in program.kernels]
    assert max(mapped) == 2 and sum(mapped) >= 8


def test_a_saved_expanded_schedule_loads_back_on_the_expanded_model(tmp_path):
    scop, deps = model(ROW_LU)
    quiet = Reporter(stream=open("/dev/null", "w"))
    saved = tmp_path / "lu.yaml"
    first = choose(scop, deps, Options(save_schedule=str(saved)), reporter=quiet)
    loaded = choose(scop, deps, Options(load_schedule=str(saved)), reporter=quiet)
    assert loaded.name == f"loaded:{saved}" and loaded.get_map().is_equal(first.get_map())
    assert loaded.scop.array("w_x0").local
    # without expansion the same tree violates w's anti dependences: a located error
    with pytest.raises(IllegalSchedule, match="violates the (anti|output) dependence"):
        choose(scop, deps, Options(load_schedule=str(saved), expand_scalars=False),
               reporter=quiet)


def test_a_temporary_has_no_more_dimensions_than_the_arrays():
    scop, deps = model(DEEP)
    expanded = expand_scalars(scop, deps)
    assert expanded is not None and expanded.scop.array("t_x0").extents == ("n",)
    assert expanded.deps.flow.is_equal(deps.flow)
