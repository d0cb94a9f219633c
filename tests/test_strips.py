"""Full strips (polycu/memory/strips.py): the strips of a shared tile's loop whose
points are all in range run code of their own, in the same order."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.codegen.cuda import layouts
from polycu.codegen.kernel import kernel_source
from polycu.driver import compile_scops, program_of
from polycu.memory import place
from polycu.memory.strips import POINT
from polycu.model import maps_of
from polycu.runtime.emulate import emulate_scop, scop_translation_unit

ROOT = Path(__file__).resolve().parent.parent

# gemm whose k loop starts at FIRST: with FIRST = 5 the first strip is partial too.
GEMM = """
void gemm(int ni, int nj, int nk, double alpha, double beta, double C[70][80],
          double A[70][90], double B[90][80])
{
#pragma scop
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = FIRST; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}
"""


def load(tmp_path: Path, first: int):
    source = tmp_path / "gemm.c"
    source.write_text(GEMM.replace("FIRST", str(first)))
    return polycu.load(str(source))[0]


def classes(placed) -> list[isl.Set]:
    """The strips z of each class c at which the update S1 runs, as sets of z."""
    q, split = placed.strips
    (relation,) = [m for m in maps_of(split) if m.get_tuple_name(isl.dim_type.in_) == "S1"]
    times = relation.range()
    width = times.dim(isl.dim_type.set)
    found = []
    for c in range(3):
        at = times.fix_val(isl.dim_type.set, q, isl.Val(c))
        found.append(at.project_out(isl.dim_type.set, q + 2, width - q - 2)
                     .project_out(isl.dim_type.set, 0, q + 1))
    return found


def test_the_strips_of_gemm_split_into_full_ones_and_the_last_exactly(tmp_path):
    scop = load(tmp_path, 0)
    program = program_of(scop)
    (kernel,) = program.kernels
    placed = place(program).kernel(kernel.name)
    q, split = placed.strips
    context = kernel.context(scop.context)
    before, middle, after = [s.intersect_params(context.align_params(s.get_space()))
                             .coalesce() for s in classes(placed)]
    # Z1 = { z : 16 z + 15 < nk }; the last strip, partial, after it; none before
    full = isl.Set("[nk] -> { [z] : z >= 0 and 16z + 16 <= nk }")
    last = isl.Set("[nk] -> { [z] : z >= 0 and 16z < nk < 16z + 16 }")
    for found, expected in ((middle, full), (after, last)):
        expected = expected.align_params(found.get_space()).intersect_params(
            context.align_params(found.get_space()))
        assert found.is_equal(expected), (found, expected)
    assert before.is_empty()
    # the same order: every pair of instances in the same relative order
    assert split.lex_lt_union_map(split).is_equal(
        placed.order.lex_lt_union_map(placed.order))


def test_a_full_strip_runs_its_point_loop_unrolled_without_guards(tmp_path):
    scop = load(tmp_path, 0)
    program = program_of(scop)
    (kernel,) = program.kernels
    placement = place(program)
    placed = placement.kernel(kernel.name)
    body = [line.strip() for line in
            kernel_source(placement, kernel, layouts(scop)).splitlines()]
    point = f"c{placed.strips[0] + POINT}"
    loop = body.index(f"for (int {point} = 0; {point} <= 15; {point} += 1) {{")
    assert body[loop - 1] == "#pragma unroll"
    strip = max(k for k in range(loop) if body[k].startswith("for (int c3 = 0; c3 <= "))
    assert body[strip] == "for (int c3 = 0; c3 <= polycu_floord(nk, 16) - 1; c3 += 1) {"
    # the copies of a full strip load in-range k only: no guard on nk
    assert not any("nk" in line for line in body[strip + 1:loop])
    # the last, partial strip: its own loop, not unrolled
    tail = next(k for k in range(loop + 1, len(body))
                if body[k].startswith(f"for (int {point} "))
    assert body[tail] == f"for (int {point} = 0; {point} <= nk % 16 - 1; {point} += 1) {{"
    assert body[tail - 1] != "#pragma unroll"


@pytest.mark.parametrize("first", [0, 5])
def test_split_strips_compute_what_c_computes(tmp_path, first):
    scop = load(tmp_path, first)
    description = compile_scops(scop.location.file, [scop]).description["scops"][0]
    cuda = scop_translation_unit(description)
    for nk in (1, 5, 6, 15, 16, 17, 21, 32, 37, 48, 50):
        report = emulate_scop(scop, cuda, description["host_function"], seed=nk, nvcc=False,
                              params={"ni": 67, "nj": 45, "nk": nk})
        assert report.ok, report.format()


def test_a_partial_first_strip_gets_a_class_of_its_own(tmp_path):
    scop = load(tmp_path, 5)
    program = program_of(scop)
    (kernel,) = program.kernels
    placed = place(program).kernel(kernel.name)
    context = kernel.context(scop.context)
    before, middle, after = [s.intersect_params(context.align_params(s.get_space()))
                             for s in classes(placed)]
    # k = 5 .. 15 in strip 0, before the full strips (from 1 while 16 z + 15 < nk; with
    # none, nk < 32, every strip is in the last class)
    expected = isl.Set("[nk] -> { [0] : nk >= 32 }").align_params(before.get_space())
    assert before.is_equal(expected.intersect_params(context.align_params(
        expected.get_space())))
    assert middle.is_equal(isl.Set("[nk] -> { [z] : z >= 1 and 16z + 16 <= nk }")
                           .align_params(middle.get_space()).intersect_params(
                               context.align_params(middle.get_space())))
    q, split = placed.strips
    assert split.lex_lt_union_map(split).is_equal(
        placed.order.lex_lt_union_map(placed.order))


# fuzz seed 5603723: the copies' domains of this nest carry dozens of existentials;
# expressing each leaf's accesses through them cost isl about a second a leaf, the
# split code ran over its operation budget and the kernel fell back to the unsplit
# strips after 119 s of compilation.
EXISTENTIALS = """
void kernel(int n, double alpha0, double alpha1, double A[n][8], float B[7][10],
            double C[8][10])
{
#pragma scop
  for (int i = 1; i < n - 1; i += 1)
    for (int j = 0; j <= 7; ++j) {
      A[i][j] *= alpha1;
      for (int k = 0; k <= n + 1; k += 1)
        A[i][j] = A[i][j] + alpha0 * B[i][k] * C[j][k];
    }
#pragma endscop
}
"""


def test_copies_with_many_existentials_keep_their_full_strips(tmp_path):
    source = tmp_path / "existentials.c"
    source.write_text(EXISTENTIALS)
    (scop,) = polycu.load(str(source))
    result = compile_scops(str(source), [scop], polycu.Options(run_on="gpu"))
    body = [line.strip() for line in result.cuda.splitlines()]
    loop = body.index("for (int c4 = 0; c4 <= 63; c4 += 1) {")
    assert body[loop - 1] == "#pragma unroll"
    description = result.description["scops"][0]
    cuda = scop_translation_unit(description)
    for n in (3, 5, 8):
        report = emulate_scop(scop, cuda, description["host_function"], seed=n, nvcc=False,
                              params={"n": n})
        assert report.ok, report.format()


# fuzz seed 5633475, reduced: 3i + j mapped on tiles of 64 x 32 points, 16 x 16
# threads (the sizes SQUARE the driver maps contractions with).  The block's
# footprint of C, the thread ids projected out of each thread's, kept them as an
# existential under floor terms; the tile's offset then had four pieces and 25
# existentials, its copies' domains 43, and the program took a minute to compile.
SKEWED = """
void kernel(int n, double alpha1, double A[10][8], double B[11][11], double C[11][7])
{
#pragma scop
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= 6; j++) {
      A[i][j] *= alpha1;
      for (int k = 0; k <= n + 1; k++)
        A[i][j] += B[i][k] * C[k][j];
    }
