"""Programs of many small launches run in one block (issue 14: launch-bound time loops).

``gpu.cost`` estimates a mapped program both ways (a launch per kernel and host point,
or one launch of one block whose threads share every former launch) and the ranking
takes the cheaper; ``codegen/single_block.py`` prints the host program as that one
kernel.  Checked here: the estimate, the choice, the printed kernel and host code,
and the emulation (with barriers, the phases' threads in reverse order) against gcc's
build of the original, for 1-D and 2-D phases, a one-thread phase and integer data.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.driver import compile_file, placement_of
from polycu.gpu.cost import (BARRIER, BLOCK_THREADS, INSTANCE, LAUNCH, SM_INSTANCE, KernelCost,
                             single_block_cost)
from polycu.memory import GLOBAL, READ_ONLY
from polycu.options import Options

# Time steps of a small 1-D stencil: two launches of n threads per step.
JACOBI = """
void f(int tsteps, int n, double A[200], double B[200])
{
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = B[i] - 0.5 * A[i];
  }
#pragma endscop
}
"""

# A forward substitution: per row, a one-thread reduction, then a parallel update.
SOLVE = """
void f(int n, double L[100][100], double x[100], double b[100])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}
"""

# 2-D phases on a small fixed grid (the estimate sets every parameter to 1024),
# integers with negative values.
GRID = """
void f(int steps, long A[24][40], long B[24][40])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 1; i < 23; i++)
      for (j = 1; j < 39; j++)
        B[i][j] = (A[i - 1][j] - A[i + 1][j]) / 3 + A[i][j - 1] % 7 - A[i][j + 1];
    for (i = 1; i < 23; i++)
      for (j = 1; j < 39; j++)
        A[i][j] = B[i][j] / 2 - t;
  }
