"""The one evaluator of C integer expressions, with C's semantics.

In:  the C text of an integer expression and the values of the names it uses.
Out: its value, a Python integer.

Every value of C the runtimes need comes from here: the extents of the SCoP's
arrays (``n + 1``) at chosen parameter values, ``--param`` values (``m=2*8``), the
expansions of PolyBench's size macros (``(1000 + 0)``), and the host program of the
kernel description (loop bounds, grid sizes, element counts such as
``(size_t)1 * 1000 * (n)``, the assumption check), which the Python replay thus
computes as the compiled host function does.

Integers are modelled as ``frontend.ctype`` models them: a mathematical value and a
C type.  Literals have their C type (suffix and base), names the type the caller
gives (``long long`` by default, the widest index type of generated host code),
casts convert.  Operators apply integer promotion and the usual arithmetic
conversions; a result of an unsigned type is reduced modulo 2^w (``(size_t)1 * n``
at ``n = -1`` is 2^64 - 1, the size the host function would allocate); a conversion
to a narrower signed type wraps as gcc does; signed overflow is undefined in C and
not modelled: the exact value is kept (a ``long`` of 5e9 squared is 2.5e19, never a
wrapped number).  ``/`` and ``%`` truncate toward zero; ``polycu_floord``,
``polycu_min`` and ``polycu_max`` (and ``min``, ``max``) are the generated code's
helpers.  Anything else (floating point, pointers, assignments, other calls) is
refused with ``CExprError``.

A text is parsed once (pycparser) and translated into a Python function, cached by
text: the replay evaluates the same few expressions at every launch.
"""
from __future__ import annotations

import ast
import functools
from typing import Any, Callable, Mapping

from pycparser import c_ast, c_parser

from ..frontend.ctype import (BOOL, INT, ULONG, Arith, common, literal_type, literal_value,
                              parse_type, promote)


class CExprError(ValueError):
    """Why a text is not an integer expression that can be evaluated; ``name`` is the
    unknown name when that is the reason."""

    def __init__(self, message: str, name: str | None = None):
        super().__init__(message)
        self.name = name


#: Type names that are no C keywords; declared so that ``(size_t) n`` parses.
_TYPEDEFS = ("size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "uint8_t",
             "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
             "polycu_i128")
#: The generated code's 128-bit type (``codegen.literals.WIDEST``: comparisons with a
#: constant near or beyond the ends of long long).
_I128 = Arith("polycu_i128", False, 128, True, 6)
_PREFIX = "".join(f"typedef int {name};\n" for name in _TYPEDEFS)
#: Functions of generated host code, with the Python helper computing each.
_FUNCTIONS = {"polycu_floord": "_floord", "polycu_min": "min", "polycu_max": "max",
              "min": "min", "max": "max"}
_ARITHMETIC = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "^": "^"}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}


def _quotient(a: int, b: int) -> int:
    """C's ``a / b``: truncated toward zero."""
    if b == 0:
        raise ZeroDivisionError
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _remainder(a: int, b: int) -> int:
    """C's ``a % b``: the sign of the dividend."""
    return a - b * _quotient(a, b)


def _floord(a: int, b: int) -> int:
    """The generated code's ``polycu_floord(a, b)``: floor(a / b)."""
    if b == 0:
        raise ZeroDivisionError
    return a // b


