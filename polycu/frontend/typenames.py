"""Typedef names spelled as the types they stand for.

In:  the pycparser AST of a translation unit.
Out: a new unit (the declarations that change copied, the rest shared) where every typedef name of an arithmetic type is the
type words it stands for, in declarations (``for (i64 i = 0; ...)``, ``real t =
...;``), casts (``(real) i``) and ``sizeof(u16)`` alike, and every unqualified
declaration with a typedef name of a pointer or array type is written with that
type's declarator (``typedef double vec3[3]; vec3 P[N];`` is ``double P[N][3]``,
``typedef float *fptr; fptr w`` is ``float *w``), or the AST itself when there is
nothing to replace.

A statement's text travels to places where the file's typedefs are not declared:
the kernels of the ``.cu`` and the CPU reference that ``polycu emulate`` and
``polycu check`` compile from the SCoP alone.  ``typedef double real; A[i] =
(real) i / 3;`` gave kernels nvcc could not build, and a counter declared
``i64 i`` in its loop a CPU reference gcc could not build.  A typedef adds no meaning to a
type (C11 6.7.8: it is a synonym), so writing the type out is the same program.
Typedefs of structures keep their names: the ``.cu`` defines them.  A pointer or
array typedef under a qualifier (``const fptr w``: the pointer is constant) is
left as it is (polycu then refuses the declaration, located).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .ctype import parse_type, resolve_typedefs
from .syntax import replace_child


class _Typedefs(c_ast.NodeVisitor):
    """The typedef names of arithmetic types, each with the words it stands for, and
    those of pointer and array types (``typedef float *fptr``, ``typedef double
    vec3[3]``), each with its declarator."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}
        self.derived: dict[str, c_ast.Node] = {}

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        decl = node.type
        if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
            text = resolve_typedefs(decl.type.names, self.words)
            if parse_type(text) is not None:
                self.words[node.name] = text
        elif isinstance(decl, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            self.derived[node.name] = decl


class _Derived(c_ast.NodeVisitor):
    """Replaces, in place, each unqualified declarator ``T x`` whose ``T`` names a
    pointer or array type by that type's declarator for ``x``: ``vec3 P[N]`` is
    ``double P[N][3]``, ``fptr w`` is ``float *w`` (C11 6.7.8: the same type).
    Whether it replaced one is ``changed``."""

    def __init__(self, derived: dict[str, c_ast.Node]) -> None:
        self.derived = derived
        self.changed = False

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            if isinstance(child, c_ast.TypeDecl) and not child.quals and \
                    isinstance(child.type, c_ast.IdentifierType) and \
                    len(child.type.names) == 1 and child.type.names[0] in self.derived:
                replacement = copy.deepcopy(self.derived[child.type.names[0]])
                inner = replacement
                while not isinstance(inner, c_ast.TypeDecl):
                    inner = inner.type
                inner.declname = child.declname
                replace_child(node, name, replacement)
                self.changed = True
            else:
                self.visit(child)


class _Specifiers(c_ast.NodeVisitor):
    """Every list of type specifier words (``IdentifierType``) of a unit."""

    def __init__(self) -> None:
        self.found: list[c_ast.IdentifierType] = []

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        self.found.append(node)


def _specifiers(ast: c_ast.Node) -> list[c_ast.IdentifierType]:
    visitor = _Specifiers()
    visitor.visit(ast)
    return visitor.found


def _names_any(node: c_ast.Node, names: set[str]) -> bool:
    """Whether ``node``'s type specifiers use one of ``names``."""
    return any(names & set(words.names) for words in _specifiers(node))


def spell_type_names(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with arithmetic typedef names written out (a copy), or ``ast`` itself
    when it uses none."""
    typedefs = _Typedefs()
    typedefs.visit(ast)
    names = set(typedefs.words) | set(typedefs.derived)
    if not _names_any(ast, names):
        return ast
    # Only the external declarations that name one change: the rest (the headers'
    # hundreds of prototypes) are shared, not copied (a copy of the whole unit took
    # a quarter of a second a file).
    spelled = c_ast.FileAST([copy.deepcopy(ext) if _names_any(ext, names) else ext
                             for ext in ast.ext], ast.coord)
    derived = _Derived(typedefs.derived)
    for _ in range(len(typedefs.derived) + 1):     # vec3 mat[3] over typedef vec3 ...
        derived.changed = False
        for ext in spelled.ext:
            if not isinstance(ext, c_ast.Typedef):
                derived.visit(ext)
        if not derived.changed:
            break
    for words in _specifiers(spelled):
        words.names = resolve_typedefs(words.names, typedefs.words).split()
    return spelled
