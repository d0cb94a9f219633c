"""``sizeof`` as the number gcc computes.

In:  the pycparser AST of a translation unit, typedef names written out
(``typenames.py``).
Out: a new unit (the function definitions that use ``sizeof`` copied, the rest
shared) where each ``sizeof`` whose value the declarations fix is that value, an
``unsigned long`` constant (for a variable-length array, the product of its extents'
expressions and its element's size); or the AST itself when nothing changes.

Why: in the kernels every array is a flat pointer to its elements, and nvcc
compiles C++.  ``sizeof(B)`` of ``double B[100]`` is 800 in C and 8 on the device,
``sizeof(A[0])`` of a row of ``double A[N][N + 1]`` the row's bytes in C and one
element's there (a loop ``j < sizeof(A[0]) / sizeof(double)`` ran once a row), and
``sizeof(i == j)`` 4 in C (an int) and 1 in C++ (a bool).  Folded, such a bound is
also affine (``i < sizeof(B) / sizeof(B[0])``).

Left as written: operands of structure or function type (the .cu declares the
program's structures, so nvcc computes gcc's sizes for them), and operands whose
type this module does not derive (calls, structure members); an array of such
elements is left whole.  The target is LP64, as ``ctype.py``'s.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .affine import int_constant
from .calls import literal
from .ctype import BOOL, INT, LDOUBLE, Arith, common, parse_type, promote
from .syntax import replace_child, walk

POINTER_BYTES = 8


def _bytes(t: Arith) -> int:
    """The size of an arithmetic type on x86-64 (``long double``: 16)."""
    return 1 if t == BOOL else 16 if t == LDOUBLE else t.bits // 8


def _product(a: int | c_ast.Node, b: int | c_ast.Node) -> int | c_ast.Node:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    return c_ast.BinaryOp("*", _node(a), _node(b))


def _node(size: int | c_ast.Node) -> c_ast.Node:
    if isinstance(size, int):
        return c_ast.Constant("unsigned long", f"{size}UL")
    return size


def _extent(dim: c_ast.Node | None) -> int | c_ast.Node | None:
    """An array declarator's extent: a number where it is a constant expression of
    integer literals, else ``(unsigned long)(dim)`` (a variable-length array)."""
    if dim is None:
        return None
    value = constant_value(dim)
    if value is not None:
        return value
    return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
        None, [], None, c_ast.IdentifierType(["unsigned", "long"]))), copy.deepcopy(dim))


def constant_value(node: c_ast.Node) -> int | None:
    """The value of an integer constant expression of literals (``100``, ``N + 1``
    after the preprocessor), C's truncating division; else None."""
    value = int_constant(node)
    if value is not None:
        return value
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%"):
        a, b = constant_value(node.left), constant_value(node.right)
        if a is None or b is None or (node.op in "/%" and b == 0):
            return None
        if node.op == "/":
            return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        if node.op == "%":
            return a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1))
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def type_size(decl: c_ast.Node) -> int | c_ast.Node | None:
    """The size of the type a declarator spells (``TypeDecl``, ``PtrDecl``,
    ``ArrayDecl``); None for a structure, a function or an unknown name."""
    if isinstance(decl, c_ast.PtrDecl):
        return POINTER_BYTES
    if isinstance(decl, c_ast.ArrayDecl):
        extent, inner = _extent(decl.dim), type_size(decl.type)
        return None if extent is None or inner is None else _product(extent, inner)
    if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
        t = parse_type(" ".join(decl.type.names))
        return None if t is None else _bytes(t)
    return None


class _Scopes:
    """The declarators of the names in scope: a parameter declared as an array is
    the pointer C makes of it (C11 6.7.6.3p7)."""

    def __init__(self) -> None:
        self.frames: list[dict[str, c_ast.Node]] = [{}]

    def declare(self, decl: c_ast.Decl, parameter: bool = False) -> None:
        if decl.name is None:
            return
        typ = decl.type
        if parameter and isinstance(typ, c_ast.ArrayDecl):
            typ = c_ast.PtrDecl([], typ.type)
        elif isinstance(typ, c_ast.ArrayDecl) and typ.dim is None and \
                isinstance(decl.init, c_ast.InitList):      # int offs[] = {-1, 0, 1}
            typ = c_ast.ArrayDecl(typ.type, c_ast.Constant("int", str(len(decl.init.exprs))),
                                  typ.dim_quals)
        self.frames[-1][decl.name] = typ

    def lookup(self, name: str) -> c_ast.Node | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None


