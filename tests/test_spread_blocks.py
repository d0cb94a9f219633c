"""Blocks of 4 threads for 1-D kernels of few threads with long loops (driver.py's
``SPREAD``).

A launch of at most one warp per SM whose threads each run a loop of at least
``SPREAD_STEPS`` steps is mapped again with blocks of 4 threads, so that every SM
runs some of them (adi's sweeps on an H200 at LARGE: 1.28x).  A kernel of the same
few threads without a loop keeps the default blocks."""
from __future__ import annotations

import io

import islpy as isl
import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import SPREAD_STEPS, placement_of
from polycu.options import Options

# one thread a row of a recurrence along j (adi's forward sweep), at the sizes the
# extents allow: 1000 rows
SWEEP = """
void f(int n, double p[1000][1000], double q[1000][1000], double u[1000][1000],
       double v[1000])
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++) {
    p[i][0] = 0.0;
    q[i][0] = v[i];
    for (j = 1; j < n - 1; j++) {
      p[i][j] = -0.5 / (0.25 * p[i][j - 1] + 1.5);
      q[i][j] = (u[j][i - 1] - 2.0 * u[j][i] + u[j][i + 1] - 0.25 * q[i][j - 1])
                / (0.25 * p[i][j - 1] + 1.5);
    }
  }
#pragma endscop
}
"""
# as few threads without a loop (fdtd-2d's first row)
ROW = """
void f(int n, double u[1000][1000], double v[1000])
{
  int j;
#pragma scop
  for (j = 0; j < n; j++)
    u[0][j] = v[j];
#pragma endscop
}
"""


def mapped_sizes(source: str, options: Options | None = None) -> list[list[tuple[int, int]]]:
    """(tile, block) of each mapped member for each kernel."""
    scop = polycu.load_text(source, "sweep.c")[0]
    placement = placement_of(scop, options, Reporter(stream=io.StringIO()))
    return [[(m.tile, m.block) for m in k.mapped] for k in placement.program.kernels]


def test_a_long_loop_on_few_threads_runs_in_blocks_of_four():
    assert 1000 - 2 >= SPREAD_STEPS
    assert mapped_sizes(SWEEP) == [[(4, 4)]]
    assert mapped_sizes(ROW) == [[(32, 32)]]


def test_short_loops_and_sizes_the_user_gave_keep_their_blocks():
    short = SWEEP.replace("[1000][1000]", "[1000][100]").replace(
        "for (j = 1; j < n - 1; j++) {", "for (j = 1; j < 100 - 1; j++) {")
    assert mapped_sizes(short) == [[(32, 32)]]
    assert mapped_sizes(SWEEP, Options(tile_size=16)) == [[(16, 16)]]


def test_the_spread_sweep_runs_like_the_original(emulated):
    # rows a multiple of 4, a last block of 1-3 rows, fewer rows than a block, none
    emulated(SWEEP, [{"n": 10}, {"n": 13}, {"n": 5}, {"n": 2}, {"n": 40}])


def test_the_largest_launch_of_an_extent_isl_sees_as_rational():
    """isl's ``max_val`` refuses this extent (fuzz seed 5606865: a mapped member's
    bounds with floors of a host loop's counter; the compile crashed); the largest
    integer value of its range is the answer, infinite without a bound on ``h``."""
    from polycu.memory.shared import _largest
    bounded = isl.PwAff("[h] -> { [(3h - (3 + h) mod 6)/3] : 0 <= h <= 10 }")
    with pytest.raises(isl.Error):
        bounded.max_val()
    assert _largest(bounded).to_python() == 9
    assert _largest(isl.PwAff("[h] -> { [(3h - (3 + h) mod 6)/3] }")).is_infty()
    assert _largest(isl.PwAff("[n] -> { [(n)] : 0 <= n <= 70 }")).to_python() == 70
