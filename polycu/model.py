"""The polyhedral model of a SCoP: immutable values holding isl objects.

A ``Scop`` is what the frontend extracts from one static control part:

* parameters ``p`` and their context ``C(p)`` (a set over the parameters),
* arrays (scalars written in the SCoP are 0-d arrays),
* statements ``S`` with an iteration domain ``D_S(p) = { S[i] : A i + B p + c >= 0 }``,
  a C body and access relations ``S[i] -> A[f(i, p)]``,
* the original (textual) execution order as an isl schedule tree.

All later phases read these values and build new ones; nothing here is mutated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import islpy as isl

from .diagnostics import Location

READ, WRITE, MAY_WRITE = "read", "write", "may_write"


@dataclass(frozen=True)
class Field:
    """One field of a structure type: a scalar or an array of scalars of constant
    extents (decimal C text)."""

    name: str
    element_type: str
    extents: tuple[str, ...] = ()


@dataclass(frozen=True)
class StructType:
    """A structure type the SCoP uses: its C spelling (``struct point`` or a typedef
    name) and its fields in declaration order, so that code generation and the
    runtimes can define it again with the same layout."""

    spelling: str
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def definition(self) -> str:
        """The C definition (``typedef struct { ... } T;`` for a typedef name)."""
        body = " ".join(f"{f.element_type} {f.name}" + "".join(f"[{e}]" for e in f.extents)
                        + ";" for f in self.fields)
        if self.spelling.startswith("struct "):
            return f"{self.spelling} {{ {body} }};"
        return f"typedef struct {{ {body} }} {self.spelling};"


@dataclass(frozen=True)
class Member:
    """Where a field array of the model lives: field ``field`` of the struct variable
    ``variable`` (declared with extents ``outer``, ``(None,)`` for a pointer)."""

    variable: str
    struct: StructType
    outer: tuple[str | None, ...]
    field: str


@dataclass(frozen=True, eq=False)
class Array:
    """An array (or a 0-d scalar) touched by the SCoP.

    ``extents`` are the C expressions of each dimension's size as written after
    preprocessing (the outermost may be ``None`` for a pointer parameter), so that
    code generation can linearise subscripts; ``extent_set`` is the affine set of
    valid indices ``{ A[i] : 0 <= i_k < n_k }`` when every extent is affine.

    ``dead_after`` says that nothing can read the array's value once the SCoP has
    run (a scalar local to the function, its address never taken, never referenced
    after the SCoP; or declared inside it): later phases may then give each GPU
    thread its own copy instead of one shared cell.

    ``member`` says that the array is one field of a struct variable: its indices are
    the variable's followed by the field's (``b[i][j].c[k][l]`` is ``b_c[i, j, k,
    l]``), so that fields never alias and dependences stay exact per field.  The
    contract passes the variable itself (``storages``): an ``Array`` whose
    ``struct`` is its type and whose ``extents`` are the variable's.

    ``delinearised`` says that the program declares the array flat (a pointer or one
    dimension) and subscripts it ``A[i * n + j]``, which the SCoP reads as rows
    ``A[i][j]`` of ``extents[1:]`` (``frontend/delinearise.py``): the same elements at
    the same offsets, but the program's own declaration has one dimension;
    ``outside_rows`` the parameters at which some column of it leaves its row (the
    context excludes them: the program runs the SCoP as written there).
    """

    name: str
    element_type: str
    extents: tuple[str | None, ...] = ()
    extent_set: isl.Set | None = None
    location: Location | None = None
    local: bool = False
    dead_after: bool = False
    member: Member | None = None
    struct: StructType | None = None
    delinearised: bool = False
    outside_rows: isl.Set | None = None

    @property
    def rank(self) -> int:
        return len(self.extents)

    @property
    def is_scalar(self) -> bool:
        return not self.extents


@dataclass(frozen=True, eq=False)
class Access:
    """One array reference of a statement: ``relation`` maps ``S[i]`` to ``A[f(i)]``.

    ``ref`` is unique in the SCoP; ``node`` is the very C AST node (``ArrayRef`` or
    ``ID``) of the statement body that makes the reference, so that printers can
    rewrite it (compare with ``is``).
    """

    array: str
    kind: str
    relation: isl.Map
    ref: str
    location: Location | None = None
    node: Any = None

    @property
    def is_read(self) -> bool:
        return self.kind == READ

    @property
    def is_write(self) -> bool:
        return self.kind in (WRITE, MAY_WRITE)


@dataclass(frozen=True, eq=False)
class Statement:
    """One statement: its domain, its C body and its accesses.

    ``iterators`` name the domain's dimensions (the enclosing loop counters, outer
    first); in ``body`` they appear as ``c_ast.ID`` nodes.  ``reduction`` is the
    associative operator ('+', '*', 'min', 'max') when the statement has the form
    ``X[f] = X[f] op e`` with ``e`` not reading ``X``; ``reduction_array`` names X.
    ``iterator_types`` are the iterators' C types (C text, ``iterators`` order).
    ``loop`` marks a data-dependent loop (``frontend/loops.py``): one instance runs a
    loop, so one reference may touch many elements (its relation over-approximates
    them) and the instance may read back a value it wrote itself, which its accesses
    (reads first, as isl orders one instance) do not show.
    """

    name: str
    domain: isl.Set
    iterators: tuple[str, ...]
    body: Any
    accesses: tuple[Access, ...]
    text: str = ""
    location: Location | None = None
    reduction: str | None = None
    reduction_array: str | None = None
    iterator_types: tuple[str, ...] = ()
    loop: bool = False

    def iterator_type(self, name: str) -> str:
        """The C type ``name`` was declared with (``int`` when the frontend did not say)."""
        return dict(zip(self.iterators, self.iterator_types)).get(name, "int")

    @property
    def reads(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.is_read)

    @property
    def writes(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.is_write)


@dataclass(frozen=True, eq=False)
class Scop:
    """A static control part and everything the later phases need about it.

    ``region`` is the first and last line, in ``source``, of the text the SCoP
    replaces (the pragma lines included when there are pragmas).
    ``original_code`` is the SCoP's C text after preprocessing (macros expanded) and
    ``declarations`` the C declaration, without initialiser, of every variable the
    SCoP uses but does not declare (parameters, arrays, scalars, iterators), so that
    the runtime can compile the original SCoP alone as a CPU reference.
    ``parameter_types`` are the C types the parameters are declared with, in
    ``parameters`` order (``int``, ``unsigned``, ``long`` ...): the contract's
    signature passes each parameter with its own type.
    ``renamed`` pairs each name the frontend gave a C identifier that isl, C++ or
    CUDA reserves with that identifier (``frontend/spelling.py``): the model and the
    generated CUDA use the first, the user's C file the second.  ``bindings`` pairs
    each name that stands for a structure's field with the field (``M_data``,
    ``M->data``: ``frontend/struct_fields.py``), which the user's C file passes.
    """

    name: str
    function: str
    source: str
    region: tuple[int, int]
    parameters: tuple[str, ...]
    context: isl.Set
    arrays: tuple[Array, ...]
    statements: tuple[Statement, ...]
    schedule: isl.Schedule
    location: Location | None = None
    original_code: str = ""
    declarations: tuple[tuple[str, str], ...] = ()
    parameter_types: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    bindings: tuple[tuple[str, str], ...] = ()

    def parameter_type(self, name: str) -> str:
        """The C type of parameter ``name`` (``int`` when the frontend did not say)."""
        types = dict(zip(self.parameters, self.parameter_types))
        return types.get(name, "int")

    # -- lookups -----------------------------------------------------------
    def in_source(self, text: str) -> str:
        """C text over the model's names (a name, a type, an expression) spelt with
        the user's names (a bound field its field), for code that stays in the user's
        C file."""
        if self.bindings:
            bound = {name: f"({field})" for name, field in self.bindings}
            text = re.sub(r"[A-Za-z_]\w*", lambda m: bound.get(m.group(0), m.group(0)), text)
        if not self.renamed:
            return text
        back = dict(self.renamed)
        return re.sub(r"[A-Za-z_]\w*", lambda m: back.get(m.group(0), m.group(0)), text)

    def model_values(self, values: Mapping[str, int]) -> dict[str, int]:
        """Values keyed by the user's names (``--param new=3``), keyed by the model's."""
        new = {c: m for m, c in self.renamed}
        return {new.get(k, k): v for k, v in values.items()}

    def user_parameters(self) -> tuple[str, ...]:
        """The parameters under the user's names."""
        back = dict(self.renamed)
        return tuple(back.get(p, p) for p in self.parameters)

    def array(self, name: str) -> Array:
        for a in self.arrays:
            if a.name == name:
                return a
        raise KeyError(name)

    def statement(self, name: str) -> Statement:
        for s in self.statements:
            if s.name == name:
                return s
        raise KeyError(name)

    # -- union views used by dependence analysis and scheduling -------------
    def domain(self) -> isl.UnionSet:
        """The union of all statement domains, intersected with the context."""
        result = isl.UnionSet.empty(self.context.get_space())
        for s in self.statements:
            result = result.union(isl.UnionSet.from_set(s.domain))
        return result.intersect_params(self.context)

    def _accesses(self, kinds: Iterable[str]) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.context.get_space())
        for s in self.statements:
            for a in s.accesses:
                if a.kind in kinds:
                    rel = a.relation.intersect_domain(s.domain)
                    result = result.union(isl.UnionMap.from_map(rel))
        return result.intersect_params(self.context)

    def reads(self) -> isl.UnionMap:
        return self._accesses((READ,))

    def must_writes(self) -> isl.UnionMap:
        return self._accesses((WRITE,))

    def may_writes(self) -> isl.UnionMap:
        """All writes, must and may (isl's convention: may-writes include must-writes)."""
        return self._accesses((WRITE, MAY_WRITE))

    def schedule_map(self) -> isl.UnionMap:
        """The original schedule as a union map ``S[i] -> [t]``."""
        return self.schedule.get_map().intersect_domain(self.domain())


