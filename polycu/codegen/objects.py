"""Textures, surfaces and constant memory: the objects behind arrays placed in them.

In:  a ``Placement`` whose choices put arrays in ``texture``, ``texture-2d``,
     ``surface`` or ``constant`` memory (``memory.kinds``).
Out: what each needs, as data (``objects``: one ``DeviceObject`` per array and kind,
     with its geometry and texel type; ``uses``: the objects a kernel's launches
     use) and as C: the device helpers the kernels read them through, the
     ``__constant__`` declarations, and the host lines that create the objects after
     the allocations, copy into CUDA arrays and constant memory before a launch,
     copy surfaces back after it, and destroy everything before the frees.

A texture over linear memory views the array's device buffer and needs no copy.
A 2-D texture or a surface views a CUDA array of ``height`` rows (every dimension
but the last) of ``width`` elements; constant memory holds a copy of the buffer.  A
double travels as an ``int2`` texel: its low word in x, its high word in y.

Copies only where a value has changed.  An array with objects has up to three
copies on the device: its buffer B, its CUDA array C (shared by its 2-D texture and
its surface) and its constant copy K.  The host keeps, per array, which copies are
older than the newest (``polycu_old_carr_A``: C older than B; ``polycu_old_buf_A``:
B older than C, after a surface wrote C; ``polycu_old_const_A``: K older than B):
- before a launch, B is brought up to date (copied back from C) if the launch reads
  or writes B, or copies B into K; then C is filled from B, and K copied from B,
  where the launch reads them and they are old;
- after it, a write of B makes C and K old, a write through a surface makes B and K
  old;
- after the last launch, B is brought up to date for the copy-out.
At the start C and K are old, B is not (the copy-in filled it).  C and B are never
both old: a launch that writes one brought it up to date first.  Which launch reads
or writes which copy is each kernel's ``buffers`` entry (``buffer_use``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from ..memory import CONSTANT, SURFACE, TEXTURE, TEXTURE_2D, Placement
from ..memory.kinds import extents, texel
from ..model import Scop
from .cuda import INDENT

OBJECT_KINDS = (TEXTURE, TEXTURE_2D, SURFACE, CONSTANT)
_PREFIX = {TEXTURE: "polycu_tex_", TEXTURE_2D: "polycu_tex2d_", SURFACE: "polycu_surf_"}
#: The type of each kind's kernel parameter and of the view its kernels declare.
PARAMETER_TYPES = {TEXTURE: "cudaTextureObject_t", TEXTURE_2D: "cudaTextureObject_t",
                   SURFACE: "cudaSurfaceObject_t"}
VIEWS = {TEXTURE: "polycu_texture", TEXTURE_2D: "polycu_texture_2d",
         SURFACE: "polycu_surface"}


@dataclass(frozen=True)
class DeviceObject:
    """An array in a texture, a surface or constant memory: ``name`` is the object's
    handle (the ``__constant__`` symbol for constant memory), ``cuda_array`` the
    CUDA array a 2-D kind views; ``width`` x ``height`` elements."""

    array: str
    kind: str
    name: str
    element_type: str
    texel: str
    width: int
    height: int
    cuda_array: str | None = None


def object_name(scop: Scop, array: str, kind: str) -> str:
    """The handle of ``array``'s object of ``kind`` (kernel parameter or symbol)."""
    return f"polycu_const_{scop.name}_{array}" if kind == CONSTANT else _PREFIX[kind] + array


def objects(placement: Placement) -> tuple[DeviceObject, ...]:
    """The objects of every kernel of the SCoP, one per array and kind."""
    scop = placement.program.scop
    found: dict[tuple[str, str], DeviceObject] = {}
    for placed in placement.kernels:
        for choice in placed.choices:
            if choice.kind not in OBJECT_KINDS or (choice.array, choice.kind) in found:
                continue
            array = scop.array(choice.array)
            shape = extents(scop, array)
            assert shape is not None, "kinds.py places only arrays of constant extents"
            count = 1
            for n in shape:
                count *= n
            two_d = choice.kind in (TEXTURE_2D, SURFACE)
            found[(choice.array, choice.kind)] = DeviceObject(
                choice.array, choice.kind, object_name(scop, choice.array, choice.kind),
                array.element_type, texel(array),
                shape[-1] if two_d else count, count // shape[-1] if two_d else 1,
                f"polycu_carr_{choice.array}" if two_d else None)
    return tuple(found.values())


def uses(placement: Placement, kernel: str) -> tuple[str, ...]:
    """The names of the objects a launch of ``kernel`` uses."""
    scop = placement.program.scop
    return tuple(object_name(scop, c.array, c.kind) for c in placement.kernel(kernel).choices
                 if c.kind in OBJECT_KINDS)


