"""Our CUDA C printer: isl ASTs (via ``ast.py``), expressions and statement bodies
(the kernels around them: ``kernel.py``).

In:  ``Node``/``Expr`` trees from ``ast.py`` and the statements of the ``Scop``.
Out: C text.

Statement bodies are printed from their pycparser AST with every loop iterator
replaced by its value at the AST's call site and every array reference
``A[s_0]..[s_{r-1}]`` linearised row-major by Horner's rule,
``((s_0 * n_1 + s_1) * n_2 + s_2) ...``, with the array's extents ``n_k``.
Scalars written anywhere in the SCoP live in device memory (``s[0]``); read-only
scalars are kernel arguments passed by value; a scalar the mapping privatised is a
local variable of each thread of every kernel that uses it.

Integers keep their C meaning.  The loops isl generates count in the SCoP's
*index type*: ``int`` when every parameter and iterator type fits in an ``int``,
else ``long long``; parameters and host values travel in it.  Inside a statement
an iterator or a parameter whose C type differs is cast back to that type
(``(unsigned int)c0``), so the statement computes what the C statement computed.
A subscript is linearised in ``long long`` (C's pointer arithmetic is 64-bit)
unless the array has constant extents whose product fits in an ``int``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

import islpy as isl
from pycparser import c_ast, c_generator

from ..diagnostics import error
from ..frontend.conditions import BLOCKS, one_line
from ..frontend.ctype import INT, parse_type
from ..frontend.members import subscripts_of
from ..memory import passed_by_value
from ..model import Access, Array, Scop, Statement, storages
from .ast import expr_of
from .literals import COMPARISONS, big, literal, near_the_ends, widened
from .nodes import Block, Expr, For, If, Node, User

INDENT = "  "

# C operator precedence (higher binds tighter) of our Expr operators.
_PREC = {"cond": 3, "or": 4, "and": 5, "eq": 9, "le": 10, "lt": 10, "ge": 10, "gt": 10,
         "add": 12, "sub": 12, "mul": 13, "div": 13, "pdiv_q": 13, "pdiv_r": 13, "zdiv_r": 13,
         "minus": 14}
_C_OPS = {"or": "||", "and": "&&", "eq": "==", "le": "<=", "lt": "<", "ge": ">=", "gt": ">",
          "add": "+", "sub": "-", "mul": "*", "div": "/", "pdiv_q": "/", "pdiv_r": "%",
          "zdiv_r": "%"}
_PRIMARY = 16

def _prec(e: Expr) -> int:
    if e.op == "int":
        return _PREC["minus"] if e.value < 0 else _PRIMARY
    return _PREC.get(e.op, _PRIMARY)


def c_expr(e: Expr, host: bool = False, wide: bool = False) -> str:
    """C text of ``e``; ``host`` spells min/max as the host helpers of the prologue;
    ``wide`` (device code counting in ``long long``) converts a constant argument of
    CUDA's overloaded min/max, whose (int, long long) call would be ambiguous.  A
    comparison with a literal near or beyond the ends of long long is computed in
    ``polycu_i128`` (``literals.near_the_ends``)."""
    if e.op in COMPARISONS and near_the_ends(e):
        return c_expr(widened(e), host, wide)
    if e.op == "int":
        return literal(int(e.value))      # type: ignore[arg-type]
    if e.op == "id":
        return str(e.value)
    if e.op in ("min", "max"):
        name = f"polycu_{e.op}" if host else e.op
        # CUDA's min(int, long long) is ambiguous: every argument in long long
        longs = not host and not wide and big(e)

        def arg_text(arg: Expr) -> str:
            text = c_expr(arg, host, wide)
            cast = longs or (wide and not host and _constant(arg))
            return f"(long long)({text})" if cast else text

        text = arg_text(e.args[0])
        for arg in e.args[1:]:
            text = f"{name}({text}, {arg_text(arg)})"
        return text
    if e.op == "fdiv_q":
        return (f"polycu_floord({c_expr(e.args[0], host, wide)}, "
                f"{c_expr(e.args[1], host, wide)})")
    if e.op == "call":
        return (f"{c_expr(e.args[0], host, wide)}"
                f"({', '.join(c_expr(a, host, wide) for a in e.args[1:])})")
    prec = _PREC[e.op]
    if e.op == "minus":
        return f"-{_wrap(e.args[0], prec + 1, host, wide)}"
    if e.op == "cond":
        return (f"{_wrap(e.args[0], prec + 1, host, wide)} ? "
                f"{_wrap(e.args[1], prec, host, wide)} : {_wrap(e.args[2], prec, host, wide)}")
    # Left-associative binary operators: a right operand of equal precedence needs
    # parentheses unless it is the same associative operator (a + (b + c)).
    parts = [_wrap(e.args[0], prec, host, wide)]
    for arg in e.args[1:]:
        same = arg.op == e.op and e.op in ("add", "mul", "and", "or")
        parts.append(_wrap(arg, prec if same else prec + 1, host, wide))
    return f" {_C_OPS[e.op]} ".join(parts)


def _constant(e: Expr) -> bool:
    """Whether ``e`` involves no variable (its C type is that of its literals)."""
    return e.op == "int" or (e.op != "id" and all(_constant(a) for a in e.args))


def _wrap(e: Expr, need: int, host: bool, wide: bool = False) -> str:
    text = c_expr(e, host, wide)
    return f"({text})" if _prec(e) < need else text


def atom(e: Expr, host: bool = False, wide: bool = False) -> str:
    """``e`` parenthesised unless it is a name or a non-negative literal."""
    return _wrap(e, _PRIMARY, host, wide)


# -- AST nodes -------------------------------------------------------------------

def index_type(scop: Scop) -> str:
    """``int`` when every parameter and iterator of the SCoP has a type whose values
    fit in an ``int``, else ``long long`` (the type of generated loops and host values)."""
    names = list(scop.parameter_types) + [t for s in scop.statements for t in s.iterator_types]
    for name in names:
        ctype = parse_type(name)
        if ctype is None or not INT.holds(ctype.minimum, ctype.maximum):
            return "long long"
    return "int"


def print_node(node: Node, user: Callable[[User], list[str]], host: bool,
               itype: str = "int", depth: int = 1,
               unrolled: frozenset[str] = frozenset()) -> list[str]:
    """Lines of C for an AST counting in ``itype``; ``user`` expands one ``User`` node;
    the loops over the iterators ``unrolled`` with constant bounds get ``#pragma
    unroll`` (lane loops: their registers need constant indices; the point loops of
    full strips)."""
    pad = INDENT * depth
    wide = itype != "int" and not host

    def child(n: Node, d: int) -> list[str]:
        return print_node(n, user, host, itype, d, unrolled)

    if isinstance(node, Block):
        return [line for c in node.children for line in child(c, depth)]
    if isinstance(node, User):
        return [pad + line for line in user(node)]
    if isinstance(node, If):
        then = child(node.then, depth + 1)
        if not then and node.else_ is None:     # a guard around no-ops only
            return []
        lines = [f"{pad}if ({c_expr(node.cond, host, wide)}) {{"] + then
        if node.else_ is not None:
            lines.append(f"{pad}}} else {{")
            lines += child(node.else_, depth + 1)
        return lines + [pad + "}"]
    assert isinstance(node, For)
    if node.degenerate:
        lines = [f"{pad}{{",
                 f"{pad}{INDENT}const {itype} {node.var} = {c_expr(node.init, host, wide)};"]
        return lines + child(node.body, depth + 1) + [pad + "}"]
    constant = node.init.op == "int" and node.upper.op == "int"
    lines = [f"{pad}#pragma unroll"] if node.var in unrolled and constant else []
    lines += [f"{pad}for ({itype} {node.var} = {c_expr(node.init, host, wide)}; "
             f"{node.var} <= {_wrap(node.upper, _PREC['le'] + 1, host, wide)}; "
             f"{node.var} += {node.step}) {{"]
    return lines + child(node.body, depth + 1) + [pad + "}"]


# -- arrays as flat device pointers -------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """How kernels see one array: by value (read-only scalar) or a flat pointer with
    the C text of its extents (row-major; the outermost one may be None); ``wide``
    linearises subscripts in ``long long``."""

    array: Array
    extents: tuple[str | None, ...]
    by_value: bool
    wide: bool = True


# The extent n_k = 1 + max i_k over { A[i] : 0 <= i_k < n_k } (isl folds '1000 + 0' and
# 'nj + 0'); the C text itself when the extents are not affine.
def extent_text(scop: Scop, array: Array, k: int) -> str | None:
    """C text of extent ``k`` of ``array`` over the SCoP's parameters (constants folded)."""
    text = array.extents[k]
    if text is None:
        return None
    if array.extent_set is not None:
        size = array.extent_set.dim_max(k).add_constant_val(isl.Val(1))
        if size.n_piece() == 1:
            return c_expr(expr_of(size, scop.context))
    unknown = set(re.findall(r"[A-Za-z_]\w*", text)) - set(scop.parameters)
    if unknown:
        raise error(f"extent '{text}' of array '{array.name}' uses {', '.join(sorted(unknown))}"
                    f", which is not a parameter of the SCoP", array.location)
    return f"({text})"


