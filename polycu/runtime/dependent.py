"""Dependent launches under PyCUDA (``--dependent-launches``), through cuda-bindings.

In:  the cubin PyCUDA built for one SCoP's device code and its kernels' names.
Out: ``DependentLaunches``: that cubin loaded by the driver API, whose ``launch``
     launches a kernel with ``cuLaunchKernelEx`` and the attribute
     CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, as the generated host
     code's ``polycu_launch_after`` does (PyCUDA has no launch with attributes), and
     whose ``get_global`` finds its ``__constant__`` symbols: the kernels launched
     from this module read this module's copies, not those of the module PyCUDA
     loaded.

A dependent launch may start while the launch before it in its stream still runs;
its kernel's first statement (``POLYCU_AFTER_PREVIOUS``) waits until the one before
has finished and its writes are visible.  Used when
the description's kernels are dependent, the device is sm_90 or later and
cuda-bindings is importable (``available``); otherwise PyCUDA launches them as
plain launches, which compute the same (the wait then returns at once).
"""
from __future__ import annotations

import contextlib
import ctypes
from typing import Any, Sequence

import numpy as np

from ..diagnostics import error


def available(drv: Any) -> bool:
    """Whether dependent launches can run here: a device of compute capability 9.0
    or later (``griddepcontrol``) and cuda-bindings to launch them."""
    if drv.Context.get_device().compute_capability() < (9, 0):
        return False
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        return False
    return True


def parameters(formats: Sequence[str], values: Sequence[Any]) -> tuple[Any, list[Any]]:
    """The ``void *[]`` that ``cuLaunchKernelEx`` takes: one pointer per argument to a
    copy of its value in the argument's C type (``formats``: PyCUDA's ``prepare``
    characters, ``P`` for a pointer, else a numpy type character), and those copies,
    which must outlive the call."""
    held = [ctypes.c_void_p(int(v)) if f == "P"
            else np.ctypeslib.as_ctypes_type(np.dtype(f))(v) for f, v in zip(formats, values)]
    array = (ctypes.c_void_p * max(1, len(held)))(*[ctypes.addressof(h) for h in held])
    return array, held


class DependentLaunches:
    """One SCoP's cubin loaded by the driver API: its kernels and constant symbols."""

    def __init__(self, cubin: bytes, kernels: Sequence[str]):
        from cuda.bindings import driver as cu
        self.cu = cu
        self.module = _checked(cu.cuModuleLoadData(cubin), "cuModuleLoadData")
        self.functions = {name: _checked(cu.cuModuleGetFunction(self.module, name.encode()),
                                         f"cuModuleGetFunction of {name}")
                          for name in kernels}
        attribute = cu.CUlaunchAttribute()
        attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attribute.value.programmaticStreamSerializationAllowed = 1
        self.attribute = attribute
        self._grids: dict[str, tuple[int, int]] = {}    # resident grids: grid, shared bytes

    def get_global(self, name: str) -> tuple[int, int]:
        """Address and size of the ``__constant__`` symbol ``name`` (PyCUDA's
        ``Module.get_global``)."""
        status, address, size = self.cu.cuModuleGetGlobal(self.module, name.encode())
        if status != self.cu.CUresult.CUDA_SUCCESS:
            raise error(f"cuModuleGetGlobal of {name} failed: {status}")
        return int(address), int(size)

    def launch(self, name: str, grid: Sequence[int], block: Sequence[int], stream: Any,
               formats: Sequence[str], values: Sequence[Any]) -> None:
        """Launch kernel ``name`` on PyCUDA's ``stream`` as a dependent launch."""
        cu = self.cu
        config = cu.CUlaunchConfig()
        # PyCUDA's grid and block may have fewer than three dimensions
        config.gridDimX, config.gridDimY, config.gridDimZ = (*map(int, grid), 1, 1)[:3]
        config.blockDimX, config.blockDimY, config.blockDimZ = (*map(int, block), 1, 1)[:3]
        config.sharedMemBytes = 0
        config.hStream = cu.CUstream(stream.handle)
        config.attrs = [self.attribute]
        config.numAttrs = 1
        array, _held = parameters(formats, values)
        status, = cu.cuLaunchKernelEx(config, self.functions[name], ctypes.addressof(array), 0)
        if status != cu.CUresult.CUDA_SUCCESS:
            raise error(f"dependent launch of {name} (grid {tuple(grid)}, block "
                        f"{tuple(block)}) failed: {status}")

    def resident(self, name: str, plan: dict[str, Any], block: Sequence[int], stream: Any,
                 formats: Sequence[str], values: Sequence[Any]) -> None:
        """Launch the resident grid ``name`` cooperatively, as the generated host code's
        ``polycu_launch_resident`` does (``codegen/resident.py``): its ``bands`` blocks
        with their ``bytes`` of shared memory where the device holds them all at once,
        else as many blocks as it holds without shared memory."""
        cu = self.cu
        function = self.functions[name]
        grid, shared = self._grids.get(name) or self._grid(name, plan, block)
        config = cu.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = grid, 1, 1
        config.blockDimX, config.blockDimY, config.blockDimZ = (*map(int, block), 1, 1)[:3]
        config.sharedMemBytes = shared
        config.hStream = cu.CUstream(stream.handle)
        attribute = cu.CUlaunchAttribute()
        attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
        attribute.value.cooperative = 1
        config.attrs = [attribute]
        config.numAttrs = 1
        array, _held = parameters(formats, values)
        status, = cu.cuLaunchKernelEx(config, function, ctypes.addressof(array), 0)
        if status != cu.CUresult.CUDA_SUCCESS:
            raise error(f"cooperative launch of {name} (grid {grid}, {shared} B of shared "
                        f"memory a block) failed: {status}")

    def _grid(self, name: str, plan: dict[str, Any], block: Sequence[int]) -> tuple[int, int]:
        """The grid and shared bytes of resident grid ``name`` on this device (kept: the
        launches of a timed graph's capture must not set attributes)."""
        cu = self.cu
        function = self.functions[name]
        threads = int(block[0]) * int(block[1]) * int(block[2])
        bands, nbytes = int(plan["bands"]), int(plan["bytes"])
        device = _checked(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        sms = _checked(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
            "cuDeviceGetAttribute")
        status, = cu.cuFuncSetAttribute(
            function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            nbytes)
        most = 0
        if status == cu.CUresult.CUDA_SUCCESS:
            status, most = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads,
                                                                          nbytes)
        shared = nbytes if status == cu.CUresult.CUDA_SUCCESS and most * sms >= bands else 0
        if not shared:
            most = _checked(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads, 0),
                            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        self._grids[name] = (bands if shared else max(1, min(bands, most * sms)), shared)
        return self._grids[name]

    def __del__(self) -> None:
        # the context may be gone already, at the interpreter's exit
        with contextlib.suppress(Exception):
            self.cu.cuModuleUnload(self.module)


def _checked(result: tuple[Any, ...], what: str) -> Any:
    from cuda.bindings import driver as cu
    status, value = result
    if status != cu.CUresult.CUDA_SUCCESS:
        raise error(f"{what} failed: {status}")
    return value
