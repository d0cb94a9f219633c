"""Python text of our integer expressions, for runtimes that replay launches in Python.

The C they stand for divides only where isl knows the result: ``/`` of a non-negative
dividend or an exact division (Python ``//``), ``polycu_floord`` (``//``), ``%`` of a
non-negative dividend (``%``) and C's remainder (sign of the dividend).
"""
from __future__ import annotations

from .ast import Expr

_PY_OPS = {"or": "or", "and": "and", "eq": "==", "le": "<=", "lt": "<", "ge": ">=", "gt": ">",
           "add": "+", "sub": "-", "mul": "*", "div": "//", "pdiv_q": "//", "fdiv_q": "//",
           "pdiv_r": "%"}


def py_expr(e: Expr) -> str:
    """Python text of ``e`` (integer semantics of the C it stands for)."""
    if e.op == "int":
        return str(e.value) if e.value >= 0 else f"({e.value})"
    if e.op == "id":
        return str(e.value)
    args = [py_expr(a) for a in e.args]
    if e.op in ("min", "max"):
        return f"{e.op}({', '.join(args)})"
    if e.op == "minus":
        return f"(-{args[0]})"
    if e.op == "cond":
        return f"({args[1]} if {args[0]} else {args[2]})"
    if e.op == "zdiv_r":   # C's remainder takes the sign of the dividend
        a, b = args
        return f"({a} % {b} if {a} >= 0 else -((-{a}) % {b}))"
    if e.op == "call":
        return f"{args[0]}({', '.join(args[1:])})"
    return "(" + f" {_PY_OPS[e.op]} ".join(args) + ")"
