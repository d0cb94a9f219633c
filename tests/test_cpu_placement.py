"""The CPU placement (issue 14, "small problems stay small"; ``polycu.gpu.where``):
a SCoP whose GPU estimate is over twice the CPU's stays its original C code.

The rest of the suite compiles with ``--run-on gpu`` (conftest.py); these tests run
with the default, ``auto``.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from polycu.bench import cpu as polybench_cpu
from polycu.bench.run import bench_kernel
from polycu.cli import main
from polycu.driver import compile_file, load_scops
from polycu.gpu.where import MARGIN, N, problem_sizes
from polycu.options import Options
from polycu.runtime.emulate import emulate_file
from polycu.runtime.programs import ProgramBuild, compare_dumps, emulate_program

UTILITIES = polybench_cpu.UTILITIES_DIR
KERNELS = {k.name: k for k in polybench_cpu.find_kernels(polybench_cpu.POLYBENCH_ROOT)}
NVCC = shutil.which("nvcc")


def options(name: str, dataset: str, **more: object) -> Options:
    kernel = KERNELS[name]
    return Options(define=[f"{dataset}_DATASET"],
                   include_dir=[str(UTILITIES), str(kernel.directory)], **more)


def compiled(name: str, dataset: str, tmp: Path, **more: object) -> tuple[dict, str, str]:
    """(the SCoP's description entry, the .cu, the host program) of a PolyBench kernel."""
    generated = compile_file(str(KERNELS[name].source), options(name, dataset, **more))
    cu = tmp / f"{name}.cu"
    host = generated.write(cu)
    (entry,) = generated.description["scops"]
    return entry, cu.read_text(), host.read_text()


@pytest.mark.parametrize("name, loop", [
    ("durbin", "z[i] = y[i] + alpha * y[k - i - 1];"),
    ("trisolv", "x[i] -= L[i][j] * x[j];")])
def test_durbin_and_trisolv_at_large_stay_on_the_cpu(name: str, loop: str,
                                                     tmp_path: Path) -> None:
    entry, cu, host = compiled(name, "LARGE", tmp_path)
    assert entry["runs_on"] == "cpu" and entry["kernels"] == [] and entry["host"] == []
    assert "__global__" not in cu and "polycu_malloc((void **)" not in cu
    assert loop in host and f"{entry['host_function']}" == "None"
    assert "_gpu(" not in host
    where = entry["where"]
    assert where["kernels_ns"] + where["transfers_ns"] > MARGIN * where["cpu_ns"]
    assert where["sizes"] == {"n": 2000} and not where["forced"]
    first, last = entry["region"]
    said = re.search(rf"/\* polycu: the SCoP of lines {first}-{last} runs on the CPU: GPU "
                     r"estimate ([\d.e+]+) ms \(kernels ([\d.e+]+) ms, transfers and "
                     r"allocations ([\d.e+]+) ms\) > 2 x CPU estimate ([\d.e+]+) ms at n=2000 \*/",
                     host)
    assert said, host
    assert float(said.group(1)) > 2 * float(said.group(4))


def test_gemm_at_large_stays_on_the_gpu(tmp_path: Path) -> None:
    entry, cu, host = compiled("gemm", "LARGE", tmp_path)
    assert entry["runs_on"] == "gpu" and entry["kernels"]
    assert "__global__" in cu and "kernel_gemm_scop0_gpu(" in host


def test_the_option_forces_either_side(tmp_path: Path) -> None:
    entry, cu, host = compiled("gemm", "LARGE", tmp_path, run_on="cpu")
    assert entry["runs_on"] == "cpu" and entry["where"]["forced"]
    assert "__global__" not in cu and "C[i][j] += alpha * A[i][k] * B[k][j];" in host
    assert "runs on the CPU (--run-on cpu; GPU estimate" in host
    entry, cu, host = compiled("trisolv", "LARGE", tmp_path, run_on="gpu")
    assert entry["runs_on"] == "gpu" and entry["kernels"]
    assert "__global__" in cu and "kernel_trisolv_scop0_gpu(" in host
    assert main(["--run-on", "both", str(KERNELS["gemm"].source)]) == 2


def test_sizes_are_the_extents_or_the_rankings_value() -> None:
    (trisolv,) = load_scops(str(KERNELS["trisolv"].source), options("trisolv", "MINI"))
    assert problem_sizes(trisolv) == {"n": 40}
    (gemm,) = load_scops(str(KERNELS["gemm"].source), options("gemm", "LARGE"))
    assert problem_sizes(gemm) == {"ni": 1000, "nj": 1100, "nk": 1200}
    # no extent bounds the time steps
    (jacobi,) = load_scops(str(KERNELS["jacobi-1d"].source), options("jacobi-1d", "SMALL"))
    assert problem_sizes(jacobi) == {"tsteps": N, "n": 120}


def test_dump_schedule_states_the_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    kernel = KERNELS["trisolv"]
    flags = ["-DLARGE_DATASET", f"-I{UTILITIES}", f"-I{kernel.directory}"]
    assert main(["--dump-schedule", str(kernel.source), *flags]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert re.fullmatch(r"# SCoP kernel_trisolv_scop0 runs on the CPU: GPU estimate [\d.]+ ms "
                        r"\(kernels [\d.]+ ms, transfers and allocations [\d.]+ ms\) > 2 x "
                        r"CPU estimate [\d.]+ ms at n=2000", first), first
    gemm = KERNELS["gemm"]
    assert main(["--dump-schedule", str(gemm.source), "-DLARGE_DATASET", f"-I{UTILITIES}",
                 f"-I{gemm.directory}"]) == 0
    assert capsys.readouterr().out.startswith(
        "# SCoP kernel_gemm_scop0 runs on the GPU: GPU estimate ")


def test_emulate_and_bench_say_the_scop_runs_on_the_cpu() -> None:
    (report,) = emulate_file(str(KERNELS["durbin"].source), options("durbin", "MINI"),
                             seed=1, nvcc=False)
    assert report.ok and not report.arrays
    lines = report.format().splitlines()
    assert lines[0] == "kernel_durbin_scop0: ON THE CPU (no parameters)"
    assert lines[1].startswith("  runs on the CPU: GPU estimate ")
    result = bench_kernel(KERNELS["trisolv"], "LARGE", options("trisolv", "LARGE"), None,
                          seed=1, repeat=1)
    assert result.status == "cpu" and result.timing is None and not result.error
    assert result.notes[0].startswith("runs on the CPU: GPU estimate ")


def polybench_build(name: str, dataset: str) -> ProgramBuild:
    return ProgramBuild(defines=(f"{dataset}_DATASET", "POLYBENCH_DUMP_ARRAYS"),
                        includes=(str(UTILITIES), str(KERNELS[name].directory)),
                        c_sources=(str(UTILITIES / "polybench.c"),))


@pytest.mark.parametrize("name", ["durbin", "trisolv", "gemver"])
def test_programs_left_to_the_cpu_print_what_gcc_prints(name: str, tmp_path: Path) -> None:
    """The whole program at MINI (every one of these SCoPs stays on the CPU there),
    built like polycu's output is (the .cu by g++ with the emulation header, the host
    program by gcc), against gcc's build of the original."""
    entry, _, _ = compiled(name, "MINI", tmp_path)
    assert entry["runs_on"] == "cpu"
    report = emulate_program(tmp_path / f"{name}.cu", polybench_build(name, "MINI"),
                             original=KERNELS[name].source)
    assert report.ok and report.arrays, report.format()


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_nvcc_builds_a_program_left_to_the_cpu_and_it_prints_what_gcc_prints(
        tmp_path: Path) -> None:
    """nvcc -O3 builds the .cu and the host program (C, by its host compiler) with the
    PolyBench harness; no SCoP needs the GPU, so it runs here and dumps gcc's values."""
    kernel = KERNELS["trisolv"]
    entry, _, _ = compiled("trisolv", "SMALL", tmp_path)
    assert entry["runs_on"] == "cpu"
    flags = ["-DSMALL_DATASET", "-DPOLYBENCH_DUMP_ARRAYS", "-I", str(UTILITIES),
             "-I", str(kernel.directory)]
    built = subprocess.run([NVCC, "-O3", "-arch=sm_90", *flags, str(UTILITIES / "polybench.c"),
                            str(tmp_path / "trisolv.cu"), str(tmp_path / "trisolv_host.c"),
                            "-o", str(tmp_path / "gpu"), "-lm"], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    subprocess.run(["gcc", "-O3", *flags, str(UTILITIES / "polybench.c"), str(kernel.source),
                    "-o", str(tmp_path / "cpu"), "-lm"], check=True)
    dumps = [subprocess.run([str(tmp_path / side)], capture_output=True, text=True,
                            timeout=120).stderr for side in ("cpu", "gpu")]
    compared = compare_dumps(*dumps)
    assert compared and all(c.ok for c in compared)


TWO_SCOPS = r"""
#include <stdio.h>
#define N 1000
static double big[N][N], small[8];

int main(void)
{
  int i, j;
#pragma scop
  for (i = 0; i < 8; i++)
    small[i] = i * 0.5;
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      big[i][j] = (i * j % 7) * small[j % 8];
#pragma endscop
  double s = 0;
  for (i = 0; i < N; i++)
    s += big[i][N - 1 - i];
  printf("%.6f %.2f\n", s, small[7]);
  return 0;
}
"""


def test_each_scop_of_a_file_is_placed_on_its_own(tmp_path: Path) -> None:
    source = tmp_path / "two.c"
    source.write_text(TWO_SCOPS)
    generated = compile_file(str(source))
    assert [s["runs_on"] for s in generated.description["scops"]] == ["cpu", "gpu"]
    host = generated.write(tmp_path / "two.cu")
    assert "small[i] = i * 0.5;" in host.read_text() and "main_scop1_gpu(" in host.read_text()
    from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env
    subprocess.run(["gcc", "-O1", str(source), "-o", str(tmp_path / "cpu")], check=True)
    subprocess.run(["gcc", "-O1", "-c", str(host), "-o", str(tmp_path / "host.o")], check=True)
    subprocess.run(["g++", *EMULATION_FLAGS, "-I", str(INCLUDE_DIR), "-x", "c++",
                    str(tmp_path / "two.cu"), "-x", "none", str(tmp_path / "host.o"), "-o",
                    str(tmp_path / "emulated")], check=True)
    outputs = [subprocess.run([str(tmp_path / side)], capture_output=True, text=True,
                              env=emulation_env(), timeout=120).stdout
               for side in ("cpu", "emulated")]
    assert outputs[0] == outputs[1] and outputs[0].strip()
