"""Type names in casts and ``sizeof`` spelled with the arithmetic types they stand for.

In:  the pycparser AST of a translation unit.
Out: the same AST (a copy) where the typedef names of arithmetic types inside type
names (``(real) i``, ``sizeof(u16)``, ``(real *) p``) are the type words they
stand for, or the AST itself when there is nothing to replace.

A statement's text travels to places where the file's typedefs are not declared:
the kernels of the ``.cu`` and the CPU reference that ``polycu emulate`` and
``polycu check`` compile from the SCoP alone.  ``typedef double real; A[i] =
(real) i / 3;`` gave kernels nvcc could not build.  A typedef adds no meaning to a
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


class _TypeNameWords(c_ast.NodeVisitor):
    """The specifier lists (``IdentifierType``) inside type names: casts, ``sizeof``."""

    def __init__(self) -> None:
        self.found: list[c_ast.IdentifierType] = []
        self.inside = 0

    def visit_Typename(self, node: c_ast.Typename) -> None:
        self.inside += 1
        self.generic_visit(node)
        self.inside -= 1

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        if self.inside:
            self.found.append(node)


def _type_name_words(ast: c_ast.Node) -> list[c_ast.IdentifierType]:
    visitor = _TypeNameWords()
    visitor.visit(ast)
    return visitor.found


def spell_type_names(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with arithmetic typedef names inside type names written out (a copy),
    or ``ast`` itself when no type name uses one."""
    typedefs = _Typedefs()
    typedefs.visit(ast)
    names = set(typedefs.words)
    if not any(names & set(words.names) for words in _type_name_words(ast)):
        return ast
    spelled = copy.deepcopy(ast)
    for words in _type_name_words(spelled):
        words.names = resolve_typedefs(words.names, typedefs.words).split()
    return spelled
