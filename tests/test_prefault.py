"""The host pages of arrays copied out but not in are faulted in while the GPU works
(``polycu/codegen/prefault.py``).

Checked here: which arrays the host function hands to the helper and where it starts
and waits (after the allocations, before the first copy in; before the first copy
out), that a skipped copy-in also skips the pinning, and the helper itself compiled
with g++ and run: every page of the ranges resident afterwards, their contents and
the bytes around them unchanged, nothing started below its threshold, and an array
whose copy out is staged (its pages faulted in by the lanes) left alone.
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


# Two ranges in fresh mappings (untouched pages) and one in a written buffer, at
# offsets that are not page-aligned; a pattern around and inside them.  A fourth
# range, in a fresh mapping, is as large as the copies the staging lanes take (here
# from 6 MB on: staged.py's polycu_copy_staged, replaced).
PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include <stddef.h>
static bool polycu_copy_staged(size_t bytes) { return bytes >= ((size_t)6 << 20); }
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
    (tmp_path / "p.cc").write_text(PROGRAM % {"helpers": HELPERS})
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
