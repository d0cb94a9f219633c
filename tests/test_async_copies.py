"""Shared tiles copied with cp.async, and the tiles that pay by latency in kernels too
small to hide it (--async-copies: polycu/memory/asynchronous.py, memory/shared.py)."""
from __future__ import annotations

import re

import pytest

import polycu
from polycu.driver import compile_scops, placement_of, program_of
from polycu.memory.recurrence import carried
from polycu.memory.shared import LATENCY_STRIP, LATENCY_THREADS, latency_bound
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from test_shared_tiles import GEMM

# gramschmidt's R[k][j] = sum_i Q[i][k] A[i][j] for one k: one thread a column, a
# sequential loop down the rows; COLUMNS threads in all.
# One thread a column (--no-ordered-reductions: by default a double sum like this
# one has an ordered tree, many threads a column).
DOT = """
void dot(int n, int m, T R[COLUMNS], T Q[1000], T A[1000][COLUMNS])
{
#pragma scop
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      R[j] += Q[i] * A[i][j];
#pragma endscop
}
"""


def load(tmp_path, text: str):
    source = tmp_path / "kernel.c"
    source.write_text(text)
    return polycu.load(str(source))[0]


def emulated(scop, options: Options, params: dict[str, int]):
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    cuda = scop_translation_unit(description)
    report = emulate_scop(scop, cuda, description["host_function"], seed=20, params=params)
    return cuda, report


def kernels_of(cuda: str) -> list[str]:
    return re.findall(r"__global__ void \w+\(.*?\n}\n", cuda, re.S)


def test_tiles_copy_with_cp_async_and_wait_before_every_barrier(tmp_path):
    scop = load(tmp_path, GEMM.replace("BODY", "alpha * A[i][k] * B[k][j]")
                .replace("SCALAR", "double"))
    options = Options(ordered_reductions=False, async_copies=True, tensor_cores=False)
    placement = placement_of(scop, options)
    (placed,) = placement.kernels
    tiles = {t.array: t for t in placed.shared}
    # A's tile holds alpha * A[..] (scaled): its copy computes, so it stays a store
    assert (tiles["A"].scale, tiles["A"].asynchronous) == ("alpha", False)
    assert (tiles["B"].scale, tiles["B"].asynchronous) == (None, True)
    assert placed.of("B").reason.endswith("copied with cp.async")
    cuda, report = emulated(scop, options, {"ni": 37, "nj": 45, "nk": 29})
    assert report.ok, report.format()
    (kernel,) = kernels_of(cuda)
    lines = [line.strip() for line in kernel.splitlines()]
    assert any(line.startswith("POLYCU_COPY_ASYNC(s1[") and ", B[" in line for line in lines)
    assert not any(line.startswith("POLYCU_COPY_ASYNC(s0[") for line in lines)
    barriers = [k for k, line in enumerate(lines) if line == "__syncthreads();"]
    assert barriers and all(lines[k - 1] == "POLYCU_COPY_WAIT();" for k in barriers)
    # without the option nothing changes
    cuda, _ = emulated(scop, Options(ordered_reductions=False, async_copies=False, tensor_cores=False),
                       {"ni": 5, "nj": 5, "nk": 5})
    assert "POLYCU_COPY_ASYNC(" not in kernels_of(cuda)[0]
    assert "POLYCU_COPY_WAIT" not in kernels_of(cuda)[0]


@pytest.mark.parametrize("columns,bound", [(1200, True), (LATENCY_THREADS, True),
                                           (LATENCY_THREADS + 1, False)])
def test_a_kernel_is_latency_bound_up_to_one_warp_per_sm(tmp_path, columns, bound):
    scop = load(tmp_path, DOT.replace("COLUMNS", str(columns)).replace("T ", "double "))
    (kernel,) = program_of(scop).kernels
    assert latency_bound(program_of(scop), kernel) is bound


