"""Array expansion (schedule/expand.py, cells.py, copyout.py): a temporary array whose
values live within iterations of outer loops gets one copy per iteration, and the
final values of an array read after the SCoP are copied out of the last one.

doitgen's ``sum[p]`` is the example: rewritten for every (r, q), it made both loops
sequential (42,000 launches at LARGE, 297 ms on an H100); expanded, every kernel is
parallel (1.87 ms; docs/results/memory.md)."""
from __future__ import annotations

import io
import math

import islpy as isl
import pytest

import polycu
from polycu.codegen import generate
from polycu.codegen.ast import with_asts
from polycu.diagnostics import Reporter
from polycu.driver import candidates, choose, compile_file, placement_of
from polycu.gpu.mapping import map_to_gpu
from polycu.memory import format_placement, place, reads_on_chip
from polycu.memory.placement import MAX_LANES
from polycu.options import Options
from polycu.runtime.emulate import emulate_generated
from polycu.schedule.expand import expand_temporaries

DOITGEN = """
void f(int nr, int nq, int np, double A[20][20][20], double C4[20][20], double sum[20])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
"""

# The last write of t[p] is in iteration r = p: the copy reads the diagonal.
DIAGONAL = """
void f(int n, double B[50][50], double t[50])
{
  int r, p;
#pragma scop
  for (r = 0; r < n; r++)
    for (p = r; p < n; p++) {
      t[p] = B[r][p] * 2;
      B[r][p] = t[p] + 1;
    }
#pragma endscop
}
"""

# A scalar the program reads after the SCoP (a global): its last value is copied out.
GLOBAL_SCALAR = """
double last;
void f(int n, double a[100], double b[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    last = a[i] * 2;
    b[i] = last + 1;
  }
#pragma endscop
}
"""

# t[p] accumulates over r: each value comes from before the SCoP or the previous r.
ACCUMULATED = """
void f(int n, double B[50][50], double t[50])
{
  int r, p;
#pragma scop
  for (r = 0; r < n; r++)
    for (p = 0; p < n; p++)
      t[p] = t[p] + B[r][p];
#pragma endscop
}
"""

# Two nests reuse t: its final values come from the second, its first values die.
TWO_CHAINS = """
void f(int n, double B[50][50], double C[50][50], double t[50])
{
  int r, p;
#pragma scop
  for (r = 0; r < n; r++) {
    for (p = 0; p < n; p++)
      t[p] = B[r][p];
    for (p = 0; p < n; p++)
      B[r][p] = t[p] * 2;
  }
  for (r = 0; r < n; r++) {
    for (p = 0; p < n; p++)
      t[p] = C[r][p];
    for (p = 0; p < n; p++)
      C[r][p] = t[p] + 1;
  }
#pragma endscop
}
"""


def model(source: str):
    scop = polycu.load_text(source, "test.c")[0]
    return scop, polycu.dependences(scop)


def same_map(relation: isl.Map, text: str) -> bool:
    return relation.is_equal(isl.Map(text).align_params(relation.get_space()))


def copied(source: str, temporary: str, copy: str):
    """The model of ``source`` with ``temporary`` (its only new array) and the copy
    statement named ``copy``."""
    scop, deps = model(source)
    expanded = expand_temporaries(scop, deps)
    assert expanded is not None and expanded.arrays == (temporary,)
    return scop, deps, expanded.scop.statement(copy)


def test_sum_gets_one_row_per_r_and_q_and_its_last_row_is_copied_out():
    scop, deps = model(DOITGEN)
    expanded = expand_temporaries(scop, deps)
    assert expanded is not None and expanded.arrays == ("sum_x0",)
    assert expanded.scop.array("sum_x0").extents == (None, "nq", "20")
    s1 = expanded.scop.statement("S1")
    assert s1.text == "sum_x0[r][q][p] += A[r][q][s] * C4[s][p]"
    assert s1.reduction_array == "sum_x0"
    (copy,) = [s for s in expanded.scop.statements if s.name not in ("S0", "S1", "S2")]
    assert copy.text == "sum[c0] = sum_x0[nr - 1][nq - 1][c0]"
    assert copy.domain.is_equal(isl.Set(
        "[nr, nq, np] -> { S3[c0] : nr > 0 and nq > 0 and 0 <= c0 < np }"
    ).align_params(copy.domain.get_space()))
    (read,) = copy.reads
    assert same_map(read.relation, "[nr, nq] -> { S3[c0] -> sum_x0[nr - 1, nq - 1, c0] }")
    # the proof: the original flow, and the copy takes each element from its last writer
    original = expanded.deps.flow.subtract_range(isl.UnionSet.from_set(copy.domain))
    assert original.is_equal(deps.flow)
    assert not expanded.deps.anti.intersect(deps.anti).is_equal(deps.anti)


