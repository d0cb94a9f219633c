"""Walking and rewriting the loop tree of a program.

In:  a program's node list (``Program.body``) and a rewrite.
Out: ``walk_expr``/``map_exprs`` (bottom-up rewrites of expressions), and the
physical form that is interpreted and emitted: ``physical`` (loops with a big
offset count from it, their uses subtract it again) and ``shifted`` (subscripts
moved so that none is negative), with ``plus_const``, the ``e + c`` they build.
"""
from __future__ import annotations

from .program import Expr, Node


def walk_expr(e: Expr, fn) -> Expr:
    """Bottom-up rewrite of an expression (``fn`` sees rebuilt children)."""
    kind = e[0]
    if kind in ("num", "var"):
        return fn(list(e))
    if kind == "ref":
        return fn(["ref", e[1], [walk_expr(i, fn) for i in e[2]]])
    if kind == "bin" or kind == "cmp":
        return fn([kind, e[1], walk_expr(e[2], fn), walk_expr(e[3], fn)])
    if kind in ("neg", "not", "compl"):
        return fn([kind, walk_expr(e[1], fn)])
    if kind == "cast":
        return fn(["cast", e[1], walk_expr(e[2], fn)])
    if kind in ("and", "or", "min", "max"):
        return fn([kind, walk_expr(e[1], fn), walk_expr(e[2], fn)])
    if kind == "cond":
        return fn(["cond", walk_expr(e[1], fn), walk_expr(e[2], fn), walk_expr(e[3], fn)])
    if kind == "call":
        return fn(["call", e[1], [walk_expr(a, fn) for a in e[2]]])
    raise AssertionError(kind)


def map_exprs(nodes: list[Node], fn) -> list[Node]:
    """Every expression of a node list rewritten by ``fn`` (applied to whole expressions)."""
    out = []
    for node in nodes:
        node = dict(node)
        kind = node["k"]
        if kind == "for":
            node["lb"], node["cond"] = fn(node["lb"]), fn(node["cond"])
            node["body"] = map_exprs(node["body"], fn)
        elif kind == "if":
            node["cond"] = fn(node["cond"])
            node["then"] = map_exprs(node["then"], fn)
            if node.get("else"):
                node["else"] = map_exprs(node["else"], fn)
        elif kind == "let":
            node["init"] = fn(node["init"])
        elif kind == "stmt":
            node["lhs"] = fn(node["lhs"])
            if node.get("rhs") is not None:
                node["rhs"] = fn(node["rhs"])
        out.append(node)
    return out


def physical(nodes: list[Node]) -> list[Node]:
    """Loops with a big ``offset`` K count from ``lb + K``; each use of the iterator
    reads ``(i - K)``, and a condition ``i < e`` becomes ``i < e + K``."""
    out = []
    for node in nodes:
        node = dict(node)
        if node["k"] == "for":
            body = physical(node["body"])
            k = node.get("offset", 0)
            if k:
                var, t = node["var"], node["type"]
                big = ["num", t, k]

                def use(e: Expr, var=var, big=big) -> Expr:
                    return ["bin", "-", ["var", var], big] if e == ["var", var] else e

                def cond(e: Expr, var=var, big=big) -> Expr:
                    if e[0] == "cmp" and e[2] == ["var", var]:
                        return ["cmp", e[1], ["var", var], ["bin", "+", walk_expr(e[3], use), big]]
                    if e[0] in ("and", "or"):
                        return [e[0], cond(e[1]), cond(e[2])]
                    return walk_expr(e, use)

                node["cond"] = cond(node["cond"])
                node["lb"] = ["bin", "+", node["lb"], big]
                body = map_exprs(body, lambda e, use=use: walk_expr(e, use))
            node["body"] = body
        elif node["k"] == "if":
            node["then"] = physical(node["then"])
            if node.get("else"):
                node["else"] = physical(node["else"])
        out.append(node)
    return out


def shifted(nodes: list[Node], shifts: dict[str, list[int]]) -> list[Node]:
    def fix(e: Expr) -> Expr:
        if e[0] == "ref" and any(shifts.get(e[1], ())):
            e = ["ref", e[1], [i if s == 0 else plus_const(i, s) for i, s in zip(e[2], shifts[e[1]])]]
        return e
    return map_exprs(nodes, lambda e: walk_expr(e, fix))


def wrapped(nodes: list[Node], c: int = 3) -> list[Node]:
    """Every subscript of an array after its first as ``(s - 3u) + 3u``: the same
    element (subscripts are shifted to be at least 0, and unsigned arithmetic wraps
    back), reached through an unsigned value that wraps on the way for s < 3.  A
    linearised index once added the ``3u`` after the wrapped value had joined the
    64-bit sum (fuzz seed 4800140)."""
    def fix(e: Expr) -> Expr:
        if e[0] == "ref" and len(e[2]) > 1:
            u = ["num", "unsigned", c]
            return ["ref", e[1], [e[2][0]] + [["bin", "+", ["bin", "-", i, u], u]
                                              for i in e[2][1:]]]
        return e
    return map_exprs(nodes, lambda e: walk_expr(e, fix))


def plus_const(e: Expr, c: int) -> Expr:
    """``e + c`` folding into a trailing constant."""
    if e[0] == "num" and e[1] == "int":
        return ["num", "int", e[2] + c]
    if e[0] == "bin" and e[1] in "+-" and e[3][0] == "num" and e[3][1] == "int":
        k = (e[3][2] if e[1] == "+" else -e[3][2]) + c
        if k == 0:
            return e[2]
        return ["bin", "+" if k > 0 else "-", e[2], ["num", "int", abs(k)]]
    return ["bin", "+" if c > 0 else "-", e, ["num", "int", abs(c)]]