#: A launch that touches no array with objects (a kernel entry without ``buffers``:
#: the one-block program's, which uses no objects).
NO_BUFFERS: dict[str, list[str]] = {"reads": [], "writes": [], "surfaces": []}


def buffer_use(placement: Placement, kernel: str) -> dict[str, list[str]]:
    """For the arrays that have objects: those whose buffers a launch of ``kernel``
    reads (``reads``, written ones included) or writes directly (``writes``), and
    those it writes through a surface (``surfaces``)."""
    owners = {o.array for o in objects(placement)}
    found = next(k for k in placement.program.kernels if k.name == kernel)
    kinds = {c.array: c.kind for c in placement.kernel(kernel).choices}
    touched = sorted((found.reads | found.writes) & owners - found.private)
    direct = [a for a in touched if kinds.get(a) not in (CONSTANT, TEXTURE_2D, SURFACE)]
    return {"reads": direct, "writes": [a for a in direct if a in found.writes],
            "surfaces": [a for a in touched if kinds.get(a) == SURFACE and a in found.writes]}


def described(placement: Placement) -> list[dict[str, Any]]:
    """The objects as the kernel description lists them (the runtimes create them)."""
    return [asdict(o) for o in objects(placement)]


# -- device code ------------------------------------------------------------------------

DEVICE_HELPERS = r"""/* Arrays read through textures and surfaces (memory placement): a double is
   an int2 texel, low word in x, high word in y. */
template <class T> struct polycu_texel {
  typedef T type;
  static __device__ __forceinline__ T value(T t) { return t; }
  static __device__ __forceinline__ T texel(T v) { return v; }
};
template <> struct polycu_texel<double> {
  typedef int2 type;
  static __device__ __forceinline__ double value(int2 t) { return __hiloint2double(t.y, t.x); }
  static __device__ __forceinline__ int2 texel(double v) {
    return make_int2(__double2loint(v), __double2hiint(v));
  }
};
/* A[i] of a texture over linear memory. */
template <class T> struct polycu_texture {
  cudaTextureObject_t object;
  __device__ __forceinline__ T operator[](long long i) const {
    return polycu_texel<T>::value(tex1Dfetch<typename polycu_texel<T>::type>(object, (int)i));
  }
};
/* A(row, column) of a texture over a 2-D CUDA array. */
template <class T> struct polycu_texture_2d {
  cudaTextureObject_t object;
  __device__ __forceinline__ T operator()(long long row, long long column) const {
    return polycu_texel<T>::value(tex2D<typename polycu_texel<T>::type>(
        object, (float)column + 0.5f, (float)row + 0.5f));
  }
};
/* A(row, column) of a surface: read as a value, assigned to write. */
template <class T> struct polycu_surface_cell {
  cudaSurfaceObject_t object;
  int x, y;
  __device__ __forceinline__ operator T() const {
    return polycu_texel<T>::value(
        surf2Dread<typename polycu_texel<T>::type>(object, x * (int)sizeof(T), y));
  }
  __device__ __forceinline__ T operator=(T v) const {
    surf2Dwrite(polycu_texel<T>::texel(v), object, x * (int)sizeof(T), y);
    return v;
  }
  __device__ __forceinline__ T operator=(const polycu_surface_cell &other) const {
    return *this = (T)other;
  }
  /* C's compound assignment: the operation in the usual arithmetic conversions of
     both operands, then converted back (an int += a double adds in double). */
#define POLYCU_COMPOUND(op)                                                    \
  template <class U> __device__ __forceinline__ T operator op##=(U v) const {  \
    return *this = (T)((T)*this op v);                                         \
  }
  POLYCU_COMPOUND(+) POLYCU_COMPOUND(-) POLYCU_COMPOUND(*) POLYCU_COMPOUND(/)
  POLYCU_COMPOUND(%) POLYCU_COMPOUND(<<) POLYCU_COMPOUND(>>) POLYCU_COMPOUND(&)
  POLYCU_COMPOUND(|) POLYCU_COMPOUND(^)
#undef POLYCU_COMPOUND
  __device__ __forceinline__ T operator++() const { return *this = (T)((T)*this + 1); }
  __device__ __forceinline__ T operator--() const { return *this = (T)((T)*this - 1); }
  __device__ __forceinline__ T operator++(int) const {
    const T old = *this;
    *this = (T)(old + 1);
    return old;
  }
  __device__ __forceinline__ T operator--(int) const {
    const T old = *this;
    *this = (T)(old - 1);
    return old;
  }
};
template <class T> struct polycu_surface {
  cudaSurfaceObject_t object;
  __device__ __forceinline__ polycu_surface_cell<T> operator()(long long row,
                                                              long long column) const {
    return polycu_surface_cell<T>{object, (int)column, (int)row};
  }
};
"""


