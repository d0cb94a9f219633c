"""The CPU reference of a SCoP: its original code, compiled by gcc, run on inputs.

In:  a ``Scop`` (its macro-expanded ``original_code`` and outside ``declarations``),
     parameter values and the inputs to run on.
Out: ``build_reference``: a ``NativeFunction`` with the contract-1 signature built
     from the SCoP's text; ``run_reference``: what it computes on a copy of the
     inputs (drawn again as non-negative integers when the original overflows a
     signed integer on the default ones: its result would be undefined).

The reference re-declares each array as a pointer to VLA rows of its original
extents (``double (*A)[n + 1] = (double (*)[n + 1]) polycu_arg_A;``), so the
original text compiles unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
from pycparser import c_ast, c_parser

from ..diagnostics import error
from ..model import Array, Scop
from .inputs import DEFAULT_PROFILE, NONNEGATIVE_INTS
from .native import NativeFunction, SignedOverflow, build_cached
from .signature import Signature, dtype_of

#: gcc flags of the reference: no contraction of a*b+c, so results do not
#: depend on the host's FMA support (same choice as scripts/polybench_cpu.py).
REFERENCE_FLAGS = ("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared")
#: Added when the SCoP has signed integer data: a signed overflow (undefined in C,
#: so nothing to compare the generated code with) stops the reference with a trap
#: instruction instead of giving some value (no sanitizer library is needed).
OVERFLOW_TRAP_FLAGS = ("-fsanitize=signed-integer-overflow",
                       "-fsanitize-undefined-trap-on-error")


def reference_name(scop: Scop) -> str:
    return f"polycu_reference_{scop.name}"


def free_names(code: str) -> list[str] | None:
    """The variables the C statements ``code`` use where none of their own
    declarations is in scope (C's block scopes: a name declared in a block, or in a
    ``for`` clause, is bound only there), in order of first use; None when pycparser
    cannot read the text (a type name it does not know)."""
    try:
        tree = c_parser.CParser().parse(f"void polycu_scop(void) {{\n{code}\n}}")
    except Exception:  # pycparser raises several types on text it cannot read
        return None
    found: dict[str, None] = {}
    scopes: list[set[str]] = []

    class Visitor(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            if not any(node.name in scope for scope in scopes):
                found.setdefault(node.name)

        def visit_Decl(self, node: c_ast.Decl) -> None:
            self.visit(node.type)             # array extents are read before the name binds
            if node.name:
                scopes[-1].add(node.name)
            if node.init is not None:
                self.visit(node.init)

        def visit_Compound(self, node: c_ast.Compound) -> None:
            scopes.append(set())
            self.generic_visit(node)
            scopes.pop()

        visit_For = visit_Compound

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if node.args is not None:      # the callee is a function, not a variable
                self.visit(node.args)

        def visit_StructRef(self, node: c_ast.StructRef) -> None:
            self.visit(node.name)          # the field is no variable

    Visitor().visit(tree.ext[0].body)
    return list(found)


def _outside_declaration(scop: Scop, name: str) -> str | None:
    """How the reference declares a variable the SCoP uses from outside when the
    frontend gave no declaration of it (it omits names that the SCoP also declares
    somewhere inside): as the SCoP's array of that name, or, for a loop counter, as
    a ``long`` (the iterator's values are the domain's, which its own type holds)."""
    for a in scop.arrays:
        if a.name == name:
            if a.extents and a.extents[0] is None:
                return f"{a.element_type} *{name}"
            return f"{a.element_type} {name}" + "".join(f"[{e}]" for e in a.extents)
    if any(name in s.iterators for s in scop.statements):
        return f"long {name}"
    return None  # a global, an enumerator, a function: nothing to declare


def reference_source(scop: Scop) -> str:
    """C99 text of the SCoP as a function with the contract-1 signature.

    The SCoP's text goes into a block of its own, after the declarations of what
    it uses from outside, so that a name it declares again (``int i;`` outside,
    ``for (int i = ...)`` or ``int i;`` inside) shadows the outside one as in the
    original function instead of colliding with it."""
    sig = Signature.of(scop)
    arrays = {a.name for a in sig.arrays}
    body: list[str] = []
    for a in sig.arrays:
        arg = f"polycu_arg_{a.name}"
        if a.is_scalar:
            body.append(f"{a.element_type} {a.name} = *{arg};")
        elif a.rank == 1:
            body.append(f"{a.element_type} *{a.name} = {arg};")
        else:
            if any(e is None for e in a.extents[1:]):
                raise error(f"array '{a.name}' has an unknown inner extent", a.location)
            rows = "".join(f"[{e}]" for e in a.extents[1:])
            body.append(f"{a.element_type} (*{a.name}){rows} = "
                        f"({a.element_type} (*){rows}) {arg};")
    declarations = dict(scop.declarations)
    outside = list(declarations)
    outside += [n for n in free_names(scop.original_code) or () if n not in declarations]
    for name in outside:
        if name in arrays or name in scop.parameters:
            continue
        declaration = declarations.get(name) or _outside_declaration(scop, name)
        if declaration:
            body.append(f"{declaration};")  # iterators and other outside locals
    body.append("{")
    body += ["  " + line for line in scop.original_code.strip().splitlines()]
    body.append("}")
    body += [f"*polycu_arg_{a.name} = {a.name};" for a in sig.arrays if a.is_scalar]
    where = f"{scop.source} lines {scop.region[0]}-{scop.region[1]}"
    return "\n".join([
        f"/* CPU reference of SCoP {scop.name} ({where}), written by polycu. */",
        "#include <math.h>",
        "#include <stdlib.h>",
        "",
        *(a.struct.definition() for a in _struct_types(sig)),
        sig.prototype(reference_name(scop)),
        "{",
        *("  " + line for text in body for line in text.splitlines()),
        "}",
        "",
    ])


def _struct_types(sig: Signature) -> list[Array]:
    """The struct variables of the signature, one per structure type (the reference
    defines each type before its prototype)."""
    found = {a.struct.spelling: a for a in sig.arrays if a.struct is not None}
    return list(found.values())


def build_reference(scop: Scop, *, compiler: str = "gcc") -> NativeFunction:
    """Compile the SCoP's original code into a cached shared library (trapping signed
    overflow when it has signed integer data: ``OVERFLOW_TRAP_FLAGS``)."""
    sig = Signature.of(scop)
    traps = any(t.kind == "i" for a in sig.arrays for t in _scalar_dtypes(dtype_of(a)))
    flags = [*REFERENCE_FLAGS, *(OVERFLOW_TRAP_FLAGS if traps else ())]
    library = build_cached(reference_source(scop), [compiler, *flags], suffix=".so",
                           language="c", location=scop.location)
    return NativeFunction(library, reference_name(scop), sig,
                          f"the CPU reference of {scop.name}", scop.location, traps,
                          data_index_hint(scop))


def data_index_hint(scop: Scop) -> str:
    """What to say when the original or its kernels crash on the chosen parameters
    and random inputs of a SCoP whose subscripts isl cannot bound (data such as
    ``x[col[k]]``, products such as ``A[i * j]``, data-dependent loops): nothing then
    keeps every index inside its array."""
    if not any(stmt.loop for stmt in scop.statements):
        return ""
    return ("the SCoP has subscripts or loops that depend on data or on products of "
            "variables, so neither the parameters chosen nor random inputs keep every "
            "index inside its array: check with the program's own sizes and data "
            "(--param, --init FUNCTION, or the whole program)")


def _scalar_dtypes(dtype: np.dtype) -> list[np.dtype]:
    """The scalar types of an array's elements: its fields' for a structure."""
    if dtype.fields is None:
        return [dtype.base]
    return [t for f in dtype.fields.values() for t in _scalar_dtypes(f[0])]


@dataclass(frozen=True)
class ReferenceRun:
    """The inputs a reference ran on and its results (``expected``)."""

    profile: str
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]
    note: str = ""


def run_reference(scop: Scop, values: Mapping[str, int],
                  inputs_of: Callable[[str], dict[str, np.ndarray]], profile: str, *,
                  timeout: float) -> ReferenceRun:
    """Run the CPU reference on a copy of ``inputs_of(profile)``.

    When the default profile drives the original into a signed overflow (trapped:
    ``OVERFLOW_TRAP_FLAGS``), its result is undefined and nothing could be compared
    with it: the inputs are drawn again with signed integers >= 0
    (``nonnegative-ints``), and the report says so.
    """
    reference = build_reference(scop)
    inputs = inputs_of(profile)
    expected = {name: array.copy() for name, array in inputs.items()}
    try:
        reference(values, expected, timeout=timeout)
        return ReferenceRun(profile, inputs, expected)
    except SignedOverflow:
        if profile != DEFAULT_PROFILE:
            raise
    inputs = inputs_of(NONNEGATIVE_INTS)
    expected = {name: array.copy() for name, array in inputs.items()}
    reference(values, expected, timeout=timeout)
    return ReferenceRun(NONNEGATIVE_INTS, inputs, expected,
                        "the original overflows a signed integer on inputs of both signs")
