"""Calls of C library functions inside statements, made explicit for CUDA C++.

In:  a statement body (pycparser AST) and the prototypes of the translation unit.
Out: the same body with every argument of a call converted explicitly to the
type of the prototype's parameter, where the argument's type differs.

In C a call of a prototyped function converts each argument as if by assignment
to the parameter's type (C11 6.5.2.2p7): ``exp(x)`` with ``float x`` calls the
double ``exp``, ``abs(d)`` with ``double d`` truncates ``d`` to ``int``.  nvcc
compiles kernels as C++, where ``exp(float)`` and ``abs(double)`` are other
overloads (``expf`` and ``fabs``).  Writing the conversion, ``exp((double)x)``
and ``abs((int)d)``, makes C++ pick the function C would call, with C's
argument, so the kernel computes what the C statement computed.

Only functions declared by our libc headers (``polycu/fakelibc``) count as the
C library: a function of the same name declared by the user is the user's.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pycparser import c_ast

from .affine import cast_type, is_int_literal
from .ctype import (DOUBLE, FLOAT, INT, LDOUBLE, ULONG, Arith, common, literal_type,
                    parse_type, promote, resolve_typedefs)
from .preprocess import FAKELIBC
from .syntax import value_name

#: C library functions without side effects that statements may call, each with a
#: device function of the same name and meaning.  Not here: lgamma (it sets
#: signgam), frexp, modf and remquo (pointers), and the classification macros
#: (isnan, signbit, ...), whose nonzero values are glibc's own (signbit of a
#: negative float is INT_MIN, isinf(-inf) is -1) where C++ gives a bool: those
#: ``classify.py`` writes as expressions with glibc's values where it can.  rint,
#: nearbyint, lrint and llrint round as the default rounding mode does, as the GPU's.
PURE_FUNCTIONS = frozenset(
    f + suffix
    for f in ("sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs",
              "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
              "asinh", "acosh", "atanh", "floor", "ceil", "round", "trunc", "fmin", "fmax",
              "fmod", "remainder", "fdim", "hypot", "cbrt", "erf", "erfc", "tgamma",
              "copysign", "fma", "ldexp", "scalbn", "scalbln", "ilogb", "logb", "nextafter",
              "rint", "nearbyint", "lrint", "llrint", "lround", "llround")
    for suffix in ("", "f")) | {"abs", "labs", "llabs"}


@dataclass(frozen=True)
class Prototype:
    """A declared function: its result and parameter types (C text)."""

    name: str
    result: str
    parameters: tuple[str, ...]
    library: bool          # declared by polycu's libc headers


def _type_text(node: c_ast.Node, typedefs: dict[str, str]) -> str:
    """C text of a parameter or result type (pointers keep a ``*``)."""
    stars = ""
    while isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        stars += "*"
        node = node.type
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        return resolve_typedefs(node.type.names, typedefs) + (" " + stars if stars else "")
    return "?"


def prototypes(ast: c_ast.FileAST, typedefs: dict[str, str]) -> dict[str, Prototype]:
    """Every function declared at file scope (the last declaration of a name wins)."""
    found: dict[str, Prototype] = {}
    for ext in ast.ext:
        decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
            continue
        func = decl.type
        params: list[str] = []
        for param in (func.args.params if func.args is not None else []):
            if isinstance(param, c_ast.EllipsisParam):
                params.append("...")
            elif isinstance(param, (c_ast.Decl, c_ast.Typename)):
                params.append(_type_text(param.type, typedefs))
        if params == ["void"]:
            params = []
        where = getattr(decl.coord, "file", None) or ""
        library = Path(where).resolve().is_relative_to(FAKELIBC) if where else False
        found[decl.name] = Prototype(decl.name, _type_text(func.type, typedefs),
                                     tuple(params), library and not isinstance(ext,
                                                                                c_ast.FuncDef))
    return found


def literal(node: c_ast.Constant) -> Arith | None:
    """The type of a constant: integer by C's rules, ``1.0f`` float, ``'a'`` int."""
    if node.type == "char":
        return INT
    if node.type in ("float", "double"):
        text = node.value.lower()
        return FLOAT if text.endswith("f") else LDOUBLE if text.endswith("l") else DOUBLE
    if is_int_literal(node):
        return literal_type(node.value)
    return None


class ExpressionTypes:
    """The C type of statement expressions; ``name_type`` types identifiers and
    array elements (None when unknown)."""

    def __init__(self, name_type: Callable[[str], Arith | None], typedefs: dict[str, str],
                 functions: dict[str, Prototype]):
        self.name_type = name_type
        self.typedefs = typedefs
        self.functions = functions

    def of(self, node: c_ast.Node) -> Arith | None:
        if isinstance(node, c_ast.Constant):
            return literal(node)
        if isinstance(node, c_ast.ID):
            return self.name_type(node.name)
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            name = value_name(node)
            return self.name_type(name) if name is not None else None
        if isinstance(node, c_ast.Cast):
            return cast_type(node, self.typedefs)
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "!":
                return INT
            if node.op == "sizeof":
                return ULONG
            inner = self.of(node.expr)
            return None if inner is None else promote(inner)
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return INT
            left, right = self.of(node.left), self.of(node.right)
            if left is None or right is None:
                return None
            if node.op in ("<<", ">>"):
                return promote(left)
            return common(left, right)
        if isinstance(node, c_ast.TernaryOp):
            a, b = self.of(node.iftrue), self.of(node.iffalse)
            return None if a is None or b is None else common(a, b)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            proto = self.functions.get(node.name.name)
            return parse_type(proto.result) if proto is not None else None
        return None


def cast_to(ctype: str, expr: c_ast.Node) -> c_ast.Cast:
    """``(ctype) expr``, at the expression's place."""
    names = c_ast.IdentifierType(ctype.split())
    typename = c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, names))
    return c_ast.Cast(typename, expr, coord=expr.coord)


class _Explicit(c_ast.NodeVisitor):
    def __init__(self, types: ExpressionTypes):
        self.types = types

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        self.generic_visit(node)
        proto = self.types.functions[node.name.name]
        exprs = node.args.exprs if node.args is not None else []
        for k, (arg, ptype) in enumerate(zip(exprs, proto.parameters)):
            if parse_type(ptype) is not None and self.types.of(arg) != parse_type(ptype):
                exprs[k] = cast_to(ptype, arg)


def make_explicit(body: c_ast.Node, types: ExpressionTypes) -> None:
    """Convert, in place, every call argument of ``body`` to its parameter's type
    where the types differ (the calls are of known library functions)."""
    _Explicit(types).visit(body)
