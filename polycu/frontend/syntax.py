"""Small questions about pycparser ASTs that every part of SCoP extraction asks.

In:  pycparser nodes (statements, expressions, lists of block items).
Out: their C text, the variable a reference names, the names a piece of code
writes or takes from around it, a unit with some function definitions rewritten;
and ``Unsupported``, the exception that ends a SCoP.

These helpers know nothing of the polyhedral model, so the symbol table, the
liveness checks, the reduction finder and the builder share them without
depending on each other.
"""
from __future__ import annotations

import copy
from typing import Callable, Iterable, Iterator

from pycparser import c_ast, c_generator

from ..diagnostics import Location

_generator = c_generator.CGenerator()


def walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """``node`` and every node under it, in text order."""
    yield node
    for _, child in node.children():
        yield from walk(child)


def replace_child(parent: c_ast.Node, name: str, child: c_ast.Node) -> None:
    """Replace, in place, the child pycparser's ``children()`` names ``name``
    (``attr`` or ``attr[i]``)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        getattr(parent, attr)[int(index)] = child
    else:
        setattr(parent, name, child)


def rewrite_functions(ast: c_ast.FileAST, wanted: Callable[[c_ast.FuncDef], bool],
                      rewrite: Callable[[c_ast.FuncDef], bool]) -> c_ast.FileAST:
    """``ast`` with each function definition for which ``wanted`` holds copied and
    rewritten in place by ``rewrite`` (which says whether it changed anything);
    ``ast`` itself where nothing changes.  The frontend's rewrites of the unit
    (switches, continues, macros, loop forms) share the definitions they leave."""
    exts = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and wanted(ext):
            changed = copy.deepcopy(ext)
            if rewrite(changed):
                ext = changed
        exts.append(ext)
    if all(a is b for a, b in zip(exts, ast.ext)):
        return ast
    return c_ast.FileAST(exts, ast.coord)


def c_text(node: c_ast.Node) -> str:
    """C source text of an AST node (normalised by pycparser's generator)."""
    return _generator.visit(node)


def statements_text(items: Iterable[c_ast.Node]) -> str:
    """C source text of block items, each expression statement and declaration
    terminated with ``;`` (pycparser's ``_generate_stmt`` adds it)."""
    return "".join(_generator._generate_stmt(item) for item in items)


class Unsupported(Exception):
    """A construct that ends a SCoP; becomes an error in pragma mode."""

    def __init__(self, node: c_ast.Node | None, message: str, location: Location | None = None):
        super().__init__(message)
        self.node = node
        self.message = message
        self.location = location


def base_name(node: c_ast.Node) -> str | None:
    """The variable an lvalue such as ``A[i][j]``, ``x`` or ``b[i].c[k]`` refers to
    (None: not a name)."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else None


def value_name(node: c_ast.Node) -> str | None:
    """What gives a reference's value its type: ``V.F`` for a member ``F`` of variable
    ``V`` (``b[i].c[k]``), else the variable's name (None: not a variable)."""
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    if isinstance(node, c_ast.StructRef):
        variable = base_name(node.name)
        return None if variable is None else f"{variable}.{node.field.name}"
    return node.name if isinstance(node, c_ast.ID) else None


def written_names(nodes: Iterable[c_ast.Node]) -> set[str]:
    """Base names of every variable assigned, incremented or declared under ``nodes``."""
    names: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_Assignment(self, node: c_ast.Assignment) -> None:
            names.add(base_name(node.lvalue) or "")
            self.generic_visit(node)

        def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
            if node.op in ("++", "--", "p++", "p--"):
                names.add(base_name(node.expr) or "")
            self.generic_visit(node)

        def visit_Decl(self, node: c_ast.Decl) -> None:
            names.add(node.name or "")
            self.generic_visit(node)

    visitor = Visitor()
    for n in nodes:
        if n is not None:       # a for loop's absent init, condition or next
            visitor.visit(n)
    names.discard("")
    return names


def free_names(items: Iterable[c_ast.Node]) -> set[str]:
    """The variables ``items`` take from around them: every identifier referenced
    under them (not the names of called functions) that they do not declare."""
    used: set[str] = set()
    declared: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            used.add(node.name)

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if node.args is not None:
                self.visit(node.args)

        def visit_StructRef(self, node: c_ast.StructRef) -> None:
            self.visit(node.name)              # the field is no variable

        def visit_Decl(self, node: c_ast.Decl) -> None:
            declared.add(node.name)
            self.generic_visit(node)

    for item in items:
        Visitor().visit(item)
    return used - declared


def flatten_ref(node: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """The base of ``A[i][j]`` and its subscripts, outermost first (``A``, ``[i, j]``)."""
    subscripts: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]