def test_the_expanded_doitgen_launches_no_kernel_from_a_host_loop():
    scop, deps = model(DOITGEN)
    best = choose(scop, deps, reporter=Reporter(stream=io.StringIO()))
    assert best.name.startswith("expand(sum_x0)+")
    placement = placement_of(scop, reporter=Reporter(stream=io.StringIO()))
    program = placement.program
    assert program.scop.array("sum_x0").local
    assert all(not k.host_ids and k.launches.is_singleton() for k in program.kernels)
    # the 3-D kernels' default 32x32x32 tiles run by 2x4x32 threads would ask for 16x8
    # lanes: no register tile that large; the product is mapped again with SQUARE_3D
    assert all(math.prod(k.lanes) <= MAX_LANES for k in placement.kernels)
    product = next(k for k in program.kernels if "S1" in k.statements)
    assert [(m.tile, m.block) for m in product.mapped] == [(1, 1), (64, 16), (32, 16)]
    placed = placement.kernel(product.name)
    assert placed.lanes == (1, 4, 2)
    assert reads_on_chip(program.scop, product, placed)
    assert {c.array: c.kind for c in placed.choices} == {"A": "shared", "C4": "shared",
                                                         "sum_x0": "register"}
    # the zero fill reads nothing on chip with SQUARE_3D either: COLUMNS_3D, eight
    # values of r a thread (its default tiles would give 32^3 points to 256 threads)
    init = next(k for k in program.kernels if "S0" in k.statements)
    assert [(m.tile, m.block) for m in init.mapped] == [(8, 1), (4, 4), (32, 32)]


@pytest.mark.parametrize("nr, nq, np", [(3, 4, 5), (1, 1, 1), (0, 2, 3), (2, 0, 3),
                                        (4, 3, 0), (5, 7, 20)])
def test_expanded_doitgen_runs_like_the_original(emulated, nr, nq, np):
    emulated(DOITGEN, [{"nr": nr, "nq": nq, "np": np}])


def test_the_copy_reads_the_diagonal_where_the_last_write_depends_on_the_element(emulated):
    _, _, copy = copied(DIAGONAL, "t_x0", "S2")
    assert copy.text == "t[c0] = t_x0[c0][c0]"
    source = emulated(DIAGONAL, [{"n": n} for n in (0, 1, 2, 17)])
    assert "t_x0" in compile_file(str(source)).cuda


def test_a_global_scalar_keeps_its_last_value(emulated):
    scop, deps, copy = copied(GLOBAL_SCALAR, "last_x0", "S2")
    assert copy.text == "last = last_x0[n - 1]"
    best = choose(scop, deps, reporter=Reporter(stream=io.StringIO()))
    assert best.name.startswith("expand(last_x0)+")
    emulated(GLOBAL_SCALAR, [{"n": n} for n in (0, 1, 2, 40)])


def test_an_array_read_before_the_scop_writes_it_is_not_expanded():
    scop, deps = model(ACCUMULATED)
    assert expand_temporaries(scop, deps) is None


def test_an_array_reused_by_two_nests_is_not_expanded_and_says_why():
    scop, deps = model(TWO_CHAINS)
    reporter = Reporter(stream=io.StringIO())
    assert expand_temporaries(scop, deps, reporter) is None
    messages = {d.message for d in reporter.diagnostics}
    assert messages == {"array 't' is not expanded in S0, S1: its values flow along "
                        "separate chains of statements",
                        "array 't' is not expanded in S2, S3: its values flow along "
                        "separate chains of statements"}


# -- snapshots (snapshot.py) -------------------------------------------------------------

# trmm: row i reads rows k > i before the SCoP rewrites them.
TRMM = """
void f(int m, int n, double alpha, double A[40][40], double B[40][50])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}
"""

# gemm: C's first read takes the value from before the SCoP, but only the same (i, j)
# writes C[i][j] afterwards: a snapshot would free nothing.
GEMM = """
void f(int n, double alpha, double beta, double A[40][40], double B[40][40],
       double C[40][40])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] *= beta;
      for (k = 0; k < n; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
"""

# Each a[i + 1] read in iteration i + 1 was written by iteration i: not from before.
SHIFT = """
void f(int n, double a[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    a[i + 1] = a[i] * 2;
#pragma endscop
}
"""


def test_trmm_reads_the_rows_below_from_a_snapshot():
    scop, deps = model(TRMM)
    assert expand_temporaries(scop, deps) is None          # nothing to expand
    snapped = expand_temporaries(scop, deps, snapshot=True)
    assert snapped is not None and snapped.arrays == ("B_in0",)
    (copy,) = [s for s in snapped.scop.statements if s.name == "S2"]
    assert copy.text == "B_in0[c0][c1] = B[c0][c1]"
    assert copy.domain.is_equal(isl.Set(
        "[m, n] -> { S2[c0, c1] : 1 <= c0 < m and 0 <= c1 < n }"
    ).align_params(copy.domain.get_space()))
    assert snapped.scop.statements[0] is copy           # it runs before everything
    assert snapped.scop.statement("S0").text == "B[i][j] += A[k][i] * B_in0[k][j]"
    # the rows no longer wait for the rows below them: both i and j are parallel
    best = choose(scop, deps, reporter=Reporter(stream=io.StringIO()))
    assert best.name.startswith("expand(B_in0)+")
    # the product is a triangular contraction: on tensor cores, apart from the scale
    tensor = placement_of(scop, reporter=Reporter(stream=io.StringIO())).tensor
    assert [(c.update, c.init) for c in tensor.values()] == [("S0", None)]
    placement = placement_of(scop, Options(tensor_cores=False),
                             reporter=Reporter(stream=io.StringIO()))
    program = placement.program
    assert max(len(k.mapped) for k in program.kernels) == 2
    assert all(not k.host_ids for k in program.kernels)
    # without them, lanes along i would run different k (k > i): the product is
    # mapped again with ROWS, one lane on i and two on j, and keeps B[i][j] in registers
    product = next(k for k in program.kernels if "S0" in k.statements)
    assert [(m.tile, m.block) for m in product.mapped] == [(16, 16), (64, 32)]
    placed = placement.kernel(product.name)
    assert placed.lanes == (1, 2) and [p.array for p in placed.registers] == ["B"]