#pragma endscop
}
"""

# One big 2-D launch and no host loop: never one block.
GEMM = """
void f(int n, double A[64][64], double B[64][64], double C[64][64])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
"""


def _compiled(tmp_path: Path, source: str, **options: object) -> str:
    path = tmp_path / "f.c"
    path.write_text(source)
    return compile_file(str(path), Options(**options), Reporter(stream=io.StringIO())).cuda


def _kernels(cuda: str) -> list[str]:
    return re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', cuda)


def test_the_estimate_of_one_block_is_the_documented_sum():
    # 100 launches of 512 threads, each instance once; one single-thread kernel of
    # 10 launches running 1000 instances.
    wide = KernelCost("k0", ("S0",), 1, 1, 100.0, 512.0, 1.0, 0, (51200.0,))
    alone = KernelCost("k1", ("S1",), 0, 1, 10.0, 1.0, 0.0, None, (1000.0,))
    expected = LAUNCH + 51200 * max(INSTANCE / 512, SM_INSTANCE) + 1000 * INSTANCE \
        + BARRIER * 110
    assert single_block_cost([wide, alone]) == pytest.approx(expected)
    once = KernelCost("k0", ("S0",), 1, 0, 1.0, 512.0, 1.0, 0, (512.0,))
    assert single_block_cost([once]) is None


def test_a_time_loop_of_small_launches_becomes_one_launch_of_one_block(tmp_path):
    cuda = _compiled(tmp_path, JACOBI)
    (name,) = _kernels(cuda)
    assert name.endswith("_block")
    assert f"__launch_bounds__({BLOCK_THREADS})" in cuda
    kernel = cuda[cuda.index("__launch_bounds__"):cuda.index("extern \"C\" void")]
    # the host loop runs in the kernel; each of its two launches is a phase
    assert "for (int c0 = 0; c0 <= tsteps - 1; c0 += 1)" in kernel
    # A and B (written, 200 doubles each) live in shared memory for the launch: copied
    # in, a barrier, the two phases under their own names, copied out
    assert kernel.count("__syncthreads();") == 3
    assert kernel.count("polycu_v += blockDim.x") == 2
    assert "POLYCU_SHARED(double, polycu_resident_A, 200);" in kernel
    assert "auto &B = polycu_resident_B;" in kernel
    assert kernel.count("polycu_c += blockDim.x") == 4
    host = cuda[cuda.index('extern "C" void'):]
    assert host.count("POLYCU_LAUNCH(") == 1 and "for (" not in host
    assert f"POLYCU_BLOCK_THREADS({BLOCK_THREADS}, 1, 1)" in host


def test_no_single_block_keeps_a_launch_per_host_point(tmp_path):
    cuda = _compiled(tmp_path, JACOBI, single_block=False)
    assert len(_kernels(cuda)) == 2 and "__launch_bounds__" not in cuda
    host = cuda[cuda.index('extern "C" void'):]
    assert "for (int c0 = 0; c0 <= tsteps - 1; c0 += 1)" in host


def test_memory_overrides_keep_the_kernels(tmp_path):
    cuda = _compiled(tmp_path, JACOBI, memory=["0:A=global"])
    assert len(_kernels(cuda)) == 2


def test_one_big_launch_never_runs_in_one_block(tmp_path):
    cuda = _compiled(tmp_path, GEMM)
    assert "__launch_bounds__(1024)" not in cuda and len(_kernels(cuda)) == 1


def test_arrays_a_phase_writes_are_read_plainly_and_nothing_is_shared(tmp_path):
    path = tmp_path / "f.c"
    path.write_text(SOLVE)
    scop = polycu.load(str(path))[0]
    placement = placement_of(scop, Options(), Reporter(stream=io.StringIO()))
    assert placement.program.single_block
    kinds = {c.array: c.kind for k in placement.kernels for c in k.choices
             if c.kind in (GLOBAL, READ_ONLY)}
    assert kinds["x"] == GLOBAL            # written by a phase, read by the next
    assert kinds["L"] == READ_ONLY and kinds["b"] == READ_ONLY
    assert all(not k.shared and not k.barriers for k in placement.kernels)
    cuda = compile_file(str(path), Options(), Reporter(stream=io.StringIO())).cuda
    # x, which the phases write, lives in shared memory for the launch (its name, in
    # the phases' block, is the copy's); L is read
    assert "double *__restrict__ x" in cuda
    assert "POLYCU_SHARED(double, polycu_resident_x, 100);" in cuda
    assert "auto &x = polycu_resident_x;" in cuda
    assert "const double *__restrict__ L" in cuda and "polycu_resident_L" not in cuda
    assert "if (threadIdx.x == 0) {" in cuda      # the one-thread reduction


@pytest.mark.parametrize("source, sizes", [
    (JACOBI, [{"tsteps": 5, "n": 200}, {"tsteps": 1, "n": 3}, {"tsteps": 0, "n": 50}]),
    (SOLVE, [{"n": 100}, {"n": 1}]),
    (GRID, [{"steps": 4}, {"steps": 1}]),
], ids=["stencil", "solve", "grid"])
def test_one_block_programs_emulate_like_the_original(emulated, tmp_path, source, sizes):
    cuda = _compiled(tmp_path, source)
    assert "__launch_bounds__" in cuda
    emulated(source, sizes)


def test_two_dimensional_phases_name_every_block_and_thread(tmp_path):
    cuda = _compiled(tmp_path, GRID)
    kernel = cuda[cuda.index("__launch_bounds__"):cuda.index("extern \"C\" void")]
    for ident in ("t0", "t1", "b0", "b1"):
        assert re.search(rf"const int {ident} = \(int\)\(", kernel), ident
    assert "polycu_gx" in kernel and "polycu_gy" in kernel


def test_resident_arrays_fit_the_budget_and_have_constant_extents(tmp_path, emulated):
    # 4000 doubles each: A takes 32000 of the 49152 bytes, B no longer fits
    big = JACOBI.replace("[200]", "[4000]")
    kernel = _compiled(tmp_path, big)
    assert "POLYCU_SHARED(double, polycu_resident_A, 4000);" in kernel
    assert "polycu_resident_B" not in kernel and "double *__restrict__ B" in kernel
    emulated(big, [{"tsteps": 3, "n": 4000}, {"tsteps": 2, "n": 37}])
    # extents that are parameters: nothing resident
    vla = JACOBI.replace("double A[200], double B[200]", "double A[n], double B[n]")
    kernel = _compiled(tmp_path, vla)
    assert "__launch_bounds__" in kernel and "polycu_resident_" not in kernel


# The program's own increments and compound assignments on resident arrays, each as C
# computes it: F += 0.75 is F = (int)(F + 0.75) and C += 0.1 rounds once, in double
# (fuzz seed 5604822: A[j]-- did not build in the emulation).  Without registers
# (--no-private-memory), the updates apply to the shared copies themselves.
UPDATES = """
void f(int tsteps, int n, double A[64], int B[64], float C[64], double D[64],
       int E[64], int F[64], unsigned G[64])
{
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      D[i] = 0.5 * (A[i - 1] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = D[i] - 0.25;
    for (i = 0; i < n; i++)
      B[i]--;
    for (i = 0; i < n; i++)
      ++E[i];
    for (i = 0; i < n; i++)
      F[i] += 0.75;
    for (i = 0; i < n; i++)
      G[i] <<= 1;
    for (i = 0; i < n; i++)
      C[i] += 0.1;
  }
#pragma endscop
}
"""


def test_resident_arrays_take_every_update_as_c_does(tmp_path, emulated):
    kernel = _compiled(tmp_path, UPDATES, private_memory=False)
    for name in "ABCDEFG":
        assert f"auto &{name} = polycu_resident_{name};" in kernel
    lines = [line.strip() for line in kernel.splitlines()]
    for start, end in (("B[", "]--;"), ("++E[", "];"), ("F[", "] += 0.75;"),
                       ("G[", "] <<= 1;"), ("C[", "] += 0.1;")):
        assert any(line.startswith(start) and line.endswith(end) for line in lines), start
    emulated(UPDATES, [{"tsteps": 7, "n": 64}, {"tsteps": 3, "n": 5}], private_memory=False)