@pytest.mark.parametrize("ctype", ["double", "float"])
def test_a_latency_bound_kernel_gets_tiles_only_with_async_copies(tmp_path, ctype):
    scop = load(tmp_path, DOT.replace("COLUMNS", "1200").replace("T ", ctype + " "))
    plain = placement_of(scop, Options(ordered_reductions=False, async_copies=False))
    assert not plain.kernels[0].shared        # one thread reads each element: no tile
    options = Options(ordered_reductions=False, async_copies=True)
    placement = placement_of(scop, options)
    tiles = {t.array: t for t in placement.kernels[0].shared}
    assert sorted(tiles) == ["A", "Q"]
    # 1200 threads of 1000 steps: mapped in blocks of 4 (driver.SPREAD)
    assert tiles["A"].size == (LATENCY_STRIP, 4) and tiles["Q"].size == (LATENCY_STRIP,)
    assert all(t.asynchronous and t.latency for t in tiles.values())
    assert placement.kernels[0].of("A").reason.endswith("too few to hide a load's latency")
    # full strips, a partial last one, and fewer rows than one strip
    for m in (2 * LATENCY_STRIP, 150, 7):
        cuda, report = emulated(scop, options, {"n": 70, "m": m})
        assert report.ok, report.format()
        assert "POLYCU_COPY_ASYNC(" in kernels_of(cuda)[0]


# DOT's shape with a recurrence through memory: each step reads what the step before
# stored in another element (adi's sweeps, p[i][j] = f(p[i][j - 1])).
CARRY = """
void carry(int n, int m, double R[1000][1200], double Q[1000], double A[1000][1200])
{
#pragma scop
  for (int j = 0; j < n; j++)
    for (int i = 1; i < m; i++)
      R[i][j] = R[i - 1][j] * 0.5 + Q[i] * A[i][j];
#pragma endscop
}
"""


def test_no_latency_tile_where_each_step_waits_for_the_last_ones_store(tmp_path):
    """adi on an H200 at MEDIUM: 17.8 ms with its latency tiles, 16.1 ms without."""
    dot = load(tmp_path, DOT.replace("COLUMNS", "1200").replace("T ", "double "))
    (kernel,) = program_of(dot).kernels
    assert not carried(dot, kernel)           # R[j] += ...: an update in place
    scop = load(tmp_path, CARRY)
    program = program_of(scop)
    (kernel,) = program.kernels
    assert latency_bound(program, kernel) and carried(scop, kernel)
    options = Options(ordered_reductions=False, async_copies=True)
    assert not placement_of(scop, options).kernels[0].shared
    cuda, report = emulated(scop, options, {"n": 70, "m": 50})
    assert report.ok, report.format()


def test_no_latency_tile_for_elements_cp_async_cannot_copy(tmp_path):
    """2-byte elements: a tile for latency alone would be copied through registers,
    one latency an element, so there is none."""
    scop = load(tmp_path, DOT.replace("COLUMNS", "1200").replace("T ", "short "))
    assert not placement_of(scop, Options(ordered_reductions=False, async_copies=True)).kernels[0].shared


def test_a_missing_wait_is_caught(tmp_path):
    """The emulation lands a cp.async copy when its thread waits, and a barrier
    reached with copies pending stops the run: a missing wait cannot pass."""
    from polycu.diagnostics import PolycuError
    scop = load(tmp_path, DOT.replace("COLUMNS", "1200").replace("T ", "double "))
    description = compile_scops(scop.location.file, [scop], Options(ordered_reductions=False)).description["scops"][0]
    cuda = scop_translation_unit(description)
    params = {"n": 70, "m": 150}
    good = emulate_scop(scop, cuda, description["host_function"], seed=4, nvcc=False,
                        params=params)
    assert good.ok, good.format()
    lines = cuda.splitlines()
    copy = next(k for k, line in enumerate(lines) if "POLYCU_COPY_ASYNC(s" in line)
    wait = next(k for k in range(copy, len(lines)) if "POLYCU_COPY_WAIT();" in lines[k])
    assert lines[wait + 1].strip() == "__syncthreads();"
    without = "\n".join(lines[:wait] + lines[wait + 1:])
    with pytest.raises(PolycuError, match=r"cp.async copies not waited for"):
        emulate_scop(scop, without, description["host_function"], seed=4, nvcc=False,
                     params=params)
