"""A one-thread kernel's reads copied ahead in strips with cp.async
(--async-copies: polycu/memory/asynchronous.py marks, polycu/codegen/staging.py)."""
from __future__ import annotations

import re

import pytest

from polycu.diagnostics import PolycuError
from polycu.driver import compile_scops, placement_of
from polycu.memory import LATENCY_STRIP
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
