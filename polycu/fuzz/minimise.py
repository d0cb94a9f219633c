"""Greedy minimisation of a failing program over its structure (not its text).

In:  a ``Program`` and a predicate on finalised programs ("still fails the same way").
Out: a smaller ``Finalised`` program on which the predicate still holds.

Each round tries reductions from the largest to the smallest: fewer polycu options,
a node of the loop tree deleted, a loop replaced by its body (the iterator becomes
its lower bound), a guard replaced by one branch, a loop made plainer (unit step,
``int`` iterator, no big offset, one conjunct), smaller parameter values, plainer
arrays and scalars (fixed size; ``int`` for the integer types of session 37), and
sub-expressions replaced by one of their operands or a constant.  A candidate that
``finalise`` rejects (undefined behaviour) is skipped without running anything; the
first candidate that keeps the failure is taken and the round starts again, until no
candidate does or the budget is spent.
"""
from __future__ import annotations

import copy
import time
from typing import Any, Callable, Iterator

from .finalise import finalise
from .cint import convert
from .program import NEW_INT_TYPES, Finalised, Invalid, Program, is_integer

EXPR_KINDS = {"num", "var", "ref", "bin", "cmp", "neg", "not", "compl", "cast", "and", "or",
              "min", "max", "cond", "call"}


def _is_expr(x: Any) -> bool:
    return isinstance(x, list) and bool(x) and isinstance(x[0], str) and x[0] in EXPR_KINDS


def _get(root: Any, path: tuple) -> Any:
    for p in path:
        root = root[p]
    return root


def _with(program: Program, path: tuple, value: Any) -> Program:
    """A copy of ``program`` with the body element at ``path`` replaced."""
    prog = program.copy()
    parent = _get(prog.body, path[:-1])
    parent[path[-1]] = value
    return prog


def _without(program: Program, path: tuple) -> Program:
    prog = program.copy()
    parent = _get(prog.body, path[:-1])
    del parent[path[-1]]
    return prog


def _splice(program: Program, path: tuple, nodes: list) -> Program:
    prog = program.copy()
    parent = _get(prog.body, path[:-1])
    parent[path[-1]:path[-1] + 1] = nodes
    return prog


def node_paths(nodes: list, prefix: tuple = ()) -> Iterator[tuple]:
    """Paths of every statement, loop and guard, outermost first."""
    for i, node in enumerate(nodes):
        yield prefix + (i,)
    for i, node in enumerate(nodes):
        if node["k"] == "for":
            yield from node_paths(node["body"], prefix + (i, "body"))
        elif node["k"] == "if":
            yield from node_paths(node["then"], prefix + (i, "then"))
            if node.get("else"):
                yield from node_paths(node["else"], prefix + (i, "else"))


