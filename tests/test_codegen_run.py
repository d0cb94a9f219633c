"""Generated programs, built with g++ and polycu_emu.h and run: they compute what the
original C computes.

Each program below holds the same loops twice: once in a plain function (the
reference, kept verbatim in the .cu) and once between ``#pragma scop`` lines (replaced
by host code and kernels); ``main`` runs both on the same inputs and prints ``OK``
when every output element is equal (the inputs are small integers, so sums are exact
in any order).  Sizes are not multiples of the tile or block sizes.
"""
from __future__ import annotations

import concurrent.futures
import subprocess
from pathlib import Path

import pytest

import polycu
from polycu.codegen import Generated, generate
from polycu.driver import compile_file
from polycu.gpu.mapping import map_to_gpu
from polycu.memory import place
from polycu.options import Options
from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env

STENCIL = r"""
#include <stdio.h>
#ifndef N
#define N 37
#endif
static double A[N][N], B[N][N], RA[N][N], RB[N][N];

static void reference(int t, int n, double a[N][N], double b[N][N], double *w)
{
  int s, i, j;
  for (s = 0; s < t; s++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        b[i][j] = a[i][j] + a[i - 1][j] + a[i + 1][j] + w[j - 1] * a[i][j + 1];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        a[i][j] = b[i][j] - a[i][j - 1];
  }
}

static void kernel(int t, int n, double a[N][N], double b[N][N], double *w)
{
  int s, i, j;
#pragma scop
  for (s = 0; s < t; s++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        b[i][j] = a[i][j] + a[i - 1][j] + a[i + 1][j] + w[j - 1] * a[i][j + 1];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        a[i][j] = b[i][j] - a[i][j - 1];
  }
#pragma endscop
}

int main(void)
{
  double w[N];
  int i, j, bad = 0;
  for (i = 0; i < N; i++) {
    w[i] = i % 3 - 1;
    for (j = 0; j < N; j++)
      A[i][j] = RA[i][j] = (i * 7 + j * 3) % 5, B[i][j] = RB[i][j] = -1;
  }
  reference(3, N, RA, RB, w);
  kernel(3, N, A, B, w);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      bad += A[i][j] != RA[i][j] || B[i][j] != RB[i][j];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return 0;
}
"""

SUM = r"""
#include <stdio.h>
static void kernel(int n, double x[100], double *total, double y[200])
{
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    s += x[i];
  for (i = 0; i < n; i++)
    y[2 * i] = x[i] * s;
  total[0] = s;
#pragma endscop
}

int main(void)
{
  double x[100], y[200], total = -1;
  int i, bad = 0;
  for (i = 0; i < 100; i++)
    x[i] = i % 7;
  for (i = 0; i < 200; i++)
    y[i] = 1000 + i;
  kernel(77, x, &total, y);
  double s = 0;
  for (i = 0; i < 77; i++)
    s += x[i];
  bad += total != s;
  for (i = 0; i < 200; i++)
    bad += y[i] != (i % 2 == 0 && i < 154 ? x[i / 2] * s : 1000 + i);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return 0;
}
"""

TRIANGLE = r"""
#include <stdio.h>
#define N 45
static float A[N][N], R[N][N];

static void reference(int n, float a[N][N])
{
  int k, i, j;
  for (k = 1; k < n; k++)
    for (i = k + 1; i < n; i++)
      for (j = k; j < n; j++)
        a[i][j] = a[i][j] + a[k - 1][j] * a[i][k - 1];
}

static void kernel(int n, float a[N][N])
{
  int k, i, j;
#pragma scop
  for (k = 1; k < n; k++)
    for (i = k + 1; i < n; i++)
      for (j = k; j < n; j++)
        a[i][j] = a[i][j] + a[k - 1][j] * a[i][k - 1];
#pragma endscop
}

int main(void)
{
  int i, j, bad = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = R[i][j] = (i + 2 * j) % 3 - 1;
  reference(N, R);
  kernel(N, A);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      bad += A[i][j] != R[i][j];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return 0;
}
"""