def storages(scop: Scop) -> tuple[Array, ...]:
    """The storage of the SCoP's arrays, in ``Scop.arrays`` order: each array itself,
    but the field arrays of one struct variable replaced by the variable (where its
    first field is): what the host function takes, copies and frees."""
    result: list[Array] = []
    seen: set[str] = set()
    for array in scop.arrays:
        member = array.member
        if member is None:
            result.append(array)
        elif member.variable not in seen:
            seen.add(member.variable)
            result.append(Array(member.variable, member.struct.spelling, member.outer, None,
                                array.location, struct=member.struct))
    return tuple(result)


def storage_names(scop: Scop) -> dict[str, str]:
    """Each array's storage: the struct variable of a field array, else the array."""
    return {a.name: a.member.variable if a.member else a.name for a in scop.arrays}


def format_scop(scop: Scop) -> str:
    """A readable dump of the model (``polycu --dump-scop``)."""
    lines = [f"scop {scop.name}  (function {scop.function}, {scop.source} "
             f"lines {scop.region[0]}-{scop.region[1]})",
             f"  parameters: {', '.join(scop.parameters) or '(none)'}",
             f"  context:    {scop.context}",
             "  arrays:"]
    for a in scop.arrays:
        dims = "".join(f"[{e if e is not None else ''}]" for e in a.extents)
        extra = " (local)" if a.local else " (dead after)" if a.dead_after else ""
        if a.member is not None:
            extra += f" (field {a.member.field} of {a.member.variable})"
        if a.delinearised:
            extra += " (declared flat, read as rows)"
        lines.append(f"    {a.element_type} {a.name}{dims}{extra}")
    lines.append("  statements:")
    for s in scop.statements:
        end = "" if s.text.endswith(("}", ";")) else ";"   # a block, 'if', loop: its own
        lines.append(f"    {s.name}: {s.text}{end}"
                     + (f"    [reduction {s.reduction} on {s.reduction_array}]"
                        if s.reduction else ""))
        lines.append(f"      domain: {s.domain}")
        for a in s.accesses:
            lines.append(f"      {a.kind:9s} {a.relation}")
    lines.append("  schedule:")
    lines.append("    " + str(scop.schedule.get_root()).replace("\n", "\n    "))
    return "\n".join(lines)


# -- small isl helpers shared by the later phases ---------------------------------
def equal_prefix(pairs: isl.Map, d: int) -> isl.Map:
    """The pairs ``s -> t`` of ``pairs`` with ``x_s[0..d) = x_t[0..d)``."""
    for k in range(d):
        pairs = pairs.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return pairs


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of a union map, one per space."""
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    return maps


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of a union set, one per space."""
    sets: list[isl.Set] = []
    uset.foreach_set(sets.append)
    return sets


def statement_names(domain: isl.UnionSet) -> tuple[str, ...]:
    """The sorted tuple names of a union set (statement names for a domain)."""
    return tuple(sorted(s.get_tuple_name() for s in sets_of(domain)))
