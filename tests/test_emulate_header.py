"""polycu_emu.h alone: hand-written CUDA (tests/data/emulation/kernels.cu) built with g++
and run on the CPU.  The cases prove that the emulation shows the bugs a GPU would
show (a missing barrier, races and unwritten reads on POLYCU_SHARED arrays whatever the
timing, a barrier in divergent code, an illegal parallel loop, uninitialised device
memory, bad launches and copies) and computes right otherwise (shared memory, 1024-thread
blocks, atomicAdd, 3-D grids, textures, surfaces, constant memory), and that reads
through textures and surfaces see what memory held when the launch began, as a GPU's
incoherent texture cache may."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env

KERNELS = Path(__file__).parent / "data" / "emulation" / "kernels.cu"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = tmp_path_factory.mktemp("emu") / "kernels"
    subprocess.run(["g++", *EMULATION_FLAGS, "-Wall", "-Werror", "-I", str(INCLUDE_DIR),
                    "-x", "c++", str(KERNELS), "-o", str(binary)], check=True)
    return binary


def run(program: Path, case: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(program), case], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **emulation_env(), **(env or {})})


def fatal(program: Path, case: str) -> str:
    """The error output of a case that must stop before printing 'not reached'."""
    proc = run(program, case)
    assert proc.returncode != 0 and "not reached" not in proc.stdout
    return proc.stderr


def test_shared_memory_with_barrier_is_right(program: Path) -> None:
    assert run(program, "reverse").stdout == "wrong 0\n"


def test_missing_barrier_gives_wrong_results(program: Path) -> None:
    # Threads of a block run concurrently and shared memory starts as garbage, so
    # reading a neighbour's element before the barrier fails every time.
    for _ in range(5):
        out = run(program, "reverse-no-barrier").stdout
        wrong = int(out.split()[1])
        assert wrong > 100, out


def test_checked_shared_memory_with_barriers_is_right_and_silent(program: Path) -> None:
    proc = run(program, "staged")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "wrong 0\n", "")


@pytest.mark.parametrize("case", ["staged-no-barrier-after-load",
                                  "staged-no-barrier-before-overwrite"])
def test_missing_barrier_on_checked_shared_memory_is_a_race_every_time(
        program: Path, case: str) -> None:
    # Write-then-read or read-then-write, whichever order the threads ran in.
    for _ in range(5):
        proc = run(program, case)
        assert proc.returncode != 0 and "wrong" not in proc.stdout, proc.stdout
        assert "kernel staged, block (" in proc.stderr and " of shared array tile that thread " \
            in proc.stderr, proc.stderr
        assert "with no __syncthreads() between them (a missing barrier)" in proc.stderr
        assert proc.stderr.count("polycu_emu: error:") == 1, proc.stderr


def test_reading_unwritten_shared_memory_is_fatal(program: Path) -> None:
    stderr = fatal(program, "unwritten")
    assert ("kernel unwritten, block (0,0,0): thread 7 reads element 39 of shared array buf "
            "before any thread of the block wrote it") in stderr


def test_race_in_a_kernel_without_barriers_is_fatal(program: Path) -> None:
    # Threads run in reverse flattened order: (3,1) = 7, then (2,1) = 6.
    stderr = fatal(program, "same-element")
    assert ("kernel same_element, block (0,0,0): thread 6 writes element 1 of shared array flag "
            "that thread 7 also wrote with no __syncthreads() between them") in stderr


def test_blocks_of_1024_threads_with_barriers(program: Path) -> None:
    expected = sum(i % 17 for i in range(5000))
    assert run(program, "block-sum").stdout == f"sum {expected:.1f}\n"


def test_atomic_add(program: Path) -> None:
    total = sum((i * 7919) % 1001 - 500 for i in range(3000))
    assert run(program, "atomics").stdout == (f"double {total:.1f} float {total:.1f} int {total} "
                                              f"expected {total}\n")


def test_three_dimensional_grids_and_blocks(program: Path) -> None:
    assert run(program, "coordinates").stdout == "wrong 0 of 960\nwrong 0 of 960\n"


def test_illegal_parallel_loop_is_not_run_in_its_original_order(program: Path) -> None:
    assert run(program, "chain").stdout == "sequential result 0\n"


def test_device_memory_starts_as_nan(program: Path) -> None:
    assert run(program, "uninitialised").stdout == "nan 16\n"


def test_writes_outside_device_memory_are_fatal(program: Path) -> None:
    stderr = fatal(program, "past-the-end")
    assert ("kernel past_the_end wrote outside device memory: at byte 800 of the 800-byte "
            "allocation") in stderr


def test_launch_and_copy_errors_are_reported_like_cuda(program: Path) -> None:
    proc = run(program, "errors")
    assert proc.stdout.splitlines() == [
        "too many threads: invalid configuration argument",
        "then: no error",
        "empty grid: invalid configuration argument",
        "overflowing copy: invalid argument",
        "swapped copy: invalid argument",
        "free twice: no error, then invalid argument",
    ]
    assert "block (2048,1,1): the block has too many threads" in proc.stderr
    assert "260 bytes" in proc.stderr and "not inside one device allocation" in proc.stderr


def test_textures_surfaces_and_constant_memory(program: Path) -> None:
    assert run(program, "memories").stdout == "wrong 0\n"


def test_3d_textures_and_surfaces(program: Path) -> None:
    assert run(program, "volumes").stdout == "wrong 0\n"


def test_reads_through_objects_see_the_value_from_the_start_of_the_launch(program: Path) -> None:
    """A GPU's texture cache is not coherent with the writes of a launch: what a
    launch wrote (through a pointer or a surface) a fetch or surface read of the
    same launch may not see.  The emulation always returns the old value, so a
    wrong proof that a placement never reads back its writes shows; the writes
    reach memory, for the host and the next launch."""
    assert run(program, "stale").stdout == (
        "launch 1 fetched 0 1 2 3 1 2 3 0\n"
        "launch 2 fetched 100 101 102 103 101 102 103 100\n"
        "memory 200 201 202 203\n"
        "surface read 0 1 2 3 4 5 0 1 2 3 4 5\n"
        "array 100 101 102 103 104 105\n")


def test_an_object_over_freed_memory_is_fatal_only_when_used(program: Path) -> None:
    stderr = fatal(program, "freed-texture")
    assert "tex1Dfetch in fetch_one on an object whose memory was freed" in stderr


def test_barrier_in_divergent_code_is_fatal(program: Path) -> None:
    proc = run(program, "divergent")
    assert proc.returncode != 0
    assert ("kernel divergent_barrier, block (0,0,0): thread 5 passed 1 __syncthreads() but "
            "thread 0 passed 0") in proc.stderr


def test_barrier_in_a_kernel_launched_without_team_is_fatal(program: Path) -> None:
    proc = run(program, "barrier-without-team")
    assert proc.returncode != 0
    assert "__syncthreads() in needs_barrier, which was not launched with POLYCU_LAUNCH" \
        in proc.stderr


def test_dependent_launches_run_in_turn_and_each_thread_must_wait(program: Path) -> None:
    # --dependent-launches: launched one after another, as their waits make them on a
    # GPU; a thread that does not wait (one of 96 in the 7th launch) is reported
    proc = run(program, "dependent")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "sum 55\n", "")
    assert "kernel add_after was launched as a dependent launch, but only 93 of its 96 " \
        "threads waited for the launch before it" in fatal(program, "dependent-without-wait")


def test_short_openmp_team_is_a_launch_error(program: Path) -> None:
    proc = subprocess.run([str(program), "block-sum"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "OMP_THREAD_LIMIT": "8"})
    assert proc.returncode == 1
    assert "OpenMP refused a team of 1024 threads" in proc.stderr
    assert "too many resources requested for launch" in proc.stderr


def test_emulation_env_lifts_a_low_thread_limit(program: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "8")
    assert emulation_env()["OMP_THREAD_LIMIT"] == "1024"
    assert run(program, "block-sum").returncode == 0


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_test_kernels_are_valid_cuda(tmp_path: Path) -> None:
    """What the emulation runs, nvcc accepts: the API used above is CUDA's."""
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(KERNELS), "-o",
                           str(tmp_path / "kernels.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_wrapped_negative_allocation_size_is_refused(tmp_path: Path) -> None:
    """(size_t) -8 * sizeof(double) bytes: a GPU says out of memory, so must the
    emulation (rounding the size up to 256 bytes used to wrap it to an empty block)."""
    source = tmp_path / "malloc.cu"
    source.write_text(r'''#include "polycu_emu.h"
int main(int argc, char **argv)
{
  long n = atol(argv[1]);
  double *p = nullptr;
  cudaError_t e = cudaMalloc(&p, (size_t) n * sizeof(double));
  std::printf("%s %d\n", cudaGetErrorName(e), p == nullptr);
  if (e == cudaSuccess) cudaFree(p);
  return 0;
}
''')
    binary = tmp_path / "malloc"
    subprocess.run(["g++", *EMULATION_FLAGS, "-I", str(INCLUDE_DIR), "-x", "c++", str(source),
                    "-o", str(binary)], check=True)
    refused = subprocess.run([str(binary), "-8"], capture_output=True, text=True, timeout=60)
    assert refused.stdout == "cudaErrorMemoryAllocation 1\n"
    assert "cudaMalloc of 18446744073709551552 bytes" in refused.stderr
    fine = subprocess.run([str(binary), "1000"], capture_output=True, text=True, timeout=60)
    assert fine.stdout == "cudaSuccess 0\n" and not fine.stderr
