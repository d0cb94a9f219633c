"""Constant tables: elements of a ``const`` array with an initializer, subscripted by
constants, written as their values.

In:  the pycparser AST of a translation unit (``sizeof`` folded, ``sizes.py``).
Out: a new unit (the function definitions that change copied, the rest shared)
where each such element read is its value converted to the element type
(``w[1]`` of ``static const double w[3] = {0.25, 0.5, 0.25}`` is
``((double) 0.5)``, ``offs[0]`` of ``const int offs[] = {-1, 0, 1}`` is
``((int) -1)``); or the AST itself when nothing changes.

Why: a program cannot change a ``const`` object (C11 6.7.3p6), so the value is the
initializer's, converted as the initialization converts it; an element the
initializer leaves out is 0.  Folded, ``A[i + offs[0]]`` is an affine subscript
instead of one that depends on data, and the kernels need no copy of the table.
Tables with designators, non-constant or non-arithmetic elements, and references
under ``&`` are left as written, as is any subscript outside the array.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from .ctype import parse_type
from .sizes import constant_value
from .syntax import replace_child, walk


@dataclass(frozen=True)
class _Table:
    """A constant table: its element type's words, extents and values by index."""

    element: list[str]
    extents: tuple[int, ...]
    values: dict[tuple[int, ...], c_ast.Node]

    def value(self, index: tuple[int, ...]) -> c_ast.Node | None:
        if len(index) != len(self.extents) or \
                any(not 0 <= k < e for k, e in zip(index, self.extents)):
            return None
        found = self.values.get(index, c_ast.Constant("int", "0"))
        typename = c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType(list(self.element))))
        return c_ast.Cast(typename, copy.deepcopy(found))


def _literal(node: c_ast.Node) -> bool:
    """An arithmetic literal, or one negated."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        return _literal(node.expr)
    return isinstance(node, c_ast.Constant) and node.type != "string"


def _values(init: c_ast.Node, extents: list[int | None], at: tuple[int, ...],
            into: dict[tuple[int, ...], c_ast.Node]) -> int | None:
    """Read ``init`` (braces nested as the extents are) into ``into``; the count of
    its items, or None where the form is not a plain table."""
    if not extents:
        if not _literal(init):
            return None
        into[at] = init
        return 1
    if not isinstance(init, c_ast.InitList):
        return None
    items = init.exprs or []
    if extents[0] is not None and len(items) > extents[0]:
        return None
    for k, item in enumerate(items):
        if _values(item, extents[1:], at + (k,), into) is None:
            return None
    return len(items)


def table(decl: c_ast.Decl) -> _Table | None:
    """The table ``decl`` declares, if it is a ``const`` array of an arithmetic type
    whose initializer is braces of literals."""
    if decl.init is None or "volatile" in decl.quals or not isinstance(decl.type,
                                                                       c_ast.ArrayDecl):
        return None
    extents: list[int | None] = []
    node = decl.type
    while isinstance(node, c_ast.ArrayDecl):
        extents.append(None if node.dim is None else constant_value(node.dim))
        if node.dim is not None and extents[-1] is None:
            return None
        node = node.type
    if not isinstance(node, c_ast.TypeDecl) or "const" not in node.quals or \
            not isinstance(node.type, c_ast.IdentifierType) or \
            parse_type(" ".join(node.type.names)) is None or None in extents[1:]:
        return None
    values: dict[tuple[int, ...], c_ast.Node] = {}
    count = _values(decl.init, extents, (), values)
    if count is None:
        return None
    words = [w for w in node.type.names if w not in ("const", "volatile")]
    return _Table(words, (extents[0] if extents[0] is not None else count,
                          *[e for e in extents[1:] if e is not None]), values)


class _Folder(c_ast.NodeVisitor):
    """Replaces, in place, each read of a table element with constant subscripts;
    a declaration of the same name in an inner scope hides the table."""

    def __init__(self, tables: dict[str, _Table]) -> None:
        self.frames: list[dict[str, _Table | None]] = [dict(tables)]

    def lookup(self, name: str) -> _Table | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def scoped(self, node: c_ast.Node) -> None:
        self.frames.append({})
        self.generic_visit(node)
        self.frames.pop()

    visit_FuncDef = visit_Compound = visit_For = scoped

    def visit_Decl(self, node: c_ast.Decl) -> None:
        self.generic_visit(node)
        if node.name is not None:
            self.frames[-1][node.name] = table(node)

    def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if node.op != "&":              # &w[1] is an address, not a value
            self.generic_visit(node)

    def element(self, node: c_ast.ArrayRef) -> c_ast.Node | None:
        index: list[int] = []
        while isinstance(node, c_ast.ArrayRef):
            k = constant_value(node.subscript)
            if k is None:
                return None
            index.insert(0, k)
            node = node.name
        found = self.lookup(node.name) if isinstance(node, c_ast.ID) else None
        return None if found is None else found.value(tuple(index))

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            value = self.element(child) if isinstance(child, c_ast.ArrayRef) else None
            if value is not None:
                replace_child(node, name, value)
            else:
                self.visit(child)


def _reads_any(node: c_ast.Node, names: set[str]) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name in names for n in walk(node))


def fold_tables(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with the constant-subscripted elements of its constant tables written as
    their values (function definitions copied where one changes), or ``ast`` itself."""
    tables: dict[str, _Table] = {}
    exts = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            local = {d.name for d in walk(ext.body) if isinstance(d, c_ast.Decl)
                     and d.name is not None and table(d) is not None}
            if _reads_any(ext.body, set(tables) | local):
                ext = copy.deepcopy(ext)
                _Folder(tables).visit(ext)
        elif isinstance(ext, c_ast.Decl) and ext.name is not None:
            found = table(ext)
            if found is not None:
                tables[ext.name] = found
            else:
                tables.pop(ext.name, None)
        exts.append(ext)
    if all(a is b for a, b in zip(exts, ast.ext)):
        return ast
    return c_ast.FileAST(exts, ast.coord)