def layouts(scop: Scop) -> dict[str, Layout]:
    """The device view of every array of the SCoP."""
    wide = index_type(scop) != "int"
    result = {}
    for array in scop.arrays + tuple(a for a in storages(scop) if a.struct is not None):
        if any(e is None for e in array.extents[1:]):
            raise error(f"array '{array.name}' is a pointer to pointers; code generation "
                        "needs contiguous row-major arrays", array.location)
        extents = tuple(None if k == 0 and array.extents[0] is None else
                        extent_text(scop, array, k) for k in range(array.rank))
        result[array.name] = Layout(array, extents, passed_by_value(scop, array),
                                    wide or not _small(extents))
    return result


_INT_MAX = (1 << 31) - 1


def _small(extents: tuple[str | None, ...]) -> bool:
    """Whether the extents are constants whose product fits in an ``int``."""
    size = 1
    for extent in extents:
        if extent is None or not extent.isdigit():
            return False
        size *= int(extent)
    return size <= _INT_MAX


def linearise(subscripts: list[str], extents: tuple[str | None, ...], wide: bool = False
              ) -> str:
    """Row-major offset of ``A[s_0]..[s_{r-1}]`` by Horner's rule (in ``long long``
    when ``wide``: the first subscript is converted, the rest follow), each subscript
    evaluated on its own in its C type before it joins the sum."""
    index = f"(long long)({subscripts[0]})" if wide and len(subscripts) > 1 else subscripts[0]
    for sub, extent in zip(subscripts[1:], extents[1:]):
        factor = extent if _simple(extent) else f"({extent})"
        # each subscript whole, in its own type: in ``o * 4 + (j - u) + 2`` with an
        # unsigned u, C's subscript (j - u) + 2 wraps back into range, but the sum
        # without the parentheses adds 2 in long long after (j - u) became a large
        # positive value (fuzz seed 4800140: a write far outside the array)
        sub = sub if _simple(sub) or _enclosed(sub) else f"({sub})"
        index = f"({index}) * {factor} + {sub}" if not _simple(index) else \
            f"{index} * {factor} + {sub}"
    return index


