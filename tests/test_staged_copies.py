"""Host copies through page-locked slots on several threads (codegen/staged.py).

The helper itself, built with polycu_emu.h: every size around the emulation's 200-byte
chunks goes in and comes back exact on 1, 2 and 5 lanes, and through cudaMemcpy in a
child the program forks (which has none of the lanes' threads); the emulated streams
run a copy only when it is waited for, so a helper that refills or reads a slot without
waiting for its copy is caught.  Then the generated host functions: the buffers come
from the memory pool and the copies go through the helper, and what both need is
reserved when the program starts (codegen/buffers.py); a build with -DPOLYCU_NO_POOL
gets cudaMalloc's buffers.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from polycu.codegen import buffers
from polycu.codegen.host import HOST_HELPERS
from polycu.driver import Options, compile_file
from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env

ROUND_TRIP = r"""
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
int main(int argc, char **argv)
{
  const size_t sizes[] = {0, 1, 199, 200, 201, 399, 400, 401, 1000, 4103, 20000};
  int wrong = 0;
  polycu_stage.create();
  for (size_t bytes : sizes) {
    unsigned char *host = (unsigned char *)malloc(bytes + 1), *back = (unsigned char *)malloc(bytes + 1);
    for (size_t i = 0; i < bytes; i++) {
      host[i] = (unsigned char)(i * 37 + bytes);
      back[i] = 0;
    }
    void *dev;
    if (cudaMalloc(&dev, bytes) != cudaSuccess) return 2;
    if (polycu_copy_in(dev, host, bytes) != cudaSuccess) return 3;
    if (polycu_copy_out(back, dev, bytes) != cudaSuccess) return 4;
    for (size_t i = 0; i < bytes; i++) wrong += back[i] != host[i];
    (void)cudaFree(dev);
    free(host);
    free(back);
  }
  /* a host pointer given as the device buffer: the copy's own error, not a crash */
  static char not_device[4000], source[4000];
  const cudaError_t refused = polycu_copy_in(not_device, source, sizeof source);
  /* a child the program forks has none of the lanes' threads: its copies are
     cudaMemcpy's (an emulated one here; a GPU's would report the driver's error) */
  const pid_t child = fork();
  if (child == 0) {
    void *dev;
    static char in[5000], out[5000];
    for (int i = 0; i < 5000; i++) in[i] = (char)(i * 3);
    const bool ok = cudaMalloc(&dev, 5000) == cudaSuccess &&
                    polycu_copy_in(dev, in, 5000) == cudaSuccess &&
                    polycu_copy_out(out, dev, 5000) == cudaSuccess && memcmp(in, out, 5000) == 0;
    _exit(ok ? 0 : 1);
  }
  int status = -1;
  waitpid(child, &status, 0);
  printf("lanes %zu wrong %d refused %d child %d\n", polycu_stage.lanes.size(), wrong,
         (int)refused, status);
  return 0;
}
"""


def build(tmp_path: Path, helpers: str, workers: int) -> Path:
    return build_program(tmp_path, f"round_trip_{workers}", helpers + ROUND_TRIP,
                         f"POLYCU_STAGE_WORKERS={workers}")


def build_program(tmp_path: Path, name: str, text: str, *defines: str) -> Path:
    """``text`` after polycu_emu.h, built with the emulation's flags and ``defines``."""
    source = tmp_path / f"{name}.cu"
    source.write_text("#include \"polycu_emu.h\"\n" + text)
    binary = tmp_path / name
    subprocess.run(["g++", *EMULATION_FLAGS, "-Wall", "-I", str(INCLUDE_DIR),
                    *(f"-D{d}" for d in defines), "-x", "c++", str(source),
                    "-o", str(binary)], check=True)
    return binary


def run(binary: Path) -> str:
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=True,
                          env=emulation_env()).stdout


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_every_size_goes_in_and_comes_back_exact(tmp_path: Path, workers: int) -> None:
    out = run(build(tmp_path, HOST_HELPERS, workers))
    lanes = int(out.split()[1])
    assert 1 <= lanes <= workers
    assert out.split()[2:] == ["wrong", "0", "refused", "1",   # cudaErrorInvalidValue
                              "child", "0"]


