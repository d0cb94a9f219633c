"""Pointer expressions: where ``*(p + i)``, ``(p + k)[i]``, ``A[i] + j`` or
``&A[i][j]`` points, and the element a reference through one names.

In:  C expressions, the symbols they see, the values of the local pointers replaced.
Out: ``Pointer`` (an array, its leading subscripts and an offset) and the rewrite of
     every element reached through a pointer into an ``ArrayRef`` of its array
     (``PointerForms``), for ``pointers.py``.

A pointer expression is ``&B[s_1]...[s_k][o]``: an array ``B`` of rank ``r``, ``k <
r`` leading subscripts and an offset ``o`` (a sum of integer terms).  Adding an
integer adds a term; ``*P`` and ``P[e]`` append the subscript ``o + e``, an element
when ``k + 1 = r`` and a pointer to the next dimension otherwise.  C adds a pointer's
offsets exactly (no integer type of them wraps), so a sum of two or more terms
narrower than 64 bits is computed in ``long long``: ``(p + k)[i]`` reads
``p[(long long) k + i]``.  A cast to a pointer of the same element type keeps the
address; one to a pointer to rows, or a declaration of one, views a pointer to
elements as rows (``Pointer.view``).  Any other conversion reinterprets memory and is
not read.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from pycparser import c_ast

from .affine import int_constant
from .calls import ExpressionTypes
from .ctype import Arith, parse_type
from .symbols import Symbol, decode_type
from .syntax import c_text, replace_child, walk

#: One term of an offset: (negated, expression).
Term = tuple[bool, c_ast.Node]

_LONG_LONG = c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None,
                                                           c_ast.IdentifierType(["long", "long"])))


@dataclass(frozen=True)
class Pointer:
    """``&base[fixed...][terms]``: where a pointer expression points; ``view``: the
    inner extents of the rows it points to where a cast or a declaration reshapes a
    flat array (``double (*A)[m] = (double (*)[m]) buf``: ``A[i][j]`` is
    ``buf[(long long) i * m + j]``)."""

    base: str
    rank: int
    fixed: tuple[c_ast.Node, ...] = ()
    terms: tuple[Term, ...] = ()
    view: tuple[c_ast.Node, ...] = ()

    def shifted(self, by: c_ast.Node, negated: bool = False) -> Pointer:
        return replace(self, terms=self.terms + ((negated, by),))


class PointerForms:
    """Reads pointer expressions and rewrites references through them."""

    def __init__(self, symbols: Mapping[str, Symbol], typedefs: Mapping[str, str],
                 fields: Mapping[tuple[str, str], str]):
        self.symbols = symbols
        self.typedefs = typedefs
        self.fields = fields
        self.types = ExpressionTypes(self._name_type, dict(typedefs), {})

    def _name_type(self, name: str) -> Arith | None:
        sym = self.symbols.get(name)
        return None if sym is None else parse_type(sym.element_type)

    def value(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> Pointer | None:
        """Where ``node`` points, or None (not a pointer expression this module reads)."""
        if isinstance(node, c_ast.ID):
            if node.name in env:
                return env[node.name]
            sym = self.symbols.get(node.name)
            if sym is None or not sym.extents or sym.element_type.startswith(("struct", "union")):
                return None
            return Pointer(node.name, len(sym.extents))
        if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID) and \
                (node.name.name, node.field.name) in self.fields:       # M->data, bound
            return self.value(c_ast.ID(self.fields[(node.name.name, node.field.name)]), env)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            left, right = self.value(node.left, env), self.value(node.right, env)
            if left is not None and right is None:
                return left.shifted(node.right, node.op == "-")
            if node.op == "+" and right is not None and left is None:
                return right.shifted(node.left)
            return None
        if isinstance(node, c_ast.ArrayRef):
            found = self.index(node.name, node.subscript, env)
            return found if isinstance(found, Pointer) else None
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            found = self.index(node.expr, None, env)
            return found if isinstance(found, Pointer) else None
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            element = self.element(node.expr, env)
            if element is None:
                return None
            base, subscripts = element
            return Pointer(base, len(subscripts), tuple(subscripts[:-1]),
                           ((False, subscripts[-1]),))
        if isinstance(node, c_ast.Cast):
            inner = self.value(node.expr, env)
            return None if inner is None else self.viewed(inner, node.to_type.type)
        return None

    # A pointer to elements of its array's last dimension keeps its address under a
    # cast to a pointer of the same element type (or void); a pointer to rows of
    # extents E views the elements as rows of E.  Any other conversion reinterprets
    # memory and is not read.
    def declared(self, decl: c_ast.Decl, value: c_ast.Node, env: Mapping[str, Pointer]
                 ) -> Pointer | None:
        """Where the pointer ``decl`` declares points once assigned ``value``."""
        found = self.value(value, env)
        return None if found is None else self.viewed(found, decl.type)

    def viewed(self, pointer: Pointer, decl_type: c_ast.Node) -> Pointer | None:
        """``pointer`` converted to the pointer type ``decl_type``, or None."""
        element, extents, _ = decode_type(decl_type, dict(self.typedefs))
        sym = self.symbols.get(pointer.base)
        if not extents or extents[0] is not None or None in extents[1:] or sym is None \
                or len(pointer.fixed) != pointer.rank - 1:
            return None
        if element == "void" and len(extents) == 1:
            return pointer
        view = tuple(e for e in extents[1:] if e is not None)
        if element != sym.element_type or pointer.view and \
                [c_text(e) for e in view] != [c_text(e) for e in pointer.view]:
            return None
        return replace(pointer, view=view)

    def index(self, pointer: c_ast.Node, subscript: c_ast.Node | None,
              env: Mapping[str, Pointer]) -> Pointer | tuple[str, list[c_ast.Node]] | None:
        """``pointer[subscript]`` (``*pointer`` for None): a pointer to the next
        dimension, an element ``(base, subscripts)``, or None."""
        found = self.value(pointer, env)
        if found is None:
            return None
        if found.view:                  # row ``subscript`` of the view: its offset
            if subscript is None:
                return replace(found, view=found.view[1:])
            step: c_ast.Node = c_ast.Cast(copy.deepcopy(_LONG_LONG), copy.deepcopy(subscript),
                                          subscript.coord)
            for extent in found.view:
                step = c_ast.BinaryOp("*", step, copy.deepcopy(extent), subscript.coord)
            return replace(found, view=found.view[1:], terms=found.terms + ((False, step),))
        terms = found.terms + (((False, subscript),) if subscript is not None else ())
        subscripts = [copy.deepcopy(f) for f in found.fixed]    # each use its own nodes
        subscripts.append(self.offset([(n, copy.deepcopy(t)) for n, t in terms],
                                      subscript or pointer))
        if len(subscripts) == found.rank:
            return found.base, subscripts
        return Pointer(found.base, found.rank, tuple(subscripts))

    def element(self, node: c_ast.Node, env: Mapping[str, Pointer]
                ) -> tuple[str, list[c_ast.Node]] | None:
        """The element ``node`` names, ``(array, subscripts)``, or None."""
        if isinstance(node, c_ast.ArrayRef):
            found = self.index(node.name, node.subscript, env)
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            found = self.index(node.expr, None, env)
        else:
            return None
        return found if isinstance(found, tuple) else None

    # C adds a pointer's offsets as integers of unbounded width; the sum of two terms
    # narrower than 64 bits could overflow their type, so it is made in long long.
    def offset(self, terms: Sequence[Term], near: c_ast.Node) -> c_ast.Node:
        """The C expression of the sum of ``terms`` (0 when there are none)."""
        terms = [t for t in terms if int_constant(t[1]) != 0]
        if not terms:
            return c_ast.Constant("int", "0", near.coord)
        # a positive term first, literals last: ``(long long) j + 1``
        ordered = sorted(terms, key=lambda t: (t[0], int_constant(t[1]) is not None))
        first_negated, first = ordered[0]
        if len(ordered) > 1 and all(self._narrow(t) for _, t in ordered):
            first = c_ast.Cast(copy.deepcopy(_LONG_LONG), first, first.coord)
        total: c_ast.Node = c_ast.UnaryOp("-", first, first.coord) if first_negated else first
        for negated, term in ordered[1:]:
            total = c_ast.BinaryOp("-" if negated else "+", total, term, term.coord)
        return total

    def _narrow(self, term: c_ast.Node) -> bool:
        ctype = self.types.of(term)
        return ctype is None or ctype.bits < 64

    def rewrite(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> c_ast.Node:
        """``node`` with every element reached through a pointer form an ArrayRef of
        its array (children rewritten in place; ``node`` is a copy)."""
        element = self.element(node, env)
        if element is not None:
            base, subscripts = element
            built: c_ast.Node = c_ast.ID(base, node.coord)
            for s in subscripts:
                built = c_ast.ArrayRef(built, self.rewrite(s, env), node.coord)
            if c_text(built) != c_text(node) or isinstance(node, c_ast.UnaryOp):
                return built
        for attr, child in node.children():
            new = self.rewrite(child, env)
            if new is not child:
                replace_child(node, attr, new)
        return node


def pointer_decl(node: c_ast.Node) -> bool:
    """Whether ``node`` declares one pointer to a scalar or to rows
    (``double *restrict p``, ``double (*A)[m]``)."""
    if not isinstance(node, c_ast.Decl) or not isinstance(node.type, c_ast.PtrDecl):
        return False
    inner = node.type.type
    while isinstance(inner, c_ast.ArrayDecl):
        inner = inner.type
    return isinstance(inner, c_ast.TypeDecl)


def _plain(node: c_ast.Node) -> bool:
    """Whether an offset is integer arithmetic on names and literals (no data, no call,
    no side effect)."""
    for n in walk(node):
        if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall, c_ast.Assignment)):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&", "++", "--", "p++", "p--"):
            return False
    return True


def _offsets(pointer: Pointer) -> list[c_ast.Node]:
    return list(pointer.fixed) + [t for _, t in pointer.terms] + list(pointer.view)


def offset_names(pointer: Pointer) -> set[str]:
    """The names in a pointer's subscripts, offset and view."""
    return {n.name for node in _offsets(pointer) for n in walk(node) if isinstance(n, c_ast.ID)}


def offsets_plain(pointer: Pointer) -> bool:
    """Whether a pointer's subscripts, offset and view hold no data (``_plain``)."""
    return all(_plain(n) for n in _offsets(pointer))