def _simple(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z_]\w*|\d+", text) is not None


def _enclosed(text: str) -> bool:
    """Whether ``text`` is one parenthesised expression: ``(a + b)``, not ``(a) + (b)``
    or the cast ``(int)c``."""
    if not text.startswith("("):
        return False
    depth = 0
    for k, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return k == len(text) - 1
    return False


def member_text(layout: Layout, subscripts: list[str]) -> str:
    """A field array's element as C indexes it in the struct variable (passed as a
    flat pointer to its structs): ``b[lin(i, j)].c[k][l]`` for ``b_c[i, j, k, l]``."""
    member = layout.array.member
    assert member is not None
    k = len(member.outer)
    outer = linearise(subscripts[:k], layout.extents[:k], layout.wide) if k else "0"
    return f"{member.variable}[{outer}].{member.field}" + "".join(f"[{s}]"
                                                               for s in subscripts[k:])


# -- statement bodies ---------------------------------------------------------------------

class _BodyPrinter(c_generator.CGenerator):
    """A statement body with iterators substituted and array references linearised."""

    def __init__(self, values: dict[str, str], accesses: Iterable[Access],
                 arrays: dict[str, Layout], private: frozenset[str],
                 promoted: Mapping[int, str], views: frozenset[str] = frozenset()):
        super().__init__()
        self.views = views
        self.values = values
        self.accesses = {id(a.node): a for a in accesses}
        self.arrays = arrays
        self.private = private
        self.promoted = promoted

    def visit_ID(self, n: c_ast.ID) -> str:
        access = self.accesses.get(id(n))
        if access is not None and id(n) in self.promoted:
            return self.promoted[id(n)]
        if access is not None and self.arrays[access.array].array.member is not None:
            return member_text(self.arrays[access.array], [])
        if access is not None:
            plain = self.arrays[access.array].by_value or access.array in self.private
            return n.name if plain else f"{n.name}[0]"
        return self.values.get(n.name, n.name)

    def visit_StructRef(self, n: c_ast.StructRef) -> str:
        access = self.accesses.get(id(n))
        if access is None:
            return super().visit_StructRef(n)
        if id(n) in self.promoted:
            return self.promoted[id(n)]
        return member_text(self.arrays[access.array],
                           [self._subscript(s) for s in subscripts_of(n)])

    def visit_ArrayRef(self, n: c_ast.ArrayRef) -> str:
        access = self.accesses.get(id(n))
        if access is None:
            return super().visit_ArrayRef(n)
        if id(n) in self.promoted:
            return self.promoted[id(n)]
        subscripts = [self._subscript(s) for s in subscripts_of(n)]
        layout = self.arrays[access.array]
        if layout.array.member is not None:
            return member_text(layout, subscripts)
        if access.array in self.views:      # a 2-D texture or surface: A(row, column)
            row = linearise(subscripts[:-1], layout.extents[:-1], layout.wide) \
                if len(subscripts) > 1 else "0"
            return f"{access.array}({row}, {subscripts[-1]})"
        return f"{access.array}[{linearise(subscripts, layout.extents, layout.wide)}]"

    # A character constant is an int in C and a char in C++: sizeof('a') is 4 in
    # the program and 1 in nvcc's kernel, and abs('a') or max('a', x) pick char
    # overloads.  Cast, it is the int C makes of it.
    def visit_Constant(self, n: c_ast.Constant) -> str:
        return f"((int){n.value})" if n.type == "char" else super().visit_Constant(n)

    def visit_BinaryOp(self, n: c_ast.BinaryOp) -> str:
        if id(n) in self.promoted:          # a product a scaled shared tile holds
            return self.promoted[id(n)]
        return super().visit_BinaryOp(n)

    # C gives ``c ? s[i] : 0`` the element's type and the usual conversions; in the
    # emulation a shared tile's element is an object (polycu_emu.h), and C++ would
    # convert it to the other operand's type instead: a promoted operand is cast to
    # its element's type (fuzz seed 3100286: an unsigned tile against an int).
    def visit_TernaryOp(self, n: c_ast.TernaryOp) -> str:
        return (f"({self._visit_expr(n.cond)}) ? ({self._operand(n.iftrue)}) : "
                f"({self._operand(n.iffalse)})")

    def _operand(self, node: c_ast.Node) -> str:
        text = self._visit_expr(node)
        access = self.accesses.get(id(node))
        if access is None or id(node) not in self.promoted:
            return text
        return f"({self.arrays[access.array].array.element_type}){text}"

    def _subscript(self, node: c_ast.Node) -> str:
        text = self._visit_expr(node)
        return f"({text})" if isinstance(node, (c_ast.TernaryOp, c_ast.ExprList)) else text

    def atomic(self, body: c_ast.Assignment, stmt: Statement) -> str:
        """``atomicAdd(&X[f], e)`` for ``X[f] += e``, ``X[f] -= e`` or ``X[f] = X[f] + e``."""
        target = self.visit(body.lvalue)
        if body.op == "+=":
            return f"atomicAdd(&{target}, {self.visit(body.rvalue)})"
        if body.op == "-=":
            return f"atomicAdd(&{target}, -({self.visit(body.rvalue)}))"
        rv = body.rvalue
        assert body.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op == "+", stmt.text
        own = {id(a.node) for a in stmt.reads if a.array == stmt.reduction_array}
        other = rv.right if id(rv.left) in own else rv.left
        return f"atomicAdd(&{target}, {self.visit(other)})"