#pragma endscop
}
"""
SQUARE = "{ kernel[i] -> tile[64,32]; kernel[i] -> block[16,16] }"


def test_a_tiles_footprint_is_the_polyhedron_it_equals(tmp_path):
    from polycu.memory.footprint import existentials, without_existentials
    from polycu.memory.lanes import blockwide, lane_order
    from polycu.memory.registers import accesses, keep
    from polycu.memory.shared import STRIP, strip_mine
    source = tmp_path / "skewed.c"
    source.write_text(SKEWED)
    (scop,) = polycu.load(str(source))
    program = program_of(scop, polycu.Options(run_on="gpu", sizes=SQUARE))
    (kernel,) = program.kernels
    lanes = lane_order(program, kernel)
    context = kernel.context(program.scop.context)
    # C's footprint at each strip of k, as shared.tiles forms it
    mined = strip_mine(lanes, 1, STRIP)
    prefix = mined.order.apply_range(keep(mined.width, 2, 0, mined.order.get_space()))
    access = accesses(program.scop, kernel, "C").intersect_domain(lanes.order.domain())
    projected = blockwide(prefix.reverse().apply_range(access), kernel, context)
    assert existentials(projected) > 0
    footprint = without_existentials(projected)
    assert existentials(footprint) == 0
    assert footprint.is_equal(projected)
    # the tile's offset max(0, 32 b1 - 3n, 32 b1 - 192 b0 - 189) along j, in three
    # pieces without existentials
    placed = place(program).kernel(kernel.name)
    (tile,) = [t for t in placed.shared if t.array == "C"]
    assert existentials(tile.offset) == 0 and tile.offset.n_basic_map() == 3


def test_a_strided_footprint_keeps_its_existential():
    from polycu.memory.footprint import existentials, without_existentials
    strided = isl.UnionMap("[n] -> { [p] -> A[e] : exists k: e = 2k + p and 0 <= e <= n }")
    assert without_existentials(strided) is strided and existentials(strided) == 1