@pytest.mark.parametrize("m, n", [(0, 3), (1, 1), (2, 5), (7, 3), (40, 50)])
def test_trmm_with_a_snapshot_runs_like_the_original(emulated, m, n):
    emulated(TRMM, [{"m": m, "n": n}])


@pytest.mark.parametrize("source", [GEMM, SHIFT])
def test_no_snapshot_where_it_frees_nothing_or_a_value_comes_from_the_scop(source):
    scop, deps = model(source)
    assert expand_temporaries(scop, deps, snapshot=True) is None


# -- edge cases: offsets, divisions, both transformations at once ------------------------

# r starts at 1: the cells are t_x0[r - 1], so the copy reads row n - 2.
OFFSET = """
void f(int n, double B[50][50], double t[50])
{
  int r, p;
#pragma scop
  for (r = 1; r < n; r++) {
    for (p = 0; p < n; p++)
      t[p] = B[r][p] * 3;
    for (p = 0; p < n; p++)
      B[r - 1][p] = B[r - 1][p] + t[p];
  }
#pragma endscop
}
"""

# Only even r write t: its last writer, r = 2 * floor((n - 1) / 2), has no form
# without division, so t is not expanded (the SCoP still runs, unexpanded).
EVEN_WRITES = """
void f(int n, double B[50][50], double t[50])
{
  int r, p;
#pragma scop
  for (r = 0; r < n; r += 2)
    for (p = 0; p < n; p++) {
      t[p] = B[r][p] * 3;
      B[r][p] = t[p] + 1;
    }
#pragma endscop
}
"""

# B's outer extent is unknown (a pointer parameter): its snapshot is sized from the
# footprint of the moved reads.
OPEN_TRMM = TRMM.replace("double B[40][50]", "double B[][50]")


def test_an_offset_row_is_copied_out_from_the_right_cell(emulated):
    _, _, copy = copied(OFFSET, "t_x0", "S2")
    assert copy.text == "t[c0] = t_x0[(n - 1) - 1][c0]"
    emulated(OFFSET, [{"n": n} for n in (0, 1, 2, 3, 30)])


def test_a_last_writer_with_a_division_is_not_copied_out_and_says_why(emulated):
    scop, deps = model(EVEN_WRITES)
    reporter = Reporter(stream=io.StringIO())
    assert expand_temporaries(scop, deps, reporter) is None
    (note,) = reporter.diagnostics
    assert note.message == ("array 't' is not expanded: the iteration that writes an "
                            "element of 't' last has no affine form")
    emulated(EVEN_WRITES, [{"n": n} for n in (0, 1, 4, 7)])


def test_a_snapshot_of_an_array_of_unknown_outer_extent(emulated):
    scop, deps = model(OPEN_TRMM)
    snapped = expand_temporaries(scop, deps, snapshot=True)
    assert snapped is not None and snapped.scop.array("B_in0").extents == (None, "50")
    source = emulated(OPEN_TRMM, [{"m": m, "n": n} for m, n in ((0, 2), (1, 1), (9, 13))])
    assert "B_in0" in compile_file(str(source)).cuda


def test_expansion_and_snapshot_together_run_like_the_original(tmp_path):
    # doitgen's second model: sum expanded and A's reads served by a snapshot
    scop, deps = model(DOITGEN)
    both = expand_temporaries(scop, deps, snapshot=True)
    assert both is not None and both.arrays == ("sum_x0", "A_in0")
    quiet = Reporter(stream=io.StringIO())
    schedules = [c.schedule for c in candidates(scop, deps, reporter=quiet)
                 if c.schedule.name.startswith("expand(sum_x0,A_in0)+")]
    assert schedules
    source = tmp_path / "doitgen.c"
    source.write_text(DOITGEN)
    program = with_asts(map_to_gpu(schedules[0].scop, schedules[0].deps, schedules[0].tree))
    description = generate(str(source), DOITGEN, [place(program)]).description
    for nr, nq, np in ((2, 3, 4), (1, 1, 0), (3, 2, 7)):
        (report,) = emulate_generated(polycu.load(str(source)), description,
                                      params={"nr": nr, "nq": nq, "np": np}, seed=np,
                                      nvcc=False)
        assert report.ok, report.format()