def statement_text(stmt: Statement, args: tuple[Expr, ...], arrays: dict[str, Layout],
                   atomic: bool = False, private: frozenset[str] = frozenset(),
                   scop: Scop | None = None, promoted: Mapping[int, str] | None = None,
                   views: frozenset[str] = frozenset()) -> str:
    """The C text of one instance ``S(args)`` (iterators replaced by ``args``, cast to
    their C types where the index type differs, like the SCoP's parameters; the
    ``private`` scalars are the kernel's local variables; a reference whose node
    ``promoted`` names (by ``id``) is that text: a register or a shared tile; an
    array in ``views`` is a 2-D texture or surface, read and written as ``A(r, c)``)."""
    printer = _printer(stmt, args, arrays, private, scop, promoted, views)
    if atomic:
        return printer.atomic(stmt.body, stmt) + ";"
    # A data-dependent if or loop (frontend/conditions.py, loops.py) prints on one
    # line, every part substituted like any statement body; it is never atomic.
    if isinstance(stmt.body, BLOCKS):
        return one_line(stmt.body, printer.visit)
    return printer.visit(stmt.body) + ";"


def reference_text(stmt: Statement, args: tuple[Expr, ...], node: c_ast.Node,
                   arrays: dict[str, Layout], scop: Scop) -> str:
    """The C text of ``node``, an array reference of ``stmt``, in instance ``S(args)``."""
    return _printer(stmt, args, arrays, frozenset(), scop, None, frozenset()).visit(node)