def _signed(value: int, bits: int) -> int:
    """``value`` in the range of a signed type of ``bits`` bits, wrapped as gcc does."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


_HELPERS = {"__builtins__": {"min": min, "max": max, "int": int},
            "_quotient": _quotient, "_remainder": _remainder, "_floord": _floord,
            "_signed": _signed}


def convert(value: int, ctype: str | Arith) -> int:
    """``value`` converted to the integer type ``ctype`` (C11 6.3.1.3, gcc's choice for
    signed types): reduced modulo 2^w for unsigned types, wrapped into the range of
    signed ones."""
    t = parse_type(ctype) if isinstance(ctype, str) else ctype
    if t is None or t.floating:
        raise CExprError(f"'{ctype}' is not an integer type")
    if t == BOOL:
        return int(value != 0)
    if not t.signed:
        return value & ((1 << t.bits) - 1)
    return value if t.minimum <= value <= t.maximum else _signed(value, t.bits)


def _converted(code: str, source: Arith, target: Arith) -> str:
    """Python text converting the value of ``code`` from type ``source`` to ``target``
    (none when every value of ``source`` is one of ``target``; an exact value of a
    signed overflow stays exact)."""
    if source == target or (source.signed and target.signed and target.bits >= source.bits):
        return code
    if not source.signed and target.signed and target.bits > source.bits:
        return code
    if target == BOOL:
        return f"(1 if {code} else 0)"
    if not target.signed:
        return f"({code} & {(1 << target.bits) - 1})"
    return f"_signed({code}, {target.bits})"


def _result(code: str, t: Arith) -> str:
    """An arithmetic result of type ``t``: reduced modulo 2^w when ``t`` is unsigned."""
    return f"({code} & {(1 << t.bits) - 1})" if not t.signed else code


def _type_name(node: c_ast.Typename) -> Arith:
    decl = node.type
    if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
        if decl.type.names == [_I128.name]:
            return _I128
        t = parse_type(" ".join(decl.type.names))
        if t is not None:
            return t
    raise CExprError("a cast or sizeof of a type that is not arithmetic")


class _Translator:
    """C AST -> (Python text, C type); ``names`` is the type of every name."""

    def __init__(self, names: Arith):
        self.names = names
        self.used: set[str] = set()

    def __call__(self, n: c_ast.Node) -> tuple[str, Arith]:
        method = getattr(self, type(n).__name__, None)
        if method is None:
            raise CExprError(f"{type(n).__name__} is not part of an integer expression")
        return method(n)

    def Constant(self, n: c_ast.Constant) -> tuple[str, Arith]:
        if n.type == "char":
            value = ast.literal_eval(n.value)
            return str(ord(value) if len(value) == 1 else 0), INT
        if "int" not in n.type:
            raise CExprError(f"'{n.value}' is not an integer")
        return str(literal_value(n.value)), literal_type(n.value)

    def ID(self, n: c_ast.ID) -> tuple[str, Arith]:
        self.used.add(n.name)
        return f"int(_v[{n.name!r}])", self.names

    def UnaryOp(self, n: c_ast.UnaryOp) -> tuple[str, Arith]:
        if n.op == "sizeof" and isinstance(n.expr, c_ast.Typename):
            t = _type_name(n.expr)
            return str(16 if t.bits == 80 else max(t.bits // 8, 1)), ULONG
        code, t = self(n.expr)
        if n.op == "!":
            return f"(0 if {code} else 1)", INT
        if n.op not in ("-", "+", "~"):
            raise CExprError(f"operator '{n.op}' is not part of an integer expression")
        p = promote(t)
        code = _converted(code, t, p)
        return (_result(f"({n.op.strip()}{code})", p) if n.op != "+" else code), p

    def Cast(self, n: c_ast.Cast) -> tuple[str, Arith]:
        target = _type_name(n.to_type)
        if target.floating:
            raise CExprError("a conversion to a floating type")
        code, t = self(n.expr)
        return _converted(code, t, target), target

    def BinaryOp(self, n: c_ast.BinaryOp) -> tuple[str, Arith]:
        (a, ta), (b, tb) = self(n.left), self(n.right)
        if n.op in ("&&", "||"):
            return f"(1 if ({a}) {'and' if n.op == '&&' else 'or'} ({b}) else 0)", INT
        if n.op in ("<<", ">>"):
            t = promote(ta)
            return _result(f"({_converted(a, ta, t)} {n.op} {b})", t), t
        t = common(ta, tb)
        a, b = _converted(a, ta, t), _converted(b, tb, t)
        if n.op in _COMPARISONS:
            return f"(1 if {a} {n.op} {b} else 0)", INT
        if n.op == "/":
            return _result(f"_quotient({a}, {b})", t), t
        if n.op == "%":
            return _result(f"_remainder({a}, {b})", t), t
        if n.op not in _ARITHMETIC:
            raise CExprError(f"operator '{n.op}' is not part of an integer expression")
        return _result(f"({a} {n.op} {b})", t), t

    def TernaryOp(self, n: c_ast.TernaryOp) -> tuple[str, Arith]:
        cond, _ = self(n.cond)
        (a, ta), (b, tb) = self(n.iftrue), self(n.iffalse)
        t = common(ta, tb)
        return f"({_converted(a, ta, t)} if {cond} else {_converted(b, tb, t)})", t

    def FuncCall(self, n: c_ast.FuncCall) -> tuple[str, Arith]:
        name = n.name.name if isinstance(n.name, c_ast.ID) else None
        args = n.args.exprs if n.args is not None else []
        if name not in _FUNCTIONS or len(args) != 2:
            raise CExprError(f"a call of '{name}' is not part of an integer expression")
        (a, ta), (b, tb) = self(args[0]), self(args[1])
        t = common(ta, tb)
        return f"{_FUNCTIONS[name]}({_converted(a, ta, t)}, {_converted(b, tb, t)})", t


@functools.lru_cache(maxsize=None)
def _parser() -> c_parser.CParser:
    return c_parser.CParser()


@functools.lru_cache(maxsize=4096)
def _compiled(text: str, names: str) -> Callable[[Mapping[str, Any]], int]:
    """The Python function computing ``text`` from a mapping of the names' values."""
    try:
        unit = _parser().parse(f"{_PREFIX}long long polycu_v = ({text});")
    except Exception:  # pycparser raises several types on text it cannot read
        raise CExprError("not a C expression") from None
    name_type = parse_type(names)
    assert name_type is not None and not name_type.floating, names
    code, _ = _Translator(name_type)(unit.ext[-1].init)
    return eval(f"lambda _v: {code}", dict(_HELPERS))


def evaluate(text: str, values: Mapping[str, int], names: str = "long long") -> int:
    """The value of the C integer expression ``text``, each name taking its value in
    ``values`` as a value of type ``names``; ``CExprError`` says why there is none
    (not an integer expression, an unknown name, a division by zero)."""
    function = _compiled(text.strip(), names)
    try:
        return function(values)
    except KeyError as exc:
        name = exc.args[0]
        raise CExprError(f"'{name}' has no value", name) from None
    except ZeroDivisionError:
        raise CExprError("division by zero") from None
    except ValueError:  # a negative shift count: undefined in C
        raise CExprError("a shift by a negative count") from None


def c_integer(text: str) -> int:
    """The value of a constant C integer expression (``1000 + 0``, ``120UL``,
    ``(2*7)/4``); ``CExprError``, a ValueError, for anything else (a name, ``1.5``)."""
    return evaluate(text, {})

