"""Transfers: which storage of a SCoP goes to device memory, and how it travels.

In:  a ``GpuProgram`` (its model, dependences and private scalars) and the arrays'
device layouts (``cuda.layouts``).
Out: one ``Transfer`` per storage with a device buffer: its element count (C) and
whether it is copied in and out.

The storage of a model array is the array itself, or for a field array
(``model.Member``) the whole struct variable (``model.storages``): kernels index the
structs as the C source does, so one buffer holds every field.  An array is copied
in when some element is read before it is written (``live_in``) or when it is
written but the SCoP's must-writes do not cover the whole copied block (the
copy-out would otherwise return stale device memory for the elements it does not
write), and in the second case only at the parameter values where they miss one
(``covered``: the host skips the copy where they cover the block, e.g. 2mm's
``tmp`` when ``ni`` and ``nj`` reach its extents); it is copied out when it is
written.  A struct variable is copied in when
any of its fields is read before written or written at all (the copy-out returns
the whole structs, so the fields and elements the SCoP leaves alone must hold the
host's values), and copied out when a field is written.  Read-only scalars never go
to device memory: kernels take them by value; nor do privatised scalars (dead after
the SCoP, a local variable of each thread).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl

from ..gpu.kernel import GpuProgram
from ..frontend.scop import parameter_ranges
from ..model import Array, Scop, StructType, sets_of, storage_names, storages
from .ast import expr_of
from .nodes import to_expr
from .cuda import Layout, c_expr
from .overflow import exactly


@dataclass(frozen=True)
class Transfer:
    """How one array travels: device name, element count (C), copy in / copy out."""

    array: Array
    device: str
    count: str             # element count, C
    copy_in: bool
    copy_out: bool
    temp: bool
    covered: str | None = None      # C condition on the parameters: no copy-in needed

    @property
    def intent(self) -> str:
        if self.temp:
            return "temp"
        return {(True, True): "inout", (True, False): "in", (False, True): "out"}.get(
            (self.copy_in, self.copy_out), "in")


def _footprint_rows(scop: Scop, array: Array) -> isl.PwAff:
    """max(0, 1 + max index of dimension 0 over every access of the array (of any
    field of a struct variable)), where the parameters are within their types: a
    maximum's pieces beyond (a ``long`` below -2^63, fuzz seed 5622249) would print
    literals that no C type holds."""
    accessed = scop.reads().union(scop.may_writes()).range()
    own = storage_names(scop)
    sets = [s for s in sets_of(accessed) if own.get(s.get_tuple_name()) == array.name]
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(scop.context.get_space()))
    rows = zero.intersect_domain(scop.context)
    for cells in sets:  # none: no statement instance accesses it for any parameter value
        rows = rows.union_max(cells.dim_max(0).add_constant_val(isl.Val(1)))
    return rows.intersect_domain(scop.context.intersect(parameter_ranges(scop)))


# The copied block B = { A[i] : 0 <= i_k < n_k } of a written array needs a copy-in
# where the SCoP's must-writes W leave one of its elements alone:
#     N = params(B \ W) ∩ C        (C the context)
# (an unknown outer extent or a struct variable, extent_set None: everywhere).
def _missed(scop: Scop, array: Array) -> isl.Set:
    """The parameter values at which the must-writes do not cover the copied block."""
    if array.extent_set is None:
        return scop.context
    block = array.extent_set.intersect_params(scop.context)
    written = sets_of(isl.UnionSet.from_set(block).intersect(scop.must_writes().range()))
    missed = block.subtract(written[0]) if written else block
    return missed.params().intersect(scop.context)


def _covered_condition(scop: Scop, missed: isl.Set) -> str | None:
    """C text of the context less ``missed``, within the parameters' types: the values
    at which the copy-in is skipped (None: no such value, or none missed), computed
    exactly (``overflow.exactly``)."""
    known = scop.context.intersect(parameter_ranges(scop))
    missed = missed.intersect(known)
    if missed.is_empty() or missed.is_equal(known):
        return None
    covered = known.subtract(missed).coalesce()
    condition = to_expr(isl.AstBuild.from_context(known).expr_from_set(covered.gist(known)))
    return c_expr(exactly(condition, scop), host=True)


def transfers(program: GpuProgram, arrays: dict[str, Layout], prefix: str
              ) -> tuple[Transfer, ...]:
    """Device buffers of the SCoP's storage (read-only and private scalars have none)."""
    scop, deps = program.scop, program.deps
    own = storage_names(scop)
    live_in = {own[name] for name in deps.live_in_arrays()}
    written = {own[a.array] for s in scop.statements for a in s.writes}
    private = program.private
    result = []
    for array in storages(scop):
        layout = arrays[array.name]
        if layout.by_value or array.name in private:
            continue
        count = " * ".join(["(size_t)1"] + [paren(c) for c in _count_factors(scop, array, layout)])
        device = prefix + array.name
        if array.local:
            result.append(Transfer(array, device, count, False, False, True))
            continue
        copy_in, covered = array.name in live_in, None
        if not copy_in and array.name in written:
            missed = _missed(scop, array)
            copy_in, covered = not missed.is_empty(), _covered_condition(scop, missed)
        result.append(Transfer(array, device, count, copy_in, array.name in written,
                               False, covered))
    return tuple(result)


def _count_factors(scop: Scop, array: Array, layout: Layout) -> list[str]:
    """The C text of each dimension's size; an unknown outer one from the footprint."""
    return [c_expr(expr_of(_footprint_rows(scop, array), scop.context), host=True)
            if extent is None else extent for extent in layout.extents]


def device_prefix(scop: Scop) -> str:
    names = {a.name for a in scop.arrays} | {a.name for a in storages(scop)} \
        | set(scop.parameters)
    prefix = "dev_"
    while any(n.startswith(prefix) for n in names):
        prefix = "polycu_" + prefix
    return prefix


def paren(text: str) -> str:
    """``text`` in parentheses unless it is one word."""
    return text if re.fullmatch(r"\w+", text) else f"({text})"


def struct_fields(struct: StructType) -> list[list[object]]:
    """A structure's fields as the kernel description lists them, in declaration
    order: ``[name, element type, [extents]]`` (the runtimes rebuild its layout)."""
    return [[f.name, f.element_type, [int(e) for e in f.extents]] for f in struct.fields]


def struct_definitions(scop: Scop) -> list[str]:
    """The C definitions of the structure types of the SCoP's struct variables, which
    the .cu needs before its kernels and host functions."""
    found = {a.struct.spelling: a.struct.definition() for a in storages(scop)
             if a.struct is not None}
    return list(found.values())
