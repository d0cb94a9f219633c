"""Staged strips: the reads of a one-thread kernel's innermost loops copied ahead.

In:  a kernel's AST, its statements, the arrays the placement marked *staged*
     (``memory/asynchronous.py``: the kernel has no mapped member, so it runs on one
     thread) and a printer of a reference's C text.
Out: the AST with each innermost loop that reads a staged array strip-mined, the
     lines of its copies, and the references its statements read from the copies.

One thread issues its loads in order and waits at the first use, so a loop that
reads a column costs one memory latency an iteration (gramschmidt's norm at LARGE
on an H200: 47.8 us a launch; 11.3 us with strips of 64 through shared memory,
``scripts/latency_probe.cu``).  An innermost loop

    for (c = lo; c <= hi; c += 1)  S(c)           (S: statements, no guard)

becomes, with L = LATENCY_STRIP and a fresh iterator c',

    for (c' = lo; c' <= hi; c' += L) {
      for (c = c'; c <= min(c' + L - 1, hi); c += 1)  cp.async(s_k[c - c'], A_k[f_k(c)])
      wait
      for (c = c'; c <= min(c' + L - 1, hi); c += 1)  S(c), reading A_k[f_k(c)] as s_k[c - c']
    }

The same instances run in the same order; only the reads of A_k move, and they
read the values S reads when (1) no statement of the loop writes A_k, so nothing
changes A_k between a copy and its use (the kernel's one thread is the launch's
only writer), and (2) every address copied is one S reads at that iteration: S
has no guard inside the loop, the reference is evaluated whenever S runs (not
under ``?:``, ``&&`` or ``||``), names one element an instance and its
subscripts read no array and call nothing.  So the loop's results are
bit-identical.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from pycparser import c_ast

from ..frontend.conditions import BLOCKS
from ..memory import LATENCY_STRIP
from ..model import Access, Statement
from .ast import Block, Expr, For, If, Node, User

#: The copies' wait, a statement of the transformed AST.
WAIT = "polycu_stage_wait"
#: Strip iterators are the kernel's iterator prefix with numbers above isl's (< 64).
FIRST_STRIP = 100


@dataclass
class Staged:
    """A kernel's AST with its innermost loops staged (``ast``); ``buffers`` the
    (element type, name) of each copy's shared array of ``LATENCY_STRIP`` elements;
    ``lines`` the C text of each copy statement, by its name; ``reads`` by ``id`` of
    a statement instance, the references it reads from a copy (by ``id`` of the C
    node) and the copy's element."""

    ast: Node
    buffers: list[tuple[str, str]] = field(default_factory=list)
    lines: dict[str, str] = field(default_factory=dict)
    reads: dict[int, dict[int, str]] = field(default_factory=dict)


def staged(ast: Node, statements: dict[str, Statement], arrays: frozenset[str],
           element_type: Callable[[str], str],
           reference: Callable[[Statement, tuple[Expr, ...], c_ast.Node], str],
           iterator: str, shared: Callable[[int], str]) -> Staged:
    """``ast`` with each innermost loop that reads one of ``arrays`` staged (see the
    module docstring); ``reference`` prints a reference of an instance, ``iterator``
    is the kernel's iterator prefix and ``shared(k)`` names the k-th buffer."""
    result = Staged(ast)
    if not arrays:
        return result

    def visit(node: Node) -> Node:
        if isinstance(node, Block):
            return Block(tuple(visit(c) for c in node.children))
        if isinstance(node, If):
            return If(node.cond, visit(node.then),
                      None if node.else_ is None else visit(node.else_))
        if isinstance(node, For):
            users = _statements_only(node.body)
            if users is None:
                return For(node.var, node.init, node.upper, node.step, visit(node.body),
                           node.degenerate)
            return _stage(node, users, statements, arrays, element_type, reference,
                          iterator, shared, result)
        return node

    result.ast = visit(ast)
    return result