def reads_objects(placement: Placement) -> bool:
    """Whether a kernel of the SCoP reads a texture or a surface (it needs
    ``DEVICE_HELPERS``)."""
    return any(o.kind != CONSTANT for o in objects(placement))


def constant_declarations(placement: Placement) -> list[str]:
    """The ``__constant__`` arrays of one SCoP."""
    return [f"__constant__ {o.element_type} {o.name}[{o.width}];"
            for o in objects(placement) if o.kind == CONSTANT]


def kernel_view(o_kind: str, array: str, element_type: str, scop: Scop) -> str:
    """The kernel's declaration through which statements read ``array`` of ``o_kind``:
    ``const polycu_texture<double> A = {polycu_tex_A};`` or, for constant memory,
    ``const double *__restrict__ const A = polycu_const_s_A;``."""
    name = object_name(scop, array, o_kind)
    if o_kind == CONSTANT:
        return f"const {element_type} *__restrict__ const {array} = {name};"
    return f"const {VIEWS[o_kind]}<{element_type}> {array} = {{{name}}};"


# -- host code --------------------------------------------------------------------------

HOST_HELPERS = r"""#include <string.h>

/* Texture and surface objects of the memory placement: point sampling of element
   texels at unnormalised coordinates, clamped. */
inline cudaTextureObject_t polycu_texture_object(const cudaResourceDesc *resource)
{
  cudaTextureDesc texture;
  memset(&texture, 0, sizeof texture);
  texture.addressMode[0] = texture.addressMode[1] = texture.addressMode[2] = cudaAddressModeClamp;
  texture.filterMode = cudaFilterModePoint;
  texture.readMode = cudaReadModeElementType;
  cudaTextureObject_t object;
  POLYCU_CHECK(cudaCreateTextureObject(&object, resource, &texture, NULL));
  return object;
}
inline cudaTextureObject_t polycu_linear_texture(void *buffer, size_t bytes,
                                                        cudaChannelFormatDesc texel)
{
  cudaResourceDesc resource;
  memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = buffer;
  resource.res.linear.desc = texel;
  resource.res.linear.sizeInBytes = bytes;
  return polycu_texture_object(&resource);
}
inline cudaResourceDesc polycu_array_resource(cudaArray_t array)
{
  cudaResourceDesc resource;
  memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  return resource;
}
inline cudaTextureObject_t polycu_array_texture(cudaArray_t array)
{
  const cudaResourceDesc resource = polycu_array_resource(array);
  return polycu_texture_object(&resource);
}
inline cudaSurfaceObject_t polycu_array_surface(cudaArray_t array)
{
  const cudaResourceDesc resource = polycu_array_resource(array);
  cudaSurfaceObject_t object;
  POLYCU_CHECK(cudaCreateSurfaceObject(&object, &resource));
  return object;
}
"""


def _row_bytes(o: Mapping[str, Any]) -> str:
    return f"(size_t){o['width']} * sizeof({o['element_type']})"


def host_setup(found: Sequence[Mapping[str, Any]], device: Mapping[str, str]) -> list[str]:
    """Lines after the allocations: CUDA arrays and objects (``found``: ``described``)."""
    lines = []
    arrays = {}
    for o in found:
        if o["cuda_array"] is not None:
            surface = any(p["cuda_array"] == o["cuda_array"] and p["kind"] == SURFACE
                          for p in found)
            arrays[o["cuda_array"]] = (o, surface)
    for name, (o, surface) in arrays.items():
        flags = "cudaArraySurfaceLoadStore" if surface else "cudaArrayDefault"
        lines += [f"cudaArray_t {name};",
                  f"{{ const cudaChannelFormatDesc polycu_texel = "
                  f"cudaCreateChannelDesc<{o['texel']}>();",
                  f"{INDENT}POLYCU_CHECK(cudaMallocArray(&{name}, &polycu_texel, {o['width']}, "
                  f"{o['height']}, {flags})); }}"]
    for o in found:
        if o["kind"] == TEXTURE:
            buffer = device[o["array"]]
            lines.append(f"const cudaTextureObject_t {o['name']} = polycu_linear_texture("
                         f"{buffer}, {buffer}_bytes, cudaCreateChannelDesc<{o['texel']}>());")
        elif o["kind"] == TEXTURE_2D:
            lines.append(f"const cudaTextureObject_t {o['name']} = "
                         f"polycu_array_texture({o['cuda_array']});")
        elif o["kind"] == SURFACE:
            lines.append(f"const cudaSurfaceObject_t {o['name']} = "
                         f"polycu_array_surface({o['cuda_array']});")
    for array in dict.fromkeys(o["array"] for o in found if o["cuda_array"] is not None):
        lines.append(f"int {_old('carr', array)} = 1, {_old('buf', array)} = 0;")
    for o in found:
        if o["kind"] == CONSTANT:
            lines.append(f"int {_old('const', o['array'])} = 1;")
    return lines


