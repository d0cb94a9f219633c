"""The host pages of arrays copied out but not in are faulted in while the GPU works,
and those copied in and out too where the kernels run long
(``polycu/codegen/prefault.py``).

Checked here: which arrays the host function hands to the helper and where it starts
and waits (after the allocations, before the first copy in; before the first copy
out), that a skipped copy-in also skips the pinning, and the helper itself compiled
with g++ and run: every page of the ranges resident afterwards, their contents and
the bytes around them unchanged, nothing started below its threshold, and an array
whose copy out is staged (its pages faulted in by the lanes) left alone; the late
faults: emitted only where gpu.where estimates the kernels long, and the helper
faulting in untouched and zero-page-mapped pages while the GPU is busy, not once it
is done.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from polycu.codegen.prefault import HELPERS
from polycu.driver import compile_file
from polycu.options import Options

# T is written everywhere when n >= 20 and m >= 30 (copied in elsewhere), y when
# n >= 20; A is only read; S only written (never copied in).
SOURCE = """
void f(int n, int m, double A[20][30], double T[20][30], double y[20], double S[20])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      T[i][j] = 2.0 * A[i][j];
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < m; j++)
      y[i] += T[i][j];
  }
  for (i = 0; i < 20; i++)
    S[i] = 1.0;
#pragma endscop
}
"""


def test_outputs_not_copied_in_are_faulted_in_between_the_allocations_and_the_copies(
        tmp_path: Path) -> None:
    path = tmp_path / "f.c"
    path.write_text(SOURCE)
    host = compile_file(str(path), Options(run_on="gpu")).cuda
    body = host[host.index('extern "C" void f_scop0_gpu'):]
    lines = [line.strip() for line in body.splitlines()]
    added = [line for line in lines if line.startswith("polycu_faults.add(")]
    assert added == ["polycu_faults.add(T, dev_T_bytes);", "polycu_faults.add(y, dev_y_bytes);",
                     "polycu_faults.add(S, dev_S_bytes);"]
    position = {what: next(k for k, line in enumerate(lines) if what in line) for what in (
        "polycu_malloc((void **)&dev_S", "polycu_faults.start()", "polycu_copy_in(",
        "polycu_faults.wait()", "polycu_copy_out(")}
    assert list(position) == sorted(position, key=position.get)


def test_only_reads_and_nothing_copied_out_start_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.c"
    path.write_text("void g(int n, double A[100], double B[100])\n{\n  int i;\n"
                    "#pragma scop\n  for (i = 0; i < n; i++)\n    B[i] += A[i];\n"
                    "#pragma endscop\n}\n")
    assert "polycu_faults" not in compile_file(str(path), Options(run_on="gpu")).cuda.split(
        'extern "C" void g_scop0_gpu')[1]


# The CUDA runtime's events as the helper uses them, without a GPU: the event
# recorded after the launches is not complete for the first `busy_queries` queries.
EVENTS = r"""
#include <atomic>
enum cudaError_t { cudaSuccess = 0, cudaErrorNotReady = 600 };
enum { cudaEventDisableTiming = 2 };
typedef int *cudaEvent_t;
static std::atomic<int> busy_queries(0), queries(0), events(0);
static cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
  static int one; *e = &one; events++; return cudaSuccess; }
static cudaError_t cudaEventRecord(cudaEvent_t, int) { return cudaSuccess; }
static cudaError_t cudaEventDestroy(cudaEvent_t) { events--; return cudaSuccess; }
static cudaError_t cudaEventQuery(cudaEvent_t) {
  return queries++ < busy_queries ? cudaErrorNotReady : cudaSuccess; }
