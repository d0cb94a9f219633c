"""Guard clauses ``if (c) continue;`` written as the ``if`` around the rest of the
loop body that they are.

In:  the pycparser AST of a translation unit.
Out: a new unit (the function definitions that change copied, the rest shared)
where a loop body ``a; if (c) { t; continue; } else e; rest`` is
``a; if (c) { t; } else { e; rest }``: the statements after an ``if`` that holds a
``continue`` are copied into each of its paths that does not end in one (nested
``if``s and blocks alike), innermost loops first; a ``continue`` that ends the body
is dropped.

Why: a ``continue`` jumps to the end of the body (then to the increment or the
test, in a ``for``, ``while`` or ``do``), skipping exactly the statements after the
``if`` that holds it; with the rest of the body in the other branch nothing is left
to skip (a copy per path: at most ``_GROWTH`` times the body).  The model knows no
``continue``: a loop that had one was a single
statement run by one thread (``loops.py``), its iterations in order; as an ``if``
the loop is a loop again, parallel where its dependences allow, and a test on data
is a data-dependent condition (``conditions.py``).  Left as written: a loop with a
``continue`` in a ``switch`` or a labelled statement, one that would grow past
``_GROWTH``, and a loop whose new branches would hold a loop (an ``if`` on data may
not; the loop then stays one statement, as before).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .syntax import replace_child, rewrite_functions, walk

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)
#: At most this many times the body's nodes after folding (the statements after a
#: nested guard are copied into each path that reaches them).
_GROWTH = 4


def _own(node: c_ast.Node) -> list[c_ast.Node]:
    """The nodes under ``node`` outside the loops nested in it (whose ``continue``
    is their own)."""
    found = [node]
    for _, child in node.children():
        if not isinstance(child, _LOOPS):
            found.extend(_own(child))
    return found


class _Kept(Exception):
    """A ``continue`` that folding cannot remove (in a ``switch``, a label's statement)."""


def _continues(node: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.Continue) for n in _own(node))


def _then(stmt: c_ast.Node, rest: list[c_ast.Node]) -> c_ast.Node:
    """One statement that runs ``stmt; rest`` where each ``continue`` of ``stmt``
    skips ``rest``: ``rest`` copied into each path of ``stmt`` that does not end
    in a ``continue``."""
    if isinstance(stmt, c_ast.Continue):
        return c_ast.Compound([], stmt.coord)
    if not _continues(stmt):
        return c_ast.Compound([stmt, *copy.deepcopy(rest)], stmt.coord)
    if isinstance(stmt, c_ast.Compound):
        return c_ast.Compound(_items(list(stmt.block_items or []) + rest), stmt.coord)
    if isinstance(stmt, c_ast.If):
        other = _then(stmt.iffalse, rest) if stmt.iffalse is not None else \
            c_ast.Compound(copy.deepcopy(rest), stmt.coord)
        return c_ast.If(stmt.cond, _then(stmt.iftrue, rest), other, stmt.coord)
    raise _Kept


def _items(items: list[c_ast.Node]) -> list[c_ast.Node]:
    """A body's items with their ``continue`` statements folded away: the items
    before the first that holds one, then that one with the rest inside."""
    for k, item in enumerate(items):
        if _continues(item):
            return items[:k] + [_then(item, _items(items[k + 1:]))]
    return items


def _folded(loop: c_ast.Node) -> c_ast.Node | None:
    """``loop`` with its guard clauses folded, or None where it keeps a ``continue``
    or a new branch would hold a loop."""
    body = loop.stmt
    if not _continues(body):
        return None
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    try:
        folded = c_ast.Compound(_items(list(items)), body.coord)
    except _Kept:
        return None
    if sum(1 for _ in walk(folded)) > _GROWTH * sum(1 for _ in walk(body)):
        return None
    original = {id(n) for n in walk(body)}     # its ifs may hold loops; new ones may not
    if any(isinstance(node, c_ast.If) and id(node) not in original
           and any(isinstance(n, _LOOPS) for n in walk(node)) for node in _own(folded)):
        return None
    loop = copy.copy(loop)
    loop.stmt = folded
    return loop


class _Folding(c_ast.NodeVisitor):
    """Replaces, in place, every loop ``_folded`` applies to (inner ones first)."""

    def __init__(self) -> None:
        self.changed = False

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            self.visit(child)
            if isinstance(child, _LOOPS):
                folded = _folded(child)
                if folded is not None:
                    replace_child(node, name, folded)
                    self.changed = True


def fold_continues(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with its guard clauses folded (function definitions copied where one
    changes), or ``ast`` itself."""
    def fold(func: c_ast.FuncDef) -> bool:
        folding = _Folding()
        folding.visit(func)
        return folding.changed
    return rewrite_functions(
        ast, lambda f: any(isinstance(n, c_ast.Continue) for n in walk(f.body)), fold)