@pytest.mark.parametrize("wait", [
    "e = cudaEventSynchronize(lane.done[k]);   /* slot k's last DMA has read it */",
    "e = cudaEventSynchronize(lane.done[k]);   /* chunk c is in slot k */",
])
def test_a_slot_used_before_its_copy_was_waited_for_is_caught(tmp_path: Path, wait: str) -> None:
    assert HOST_HELPERS.count(wait) == 1
    skipped = wait.replace("cudaEventSynchronize(lane.done[k])", "cudaSuccess")
    out = run(build(tmp_path, HOST_HELPERS.replace(wait, skipped), 1))
    assert int(out.split()[3]) > 100, out


SIZED = r"""
#define N 1100
double A[N][N], x[N], y[N];
void mv(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
#pragma endscop
}
"""

PARAMETRIC = r"""
void scale(int n, double v[n])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    v[i] = 2.0 * v[i];
#pragma endscop
}
"""


def test_host_functions_copy_through_the_helper_and_reserve_when_the_program_starts(
        tmp_path: Path) -> None:
    path = tmp_path / "mv.c"
    path.write_text(SIZED)
    cuda = compile_file(str(path), Options(run_on="gpu")).cuda
    assert ("static const int mv_scop0_gpu_reserved = polycu_reserve({(size_t)1 * 1100 * "
            "1100 * sizeof(double), (size_t)1 * 1100 * sizeof(double), (size_t)1 * 1100 * "
            "sizeof(double)});") in cuda
    body = cuda[cuda.index('extern "C" void mv_scop0_gpu'):]
    lines = [line.strip() for line in body.splitlines()]
    assert lines[8:16] == [
        "POLYCU_CHECK(polycu_malloc((void **)&dev_A, dev_A_bytes));",
        "POLYCU_CHECK(polycu_malloc((void **)&dev_x, dev_x_bytes));",
        "POLYCU_CHECK(polycu_malloc((void **)&dev_y, dev_y_bytes));",
        "POLYCU_CHECK(polycu_buffers_ready());",
        "POLYCU_CHECK(polycu_copy_in(dev_A, A, dev_A_bytes));",
        "POLYCU_CHECK(polycu_copy_in(dev_x, x, dev_x_bytes));",
        "POLYCU_CHECK(polycu_copy_in(dev_y, y, dev_y_bytes));", "if (n >= 1) {"]
    assert "POLYCU_CHECK(polycu_copy_out(y, dev_y, dev_y_bytes));" in lines
    assert lines[-4:] == ["POLYCU_CHECK(polycu_free(dev_A));", "POLYCU_CHECK(polycu_free(dev_x));",
                          "POLYCU_CHECK(polycu_free(dev_y));", "}"]
    assert "cudaMemcpy(" not in body and "cudaMalloc(" not in body
    path = tmp_path / "scale.c"
    path.write_text(PARAMETRIC)
    cuda = compile_file(str(path), Options(run_on="gpu")).cuda
    assert "_reserved = polycu_reserve({SIZE_MAX});" in cuda


def test_the_reservation_is_left_out_without_device_buffers() -> None:
    assert buffers.reserve("f", []) == []


POOLED = r"""
#include <cstdio>
static const int reserved = polycu_reserve({(size_t)3000, SIZE_MAX, (size_t)0});
int main()
{
  double host[375], back[375];
  for (int i = 0; i < 375; i++)
    host[i] = -1.5 * i;
  void *dev = nullptr;
  int same = polycu_malloc(&dev, sizeof host) == cudaSuccess &&
             polycu_buffers_ready() == cudaSuccess &&
             polycu_copy_in(dev, host, sizeof host) == cudaSuccess &&
             polycu_copy_out(back, dev, sizeof host) == cudaSuccess &&
             polycu_free(dev) == cudaSuccess;
  for (int i = 0; i < 375; i++)
    same = same && back[i] == host[i];
  printf("pooled %d same %d\n", (int)polycu_pooled(), same);
  return reserved;
}
"""


@pytest.mark.parametrize("define, pooled", [(None, "1"), ("POLYCU_NO_POOL", "0")])
def test_buffers_come_from_the_pool_unless_the_build_says_otherwise(
        tmp_path: Path, define: str | None, pooled: str) -> None:
    binary = build_program(tmp_path, "pooled", HOST_HELPERS + POOLED,
                           *([define] if define else []))
    assert run(binary).split() == ["pooled", pooled, "same", "1"]