"""

# Two ranges in fresh mappings (untouched pages) and one in a written buffer, at
# offsets that are not page-aligned; a pattern around and inside them.  A fourth
# range, in a fresh mapping, is as large as the copies the staging lanes take (here
# from 6 MB on: staged.py's polycu_copy_staged, replaced).
PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include <stddef.h>
static bool polycu_copy_staged(size_t bytes) { return bytes >= ((size_t)6 << 20); }
%(stubs)s
%(helpers)s
static int resident(const char *p, size_t bytes)
{
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t first = (size_t)p / page * page, n = ((size_t)p + bytes - first + page - 1) / page;
  unsigned char in[4096];
  int count = 0;
  for (size_t at = 0; at < n; at += 4096) {
    const size_t k = n - at < 4096 ? n - at : 4096;
    if (mincore((void *)(first + at * page), k * page, in) != 0)
      return -1;
    for (size_t i = 0; i < k; i++)
      count += in[i] & 1;
  }
  return count;
}

int main(void)
{
  const size_t big = (size_t)5 << 20, small = (size_t)300 << 10;
  char *a = (char *)mmap(0, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *b = (char *)mmap(0, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const size_t staged = (size_t)6 << 20;
  char *d = (char *)mmap(0, staged, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  static char c[10000];
  char *probe = (char *)mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const int supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  a[0] = 11; a[big / 2] = 12; a[big - 1] = 13; memset(c, 7, sizeof c);
  const int before = resident(a, big) + resident(b, big);
  polycu_prefault faults;
  faults.add(a + 100, big - 200);
  faults.add(b + 5000, big - 9000);
  faults.add(c + 3, 5000);
  faults.add(d, staged);
  const size_t ranges = faults.ranges.size();
  faults.start();
  const size_t started = faults.threads.size();
  faults.wait();
  const int after_a = resident(a, big), after_b = resident(b, big), after_d = resident(d, staged);
  polycu_prefault few;   /* below POLYCU_PREFAULT_BYTES: nothing starts */
  few.add(b, small);
  few.start();
  int same = a[0] == 11 && a[big / 2] == 12 && a[big - 1] == 13;
  for (size_t i = 0; i < sizeof c; i++)
    same = same && c[i] == 7;
  for (size_t i = 0; i < big; i += 4096)
    same = same && b[i] == 0;
  printf("%%d %%d %%zu %%d %%d %%zu %%d %%zu %%d\n", supported, before, started, after_a, after_b,
         few.threads.size(), same, ranges, after_d);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_helper_faults_in_whole_ranges_and_keeps_their_contents(tmp_path: Path) -> None:
    (tmp_path / "p.cc").write_text(PROGRAM % {"helpers": HELPERS, "stubs": EVENTS})
    subprocess.run(["g++", "-O1", "-std=c++17", "p.cc", "-o", "p", "-pthread"], cwd=tmp_path,
                   check=True, capture_output=True)
    out = subprocess.run(["./p"], cwd=tmp_path, check=True, capture_output=True,
                         text=True).stdout.split()
    supported, before, started, a, b, few, same, ranges, d = map(int, out)
    pages = (5 << 20) // 4096
    assert before == 3 and 1 <= started <= 4 and few == 0 and same == 1
    assert ranges == 3 and d == 0   # the staged array: not added, none of its pages touched
    if not supported:   # Linux before 5.14: the helper does nothing, harmlessly
        pytest.skip("this kernel has no MADV_POPULATE_WRITE")
    # every page that holds a byte of a range (b's first and last pages hold none)
    assert (a, b) == (pages, pages - 1)


# A host loop of 20,000 launches over arrays copied in and out: kernels estimated
# far above gpu.where.LATE_FAULTS.
LONG = """
void h(double A[3000], double B[3000])
{
  int t, i;
#pragma scop
  for (t = 0; t < 20000; t++) {
    for (i = 1; i < 2999; i++)
      B[i] = 0.5 * (A[i - 1] + A[i + 1]);
    for (i = 1; i < 2999; i++)
      A[i] = B[i];
  }
#pragma endscop
}
"""


def test_late_faults_only_where_the_kernels_are_estimated_long(tmp_path: Path) -> None:
    import polycu
    from polycu.driver import target_of
    from polycu.gpu.where import LATE_FAULTS
    long_path, short_path = tmp_path / "h.c", tmp_path / "f.c"
    long_path.write_text(LONG)
    short_path.write_text(SOURCE)
    (scop,) = polycu.load(str(long_path))
    placement = target_of(scop, Options(run_on="gpu"))
    assert placement.late_faults
    body = compile_file(str(long_path), Options(run_on="gpu")).cuda
    lines = [line.strip() for line in body[body.index('extern "C" void h_scop0_gpu'):]
             .splitlines()]
    assert [line for line in lines if line.startswith("polycu_faults.add")] == [
        "polycu_faults.add_late(A, dev_A_bytes);", "polycu_faults.add_late(B, dev_B_bytes);"]
    launch = max(k for k, line in enumerate(lines) if "POLYCU_LAUNCH" in line)
    wait = lines.index("polycu_faults.wait();")
    assert launch < wait and lines[wait + 1] == "polycu_fault_while_busy(polycu_faults);"
    assert lines[wait + 2].startswith("POLYCU_CHECK(polycu_copy_out(")
    (short,) = polycu.load(str(short_path))
    assert not target_of(short, Options(run_on="gpu")).late_faults and LATE_FAULTS > 1e6
    short_body = compile_file(str(short_path), Options(run_on="gpu")).cuda
    short_body = short_body[short_body.index('extern "C" void f_scop0_gpu'):]
    assert "add_late" not in short_body and "polycu_fault_while_busy" not in short_body


# Three fresh 3 MB mappings: `a` untouched, `b` read once (the zero page is mapped, as
# after a copy in of memory the program never wrote), `c` written.  While the event
# is busy every page of a and b becomes writable (no fault when written after); with
# the GPU already done nothing is faulted in.  A staged array handed to add() is late.
LATE = r"""
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
static bool polycu_copy_staged(size_t bytes) { return bytes >= ((size_t)6 << 20); }
%(stubs)s
%(helpers)s
static long faults_writing(char *p, size_t bytes)
{
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  for (size_t i = 0; i < bytes; i += 4096)
    p[i] = (char)(p[i] + 1);
  getrusage(RUSAGE_SELF, &after);
  return after.ru_minflt - before.ru_minflt;
}

