"""The contract-1 signature of a SCoP function, and the numpy types of C types.

In:  a ``Scop`` (its parameters with their C types, its non-local arrays).
Out: ``Signature``: what the CPU reference, the emulated host function and the
     initialisation wrapper take, ``void f(P_1 p_1, ..., T_1 *a_1, ...)``
     (parameters in order, each with its C type ``Scop.parameter_type``, then every
     non-local array as a flat row-major pointer, scalars as pointers to one
     element, struct variables as pointers to their structs: ``model.storages``); and the numpy type of each C arithmetic type (``scalar_dtype``), so
     that arrays, parameters and kernel arguments are passed in their own types.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..diagnostics import Location, error
from ..model import Array, Scop, StructType, storages

_QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__",
                         "register", "static", "extern"})
# Type names that are not spelt with C's keywords (LP64: long and pointers are 64-bit).
_NAMED_TYPES = {
    "_Bool": np.bool_, "bool": np.bool_,
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
    "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64,
    "size_t": np.uint64, "ssize_t": np.int64, "ptrdiff_t": np.int64,
    "intptr_t": np.int64, "uintptr_t": np.uint64,
}
_KEYWORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "float", "double"})
# Integer numpy type -> the ctypes type of a parameter of that type (by name: the
# child process of a native call imports nothing but the standard library).
_CTYPES = {
    np.dtype(np.int8): "c_int8", np.dtype(np.uint8): "c_uint8",
    np.dtype(np.int16): "c_int16", np.dtype(np.uint16): "c_uint16",
    np.dtype(np.int32): "c_int32", np.dtype(np.uint32): "c_uint32",
    np.dtype(np.int64): "c_int64", np.dtype(np.uint64): "c_uint64",
}


def scalar_dtype(c_type: str) -> np.dtype | None:
    """The numpy type of a C arithmetic type, in any legal spelling (``long unsigned
    int``, ``const short``, ``uint64_t``); None for anything else.  A ``*`` is ignored:
    ``double *`` gives the element type."""
    words = [w for w in c_type.replace("*", " ").split() if w not in _QUALIFIERS]
    if len(words) == 1 and words[0] in _NAMED_TYPES:
        return np.dtype(_NAMED_TYPES[words[0]])
    count = {w: words.count(w) for w in _KEYWORDS}
    if not words or set(words) - _KEYWORDS or count["signed"] + count["unsigned"] > 1 \
            or any(n > (2 if w == "long" else 1) for w, n in count.items()):
        return None
    unsigned = count["unsigned"] == 1
    if count["float"] or count["double"]:
        if count["float"] and len(words) == 1:
            return np.dtype(np.float32)
        if count["double"] and set(words) <= {"double", "long"} and count["long"] <= 1:
            return np.dtype(np.longdouble if count["long"] else np.float64)
        return None
    if count["char"]:
        if set(words) - {"char", "signed", "unsigned"}:
            return None
        return np.dtype(np.uint8 if unsigned else np.int8)
    if count["short"]:
        if count["long"]:
            return None
        return np.dtype(np.uint16 if unsigned else np.int16)
    if count["long"]:
        return np.dtype(np.uint64 if unsigned else np.int64)
    return np.dtype(np.uint32 if unsigned else np.int32)


def integer_bounds(dtype: np.dtype) -> tuple[int, int]:
    """The smallest and largest value of an integer numpy type."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


# numpy's aligned structured types lay fields out as C does (each at the next multiple
# of its alignment, the size a multiple of the largest): the same bytes as gcc's.
def struct_dtype(fields: list[tuple[str, str, tuple[int, ...]]]) -> np.dtype | None:
    """The numpy type of a structure with these (name, C type, extents) fields."""
    parts = []
    for name, ctype, extents in fields:
        dtype = scalar_dtype(ctype)
        if dtype is None:
            return None
        parts.append((name, dtype, tuple(extents)) if extents else (name, dtype))
    return np.dtype(parts, align=True)


def _struct_fields(struct: StructType) -> list[tuple[str, str, tuple[int, ...]]]:
    return [(f.name, f.element_type, tuple(int(e) for e in f.extents)) for f in struct.fields]


def dtype_of(array: Array) -> np.dtype:
    """The numpy type of an array's elements, a structured type for a struct variable
    (raises a located error if unknown)."""
    dtype = struct_dtype(_struct_fields(array.struct)) if array.struct is not None else \
        scalar_dtype(array.element_type)
    if dtype is None:
        raise error(f"element type '{array.element_type}' of '{array.name}' cannot be run "
                    "on the CPU", array.location)
    return dtype


# -- the contract-1 signature ---------------------------------------------------

@dataclass(frozen=True)
class Signature:
    """What a SCoP function takes: parameters, each with its C type (``int`` when
    ``parameter_types`` does not say), then non-local arrays (pointers)."""

    parameters: tuple[str, ...]
    arrays: tuple[Array, ...]
    parameter_types: tuple[str, ...] = ()

    @classmethod
    def of(cls, scop: Scop) -> "Signature":
        return cls(scop.parameters, tuple(a for a in storages(scop) if not a.local),
                   tuple(scop.parameter_type(p) for p in scop.parameters))

    def parameter_type(self, name: str) -> str:
        """The C type of parameter ``name``."""
        return dict(zip(self.parameters, self.parameter_types)).get(name, "int")

    def parameter_dtype(self, name: str, location: Location | None = None) -> np.dtype:
        """The numpy type of parameter ``name``: an integer type (a located error if not)."""
        dtype = scalar_dtype(self.parameter_type(name))
        if dtype is None or dtype.kind not in "iu":
            raise error(f"parameter '{name}' has type '{self.parameter_type(name)}', which "
                        "is not an integer type the runtimes can pass", location)
        return dtype

    def check_values(self, params: Mapping[str, int], what: str,
                     location: Location | None = None) -> None:
        """A located error when a parameter value does not fit its C type (C would
        convert it, silently, to another value than the one reported)."""
        for name in self.parameters:
            low, high = integer_bounds(self.parameter_dtype(name, location))
            if not low <= int(params[name]) <= high:
                raise error(f"{what}: {name}={int(params[name])} does not fit its type "
                            f"'{self.parameter_type(name)}' ({low}..{high})", location)

    def prototype(self, name: str, argument: str = "polycu_arg_") -> str:
        """``void name(int n, unsigned long m, ..., double *polycu_arg_A, ...)``."""
        args = [f"{self.parameter_type(p)} {p}" for p in self.parameters]
        args += [f"{a.element_type} *{argument}{a.name}" for a in self.arrays]
        return f"void {name}({', '.join(args) or 'void'})"

    def ctypes_names(self) -> list[str]:
        """The ctypes type name of each parameter (``c_int32``, ``c_uint64``, ...)."""
        return [_CTYPES[self.parameter_dtype(p)] for p in self.parameters]

    def argtypes(self) -> list[type]:
        return ([getattr(ctypes, n) for n in self.ctypes_names()]
                + [ctypes.c_void_p] * len(self.arrays))
