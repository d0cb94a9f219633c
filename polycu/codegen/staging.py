"""Staged strips: the reads of a thread's innermost loops copied ahead.

In:  a kernel's AST, its statements, the arrays the placement marked *staged*
     (``memory/asynchronous.py``: the kernel runs on one thread, or on so few that
     nothing hides a load's latency) and a printer of a reference's C text.
Out: the AST with each innermost loop that reads a staged array strip-mined, the
     lines of its copies, and the references its statements read from the copies.

One thread issues its loads in order and waits at the first use, so a loop that
reads a column costs one memory latency an iteration (gramschmidt's norm at LARGE
on an H200: 47.8 us a launch; 11.3 us with strips of 64 through shared memory,
``scripts/latency_probe.cu``).  An innermost loop

    for (c = lo; c <= hi; c += 1)  S(c)           (S: statements, some guarded)

becomes, with L = LATENCY_STRIP and a fresh iterator c',

    for (c' = lo; c' <= hi; c' += L) {
      for (c = c'; c <= min(c' + L - 1, hi); c += 1)  cp.async(s_k[c - c'], A_k[f_k(c)])
      wait
      for (c = c'; c <= min(c' + L - 1, hi); c += 1)  S(c), reading A_k[f_k(c)] as s_k[c - c']
    }

The same instances run in the same order; only the reads of A_k move, and they
read the values S reads when (1) no statement of the loop (guarded or not)
writes A_k, so nothing changes A_k between a copy and its use (no other thread
of the launch writes an element this one reads: the mapping proved its threads
independent, and kernels with atomic updates stage nothing), and (2) every
address copied is one S reads at that iteration: S runs at every iteration
(only the reads of the loop's unguarded statements are staged), the reference
is evaluated whenever S runs (not under ``?:``, ``&&`` or ``||``), names one
element an instance and its subscripts read no array and call nothing.  So the
loop's results are bit-identical.

With several threads in a block, s_k has ``L`` elements for each, and thread ``r``
(its linear index in the block) copies to and reads ``s_k[r L + c - c']``: its own
part, so no barrier.  Loops stay as they are once the buffers would pass the
kernel's ``budget`` bytes of shared memory.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from pycparser import c_ast

from ..frontend.conditions import BLOCKS
from ..memory import LATENCY_STRIP
from ..memory.shared import element_bytes
from ..model import Access, Statement
from .nodes import Block, Expr, For, If, Node, User

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
    lanes: Lanes = field(default_factory=lambda: Lanes())

    @property
    def elements(self) -> int:
        """The elements of each buffer: ``LATENCY_STRIP`` for each staging thread."""
        return LATENCY_STRIP * self.lanes.threads


@dataclass(frozen=True)
class Lanes:
    """The threads of a block that stage: how many, the C text of a thread's linear
    index among them (empty for one), and the shared memory the buffers may take."""

    threads: int = 1
    index: str = ""
    budget: int = 48 * 1024

    def cell(self, point: str) -> str:
        """The C index of a thread's element ``point`` of a buffer."""
        return f"({self.index}) * {LATENCY_STRIP} + {point}" if self.threads > 1 else point


def staged(ast: Node, statements: dict[str, Statement], arrays: frozenset[str],
           element_type: Callable[[str], str],
           reference: Callable[[Statement, tuple[Expr, ...], c_ast.Node], str],
           iterator: str, shared: Callable[[int], str], lanes: Lanes = Lanes()) -> Staged:
    """``ast`` with each innermost loop that reads one of ``arrays`` staged (see the
    module docstring); ``reference`` prints a reference of an instance, ``iterator``
    is the kernel's iterator prefix, ``shared(k)`` names the k-th buffer and ``lanes``
    says which threads stage."""
    result = Staged(ast, lanes=lanes)
    if not arrays:
        return result

    def visit(node: Node) -> Node:
        if isinstance(node, Block):
            return Block(tuple(visit(c) for c in node.children))
        if isinstance(node, If):
            return If(node.cond, visit(node.then),
                      None if node.else_ is None else visit(node.else_))
        if isinstance(node, For):
            if _has_loop(node.body):
                return For(node.var, node.init, node.upper, node.step, visit(node.body),
                           node.degenerate)
            return _stage(node, statements, arrays, element_type, reference,
                          iterator, shared, result)
        return node

    result.ast = visit(ast)
    return result


def _has_loop(node: Node) -> bool:
    """Whether ``node`` holds a loop (then it is no innermost loop's body)."""
    if isinstance(node, For):
        return True
    if isinstance(node, Block):
        return any(_has_loop(c) for c in node.children)
    if isinstance(node, If):
        return _has_loop(node.then) or (node.else_ is not None and _has_loop(node.else_))
    return False


def _users(node: Node) -> list[User]:
    """The statement instances of a loop-free ``node``, guarded or not."""
    if isinstance(node, User):
        return [node]
    if isinstance(node, Block):
        return [u for c in node.children for u in _users(c)]
    if isinstance(node, If):
        return _users(node.then) + (_users(node.else_) if node.else_ is not None else [])
    return []


def _unguarded(body: Node) -> list[User]:
    """The statement instances a loop body runs at every iteration (under no ``if``)."""
    if isinstance(body, User):
        return [body]
    if isinstance(body, Block):
        return [u for c in body.children for u in _unguarded(c)]
    return []


def _stage(loop: For, statements: dict[str, Statement],
           arrays: frozenset[str], element_type: Callable[[str], str],
           reference: Callable[[Statement, tuple[Expr, ...], c_ast.Node], str],
           iterator: str, shared: Callable[[int], str], result: Staged) -> Node:
    """``loop`` (innermost) strip-mined with its reads of ``arrays`` by the statements
    it runs at every iteration copied ahead (or unchanged when it reads none it may
    stage); every statement of the loop counts for what it writes."""
    every, users = _users(loop.body), _unguarded(loop.body)
    if loop.step != 1 or loop.degenerate or any(
            u.name not in statements or isinstance(statements[u.name].body, BLOCKS)
            for u in every):
        return loop
    written = {a.array for u in every for a in statements[u.name].accesses if a.is_write}
    strip = f"{iterator}{FIRST_STRIP + len(result.lines)}"
    point = result.lanes.cell(f"({loop.var} - {strip})")
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
                element = element_type(access.array)
                if not _fits(result, element):
                    continue
                name = shared(len(result.buffers))
                result.buffers.append((element, name))
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


def _fits(result: Staged, element: str) -> bool:
    """Whether one more buffer of ``element`` keeps the buffers within the budget."""
    taken = sum(element_bytes(e) for e, _ in result.buffers) + element_bytes(element)
    return taken * result.elements <= result.lanes.budget


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