int main(int argc, char **argv)
{
  busy_queries = atoi(argv[1]);
  const size_t size = (size_t)3 << 20;
  char *m[3];
  long sum = 0;
  for (int k = 0; k < 3; k++)
    m[k] = (char *)mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (size_t i = 0; i < size; i += 4096)
    sum += m[1][i];
  memset(m[2], 5, size);
  char *staged = (char *)mmap(0, (size_t)6 << 20, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  polycu_prefault faults;
  faults.add(staged, (size_t)6 << 20);
  faults.add_late(m[0], size);
  faults.add_late(m[1], size);
  faults.add_late(m[2], size);
  faults.start();
  const size_t early = faults.threads.size();
  faults.wait();
  polycu_fault_while_busy(faults);
  int same = sum == 0;
  for (size_t i = 0; i < size; i++)
    same = same && m[0][i] == 0 && m[1][i] == 0 && m[2][i] == 5;
  printf("%%zu %%zu %%d %%d %%ld %%ld %%ld %%d\n", early, faults.ranges.size(),
         (int)faults.late.size(), same, faults_writing(m[0], size), faults_writing(m[1], size),
         faults_writing(staged, (size_t)6 << 20), (int)events);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_late_faults_run_while_the_gpu_is_busy_and_stop_when_it_is_done(
        tmp_path: Path) -> None:
    (tmp_path / "l.cc").write_text(LATE % {"helpers": HELPERS, "stubs": EVENTS})
    subprocess.run(["g++", "-O1", "-std=c++17", "l.cc", "-o", "l", "-pthread"], cwd=tmp_path,
                   check=True, capture_output=True)

    def run(busy: int) -> list[int]:
        return list(map(int, subprocess.run(["./l", str(busy)], cwd=tmp_path, check=True,
                                            capture_output=True, text=True).stdout.split()))
    pages = (3 << 20) // 4096
    busy = run(1_000_000)
    done = run(0)
    # nothing early; the staged array is late; contents kept; the event destroyed
    assert busy[:4] == done[:4] == [0, 0, 4, 1] and busy[7] == done[7] == 0
    assert done[4] >= pages and done[5] >= pages    # GPU done: every write still faults
    probe = subprocess.run(["sh", "-c", "uname -r"], capture_output=True, text=True).stdout
    major, minor = (int(x) for x in probe.split(".")[:2])
    if (major, minor) < (5, 14):     # no MADV_POPULATE_WRITE: the helper does nothing
        pytest.skip("this kernel has no MADV_POPULATE_WRITE")
    assert busy[4] < pages // 10 and busy[5] < pages // 10 and busy[6] < 150


def test_a_program_with_late_faults_matches_the_original(tmp_path: Path) -> None:
    """LONG in a whole program: polycu's output (with the late faults) built for the
    CPU emulation prints what gcc's build of the original prints, and nvcc compiles
    it where there is one."""
    from polycu.fuzz.run import run_file
    main = """
#include <stdio.h>
int main(void)
{
  static double A[3000], B[3000];
  for (int i = 0; i < 3000; i++)
    A[i] = (i % 17) * 0.25;
  h(A, B);
  double s = 0;
  for (int i = 0; i < 3000; i++)
    s += A[i] * (i + 1) + B[i];
  printf("@ s double\\n%.17g\\n", s);
  return 0;
}
"""
    path = tmp_path / "p.c"
    path.write_text(LONG + main)
    cu = compile_file(str(path), Options(run_on="gpu")).cuda
    assert "polycu_fault_while_busy(polycu_faults);" in cu
    stages = ("reference", "compile", "build", "run", "compare") \
        + (("nvcc",) if shutil.which("nvcc") else ())
    outcome = run_file(path, tmp_path / "w", stages=stages)
    assert outcome.cls == "match", outcome.log[-3000:]
