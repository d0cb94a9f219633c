"""A thread's reads copied ahead in strips with cp.async, where the kernel runs on one
thread or on too few to hide a load's latency (--async-copies:
polycu/memory/asynchronous.py marks, polycu/codegen/staging.py)."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from polycu.diagnostics import PolycuError
from polycu.driver import compile_scops, placement_of
from polycu.memory import LATENCY_STRIP, place
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from test_async_copies import kernels_of, load

# Back substitution (ludcmp's last loop): one thread, the row's dot product with the
# solution so far in a sequential loop.
BACK = """
void back(int n, T A[300][300], T b[300], T x[X])
{
  T w;
#pragma scop
  for (int i = n - 1; i >= 0; i--) {
    w = b[i];
    for (int j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}
"""

# A sequential row loop whose inner loop reads A (staged), x (staged: written only
# outside the inner loop), B under ?: (not: the read may not happen) and y, which
# the inner loop writes (not: a copy would read stale values).  Every array is
# larger than one SM's L1 cache (arrays that fit in it are not staged).
GUARDED = """
void rows(int n, double A[300][300], double B[300][300], double x[70000], double y[70000])
{
  double w;
#pragma scop
  for (int i = 1; i < n; i++) {
    w = 0.0;
    for (int j = 0; j < n; j++) {
      w += A[i][j] * (x[j] > 0.0 ? B[i][j] : 1.0);
      y[j] = y[j] * 0.5 + w;
    }
    x[i] = w;
  }
#pragma endscop
}
"""

ON_GPU = {"run_on": "gpu"}


def one_thread_kernel(cuda: str) -> str:
    (kernel,) = [k for k in kernels_of(cuda) if "threadIdx" not in k]
    return kernel


def staged_reads(kernel: str) -> list[str]:
    """The global references the kernel's copies read."""
    return re.findall(r"POLYCU_COPY_ASYNC\(s\d+\[\(c1 - c100\)\], (\w+)\[", kernel)


@pytest.mark.parametrize("ctype,x,least,staged", [
    ("double", 300, None, {"A"}),           # x: 2.4 KB, in the L1 cache: not staged
    ("double", 70000, None, {"A", "x"}),
    ("float", 70000, None, {"A", "x"}),     # 280 KB > L1_BYTES
    ("double", 300, 0, {"A", "x", "w_x0"})])   # --min-staged-bytes 0
def test_a_one_thread_loop_reads_in_strips_copied_ahead(tmp_path, ctype, x, least, staged):
    scop = load(tmp_path, BACK.replace("T ", ctype + " ").replace("[X]", f"[{x}]"))
    options = Options(**ON_GPU, **({} if least is None else {"min_staged_bytes": least}))
    placement = placement_of(scop, options)
    (single,) = [k for k, g in zip(placement.kernels, placement.program.kernels) if not g.mapped]
    assert single.staged == staged
    assert "copied ahead with cp.async" in single.of("A").reason
    assert ("copied ahead" in single.of("w_x0").reason) is ("w_x0" in staged)
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    cuda = scop_translation_unit(description)
    kernel = one_thread_kernel(cuda)
    assert staged_reads(kernel) == sorted(staged - {"w_x0"})     # the loop writes w_x0
    lines = [line.strip() for line in kernel.splitlines()]
    assert f"for (int c100 = -c0 + 1; c100 <= n - 1; c100 += {LATENCY_STRIP}) {{" in lines
    assert lines.count("POLYCU_COPY_WAIT();") == 1
    x_read = r"s1\[\(c1 - c100\)\]" if "x" in staged else r"x\[c1\]"
    assert any(re.fullmatch(rf"w_x0\[\(-c0\)\] -= s0\[\(c1 - c100\)\] \* {x_read};", line)
               for line in lines)
    # full strips and a partial one (n = 150: rows of 0 .. 149 terms), fewer than a strip
    for n, nvcc in ((150, True), (2 * LATENCY_STRIP + 1, False), (7, False)):
        report = emulate_scop(scop, cuda, description["host_function"], seed=11,
                              params={"n": n}, nvcc=nvcc)
        assert report.ok, report.format()


def test_no_copy_of_a_read_that_may_not_happen_or_that_the_loop_writes(tmp_path):
    scop = load(tmp_path, GUARDED)
    description = compile_scops(scop.location.file, [scop],
                                Options(**ON_GPU)).description["scops"][0]
    cuda = scop_translation_unit(description)
    kernel = one_thread_kernel(cuda)
    assert staged_reads(kernel) == ["A", "x"]
    assert re.search(r"\? \(B\[c0 \* 300 \+ c1\]\)", kernel)
    assert "y[c1] = (y[c1] * 0.5)" in kernel
    report = emulate_scop(scop, cuda, description["host_function"], seed=3,
                          params={"n": 150}, nvcc=False)
    assert report.ok, report.format()


def test_nothing_staged_without_async_copies(tmp_path):
    scop = load(tmp_path, BACK.replace("T ", "double ").replace("[X]", "[300]"))
    options = Options(async_copies=False, **ON_GPU)
    assert all(not k.staged for k in placement_of(scop, options).kernels)
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    assert "POLYCU_COPY_ASYNC(" not in one_thread_kernel(scop_translation_unit(description))


def test_a_missing_wait_in_a_strip_is_caught(tmp_path):
    """Without the wait the copies never land: the statement reads a shared element
    no copy wrote, which stops the emulation."""
    scop = load(tmp_path, BACK.replace("T ", "double ").replace("[X]", "[300]"))
    description = compile_scops(scop.location.file, [scop],
                                Options(**ON_GPU)).description["scops"][0]
    cuda = scop_translation_unit(description)
    without = cuda.replace("POLYCU_COPY_WAIT();", "", 1)
    assert without != cuda
    with pytest.raises(PolycuError, match=r"reads element 0 of shared array s0 before any "
                                          r"thread of the block wrote it"):
        emulate_scop(scop, without, description["host_function"], seed=4,
                     params={"n": 150}, nvcc=False)


# adi's sweeps: a row a thread, each a recurrence along its row (p reads what the
# step before wrote: not staged), reading three rows of u and its row of q; a
# statement under a guard in the loop reads u where it runs (not staged).
SWEEP = """
#define N ROWS
#define M COLUMNS
void sweep(double u[N][M], double p[N][M], double q[N][M], double r[N])
{
#pragma scop
  for (int i = 1; i < N - 1; i++) {
    p[i][0] = 0.0;
    for (int j = 1; j < M; j++) {
      p[i][j] = (u[i - 1][j] + 2.0 * u[i][j] - u[i + 1][j] - q[i][j]) / (p[i][j - 1] + 3.0);
      if (j == 5)
        r[i] = u[i][j] * p[i][j];
    }
  }
#pragma endscop
}
"""


@pytest.mark.parametrize("columns", [3000, 2 * LATENCY_STRIP + 1])
def test_each_of_a_few_threads_copies_its_own_strips(tmp_path, columns):
    scop = load(tmp_path, SWEEP.replace("ROWS", "40").replace("COLUMNS", str(columns)))
    placement = placement_of(scop, Options(**ON_GPU))
    (placed,) = placement.kernels
    # marked: the arrays in device memory past the L1 cache (a loop that writes one
    # does not stage it: p below)
    assert placed.staged == ({"p", "q", "u"} if columns == 3000 else set())
    if columns != 3000:           # 129 columns of u: 41 KB, in the L1 cache
        return
    assert "one warp per SM" in placed.of("u").reason
    description = compile_scops(scop.location.file, [scop],
                                Options(**ON_GPU)).description["scops"][0]
    cuda = scop_translation_unit(description)
    (text,) = kernels_of(cuda)          # blocks of 4 threads (driver.SPREAD)
    assert "const int b0 = blockIdx.x, t0 = threadIdx.x;" in text and "4 * b0 + t0" in text
    assert text.count("POLYCU_SHARED(double, s") == 4
    assert f"POLYCU_SHARED(double, s3, {4 * LATENCY_STRIP});" in text
    assert re.findall(r"POLYCU_COPY_ASYNC\(s\d\[\(t0\) \* 64 \+ \(c1 - c100\)\], (\w)\[",
                      text) == ["u", "u", "u", "q"]
    assert "r[(4 * b0 + t0)] = u[((4 * b0 + t0)) * 3000 + 5]" in text     # guarded: read there
    # written: not staged; the step before's value from a register (memory/carried.py)
    assert re.search(r"/ \(r\d+ \+ 3\.0\);", text)
    report = emulate_scop(scop, cuda, description["host_function"], seed=5, nvcc=True)
    assert report.ok, report.format()


def test_many_threads_stage_nothing(tmp_path):
    scop = load(tmp_path, SWEEP.replace("ROWS", "5000").replace("COLUMNS", "3000"))
    placement = placement_of(scop, Options(**ON_GPU))
    assert [k.staged for k in placement.kernels] == [frozenset()]


def test_threads_sharing_one_part_of_a_strip_is_a_race(tmp_path):
    scop = load(tmp_path, SWEEP.replace("ROWS", "40").replace("COLUMNS", "3000"))
    description = compile_scops(scop.location.file, [scop],
                                Options(**ON_GPU)).description["scops"][0]
    cuda = scop_translation_unit(description)
    shared = cuda.replace("(t0) * 64 + ", "")
    assert shared != cuda
    with pytest.raises(PolycuError, match=r"thread \d+ writes element \d+ of shared array s0 "
                                          r"that thread \d+ also wrote"):
        emulate_scop(scop, shared, description["host_function"], seed=5, nvcc=False)


@pytest.mark.parametrize("flag", ["single_block", "resident"])
def test_virtual_threads_stage_nothing(tmp_path, flag):
    """In a program run as one block or one resident grid, a block's threads run
    several of a kernel's threads each: their parts of a buffer would collide."""
    scop = load(tmp_path, SWEEP.replace("ROWS", "40").replace("COLUMNS", "3000"))
    program = placement_of(scop, Options(**ON_GPU)).program
    assert [k.staged for k in place(program).kernels] == [frozenset({"p", "q", "u"})]
    assert [k.staged for k in place(replace(program, **{flag: True})).kernels] == [frozenset()]
