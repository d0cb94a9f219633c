"""nvcc accepts everything polycu emits (no removed or misspelt CUDA API slips through).

* every PolyBench program's .cu and its host program (C), built the way a user
  builds them (``nvcc -arch=sm_90 -I utilities -I <kernel dir> -D<DATASET> -c
  OUT.cu OUT_host.c``), at the dataset polycu was given;
* every description's device source alone (what PyCUDA's SourceModule compiles)
  and host function with the prologue (what the runtimes link).

Skipped, with the reason, where nvcc is not installed.  Compilations run two at a time,
each in one of the session's workers (session_work.py).
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import partial
from pathlib import Path

from polycu.bench import cpu as polybench_cpu
import pytest

from polycu.driver import compile_file
from polycu.codegen.host import HOST_HELPERS
from polycu.codegen.objects import HOST_HELPERS as OBJECT_HELPERS
from session_work import computed
from test_codegen_polybench import KERNELS, generated_suite, options

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")


def nvcc(source: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``nvcc -arch=sm_90 -c`` of ``source`` and the other sources among ``flags`` (a
    host program OUT_host.c goes to the host C compiler), objects beside them."""
    return subprocess.run([NVCC, "-arch=sm_90", "-c", str(source), *flags],
                          capture_output=True, text=True, timeout=300, cwd=source.parent)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("nvcc")
    suite = generated_suite()
    jobs = []
    for kernel in KERNELS:
        generated = suite[kernel.name]
        whole = tmp / f"{kernel.name}.cu"
        host = generated.write(whole)
        jobs.append((f"{kernel.name}:program", whole,
                     (str(host), "-I", str(polybench_cpu.UTILITIES_DIR), "-I",
                      str(kernel.directory))))
        (scop,) = generated.description["scops"]
        device = tmp / f"{kernel.name}_device.cu"
        device.write_text(scop["device_source"])
        jobs.append((f"{kernel.name}:device", device, ()))
        host = tmp / f"{kernel.name}_host.cu"
        # the file's helpers, those of textures and surfaces where the SCoP has any
        # (seidel-2d's surface), as the emitted file and the emulation put them
        helpers = HOST_HELPERS + (OBJECT_HELPERS if scop.get("objects") else "")
        host.write_text(scop["device_source"] + helpers + scop["host_source"])
        jobs.append((f"{kernel.name}:host", host, ()))
    return computed("nvcc", {name: partial(nvcc, source, *flags) for name, source, flags in jobs},
                    threads=2)


@pytest.mark.parametrize("part", ["program", "device", "host"])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_nvcc_compiles_the_emitted_cuda(built, kernel, part: str) -> None:
    result = built[f"{kernel.name}:{part}"]
    assert result.returncode == 0, result.stderr


def test_small_dataset_program_compiles_with_the_same_define() -> None:
    kernel = next(k for k in KERNELS if k.name == "jacobi-2d")
    generated = compile_file(str(kernel.source), options(kernel, "SMALL_DATASET"))
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "jacobi-2d.cu"
        host = generated.write(source)
        result = nvcc(source, str(host), "-I", str(polybench_cpu.UTILITIES_DIR), "-I",
                      str(kernel.directory), "-DSMALL_DATASET")
    assert result.returncode == 0, result.stderr
    assert "B[c1 * 90 + " in generated.cuda       # SMALL: N = 90


def test_c99_prototype_kernels_and_host_function_compile(tmp_path: Path) -> None:
    kernel = next(k for k in KERNELS if k.name == "2mm")
    generated = compile_file(str(kernel.source),
                             options(kernel, "SMALL_DATASET", "POLYBENCH_USE_C99_PROTO"))
    (scop,) = generated.description["scops"]
    source = tmp_path / "2mm_c99.cu"
    source.write_text(scop["device_source"] + HOST_HELPERS + scop["host_source"])
    result = nvcc(source)
    assert result.returncode == 0, result.stderr