TWO_SCOPS_IN_MAIN = r"""
#include <stdio.h>
int main(void)
{
  double a[50], b[50], r[50];
  int i, n = 47, bad = 0;
  for (i = 0; i < 50; i++)
    a[i] = i % 4, b[i] = -1;
#pragma scop
  for (i = 0; i < n; i++)
    b[i] = a[i] * 2;
#pragma endscop
  for (i = 1; i < n; i++)
    r[i] = b[i] + b[i - 1];
#pragma scop
  for (i = 1; i < n; i++)
    a[i] = b[i] + b[i - 1];
#pragma endscop
  for (i = 0; i < 50; i++)
    bad += b[i] != (i < n ? 2 * (i % 4) : -1) || (i >= 1 && i < n && a[i] != r[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return 0;
}
"""


def build_and_run(tmp: Path, name: str, generated: Generated, defines: tuple[str, ...] = ()
                  ) -> subprocess.CompletedProcess[str]:
    """The .cu built by g++ with the emulation header, the host program (C) by gcc."""
    source = tmp / f"{name}.cu"
    host = generated.write(source)
    binary = tmp / name
    flags = [f"-D{d}" for d in defines]
    subprocess.run(["gcc", "-std=c99", *flags, "-c", str(host), "-o", f"{binary}_host.o"],
                   check=True, capture_output=True, text=True)
    subprocess.run(["g++", *EMULATION_FLAGS, "-x", "c++", "-I", str(INCLUDE_DIR), *flags,
                    str(source), "-x", "none", f"{binary}_host.o", "-o", str(binary)],
                   check=True, capture_output=True, text=True)
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=120,
                          env=emulation_env())


def compiled(tmp: Path, name: str, text: str, options: Options) -> Generated:
    path = tmp / f"{name}.c"
    path.write_text(text)
    # GPU code, whatever the cost model says (the module's fixture outlives conftest's)
    return compile_file(str(path), options.replace(run_on="gpu"))


def relaxed_sum(tmp: Path) -> Generated:
    """SUM with the reduction relaxed (atomicAdd), whatever the schedule ranking says."""
    path = tmp / "sum.c"
    path.write_text(SUM)
    scop = polycu.load(str(path))[0]
    deps = polycu.dependences(scop)
    program = map_to_gpu(scop, deps, scop.schedule, relaxed=frozenset({"S1"}))
    return generate(str(path), SUM, [place(program)])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("codegen_run")
    sizes = "{ kernel[i] -> tile[20,12]; kernel[i] -> block[8,6] }"
    jobs = {
        "stencil": (compiled(tmp, "stencil", STENCIL, Options()), ()),
        "stencil_sizes": (compiled(tmp, "stencil_sizes", STENCIL, Options(sizes=sizes)), ()),
        "stencil_other_N": (compiled(tmp, "stencil_other_n", STENCIL, Options()), ("N=40",)),
        "sum_atomic": (relaxed_sum(tmp), ()),
        "sum": (compiled(tmp, "sum_plain", SUM, Options()), ()),
        "triangle": (compiled(tmp, "triangle", TRIANGLE, Options(tile_size=16)), ()),
        "two_scops": (compiled(tmp, "two_scops", TWO_SCOPS_IN_MAIN, Options()), ()),
    }
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(build_and_run, tmp, name, generated, defines)
                   for name, (generated, defines) in jobs.items()}
        return {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", ["stencil", "stencil_sizes", "sum_atomic", "sum", "triangle",
                                  "two_scops"])
def test_generated_program_computes_what_the_original_computes(runs, name: str) -> None:
    result = runs[name]
    assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr


def test_atomic_variant_really_uses_atomics(tmp_path: Path) -> None:
    assert "atomicAdd(&s[0], x[" in relaxed_sum(tmp_path).cuda


def test_other_extents_than_polycu_saw_stop_with_a_message(runs) -> None:
    result = runs["stencil_other_N"]
    assert result.returncode == 1 and result.stdout == ""
    assert "polycu: array 'a' has another element type or extents" in result.stderr
    assert "same -D options" in result.stderr
