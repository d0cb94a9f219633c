"""Grids past CUDA's limits (65535 blocks along y and z, 2^31 - 1 along x): the
launch caps the grid and the kernel's blocks loop (``codegen/grid.py``).

Before, a 2-D mapping of 4,000,000 rows asked for 125,000 blocks along y and the
launch failed; a parametric 3-D mapping did so from n > 2,097,120.  The emulation
tests cap the grid at 2 blocks (the generated cap rewritten), so the loops run many
turns at small sizes; without the loops, or without the barrier that ends a turn,
the emulation fails.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import polycu
from polycu.bench import cpu as polybench_cpu
from polycu.diagnostics import PolycuError
from polycu.driver import compile_scops, program_of
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit

GPU = Options(run_on="gpu")

TALL = """
#define N {rows}
double A[N][4], B[N][4];
void tall(void) {{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 4; j++)
      B[i][j] = A[i][j] * 2.0 + B[i][j];
#pragma endscop
}}
"""

DEEP = """
void deep({ptype} n, double A[n][4][4], double B[n][4][4]) {{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4; k++)
        B[i][j][k] = A[i][j][k] * 2.0 + B[i][j][k];
#pragma endscop
}}
"""

# float: no FP64 tensor cores, so shared tiles and register lanes (codegen/kernel.py)
SGEMM = """
void sgemm(int ni, int nj, int nk, float C[ni][nj], float A[ni][nk], float B[nk][nj]) {
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
"""

DGEMM = SGEMM.replace("float", "double").replace("sgemm", "dgemm")


def _scop(source: str, tmp_path: Path) -> tuple[polycu.Scop, str, str]:
    path = tmp_path / "g.c"
    path.write_text(source)
    (scop,) = polycu.load(str(path))
    description = compile_scops(str(path), [scop], GPU).description["scops"][0]
    return scop, scop_translation_unit(description), description["host_function"]


def _looped(source: str, tmp_path: Path) -> list[frozenset[str]]:
    path = tmp_path / "l.c"
    path.write_text(source)
    (scop,) = polycu.load(str(path))
    return [k.looped(scop) for k in program_of(scop, GPU).kernels]


@pytest.mark.parametrize("source, looped", [
    (TALL.format(rows=4_000_000), {"y"}),         # 125,000 blocks of 32 rows
    (TALL.format(rows=2_097_120), set()),         # 65,535 blocks: the limit itself
    (TALL.format(rows=2_097_121), {"y"}),
    (DEEP.format(ptype="int"), {"z"}),            # n up to 2^31 - 1
    (DEEP.format(ptype="unsigned short"), set()),  # at most 8,192 blocks
    (SGEMM, {"y"}),                               # rows on y; columns on x fit 2^31 - 1
])
def test_looped_axes_are_those_whose_grid_may_pass_the_limit(
        tmp_path: Path, source: str, looped: set[str]) -> None:
    assert _looped(source, tmp_path) == [frozenset(looped)]


def test_the_launch_caps_the_grid_and_the_blocks_loop(tmp_path: Path) -> None:
    _, cuda, _ = _scop(TALL.format(rows=4_000_000), tmp_path)
    assert "for (int b0 = blockIdx.y; b0 < 125000; b0 += gridDim.y) {" in cuda
    assert "polycu_grid(1, 65535, 1)" in cuda
    _, small, _ = _scop(TALL.format(rows=1_000_000), tmp_path)
    assert "gridDim." not in small and "polycu_grid(1, 31250, 1)" in small
    _, deep, _ = _scop(DEEP.format(ptype="int"), tmp_path)
    # eight values of i a block (driver.COLUMNS_3D)
    assert "for (int b0 = blockIdx.z; b0 < ((n - 1) / 8 + 1); b0 += gridDim.z) {" in deep
    assert "polycu_min((n - 1) / 8 + 1, 65535)" in deep


def _capped(cuda: str, blocks: int = 2) -> str:
    """The generated code with every looped axis capped at ``blocks`` blocks."""
    capped, count = re.subn(r"polycu_min\(([^;]*), 65535\)", rf"polycu_min(\1, {blocks})", cuda)
    assert count >= 1
    return capped


def _one_turn(cuda: str) -> str:
    """Each block runs only its first tile (the loops gone, the cap kept)."""
    once, count = re.subn(r"(\w+) < [^;]*; \1 \+= gridDim\.(\w)\)",
                          r"\1 == (int)blockIdx.\2; \1 += gridDim.\2)", cuda)
    assert count >= 1
    return once


@pytest.mark.parametrize("source, params, tensor", [
    (SGEMM, {"ni": 150, "nj": 40, "nk": 21}, False),   # 5 blocks on y: 3 turns
    (DGEMM, {"ni": 200, "nj": 70, "nk": 30}, True),    # the contraction's own kernel
    (DEEP.format(ptype="int"), {"n": 170}, False),      # 22 blocks on z
])
def test_capped_grids_emulate_like_gcc(tmp_path: Path, source: str, params: dict[str, int],
                                       tensor: bool) -> None:
    scop, cuda, host = _scop(source, tmp_path)
    assert ("polycu_mma(" in cuda) == tensor
    capped = _capped(cuda)
    report = emulate_scop(scop, capped, host, seed=4, nvcc=False, params=params)
    assert report.ok, report.format()
    assert not emulate_scop(scop, _one_turn(capped), host, seed=4, nvcc=False,
                            params=params).ok


def test_the_barrier_that_ends_a_turn_is_needed(tmp_path: Path) -> None:
    """The contraction's first strips are copied before its strip loop's first
    barrier: without the barrier that ends a turn, they overwrite shared memory
    other threads still read.  (The shared tiles of codegen/kernel.py start each
    strip with a barrier, so there the one that ends a turn is redundant.)"""
    params = {"ni": 200, "nj": 70, "nk": 20}   # 3 strips: the last in buffer 2 of 4,
    scop, cuda, host = _scop(DGEMM, tmp_path)   # which the next turn's prologue refills
    capped = _capped(cuda)
    ending = re.search(r"(\n\s*__syncthreads\(\);)\n\s*\}\n\}", capped)
    assert ending is not None
    broken = capped[:ending.start(1)] + capped[ending.end(1):]
    with pytest.raises(PolycuError, match=r"\(a missing barrier\)"):
        emulate_scop(scop, broken, host, seed=4, nvcc=False, params=params)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_builds_the_looped_kernels(tmp_path: Path) -> None:
    for name, source in (("tall", TALL.format(rows=4_000_000)), ("sgemm", SGEMM),
                         ("dgemm", DGEMM)):
        path = tmp_path / f"{name}.c"
        path.write_text(source)
        cu = tmp_path / f"{name}.cu"
        cu.write_text(polycu.compile(str(path), GPU).cuda)
        subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / f"{name}.o")],
                       check=True, capture_output=True, text=True)


def test_a_conditional_grid_is_parenthesised_in_the_loop(tmp_path: Path) -> None:
    """seidel-2d's wavefront grid along y grows with tsteps (no array bounds it) and
    is a conditional expression: ``b0 < c ? x : y`` would compare first.  At SMALL
    (tsteps 40) its launches have up to 2 blocks along y; capped at 1, the blocks
    loop."""
    kernel = polybench_cpu.find_kernels()
    (seidel,) = [k for k in kernel if k.name == "seidel-2d"]
    options = Options(define=["SMALL_DATASET"], run_on="gpu",
                      include_dir=[str(polybench_cpu.UTILITIES_DIR), str(seidel.directory)])
    (scop,) = polycu.load(str(seidel.source), defines=options.define,
                          includes=options.include_dir)
    description = compile_scops(str(seidel.source), [scop], options).description["scops"][0]
    cuda, host = scop_translation_unit(description), description["host_function"]
    assert re.search(r"b0 < \(h0 [^;]* \? [^;]*\); b0 \+= gridDim\.y\)", cuda)
    capped = _capped(cuda, blocks=1)
    report = emulate_scop(scop, capped, host, seed=6, nvcc=False)
    assert report.ok, report.format()
    assert not emulate_scop(scop, _one_turn(capped), host, seed=6, nvcc=False).ok
