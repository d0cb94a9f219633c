"""Sizes of kernels with three parallel members (driver.py's ``COLUMNS_3D``).

The default 32x32x32 tiles run by 32x4x2 threads give each thread 16x8 points and a
cube of side 118 (heat-3d at LARGE) only 64 blocks; a 3-D kernel that is not fed on
chip is mapped again with eight values of the outermost member a thread and 32x4
threads on the inner two (heat-3d LARGE on an H100: 31.7 ms -> 6.94 ms)."""
from __future__ import annotations

import io

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import placement_of
from polycu.options import Options

HEAT = """
void f(int tsteps, int n, double A[40][40][40], double B[40][40][40])
{
  int t, i, j, k;
#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}
"""


def mapped_sizes(options: Options | None = None) -> list[list[tuple[int, int]]]:
    """(tile, block) of each mapped member, outermost first, for each kernel."""
    scop = polycu.load_text(HEAT, "heat.c")[0]
    placement = placement_of(scop, options, Reporter(stream=io.StringIO()))
    return [[(m.tile, m.block) for m in k.mapped] for k in placement.program.kernels]


def test_a_3d_stencil_runs_eight_outermost_values_a_thread():
    assert mapped_sizes() == [[(8, 1), (4, 4), (32, 32)]] * 2


def test_sizes_the_user_gave_are_kept():
    sizes = "{ kernel[i] -> tile[2,4,32]; kernel[i] -> block[32,4,2] }"
    assert mapped_sizes(Options(sizes=sizes)) == [[(2, 2), (4, 4), (32, 32)]] * 2
    assert mapped_sizes(Options(tile_size=16)) == [[(16, 2), (16, 4), (16, 16)]] * 2


def test_the_3d_stencil_runs_like_the_original(emulated):
    # partial tiles along every member (n - 2 = 11: 8 + 3 along i, 4 + 4 + 3 along
    # j), a cube smaller than one tile, and no interior at all
    emulated(HEAT, [{"tsteps": 3, "n": 13}, {"tsteps": 2, "n": 4}, {"tsteps": 1, "n": 2},
                    {"tsteps": 2, "n": 40}])
