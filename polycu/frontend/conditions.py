"""Data-dependent conditions: an ``if`` whose condition isl cannot describe.

In:  an ``if`` statement of a SCoP whose condition is not affine (it reads an array
element, a scalar written in the SCoP, a product of iterators ...).
Out: the checks and the text that make the whole ``if`` one statement of the model
(``builder.Builder.conditional``), as PPCG/pet keep such statements with a filter
on the values read.

The statement instance ``S[i]`` evaluates the condition and runs one branch, so the
model can only say which elements it *may* write: every reference of the condition
and the branches is a read, every write of the branches a may-write
(``model.MAY_WRITE``), which kills nothing in the dataflow analysis (deps.py).  The
affine conjuncts of a condition without ``else`` stay in the domain:
``if (i > 0 && A[i - 1] > 0)`` is the statement ``if (A[i - 1] > 0) ...`` on
``i > 0``, so its read of ``A[i - 1]`` is never modelled at ``i = 0``.

The branches may hold assignments, compound assignments, ``++``/``--``, blocks and
nested ``if`` (any condition): code without loops, declarations or calls with side
effects, which one instance runs as C runs it.  The accesses of one instance are
all modelled as happening at once, reads before writes (isl's convention), so a
branch may not read a variable that it (or the condition's earlier branch code)
has written before: that value would flow inside one instance, which no dependence
describes and which a surface or read-only path would not see
(``accesses.AccessCollector.conditional`` rejects it).
"""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from ..diagnostics import Location
from .syntax import Unsupported, c_text

_NAMES = {c_ast.For: "'for' loop", c_ast.While: "'while' loop", c_ast.DoWhile: "'do' loop",
          c_ast.Goto: "'goto'", c_ast.Break: "'break'", c_ast.Continue: "'continue'",
          c_ast.Return: "'return'", c_ast.Switch: "'switch'", c_ast.Label: "label"}


def conjuncts(node: c_ast.Node, op: str = "&&") -> list[c_ast.Node]:
    """The operands of a chain of ``op`` (``a && b && c``: ``[a, b, c]``)."""
    if isinstance(node, c_ast.BinaryOp) and node.op == op:
        return conjuncts(node.left, op) + conjuncts(node.right, op)
    return [node]


def conjunction(nodes: list[c_ast.Node]) -> c_ast.Node:
    """``a && b && ...`` of the nodes (at least one), left-associated as C parses it."""
    result = nodes[0]
    for node in nodes[1:]:
        result = c_ast.BinaryOp("&&", result, node, coord=result.coord)
    return result


def check_branches(node: c_ast.If, loc: Callable[[c_ast.Node], Location]) -> None:
    """Reject what a data-dependent statement cannot hold (module docstring), at the
    construct, naming the condition."""
    under = f"under the data-dependent condition '{c_text(node.cond)}'"
    for branch in (node.iftrue, node.iffalse):
        if branch is None:
            continue
        if isinstance(branch, c_ast.Compound):
            for item in branch.block_items or []:
                _check_item(item, under, loc)
        else:
            _check_item(branch, under, loc)


def _check_item(item: c_ast.Node, under: str, loc: Callable[[c_ast.Node], Location]) -> None:
    if isinstance(item, c_ast.If):
        check_branches(item, loc)
    elif isinstance(item, (c_ast.Assignment, c_ast.UnaryOp, c_ast.Compound,
                           c_ast.EmptyStatement)):
        if isinstance(item, c_ast.Compound):
            for inner in item.block_items or []:
                _check_item(inner, under, loc)
    elif isinstance(item, (c_ast.Decl, c_ast.DeclList)):
        raise Unsupported(item, f"declaration {under} is not supported: declare the "
                          "variable before the 'if'", loc(item))
    elif isinstance(item, c_ast.FuncCall):
        raise Unsupported(item, f"call to '{c_text(item.name)}' in a SCoP may have side "
                          "effects and is not supported", loc(item))
    else:
        what = _NAMES.get(type(item), type(item).__name__)
        raise Unsupported(item, f"{what} {under} is not supported: such a condition may "
                          "guard assignments only", loc(item))


#: Statement bodies that hold statements of their own (a data-dependent ``if``, a
#: data-dependent loop: loops.py, with its copies of scalars in a block), printed on
#: one line by ``one_line``.
BLOCKS = (c_ast.If, c_ast.Compound, c_ast.While, c_ast.DoWhile, c_ast.For)


def one_line(node: c_ast.Node, text: Callable[[c_ast.Node], str] = c_text) -> str:
    """C text of a data-dependent statement on one line: ``if (c) { a; b; } else { d; }``,
    ``while (c) { ... }``, ``for (i = 0; c; i++) { ... }``, each condition, declaration
    and simple statement as ``text`` prints it (the kernel printer substitutes
    iterators and accesses)."""
    if isinstance(node, c_ast.If):
        line = f"if ({text(node.cond)}) {_block(node.iftrue, text)}"
        return line + (f" else {_block(node.iffalse, text)}" if node.iffalse is not None else "")
    if isinstance(node, c_ast.Compound):
        return _block(node, text)
    if isinstance(node, c_ast.While):
        return f"while ({text(node.cond)}) {_block(node.stmt, text)}"
    if isinstance(node, c_ast.DoWhile):
        return f"do {_block(node.stmt, text)} while ({text(node.cond)});"
    if isinstance(node, c_ast.For):
        parts = (text(part) if part is not None else "" for part in (node.init, node.cond))
        step = text(node.next) if node.next is not None else ""
        return f"for ({'; '.join(parts)}; {step}) {_block(node.stmt, text)}"
    if isinstance(node, c_ast.EmptyStatement):
        return ";"
    if isinstance(node, (c_ast.Break, c_ast.Continue)):
        return "break;" if isinstance(node, c_ast.Break) else "continue;"
    return text(node) + ";"


def _block(node: c_ast.Node, text: Callable[[c_ast.Node], str]) -> str:
    items = (node.block_items or []) if isinstance(node, c_ast.Compound) else [node]
    return "{ " + "".join(one_line(item, text) + " " for item in items) + "}"


def body_text(body: c_ast.Node) -> str:
    """``Statement.text`` of a statement body: a data-dependent ``if`` or loop on one
    line."""
    return one_line(body) if isinstance(body, BLOCKS) else c_text(body)