def _printer(stmt: Statement, args: tuple[Expr, ...], arrays: dict[str, Layout],
             private: frozenset[str], scop: Scop | None, promoted: Mapping[int, str] | None,
             views: frozenset[str]) -> _BodyPrinter:
    """The printer of instance ``S(args)`` (see ``statement_text``)."""
    itype = index_type(scop) if scop is not None else "int"
    # a value with a long long literal is cast back to the iterator's own C type
    values = {it: _as_type(atom(arg, wide=itype != "int"), stmt.iterator_type(it),
                           "long long" if big(arg) else itype)
              for it, arg in zip(stmt.iterators, args)}
    if scop is not None:
        for p in scop.parameters:
            values.setdefault(p, _as_type(p, scop.parameter_type(p), itype))
    return _BodyPrinter(values, stmt.accesses, arrays, private, promoted or {}, views)


def expression_text(stmt: Statement, node: c_ast.Node, arrays: dict[str, Layout],
                    scop: Scop) -> str:
    """The C text of ``node``, a part of ``stmt``'s body without iterators (the same
    value in every instance: scalars, parameters, constants)."""
    itype = index_type(scop)
    values = {p: _as_type(p, scop.parameter_type(p), itype) for p in scop.parameters}
    return _BodyPrinter(values, stmt.accesses, arrays, frozenset(), {}).visit(node)


def _as_type(text: str, ctype: str, itype: str) -> str:
    """``text`` (a value of type ``itype``) as a value of C type ``ctype``."""
    return text if ctype == itype else f"(({ctype}){text})"