def expr_paths(x: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Paths of every sub-expression, outermost first (left-hand sides excluded; their
    subscripts included)."""
    if isinstance(x, dict):
        for key in ("lb", "cond", "lhs", "rhs", "init", "body", "then", "else"):
            if x.get(key) is not None:
                yield from expr_paths(x[key], prefix + (key,))
    elif _is_expr(x):
        if prefix[-1:] != ("lhs",):
            yield prefix
        for i, child in enumerate(x):
            if _is_expr(child):
                yield from expr_paths(child, prefix + (i,))
            elif isinstance(child, list):
                for j, sub in enumerate(child):
                    if _is_expr(sub):
                        yield from expr_paths(sub, prefix + (i, j))
    elif isinstance(x, list):
        for i, item in enumerate(x):
            yield from expr_paths(item, prefix + (i,))


def _replace_var(x: Any, name: str, value: list) -> Any:
    if _is_expr(x) and x[0] == "var" and x[1] == name:
        return copy.deepcopy(value)
    if isinstance(x, list):
        return [_replace_var(i, name, value) for i in x]
    if isinstance(x, dict):
        return {k: _replace_var(v, name, value) for k, v in x.items()}
    return x


def _simpler_exprs(e: list) -> Iterator[list]:
    kind = e[0]
    if kind in ("bin", "cmp"):
        yield e[2]
        yield e[3]
    elif kind in ("neg", "not", "compl"):
        yield e[1]
    elif kind == "cast":
        yield e[2]
    elif kind in ("and", "or", "min", "max"):
        yield e[1]
        yield e[2]
    elif kind == "cond":
        yield e[2]
        yield e[3]
    elif kind == "call":
        yield from e[2]
    if kind == "num":
        if e[2] not in (0, 1, 0.0, 1.0):
            yield ["num", e[1], 1 if is_integer(e[1]) else 1.0]
    elif kind not in ("cmp", "and", "or", "not"):
        yield ["num", "int", 1]
        yield ["num", "int", 0]


def candidates(program: Program) -> Iterator[Program]:
    body = program.body
    if program.options:
        yield Program(program.seed, program.params, program.arrays, program.scalars,
                      program.body, [], program.decl_iters)
    for path in node_paths(body):
        yield _without(program, path)
    for path in node_paths(body):
        node = _get(body, path)
        if node["k"] == "for":
            inner = _replace_var(node["body"], node["var"], node["lb"])
            yield _splice(program, path, inner)
        elif node["k"] == "if":
            yield _splice(program, path, node["then"])
            if node.get("else"):
                yield _splice(program, path, node["else"])
                yield _with(program, path + ("else",), None)
    for path in node_paths(body):
        node = _get(body, path)
        if node["k"] != "for":
            continue
        if node.get("offset"):
            yield _with(program, path + ("offset",), 0)
        if abs(node["step"]) != 1:
            yield _with(program, path + ("step",), 1 if node["step"] > 0 else -1)
        if node["type"] != "int":
            yield _with(program, path + ("type",), "int")
        if node["cond"][0] in ("and", "or"):
            yield _with(program, path + ("cond",), node["cond"][1])
            yield _with(program, path + ("cond",), node["cond"][2])
        if node.get("inc"):
            yield _with(program, path + ("inc",), 0)
    for i, p in enumerate(program.params):
        for v in (0, 1, 2, 3, p["value"] // 2, p["value"] - 1):
            if 0 <= v < p["value"]:
                prog = program.copy()
                prog.params[i]["value"] = v
                yield prog
        if p["type"] != "int":
            prog = program.copy()
            prog.params[i]["type"] = "int"
            yield prog
    for i, a in enumerate(program.arrays):
        if a["kind"] != "fixed":
            prog = program.copy()
            prog.arrays[i]["kind"] = "fixed"
            yield prog
        if any(a.get("pad", [])):
            prog = program.copy()
            prog.arrays[i]["pad"] = [0] * a["ndim"]
            yield prog
        if a["type"] in NEW_INT_TYPES:      # a plainer type: int (the values converted)
            prog = program.copy()
            prog.arrays[i]["type"] = "int"
            yield prog
    for i, sc in enumerate(program.scalars):
        if sc["type"] in NEW_INT_TYPES:
            prog = program.copy()
            prog.scalars[i]["type"] = "int"
            prog.scalars[i]["init"] = convert(sc["init"], "int")
            yield prog
    for path in node_paths(body):
        node = _get(body, path)
        if node["k"] == "stmt" and node["op"] not in ("=", "++", "--"):
            yield _with(program, path + ("op",), "=")
    for path in expr_paths(body):
        e = _get(body, path)
        if path[-1] == "cond" and e[0] == "cmp":
            continue        # keep conditions comparisons (simplify their operands)
        for simpler in _simpler_exprs(e):
            yield _with(program, path, copy.deepcopy(simpler))
    if not program.decl_iters:
        prog = program.copy()
        prog.decl_iters = True
        yield prog


def size(fin: Finalised) -> int:
    """What the minimiser makes smaller: the text without its embedded structure."""
    return len(fin.text.split("/* polycu-fuzz-program")[0])


def minimise(program: Program, keeps: Callable[[Finalised], bool], *, max_tests: int = 400,
             seconds: float = 3600.0, log: Callable[[str], None] = lambda s: None) -> Finalised:
    """The smallest program found on which ``keeps`` still holds (``keeps`` is assumed
    to hold on ``program``)."""
    best = finalise(program)
    deadline = time.monotonic() + seconds
    tested: set[str] = {best.text}
    tests = 0
    improved = True
    while improved and tests < max_tests and time.monotonic() < deadline:
        improved = False
        for cand in candidates(best.program):
            if tests >= max_tests or time.monotonic() >= deadline:
                break
            try:
                fin = finalise(cand)
            except (Invalid, AssertionError, KeyError, IndexError, TypeError, StopIteration):
                continue
            if fin.text in tested or size(fin) >= size(best):
                continue
            tested.add(fin.text)
            tests += 1
            if keeps(fin):
                log(f"  test {tests}: kept, {size(fin)} characters")
                best = fin
                improved = True
                break
    log(f"  {tests} tests; final size {size(best)} characters")
    return best