def _old(copy: str, array: str) -> str:
    """The host flag saying that ``array``'s ``copy`` (carr, buf, const) is old."""
    return f"polycu_old_{copy}_{array}"


def _copy_back(o: Mapping[str, Any], device: Mapping[str, str]) -> str:
    return (f"POLYCU_CHECK(cudaMemcpy2DFromArray({device[o['array']]}, {_row_bytes(o)}, "
            f"{o['cuda_array']}, 0, 0, {_row_bytes(o)}, {o['height']}, "
            "cudaMemcpyDeviceToDevice));")


def _if_old(copy: str, array: str, action: str) -> str:
    flag = _old(copy, array)
    return f"if ({flag}) {{ {action} {flag} = 0; }}"


def before_launch(found: Mapping[str, Mapping[str, Any]], kernel: Mapping[str, Any],
                  device: Mapping[str, str]) -> list[str]:
    """The copies a launch of ``kernel`` needs first (the module's docstring): buffers
    brought up to date, then the old CUDA arrays and constant copies it reads."""
    used = [found[name] for name in kernel.get("objects", [])]
    arrays = {o["array"]: o for o in found.values() if o["cuda_array"] is not None}
    buffers = kernel.get("buffers", NO_BUFFERS)
    need = [*buffers["reads"], *(o["array"] for o in used if o["kind"] == CONSTANT)]
    lines = [_if_old("buf", a, _copy_back(arrays[a], device)) for a in dict.fromkeys(need)
             if a in arrays]
    for o in used:
        buffer = device[o["array"]]
        if o["kind"] == CONSTANT:
            lines.append(_if_old("const", o["array"], (
                f"POLYCU_CHECK(cudaMemcpyToSymbol({o['name']}, {buffer}, {buffer}_bytes, 0, "
                "cudaMemcpyDeviceToDevice));")))
        elif o["cuda_array"] is not None:
            lines.append(_if_old("carr", o["array"], (
                f"POLYCU_CHECK(cudaMemcpy2DToArray({o['cuda_array']}, 0, 0, {buffer}, "
                f"{_row_bytes(o)}, {_row_bytes(o)}, {o['height']}, "
                "cudaMemcpyDeviceToDevice));")))
    return lines


def after_launch(found: Mapping[str, Mapping[str, Any]], kernel: Mapping[str, Any]
                 ) -> list[str]:
    """What a launch of ``kernel`` made old: the CUDA array and constant copy of a
    buffer it wrote, the buffer and constant copy of an array it wrote through a
    surface."""
    two_d = {o["array"] for o in found.values() if o["cuda_array"] is not None}
    constant = {o["array"] for o in found.values() if o["kind"] == CONSTANT}
    lines = []
    buffers = kernel.get("buffers", NO_BUFFERS)
    for copy, arrays in (("carr", buffers["writes"]), ("buf", buffers["surfaces"])):
        for a in arrays:
            flags = [_old(copy, a)] if a in two_d else []
            flags += [_old("const", a)] if a in constant else []
            if flags:
                lines.append(" = ".join(flags) + " = 1;")
    return lines


def after_launches(found: Sequence[Mapping[str, Any]], device: Mapping[str, str]) -> list[str]:
    """After the last launch: each buffer a surface left old brought up to date."""
    arrays = {o["array"]: o for o in found if o["cuda_array"] is not None}
    surfaces = {o["array"] for o in found if o["kind"] == SURFACE}
    return [_if_old("buf", a, _copy_back(o, device)) for a, o in arrays.items() if a in surfaces]


def host_teardown(found: Sequence[Mapping[str, Any]]) -> list[str]:
    """Lines before the frees: destroy the objects, free the CUDA arrays."""
    lines = []
    for o in found:
        if o["kind"] in (TEXTURE, TEXTURE_2D):
            lines.append(f"POLYCU_CHECK(cudaDestroyTextureObject({o['name']}));")
        elif o["kind"] == SURFACE:
            lines.append(f"POLYCU_CHECK(cudaDestroySurfaceObject({o['name']}));")
    for name in dict.fromkeys(o["cuda_array"] for o in found if o["cuda_array"]):
        lines.append(f"POLYCU_CHECK(cudaFreeArray({name}));")
    return lines
