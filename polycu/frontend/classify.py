"""C's floating-point classification and comparison macros as the expressions
whose values glibc gives them.

In:  the pycparser AST of a translation unit.
Out: a new unit (the function definitions that change copied, the rest shared)
where each call of a macro that polycu's ``<math.h>`` declares is written as an
expression of comparisons, ``fabs`` and ``copysign``:

- ``isnan(x)``: ``x != x``; ``isfinite(x)``: ``fabs(x) <= DBL_MAX`` (0 or 1, as
  glibc's);
- ``isinf(x)``: ``fabs(x) > DBL_MAX ? (x > 0 ? 1 : -1) : 0`` (glibc's
  ``isinf(-INFINITY)`` is -1), ``fabs(x) > DBL_MAX`` where only its truth counts;
- ``signbit(x)`` where only its truth counts (an ``if``, loop or ``?:`` condition,
  an operand of ``!``, ``&&``, ``||``, compared with ``0``): ``copysign(1.0, x) < 0`` (its value is 1 for
  a double and INT_MIN for a float in glibc; elsewhere the call stays, refused);
- ``isgreater(x, y)`` and the other comparisons: ``x > y`` ...,
  ``islessgreater``: ``x < y || x > y``, ``isunordered``: ``x != x || y != y``.

Why: CUDA C++ gives these macros ``bool`` values (``signbit`` of a negative float
is 1, not INT_MIN), and the model knew no such call; as expressions of pure
operations they are the same values on both sides, and a test ``if (isnan(A[i]))``
is a data-dependent condition like any other.  A float argument converts to
double exactly, so each test keeps its truth.  A macro argument has no side
effects in a SCoP (an assignment or a call that has some is refused there), so
evaluating it twice changes nothing.  Left as calls (refused in a SCoP):
``isnormal`` and ``fpclassify`` (a float's subnormal is a double's normal),
``signbit`` as a value (``UNSUPPORTED`` says why).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .calls import prototypes
from .syntax import replace_child, rewrite_functions, walk

_DBL_MAX = "1.7976931348623157e308"
_COMPARISONS = {"isgreater": ">", "isgreaterequal": ">=", "isless": "<",
                "islessequal": "<="}
#: Why each macro left as a call is refused in a SCoP.
UNSUPPORTED = {
    "signbit": "glibc's value of 'signbit' (INT_MIN for a negative float) is not CUDA's "
               "(1): use it as a condition, e.g. 'signbit(x) != 0'",
    "isnormal": "'isnormal' is not supported in a SCoP: polycu's <math.h> takes its "
                "argument as a double, and a float's subnormal is a double's normal",
    "fpclassify": "'fpclassify' is not supported in a SCoP: polycu's <math.h> takes its "
                "argument as a double, and a float's subnormal is a double's normal",
}
_MACROS = {"isnan", "isfinite", "isinf", "signbit", "islessgreater", "isunordered",
           *_COMPARISONS}


def _call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(list(args)))


def _int(value: int) -> c_ast.Node:
    return c_ast.Constant("int", str(value)) if value >= 0 else \
        c_ast.UnaryOp("-", c_ast.Constant("int", str(-value)))


def _expression(name: str, args: list[c_ast.Node], truth: bool) -> c_ast.Node | None:
    """The expression of the macro ``name`` applied to ``args`` (None: the call stays)."""
    def arg(k: int) -> c_ast.Node:
        return copy.deepcopy(args[k])
    dbl_max = c_ast.Constant("double", _DBL_MAX)
    if name in _COMPARISONS and len(args) == 2:
        return c_ast.BinaryOp(_COMPARISONS[name], arg(0), arg(1))
    if name == "islessgreater" and len(args) == 2:
        return c_ast.BinaryOp("||", c_ast.BinaryOp("<", arg(0), arg(1)),
                              c_ast.BinaryOp(">", arg(0), arg(1)))
    if name == "isunordered" and len(args) == 2:
        return c_ast.BinaryOp("||", c_ast.BinaryOp("!=", arg(0), arg(0)),
                              c_ast.BinaryOp("!=", arg(1), arg(1)))
    if len(args) != 1:
        return None
    if name == "isnan":
        return c_ast.BinaryOp("!=", arg(0), arg(0))
    if name == "isfinite":
        return c_ast.BinaryOp("<=", _call("fabs", arg(0)), dbl_max)
    if name == "isinf":
        test = c_ast.BinaryOp(">", _call("fabs", arg(0)), dbl_max)
        if truth:
            return test
        sign = c_ast.TernaryOp(c_ast.BinaryOp(">", arg(0), _int(0)), _int(1), _int(-1))
        return c_ast.TernaryOp(test, sign, _int(0))
    if name == "signbit" and truth:
        return c_ast.BinaryOp("<", _call("copysign", c_ast.Constant("double", "1.0"), arg(0)),
                              _int(0))
    return None


def _truth_children(node: c_ast.Node) -> set[str]:
    """The children of ``node`` whose values count only as true or false."""
    if isinstance(node, (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.TernaryOp)):
        return {"cond"}
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return {"expr"}
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return {"left", "right"}
    if isinstance(node, c_ast.BinaryOp) and node.op in ("==", "!="):
        return {name for name, other in (("left", node.right), ("right", node.left))
                if isinstance(other, c_ast.Constant) and other.value == "0"}
    return set()


class _Rewriting(c_ast.NodeVisitor):
    """Replaces, in place, the macro calls under a node (inner ones first)."""

    def __init__(self, macros: set[str]):
        self.macros = macros
        self.changed = False

    def generic_visit(self, node: c_ast.Node) -> None:
        truth = _truth_children(node)
        for name, child in node.children():
            self.visit(child)
            if isinstance(child, c_ast.FuncCall) and isinstance(child.name, c_ast.ID) \
                    and child.name.name in self.macros:
                args = child.args.exprs if child.args is not None else []
                value = _expression(child.name.name, args, name in truth)
                if value is not None:
                    replace_child(node, name, value)
                    self.changed = True


def _library_macros(ast: c_ast.FileAST) -> set[str]:
    """The macros of ``_MACROS`` that polycu's ``<math.h>`` declares in this unit and
    the file does not define or declare again."""
    return {name for name, proto in prototypes(ast, {}).items()
            if name in _MACROS and proto.library}


def lower_classifications(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with its classification and comparison macros written as expressions
    (function definitions copied where one changes), or ``ast`` itself."""
    macros = _library_macros(ast)
    if not macros:
        return ast
    def rewrite(func: c_ast.FuncDef) -> bool:
        rewriting = _Rewriting(macros)
        rewriting.visit(func)
        return rewriting.changed
    return rewrite_functions(ast, lambda f: any(
        isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
        and n.name.name in macros for n in walk(f.body)), rewrite)
