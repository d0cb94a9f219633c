"""Dependent launches (--dependent-launches, codegen/dependent.py, runtime/dependent.py):
every kernel of a GPU program begins with its wait and every launch is a dependent
launch, the option turns both off, the emulation runs such programs right (and
reports a thread that does not wait: tests/test_emulate_header.py), nvcc builds them,
and the PyCUDA runtime passes each argument in its C type."""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from polycu.bench import cpu as polybench_cpu
from polycu.codegen.dependent import MACROS
from polycu.driver import compile_file
from polycu.options import Options
from polycu.runtime import dependent
from polycu.runtime.dependent import parameters
from polycu.runtime.emulate import emulate_file

KERNELS = {k.name: k for k in polybench_cpu.find_kernels()}
LAUNCH = re.compile(r"(POLYCU_LAUNCH\w*)\((?:[^,]+, )?(\w+), polycu_grid")
KERNEL = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\(\d+(?:, \d+)?\) )?'
                    r"(\w+)\([^)]*\)\n\{\n([^\n]*)")


def polybench(name: str, **values: object) -> Options:
    return Options(define=["MINI_DATASET"], run_on="gpu",
                   include_dir=[str(polybench_cpu.UTILITIES_DIR),
                                str(KERNELS[name].directory)], **values)


@pytest.mark.parametrize("name", ["jacobi-2d", "bicg", "cholesky"])
def test_every_kernel_waits_first_and_every_launch_is_dependent(name: str) -> None:
    """jacobi-2d's host loop, bicg's two launches side by side on streams,
    cholesky's three kernels a step: each kernel's first statement is the wait, each
    launch a dependent one; with --no-dependent-launches neither."""
    generated = compile_file(str(KERNELS[name].source), polybench(name))
    kernels = dict(KERNEL.findall(generated.cuda))
    launches = LAUNCH.findall(generated.cuda)
    (scop,) = generated.description["scops"]
    assert len(kernels) == len(scop["kernels"]) >= 2
    assert set(kernels.values()) == {"  POLYCU_AFTER_PREVIOUS();"}
    assert {kernel for _, kernel in launches} == set(kernels)
    assert all(macro.startswith(("POLYCU_LAUNCH_AFTER", "POLYCU_LAUNCH_NOSYNC_AFTER"))
               for macro, _ in launches)
    assert all(k["dependent"] for k in scop["kernels"])
    off = compile_file(str(KERNELS[name].source), polybench(name, dependent_launches=False))
    assert "POLYCU_AFTER_PREVIOUS();" not in off.cuda
    assert not any("_AFTER" in macro for macro, _ in LAUNCH.findall(off.cuda))
    assert not any(k["dependent"] for k in off.description["scops"][0]["kernels"])


@pytest.mark.parametrize("name", ["jacobi-2d", "bicg"])
def test_dependent_launches_compute_what_gcc_computes(name: str) -> None:
    """The emulation runs them in turn and checks that every thread waited; nvcc
    builds the program (the host's cudaLaunchKernelExC, the device's griddepcontrol)
    when it is here."""
    reports = emulate_file(str(KERNELS[name].source), polybench(name), seed=11,
                           nvcc=shutil.which("nvcc") is not None)
    assert reports and all(r.ok and not r.on_cpu for r in reports), \
        "\n".join(r.format() for r in reports)


# A dead store to a local scalar becomes a kernel of no parameters (fuzz seed 5605528).
NO_ARGUMENTS = """
void f(double A[100])
{
  double s;
  s = 0.5;
  for (int i = 0; i < 100; i++)
    A[i] = A[i] + i;
}
"""


def test_a_kernel_without_arguments_is_launched(tmp_path: Path) -> None:
    """Its dependent launch has nothing after the block: the host's launch takes its
    arguments in a call of their own, which may be empty (it was one argument list
    with a trailing comma, which nvcc rejected); emulated and built by nvcc."""
    path = tmp_path / "none.c"
    path.write_text(NO_ARGUMENTS)
    cuda = compile_file(str(path), Options(run_on="gpu")).cuda
    assert 'extern "C" __global__ void f_scop0_kernel0()' in cuda
    assert "f_scop0_kernel0, polycu_grid, polycu_block, );" in cuda
    (report,) = emulate_file(str(path), Options(run_on="gpu"), seed=3,
                             nvcc=shutil.which("nvcc") is not None)
    assert report.ok and not report.on_cpu, report.format()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_wait_is_griddepcontrol_on_sm_90(tmp_path: Path) -> None:
    """On sm_90 the wait is the griddepcontrol.wait instruction, first in each kernel;
    the next launch is left to start when the kernel ends (no launch_dependents)."""
    cuda = tmp_path / "jacobi.cu"
    cuda.write_text(compile_file(str(KERNELS["jacobi-2d"].source), polybench("jacobi-2d")).cuda)
    ptx = tmp_path / "jacobi.ptx"
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", str(cuda), "-o", str(ptx)], check=True,
                   capture_output=True)
    text = ptx.read_text()
    assert text.count("griddepcontrol.wait") == 2 and "launch_dependents" not in text


def test_parameters_pass_each_argument_in_its_c_type() -> None:
    """runtime/dependent.py's void *[]: each pointer points to the value in the type
    PyCUDA's format character names (P: a device pointer)."""
    formats = ["P", "i", "q", "Q", "d", "f", "B"]
    values = [0x7F00_0000_1000, np.int32(-7), np.int64(-(2 ** 40)), np.uint64(2 ** 63 + 5),
              np.float64(-0.1), np.float32(2.5), np.uint8(255)]
    array, held = parameters(formats, values)
    types = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64,
             ctypes.c_double, ctypes.c_float, ctypes.c_uint8]
    read = [ctypes.cast(array[i], ctypes.POINTER(t)).contents.value
            for i, t in enumerate(types)]
    assert read == [0x7F00_0000_1000, -7, -(2 ** 40), 2 ** 63 + 5, -0.1, 2.5, 255]
    assert len(held) == len(formats)


