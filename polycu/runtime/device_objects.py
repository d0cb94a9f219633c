"""Texture, surface and constant objects of a kernel description, on the GPU.

In:  the description's ``objects`` (``codegen.objects.described``), one set of
     device buffers (PyCUDA allocations) and the compiled module.
Out: ``DeviceObjects``: the handles the kernels take (``handle``), the copies a
     launch needs before and after it (``before``, ``after``: into CUDA arrays and
     ``__constant__`` symbols, back from surfaces), and ``free``.

PyCUDA wraps only texture references, which CUDA 12 removed: objects are created
with cuda-bindings' driver API over PyCUDA's buffers and arrays
(``cuTexObjectCreate``, ``cuSurfObjectCreate``, ``CUarray(int(array.handle))``) and
passed to kernels as ``np.uint64``, as the generated host code does with the
runtime API.  A double is an int2 texel (two signed 32-bit channels).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..codegen.objects import NO_BUFFERS
from ..diagnostics import error
from .replay import numpy_type

#: texel type -> (driver format name, channels)
_FORMATS = {"int2": ("CU_AD_FORMAT_SIGNED_INT32", 2), "int": ("CU_AD_FORMAT_SIGNED_INT32", 1),
            "unsigned int": ("CU_AD_FORMAT_UNSIGNED_INT32", 1), "float": ("CU_AD_FORMAT_FLOAT", 1)}


def _element_bytes(o: Mapping[str, Any]) -> int:
    return np.dtype(numpy_type(o["element_type"])).itemsize


def _checked(result: Any, what: str) -> Any:
    status, *values = result
    if int(status) != 0:
        raise error(f"{what} failed: {status}")
    return values[0] if len(values) == 1 else values


class DeviceObjects:
    """The objects of one SCoP over one set of device buffers."""

    def __init__(self, drv: Any, module: Any, found: Sequence[Mapping[str, Any]],
                 buffers: Mapping[str, Any]):
        self.drv, self.found = drv, {o["name"]: o for o in found}
        self.buffers = buffers
        self.handles: dict[str, np.uint64] = {}
        self.arrays: dict[str, Any] = {}
        self.symbols: dict[str, tuple[int, int]] = {}
        self.textures: list[Any] = []
        self.surfaces: list[Any] = []
        self.reset()
        if not found:
            return
        from cuda.bindings import driver as cu
        self.cu = cu
        try:
            for o in found:
                if o["kind"] == "constant":
                    self.symbols[o["name"]] = module.get_global(o["name"])
                elif o["cuda_array"] is not None and o["cuda_array"] not in self.arrays:
                    surface = any(p["cuda_array"] == o["cuda_array"] and p["kind"] == "surface"
                                  for p in found)
                    self.arrays[o["cuda_array"]] = self._array(o, surface)
            for o in found:
                if o["kind"] in ("texture", "texture-2d"):
                    handle = _checked(cu.cuTexObjectCreate(self._resource(o),
                                                           self._texture(o), None),
                                      f"cuTexObjectCreate of {o['name']}")
                    self.textures.append(handle)
                    self.handles[o["name"]] = np.uint64(int(handle))
                elif o["kind"] == "surface":
                    handle = _checked(cu.cuSurfObjectCreate(self._resource(o)),
                                      f"cuSurfObjectCreate of {o['name']}")
                    self.surfaces.append(handle)
                    self.handles[o["name"]] = np.uint64(int(handle))
        except BaseException:
            self.free()
            raise

    def _array(self, o: Mapping[str, Any], surface: bool) -> Any:
        drv = self.drv
        fmt, channels = _FORMATS[o["texel"]]
        descriptor = drv.ArrayDescriptor3D()
        descriptor.width, descriptor.height, descriptor.depth = o["width"], o["height"], 0
        descriptor.format = getattr(drv.array_format, fmt.removeprefix("CU_AD_FORMAT_"))
        descriptor.num_channels = channels
        descriptor.flags = drv.array3d_flags.SURFACE_LDST if surface else 0
        return drv.Array(descriptor)

    def _resource(self, o: Mapping[str, Any]) -> Any:
        cu = self.cu
        resource = cu.CUDA_RESOURCE_DESC()
        if o["cuda_array"] is None:       # a texture over the linear buffer
            fmt, channels = _FORMATS[o["texel"]]
            resource.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
            resource.res.linear.devPtr = cu.CUdeviceptr(int(self.buffers[o["array"]]))
            resource.res.linear.format = getattr(cu.CUarray_format, fmt)
            resource.res.linear.numChannels = channels
            resource.res.linear.sizeInBytes = o["width"] * _element_bytes(o)
        else:
            resource.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
            resource.res.array.hArray = cu.CUarray(int(self.arrays[o["cuda_array"]].handle))
        return resource

    def _texture(self, o: Mapping[str, Any]) -> Any:
        cu = self.cu
        texture = cu.CUDA_TEXTURE_DESC()
        clamp = cu.CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP
        texture.addressMode = [clamp, clamp, clamp]
        texture.filterMode = cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT
        texture.flags = 0 if o["texel"] == "float" else cu.CU_TRSF_READ_AS_INTEGER
        return texture

    def handle(self, name: str) -> np.uint64:
        return self.handles[name]

    def _copy_2d(self, o: Mapping[str, Any], to_array: bool, stream: Any) -> None:
        copy = self.drv.Memcpy2D()
        row = o["width"] * _element_bytes(o)
        buffer, array = self.buffers[o["array"]], self.arrays[o["cuda_array"]]
        if to_array:
            copy.set_src_device(buffer)
            copy.src_pitch = row
            copy.set_dst_array(array)
        else:
            copy.set_src_array(array)
            copy.set_dst_device(buffer)
            copy.dst_pitch = row
        copy.width_in_bytes, copy.height = row, o["height"]
        copy(stream)

    # The state of the copies and the copies made from it: codegen/objects.py's
    # docstring, which the generated host function follows too.
    def reset(self) -> None:
        """At the start of a run: the buffers are filled, the other copies are old."""
        self.old_carr = {o["array"] for o in self.found.values() if o["cuda_array"]}
        self.old_const = {o["array"] for o in self.found.values() if o["kind"] == "constant"}
        self.old_buf: set[str] = set()

    def _two_d(self, array: str) -> Mapping[str, Any]:
        return next(o for o in self.found.values()
                    if o["array"] == array and o["cuda_array"] is not None)

    def _bring_buffer(self, array: str, stream: Any) -> None:
        if array in self.old_buf:
            self._copy_2d(self._two_d(array), False, stream)
            self.old_buf.discard(array)

    def before(self, kernel: Mapping[str, Any], stream: Any) -> None:
        """The copies a launch of ``kernel`` needs first: buffers brought up to date,
        then the old CUDA arrays and constant copies it reads."""
        used = [self.found[name] for name in kernel.get("objects", [])]
        for array in kernel.get("buffers", NO_BUFFERS)["reads"]:
            self._bring_buffer(array, stream)
        for o in used:
            if o["kind"] == "constant":
                self._bring_buffer(o["array"], stream)
                if o["array"] in self.old_const:
                    symbol, size = self.symbols[o["name"]]
                    nbytes = o["width"] * _element_bytes(o)
                    self.drv.memcpy_dtod_async(symbol, self.buffers[o["array"]],
                                               min(size, nbytes), stream)
                    self.old_const.discard(o["array"])
            elif o["cuda_array"] is not None and o["array"] in self.old_carr:
                self._copy_2d(o, True, stream)
                self.old_carr.discard(o["array"])

    def after(self, kernel: Mapping[str, Any]) -> None:
        """What a launch of ``kernel`` made old."""
        two_d = {o["array"] for o in self.found.values() if o["cuda_array"] is not None}
        constant = {o["array"] for o in self.found.values() if o["kind"] == "constant"}
        buffers = kernel.get("buffers", NO_BUFFERS)
        for array in buffers["writes"]:
            self.old_carr |= {array} & two_d
            self.old_const |= {array} & constant
        for array in buffers["surfaces"]:
            self.old_buf |= {array} & two_d
            self.old_const |= {array} & constant

    def finish(self, stream: Any) -> None:
        """After the last launch: every buffer brought up to date."""
        for array in sorted(self.old_buf):
            self._bring_buffer(array, stream)

    def free(self) -> None:
        for handle in self.textures:
            self.cu.cuTexObjectDestroy(handle)
        for handle in self.surfaces:
            self.cu.cuSurfObjectDestroy(handle)
        for array in self.arrays.values():
            array.free()
        self.textures, self.surfaces, self.arrays = [], [], {}
