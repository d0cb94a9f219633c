"""Which statements are reductions: ``X[f] op= e`` with an associative ``op``.

In:  a statement body (pycparser AST) and the statement's accesses.
Out: the reduction operator (``+`` or ``*``) and the reduced array, or (None, None).

A reduction's updates of one element may run in any order, so the dependences
they carry can be relaxed and the update lowered to an atomic operation
(``deps.py``, ``gpu/mapping.py``).  A statement qualifies when it writes one
element only, reads that same element once, and combines it with an expression
that does not read the array: ``X[f] += e``, ``X[f] -= e`` (adding ``-e``),
``X[f] *= e``, ``X[f] = X[f] op e`` or ``X[f] = e op X[f]``.
"""
from __future__ import annotations

from pycparser import c_ast

from ..model import Access
from .syntax import base_name

_ASSOCIATIVE = {"+=": "+", "-=": "+", "*=": "*"}


def reduction(body: c_ast.Node, accesses: list[Access]) -> tuple[str | None, str | None]:
    """Detect ``X[f] op= e`` or ``X[f] = X[f] op e`` with ``e`` not reading ``X``."""
    if not isinstance(body, c_ast.Assignment):
        return None, None
    target = base_name(body.lvalue)
    writes = [a for a in accesses if a.is_write]
    reads_x = [a for a in accesses if a.is_read and a.array == target]
    if len(writes) != 1 or len(reads_x) != 1 or not writes[0].relation.is_equal(
            reads_x[0].relation):
        return None, None
    if body.op in _ASSOCIATIVE:
        return _ASSOCIATIVE[body.op], target
    rv = body.rvalue
    if body.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op in ("+", "*"):
        if reads_x[0].node is rv.left or reads_x[0].node is rv.right:
            return rv.op, target
    return None, None