class _Driver:
    """The part of cuda-bindings' driver API that runtime/dependent.py calls, recording."""

    class CUresult:
        CUDA_SUCCESS = 0

    class CUlaunchAttributeID:
        CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6

    class _Value:
        programmaticStreamSerializationAllowed = 0

    class CUlaunchAttribute:
        def __init__(self):
            self.id, self.value = None, _Driver._Value()

    class CUlaunchConfig:
        pass

    def __init__(self):
        self.launches, self.unloaded = [], []

    def CUstream(self, handle):
        return ("stream", handle)

    def cuModuleLoadData(self, cubin):
        return 0, ("module", cubin)

    def cuModuleGetFunction(self, module, name):
        return 0, ("function", name)

    def cuModuleGetGlobal(self, module, name):
        return 0, 0x5000, 64

    def cuModuleUnload(self, module):
        self.unloaded.append(module)

    def cuLaunchKernelEx(self, config, function, params, extra):
        array = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = (ctypes.cast(array[0], ctypes.POINTER(ctypes.c_int32)).contents.value,
                  ctypes.cast(array[1], ctypes.POINTER(ctypes.c_void_p)).contents.value)
        self.launches.append((function, config, values))
        return (0,)


def test_a_dependent_launch_asks_for_programmatic_serialization(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """runtime/dependent.py against a recording driver API: the function of the
    module loaded from the cubin, three grid and block dimensions where PyCUDA
    gives fewer, PyCUDA's stream, the attribute, and the arguments in their types."""
    driver = _Driver()
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = driver
    monkeypatch.setitem(sys.modules, "cuda", types.ModuleType("cuda"))
    monkeypatch.setitem(sys.modules, "cuda.bindings", bindings)
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", driver)
    launcher = dependent.DependentLaunches(b"cubin", ["k0"])
    stream = type("Stream", (), {"handle": 77})()
    launcher.launch("k0", (3,), (32, 2), stream, ["i", "P"], [np.int32(-5), 4096])
    ((function, config, values),) = driver.launches
    assert function == ("function", b"k0") and values == (-5, 4096)
    assert (config.gridDimX, config.gridDimY, config.gridDimZ) == (3, 1, 1)
    assert (config.blockDimX, config.blockDimY, config.blockDimZ) == (32, 2, 1)
    assert config.hStream == ("stream", 77) and config.numAttrs == 1
    (attribute,) = config.attrs
    assert attribute.id == 6 and attribute.value.programmaticStreamSerializationAllowed == 1
    assert launcher.get_global("polycu_const_x") == (0x5000, 64)
    del launcher
    assert driver.unloaded == [("module", b"cubin")]


# The CUDA runtime's part the host's dependent launch uses, recording what it gets.
MOCK_RUNTIME = r"""
#include <cstdio>
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
typedef void *cudaStream_t;
enum { cudaLaunchAttributeProgrammaticStreamSerialization = 6 };
struct cudaLaunchAttribute { int id; union { int programmaticStreamSerializationAllowed; } val; };
struct cudaLaunchConfig_t { dim3 gridDim, blockDim; unsigned long dynamicSmemBytes;
                            cudaStream_t stream; cudaLaunchAttribute *attrs; unsigned numAttrs; };
static void (*show)(void **);
int cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *, void **args) {
  printf("grid %u %u %u block %u stream %ld attribute %d=%d:", c->gridDim.x, c->gridDim.y,
         c->gridDim.z, c->blockDim.x, (long)c->stream, c->attrs[0].id,
         c->attrs[0].val.programmaticStreamSerializationAllowed);
  show(args);
  return 0;
}
"""

MOCK_LAUNCHES = r"""
void k3(int n, long long h, const double *__restrict__ A, float x) {}
void k0() {}
static double buffer[2];
int main() {
  show = [](void **a) { printf(" %d %lld %d %g\n", *(int *)a[0], *(long long *)a[1],
                               *(const double **)a[2] == buffer, *(float *)a[3]); };
  long n = 7; int h = -3; double x = 2.5;
  POLYCU_LAUNCH_AFTER(k3, dim3(4, 2), dim3(32), n, h, buffer, x);
  show = [](void **a) { printf(" %d\n", a[0] == nullptr); };
  POLYCU_LAUNCH_NOSYNC_AFTER_ON((cudaStream_t)16, k0, dim3(1), dim3(1), );
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_host_launch_passes_each_argument_in_its_parameter_type(tmp_path: Path) -> None:
    """The generated program's dependent launch (codegen/dependent.py's helper) built
    by g++ over a recording stand-in for the CUDA runtime: grid, block, stream and
    the attribute as asked, each argument converted to its parameter's type as a
    <<<>>> launch converts it (long to int, int to long long, double to float), and a
    kernel of no parameters launched too."""
    helper = MACROS[MACROS.index("/* A launch of `kernel`"):]
    source = tmp_path / "launch.cpp"
    source.write_text(MOCK_RUNTIME + helper + MOCK_LAUNCHES)
    binary = tmp_path / "launch"
    subprocess.run(["g++", "-std=c++17", "-o", str(binary), str(source)], check=True,
                   capture_output=True)
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == ["grid 4 2 1 block 32 stream 0 attribute 6=1: 7 -3 1 2.5",
                                "grid 1 1 1 block 1 stream 16 attribute 6=1: 1"]
