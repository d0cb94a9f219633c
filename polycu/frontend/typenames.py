"""Typedef names of arithmetic types spelled as the types they stand for.

In:  the pycparser AST of a translation unit.
Out: the same AST (a copy) where every typedef name of an arithmetic type is the
type words it stands for, in declarations (``for (i64 i = 0; ...)``, ``real t =
...;``), casts (``(real) i``) and ``sizeof(u16)`` alike, or the AST itself when
there is nothing to replace.

A statement's text travels to places where the file's typedefs are not declared:
the kernels of the ``.cu`` and the CPU reference that ``polycu emulate`` and
``polycu check`` compile from the SCoP alone.  ``typedef double real; A[i] =
(real) i / 3;`` gave kernels nvcc could not build, and a counter declared
``i64 i`` in its loop a CPU reference gcc could not build.  A typedef adds no meaning to a
type (C11 6.7.8: it is a synonym), so writing the type out is the same program.
Typedefs of structures keep their names: the ``.cu`` defines them.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .ctype import parse_type, resolve_typedefs


class _Typedefs(c_ast.NodeVisitor):
    """The typedef names of arithmetic types, each with the words it stands for."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        decl = node.type
        if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
            text = resolve_typedefs(decl.type.names, self.words)
            if parse_type(text) is not None:
                self.words[node.name] = text


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


def spell_type_names(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with arithmetic typedef names written out (a copy), or ``ast`` itself
    when it uses none."""
    typedefs = _Typedefs()
    typedefs.visit(ast)
    names = set(typedefs.words)
    if not any(names & set(words.names) for words in _specifiers(ast)):
        return ast
    spelled = copy.deepcopy(ast)
    for words in _specifiers(spelled):
        words.names = resolve_typedefs(words.names, typedefs.words).split()
    return spelled