def _stripped(decl: c_ast.Node | None) -> c_ast.Node | None:
    """The declarator of an element of ``decl`` (subscripted or dereferenced)."""
    return decl.type if isinstance(decl, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None


class _Operand:
    """The declarator, or the arithmetic type, of a ``sizeof`` operand."""

    def __init__(self, scopes: _Scopes) -> None:
        self.scopes = scopes

    def declarator(self, node: c_ast.Node) -> c_ast.Node | None:
        if isinstance(node, c_ast.ID):
            return self.scopes.lookup(node.name)
        if isinstance(node, c_ast.ArrayRef):
            return _stripped(self.declarator(node.name))
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            return _stripped(self.declarator(node.expr))
        return None

    def size(self, node: c_ast.Node) -> int | c_ast.Node | None:
        if isinstance(node, c_ast.Typename):
            return type_size(node.type)
        decl = self.declarator(node)
        if decl is not None:
            return type_size(decl)
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            return POINTER_BYTES
        t = self.arith(node)
        return None if t is None else _bytes(t)

    def arith(self, node: c_ast.Node) -> Arith | None:
        """The arithmetic type of an expression, as C types it (comparisons and ``!``
        give int, character constants are int)."""
        if isinstance(node, c_ast.Constant):
            return literal(node)
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef)) or \
                isinstance(node, c_ast.UnaryOp) and node.op == "*":
            decl = self.declarator(node)
            if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
                return parse_type(" ".join(decl.type.names))
            return None
        if isinstance(node, c_ast.Cast):
            decl = node.to_type.type
            return parse_type(" ".join(decl.type.names)) if isinstance(decl, c_ast.TypeDecl) \
                and isinstance(decl.type, c_ast.IdentifierType) else None
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "!":
                return INT
            if node.op in ("-", "+", "~"):
                inner = self.arith(node.expr)
                return None if inner is None else promote(inner)
            return None
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return INT
            left, right = self.arith(node.left), self.arith(node.right)
            if left is None or right is None:
                return None
            return promote(left) if node.op in ("<<", ">>") else common(left, right)
        if isinstance(node, c_ast.TernaryOp):
            a, b = self.arith(node.iftrue), self.arith(node.iffalse)
            return None if a is None or b is None else common(a, b)
        return None


class _Folder(c_ast.NodeVisitor):
    """Replaces, in place, each ``sizeof`` whose size ``_Operand`` derives."""

    def __init__(self, globals_: dict[str, c_ast.Node]) -> None:
        self.scopes = _Scopes()
        self.scopes.frames[0].update(globals_)
        self.operand = _Operand(self.scopes)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.scopes.frames.append({})
        params = node.decl.type.args.params if isinstance(node.decl.type, c_ast.FuncDecl) \
            and node.decl.type.args is not None else []
        for p in params:
            if isinstance(p, c_ast.Decl):
                self.visit(p)           # a VLA parameter's extent may use sizeof
                self.scopes.declare(p, parameter=True)
        self.visit(node.body)
        self.scopes.frames.pop()

    def visit_Compound(self, node: c_ast.Compound) -> None:
        self.scopes.frames.append({})
        self.generic_visit(node)
        self.scopes.frames.pop()

    def visit_For(self, node: c_ast.For) -> None:
        self.scopes.frames.append({})   # for (int i = ...): i is the loop's
        self.generic_visit(node)
        self.scopes.frames.pop()

    def visit_Decl(self, node: c_ast.Decl) -> None:
        self.generic_visit(node)        # its initialiser sees the outer names
        self.scopes.declare(node)

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            size = self.operand.size(child.expr) if isinstance(child, c_ast.UnaryOp) and \
                child.op == "sizeof" else None
            if size is not None:
                replace_child(node, name, _node(size))
            else:
                self.visit(child)


def _uses_sizeof(node: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.UnaryOp) and n.op == "sizeof" for n in walk(node))


def fold_sizes(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with the sizes of its ``sizeof`` operands written as numbers (function
    definitions copied where one changes), or ``ast`` itself when it has none."""
    file_scope = _Scopes()
    exts = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and _uses_sizeof(ext):
            ext = copy.deepcopy(ext)
            _Folder(file_scope.frames[0]).visit(ext)
        elif isinstance(ext, c_ast.Decl) and not isinstance(ext.type, c_ast.FuncDecl):
            file_scope.declare(ext)
        exts.append(ext)
    if all(a is b for a, b in zip(exts, ast.ext)):
        return ast
    return c_ast.FileAST(exts, ast.coord)
