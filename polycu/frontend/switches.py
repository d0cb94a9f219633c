"""``switch`` statements as the ``if`` chains they are.

In:  the pycparser AST of a translation unit.
Out: a new unit (the function definitions that change copied, the rest shared)
where each ``switch`` whose cases each end in ``break`` (or share one body, ``case
1: case 2: ...``) is ``if (e == c1 || e == c2) {...} else if (e == c3) {...} else
{default}``; or the AST itself when nothing changes.

Why: the model knows ``if`` (affine: the domain; on data: ``conditions.py``) and no
``switch``.  The chain is the same program: C converts each case constant to the
promoted type of the controlling expression (C11 6.8.4.2p5), as ``==`` converts
both operands to their common type, which is that type for an integer constant
(a ``long`` constant beside an ``int`` expression: the same comparison of values);
the expression is evaluated once per test instead of once, which no SCoP
expression can tell (a SCoP has no side effects in expressions).  The default goes
last wherever it stands, which only a fall-through could tell.  Left as written
(and refused where a SCoP holds it): a case that falls through into the next
after statements, a ``break`` other than a case's last statement outside inner
loops and switches, a declaration directly under a case (its scope is the whole
switch body).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .syntax import replace_child, rewrite_functions, walk

_INNER = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)


def _breaks(node: c_ast.Node) -> bool:
    """Whether ``node`` holds a ``break`` of the switch around it (not one of an
    inner loop or switch)."""
    if isinstance(node, c_ast.Break):
        return True
    if isinstance(node, _INNER):
        return False
    return any(_breaks(child) for _, child in node.children())


def _closed(stmts: list[c_ast.Node]) -> list[c_ast.Node] | None:
    """``stmts`` without the ``break`` that ends them (``...; break;`` or ``{ ...;
    break; }``); None where they do not end in one."""
    if isinstance(stmts[-1], c_ast.Break):
        return stmts[:-1]
    if isinstance(stmts[-1], c_ast.Compound) and stmts[-1].block_items:
        inner = _closed(stmts[-1].block_items)
        if inner is not None:
            return stmts[:-1] + [c_ast.Compound(inner, stmts[-1].coord)]
    return None


def _groups(body: c_ast.Node) -> list[tuple[list[c_ast.Node], list[c_ast.Node]]] | None:
    """The switch body as (labels, statements) groups, each group's statements
    without their closing ``break``; None where it is not that simple form."""
    items = body.block_items if isinstance(body, c_ast.Compound) else None
    if not items or not all(isinstance(i, (c_ast.Case, c_ast.Default)) for i in items):
        return None
    groups: list[tuple[list[c_ast.Node], list[c_ast.Node]]] = []
    labels: list[c_ast.Node] = []
    for k, item in enumerate(items):
        labels.append(item)
        stmts = list(item.stmts or [])
        if not stmts:
            if k == len(items) - 1:
                groups.append((labels, []))
            continue
        last = k == len(items) - 1
        closed = _closed(stmts)
        if closed is not None:
            stmts = closed
        elif not last:
            return None                 # falls through after statements
        if any(_breaks(s) or isinstance(s, c_ast.Decl) for s in stmts):
            return None
        groups.append((labels, stmts))
        labels = []
    return groups


def _test(control: c_ast.Node, labels: list[c_ast.Node]) -> c_ast.Node:
    """``e == c1 || e == c2 ...`` for the case labels of one group."""
    tests = [c_ast.BinaryOp("==", copy.deepcopy(control), copy.deepcopy(label.expr),
                            label.coord) for label in labels]
    test = tests[0]
    for other in tests[1:]:
        test = c_ast.BinaryOp("||", test, other, other.coord)
    return test


def chain(node: c_ast.Switch) -> c_ast.Node | None:
    """The ``if`` chain ``node`` is, or None (see the module's doc)."""
    groups = _groups(node.stmt)
    if groups is None:
        return None
    default: list[c_ast.Node] | None = None
    cases: list[tuple[list[c_ast.Node], list[c_ast.Node]]] = []
    for labels, stmts in groups:
        if any(isinstance(label, c_ast.Default) for label in labels):
            default = stmts             # its other labels change nothing
        else:
            cases.append((labels, stmts))
    result: c_ast.Node | None = c_ast.Compound(default, node.coord) if default else None
    for labels, stmts in reversed(cases):
        result = c_ast.If(_test(node.cond, labels), c_ast.Compound(stmts, labels[0].coord),
                          result, node.coord)
    return result if result is not None else c_ast.EmptyStatement(node.coord)


class _Lowering(c_ast.NodeVisitor):
    """Replaces, in place, every switch ``chain`` can lower (inner ones first)."""

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            self.visit(child)
            if isinstance(child, c_ast.Switch):
                lowered = chain(child)
                if lowered is not None:
                    replace_child(node, name, lowered)


def lower_switches(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with its simple switches written as if chains (function definitions
    copied where one changes), or ``ast`` itself."""
    def lower(func: c_ast.FuncDef) -> bool:
        _Lowering().visit(func)
        return True
    return rewrite_functions(
        ast, lambda f: any(isinstance(n, c_ast.Switch) for n in walk(f.body)), lower)