def _statements_only(body: Node) -> list[User] | None:
    """The instances of a loop body made of statements alone (None otherwise)."""
    if isinstance(body, User):
        return [body]
    if isinstance(body, Block) and all(isinstance(c, User) for c in body.children):
        return list(body.children)     # type: ignore[arg-type]
    return None


def _stage(loop: For, users: list[User], statements: dict[str, Statement],
           arrays: frozenset[str], element_type: Callable[[str], str],
           reference: Callable[[Statement, tuple[Expr, ...], c_ast.Node], str],
           iterator: str, shared: Callable[[int], str], result: Staged) -> Node:
    """``loop`` strip-mined with its reads of ``arrays`` copied ahead (or unchanged
    when it reads none it may stage)."""
    if loop.step != 1 or loop.degenerate or any(
            u.name not in statements or isinstance(statements[u.name].body, BLOCKS)
            for u in users):
        return loop
    written = {a.array for u in users for a in statements[u.name].accesses if a.is_write}
    strip = f"{iterator}{FIRST_STRIP + len(result.lines)}"
    point = f"({loop.var} - {strip})"
    by_text: dict[str, str] = {}
    copies: list[User] = []
    for user in users:
        stmt = statements[user.name]
        for access in stmt.accesses:
            if not (access.is_read and access.array in arrays and access.array not in written
                    and _always_read(stmt, access)):
                continue
            text = reference(stmt, user.args, access.node)
            if not re.search(rf"\b{re.escape(loop.var)}\b", text):
                continue                  # the same element every iteration: a register's
            if text not in by_text:
                name = shared(len(result.buffers))
                result.buffers.append((element_type(access.array), name))
                by_text[text] = name
                copy = f"{WAIT}_copy{len(result.lines)}"
                result.lines[copy] = f"POLYCU_COPY_ASYNC({name}[{point}], {text});"
                copies.append(User(copy, ()))
            result.reads.setdefault(id(user), {})[id(access.node)] = f"{by_text[text]}[{point}]"
    if not copies:
        return loop
    result.lines[WAIT] = "POLYCU_COPY_WAIT();"
    last = Expr("min", (Expr("add", (Expr.id_(strip), Expr.int_(LATENCY_STRIP - 1))),
                        loop.upper))
    first = Expr.id_(strip)
    return For(strip, loop.init, loop.upper, LATENCY_STRIP, Block((
        For(loop.var, first, last, 1, Block(tuple(copies))),
        User(WAIT, ()),
        For(loop.var, first, last, 1, loop.body))))


def _always_read(stmt: Statement, access: Access) -> bool:
    """Whether ``access`` is evaluated whenever ``stmt`` runs, at an address that
    depends on the iterators alone: not under a conditional operator, a subscript
    without array reads or calls."""
    node = access.node
    # one element an instance (not a data-dependent or approximated reference)
    if not isinstance(node, c_ast.ArrayRef) or not access.relation.is_single_valued():
        return False
    inner = node
    while isinstance(inner, c_ast.ArrayRef):
        if _reads_memory(inner.subscript):
            return False
        inner = inner.name
    if not isinstance(inner, c_ast.ID):
        return False                      # a struct's member, a pointer expression
    return _conditional(stmt.body, node, False) is False


def _reads_memory(node: c_ast.Node) -> bool:
    """Whether evaluating ``node`` reads an array or calls a function."""
    if isinstance(node, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        return True
    return any(_reads_memory(child) for _, child in node.children())


def _conditional(node: c_ast.Node, target: c_ast.Node, under: bool) -> bool | None:
    """None when ``target`` is not inside ``node``; else whether it is evaluated only
    on some runs of it (a branch of ``?:``, the right operand of ``&&``/``||``)."""
    if node is target:
        return under
    if isinstance(node, c_ast.TernaryOp):
        parts = [(node.cond, under), (node.iftrue, True), (node.iffalse, True)]
    elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        parts = [(node.left, under), (node.right, True)]
    else:
        parts = [(child, under) for _, child in node.children()]
    for child, conditional in parts:
        found = _conditional(child, target, conditional)
        if found is not None:
            return found
    return None
