"""polycu's own small AST, which the printers walk: ``For``, ``If``, ``Block``,
``User`` nodes over ``Expr`` integer expressions, converted from isl's AST
(``to_node``, ``to_expr``); ``ast.py`` builds them, ``cuda.py`` and
``description.py`` print them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Union

import islpy as isl

from ..memory import BARRIERS

_OP = isl.ast_expr_op_type
_OP_NAMES = {
    _OP.and_: "and", _OP.and_then: "and", _OP.or_: "or", _OP.or_else: "or",
    _OP.max: "max", _OP.min: "min", _OP.minus: "minus", _OP.add: "add", _OP.sub: "sub",
    _OP.mul: "mul", _OP.div: "div", _OP.fdiv_q: "fdiv_q", _OP.pdiv_q: "pdiv_q",
    _OP.pdiv_r: "pdiv_r", _OP.zdiv_r: "zdiv_r", _OP.cond: "cond", _OP.select: "cond",
    _OP.eq: "eq", _OP.le: "le", _OP.lt: "lt", _OP.ge: "ge", _OP.gt: "gt", _OP.call: "call",
}


@dataclass(frozen=True)
class Expr:
    """An integer expression: ``op`` is 'int', 'id' or an operator; ``value`` for leaves."""

    op: str
    args: tuple["Expr", ...] = ()
    value: int | str | None = None

    @staticmethod
    def int_(v: int) -> "Expr":
        return Expr("int", value=v)

    @staticmethod
    def id_(name: str) -> "Expr":
        return Expr("id", value=name)


@dataclass(frozen=True)
class For:
    """``for (var = init; var <= upper; var += step) body`` (upper inclusive)."""

    var: str
    init: Expr
    upper: Expr
    step: int
    body: "Node"
    degenerate: bool = False


@dataclass(frozen=True)
class If:
    cond: Expr
    then: "Node"
    else_: "Node | None" = None


@dataclass(frozen=True)
class Block:
    children: tuple["Node", ...]


@dataclass(frozen=True)
class User:
    """A statement instance ``S(args)`` (kernel) or a launch ``K[h](args)`` (host);
    ``refs`` gives the index expressions of its references to promoted arrays, keyed
    like ``memory.indices``."""

    name: str
    args: tuple[Expr, ...]
    refs: tuple[tuple[int, tuple[Expr, ...]], ...] = ()

    def ref(self, key: int) -> tuple[Expr, ...]:
        for k, exprs in self.refs:
            if k == key:
                return exprs
        raise KeyError(key)


Node = Union[For, If, Block, User]


def to_expr(expr: isl.AstExpr) -> Expr:
    """Our Expr of an isl AST expression."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        return Expr.int_(expr.get_val().to_python())
    if kind == isl.ast_expr_type.id:
        return Expr.id_(expr.get_id().get_name())
    op = expr.get_op_type()
    if op not in _OP_NAMES:
        raise AssertionError(f"unexpected isl AST operator {op}")
    args = tuple(to_expr(expr.get_op_arg(i)) for i in range(expr.get_op_n_arg()))
    return Expr(_OP_NAMES[op], args)


# A for loop's condition is `var <= ub` or `var < ub` (ub - 1 inclusive).
def _upper(cond: Expr, var: str) -> Expr:
    assert cond.op in ("le", "lt") and cond.args[0] == Expr.id_(var), \
        f"unexpected loop condition {cond}"
    ub = cond.args[1]
    if cond.op == "lt":
        ub = Expr.int_(ub.value - 1) if ub.op == "int" else Expr("sub", (ub, Expr.int_(1)))
    return ub


def to_node(node: isl.AstNode,
            refs: Mapping[str, tuple[tuple[int, tuple[Expr, ...]], ...]] | None = None) -> Node:
    """Our Node of an isl AST node (marks are transparent); ``refs`` holds the index
    expressions ``kernel_ast_of`` attached to user nodes, by annotation."""
    kind = node.get_type()
    if kind == isl.ast_node_type.for_:
        var = node.for_get_iterator().get_id().get_name()
        inc = to_expr(node.for_get_inc())
        assert inc.op == "int" and inc.value > 0, "loop strides are positive constants"
        body = to_node(node.for_get_body(), refs)
        init = to_expr(node.for_get_init())
        if node.for_is_degenerate():
            return For(var, init, init, 1, body, True)
        return For(var, init, _upper(to_expr(node.for_get_cond()), var), inc.value, body)
    if kind == isl.ast_node_type.if_:
        else_ = to_node(node.if_get_else_node(), refs) if node.if_has_else_node() else None
        return If(to_expr(node.if_get_cond()), to_node(node.if_get_then_node(), refs), else_)
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return Block(tuple(to_node(children.get_at(i), refs)
                           for i in range(children.n_ast_node())))
    if kind == isl.ast_node_type.user:
        call = to_expr(node.user_get_expr())
        assert call.op == "call" and call.args[0].op == "id"
        found = ()
        if refs:
            try:
                found = refs.get(node.get_annotation().get_name(), ())
            except isl.Error:   # a user node without annotation: nothing promoted
                pass
        return User(call.args[0].value, call.args[1:], found)
    if kind == isl.ast_node_type.mark:
        return to_node(node.mark_get_node(), refs)
    raise AssertionError(f"unexpected isl AST node {kind}")


def uniform_barriers(node: Node, thread_ids: frozenset[str], inside: bool = False) -> bool:
    """Whether every barrier of ``node`` runs in code whose loops and conditions do
    not depend on the thread ids (so all threads of a block pass it equally often)."""
    if isinstance(node, User):
        return not (inside and node.name in BARRIERS)
    if isinstance(node, Block):
        return all(uniform_barriers(c, thread_ids, inside) for c in node.children)
    if isinstance(node, If):
        inner = inside or bool(_names(node.cond) & thread_ids)
        return uniform_barriers(node.then, thread_ids, inner) and (
            node.else_ is None or uniform_barriers(node.else_, thread_ids, inner))
    inner = inside or bool((_names(node.init) | _names(node.upper)) & thread_ids)
    return uniform_barriers(node.body, thread_ids, inner)


def _names(e: Expr) -> set[str]:
    if e.op == "id":
        return {str(e.value)}
    return set().union(*(_names(a) for a in e.args)) if e.args else set()
