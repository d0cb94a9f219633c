"""Enumerations lowered to the integers they are, before the model.

In:  the pycparser AST of a translation unit.
Out: the same AST (a copy) where every enumeration constant is its value and every
enumerated type the integer type gcc gives it, or the AST itself when it has no
enumeration.

C makes an enumeration constant an ``int`` constant (C11 6.4.4.3, 6.7.2.2): its
value is the one written, else the previous constant's plus one, the first 0.  The
enumerated type itself is compatible with an integer type the implementation
chooses; gcc on x86-64 (the target of polycu's libc headers) takes ``unsigned
int`` when no constant is negative, else ``int``, so ``enum dir d; d - 10 < 0`` is
false for ``d`` of an enumeration without negative constants, as in gcc's build.
With the constants written as literals and the types as integer types, the rest of
the frontend (bounds, subscripts, conditions, the kernels' text) sees only what it
already models exactly: ``enum { N = 100 }; for (i = 0; i < N; i++)`` is a loop of
100 iterations, ``D[i] = RIGHT`` stores 5.
"""
from __future__ import annotations

import copy
import operator
from typing import Callable

from pycparser import c_ast

from ..diagnostics import Location, error
from .ctype import literal_value
from .syntax import replace_child

_INT_MIN, _INT_MAX, _UINT_MAX = -2 ** 31, 2 ** 31 - 1, 2 ** 32 - 1

_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "<<": operator.lshift,
    ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
}


def _truncating(op: str, a: int, b: int) -> int:
    """C's ``/`` and ``%``: the quotient rounds toward zero."""
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return q if op == "/" else a - b * q


class _Constants(c_ast.NodeVisitor):
    """Every enumeration of a unit: each constant's value and each tag's type."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.values: dict[str, int] = {}
        self.types: dict[int, list[str]] = {}      # id(Enum node with values) -> type
        self.tags: dict[str, list[str]] = {}

    def _value(self, node: c_ast.Node) -> int:
        """The value of an integer constant expression over earlier constants."""
        if isinstance(node, c_ast.Constant) and node.type in ("int", "unsigned int", "long int",
                                                               "unsigned long int",
                                                               "long long int",
                                                               "unsigned long long int"):
            return literal_value(node.value)
        if isinstance(node, c_ast.Constant) and node.type == "char" and len(node.value) == 3:
            return ord(node.value[1])
        if isinstance(node, c_ast.ID) and node.name in self.values:
            return self.values[node.name]
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~", "!"):
            v = self._value(node.expr)
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[node.op]
        if isinstance(node, c_ast.BinaryOp) and node.op in ("/", "%"):
            a, b = self._value(node.left), self._value(node.right)
            if b == 0:
                raise error("division by zero in an enumeration constant", self._at(node))
            return _truncating(node.op, a, b)
        if isinstance(node, c_ast.BinaryOp) and node.op in _BINARY:
            return _BINARY[node.op](self._value(node.left), self._value(node.right))
        if isinstance(node, c_ast.TernaryOp):
            return self._value(node.iftrue if self._value(node.cond) else node.iffalse)
        raise error("the value of this enumeration constant is not an integer constant "
                    "expression polycu evaluates (literals, earlier constants, arithmetic)",
                    self._at(node))

    def _at(self, node: c_ast.Node) -> Location:
        return Location.from_coord(node.coord, self.source)

    def visit_Enum(self, node: c_ast.Enum) -> None:
        if node.values is None:
            return
        values, last = [], -1
        for enumerator in node.values.enumerators:
            last = self._value(enumerator.value) if enumerator.value is not None else last + 1
            if not _INT_MIN <= last <= _INT_MAX:
                raise error(f"enumeration constant '{enumerator.name}' = {last} is not an "
                            "int (C11 6.7.2.2)", self._at(enumerator))
            self.values[enumerator.name] = last
            values.append(last)
        # gcc: unsigned int unless a constant is negative.
        ctype = ["int"] if min(values, default=0) < 0 else ["unsigned", "int"]
        self.types[id(node)] = ctype
        if node.name:
            self.tags[node.name] = ctype


class _Lower(c_ast.NodeVisitor):
    """Rewrites, in place, constants to literals and enumerated types to integers."""

    def __init__(self, constants: _Constants) -> None:
        self.constants = constants

    def _type(self, enum: c_ast.Enum) -> list[str]:
        ctype = self.constants.types.get(id(enum)) or self.constants.tags.get(enum.name or "")
        if ctype is None:
            raise error(f"enumeration 'enum {enum.name}' is used but never defined",
                        Location.from_coord(enum.coord, self.constants.source))
        return ctype

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            replacement = self._replacement(child)
            if replacement is not None:
                replace_child(node, name, replacement)
            else:
                self.visit(child)

    def _replacement(self, node: c_ast.Node) -> c_ast.Node | None:
        values = self.constants.values
        if isinstance(node, c_ast.ID) and node.name in values:
            value = values[node.name]
            literal = c_ast.Constant("int", str(abs(value)), node.coord)
            return c_ast.UnaryOp("-", literal, node.coord) if value < 0 else literal
        if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.Enum):
            node.type = c_ast.IdentifierType(self._type(node.type), node.type.coord)
        return None

    def visit_FileAST(self, node: c_ast.FileAST) -> None:
        node.ext = [e for e in node.ext if not _enum_only(e)]
        self.generic_visit(node)

    def visit_Compound(self, node: c_ast.Compound) -> None:
        node.block_items = [e for e in node.block_items or [] if not _enum_only(e)] or None
        self.generic_visit(node)


def _enum_only(node: c_ast.Node) -> bool:
    """Whether ``node`` is a declaration of enumeration constants alone (``enum {...};``)."""
    return isinstance(node, c_ast.Decl) and node.name is None and \
        isinstance(node.type, c_ast.Enum)


class _Shadowed(c_ast.NodeVisitor):
    """The declarations whose names are also enumeration constants."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.found: list[c_ast.Decl] = []

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name in self.names:
            self.found.append(node)
        self.generic_visit(node)


def lower_enums(ast: c_ast.FileAST, source: str) -> c_ast.FileAST:
    """``ast`` with its enumerations lowered to integers (a copy), or ``ast`` itself
    when it has none; a located error where a constant's value cannot be known."""
    constants = _Constants(source)
    constants.visit(ast)
    if not constants.types and not constants.tags:
        return ast
    shadowed = _Shadowed(set(constants.values))
    shadowed.visit(ast)
    if shadowed.found:
        decl = shadowed.found[0]
        raise error(f"'{decl.name}' is declared here and as an enumeration constant: polycu "
                    "does not tell them apart; rename one", Location.from_coord(decl.coord, source))
    lowered = copy.deepcopy(ast)
    copied = _Constants(source)
    copied.visit(lowered)
    _Lower(copied).visit(lowered)
    return lowered
