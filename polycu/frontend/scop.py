"""C AST to polyhedral model: find static control parts and build ``Scop`` values.

In:  a pycparser ``FileAST`` (with coordinates in the user's files).
Out: a list of ``Scop`` (one per ``#pragma scop`` region, or per maximal static
control part found automatically when the file has no pragma).

A loop ``for (i = l; c(i); i += s)`` (``s`` a non-zero constant) contributes the
constraints ``i >= l`` (``i <= l`` when ``s < 0``), ``c(i)`` and ``exists k: i = l + s k``
to the domains inside it, and the schedule dimension ``i`` (``-i`` when ``s < 0``);
``if (c)`` contributes ``c`` to the then-branch and its complement to the else-branch.
Consecutive block items are ordered by an isl sequence node.  A loop condition must
hold on an interval of iterations starting at ``l``; that is checked exactly.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Sequence

import islpy as isl
from pycparser import c_ast, c_generator

from ..diagnostics import Location, error
from ..model import READ, WRITE, Access, Array, Scop, Statement
from .affine import CTX, AffineEnv, NotAffine, convert, int_constant, to_pwaff, to_set, typed
from .calls import PURE_FUNCTIONS, ExpressionTypes, Prototype, make_explicit, prototypes
from .ctype import INT, LDOUBLE, LLONG_MAX, Arith, parse_type, range_constraint

_generator = c_generator.CGenerator()


def c_text(node: c_ast.Node) -> str:
    """C source text of an AST node (normalised by pycparser's generator)."""
    return _generator.visit(node)


@dataclass(frozen=True)
class Symbol:
    """A declared variable: element type, array extents (C text) and whether it is a pointer."""

    name: str
    element_type: str
    extents: tuple[c_ast.Node | None, ...]
    location: Location
    pointer: bool = False
    declaration: str = ""

    @property
    def is_integer(self) -> bool:
        return self.ctype is not None and not self.ctype.floating

    @property
    def ctype(self) -> Arith | None:
        """The arithmetic type of a scalar (None for a struct, a pointer or an array)."""
        return None if self.extents else parse_type(self.element_type)


def _decode_type(decl_type: c_ast.Node, typedefs: dict[str, str]
                 ) -> tuple[str, tuple[c_ast.Node | None, ...], bool]:
    """(element type, extents, is-pointer) of a declarator such as ``double A[n][m]``."""
    extents: list[c_ast.Node | None] = []
    pointer = False
    node = decl_type
    while True:
        if isinstance(node, c_ast.ArrayDecl):
            extents.append(node.dim)
            node = node.type
        elif isinstance(node, c_ast.PtrDecl):
            extents.append(None)
            pointer = True
            node = node.type
        else:
            break
    names: list[str] = []
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        for n in node.type.names:
            names.extend(typedefs.get(n, n).split())
    elif isinstance(node, c_ast.TypeDecl):
        names = [type(node.type).__name__]
    elif isinstance(node, c_ast.FuncDecl):
        names = ["<function>"]
    return " ".join(names), tuple(extents), pointer


class _SymbolCollector(c_ast.NodeVisitor):
    """Every variable declaration under a node (parameters and locals of a function)."""

    def __init__(self, typedefs: dict[str, str], default_file: str):
        self.typedefs = typedefs
        self.default_file = default_file
        self.symbols: dict[str, Symbol] = {}

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        etype, extents, _ = _decode_type(node.type, self.typedefs)
        if not extents:
            self.typedefs[node.name] = etype

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name is not None and not isinstance(node.type, c_ast.FuncDecl):
            etype, extents, pointer = _decode_type(node.type, self.typedefs)
            bare = copy.copy(node)
            bare.init, bare.bitsize = None, None
            bare.storage = [s for s in bare.storage if s not in ("extern", "static")]
            self.symbols[node.name] = Symbol(node.name, etype, extents,
                                             Location.from_coord(node.coord, self.default_file),
                                             pointer, c_text(bare))
        self.generic_visit(node)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        params = node.decl.type.args
        if params is not None:
            self.visit(params)
        self.visit(node.body)


def _written_names(nodes: Iterable[c_ast.Node]) -> set[str]:
    """Base names of every variable assigned, incremented or declared under ``nodes``."""
    names: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_Assignment(self, node: c_ast.Assignment) -> None:
            names.add(_base_name(node.lvalue) or "")
            self.generic_visit(node)

        def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
            if node.op in ("++", "--", "p++", "p--"):
                names.add(_base_name(node.expr) or "")
            self.generic_visit(node)

        def visit_Decl(self, node: c_ast.Decl) -> None:
            names.add(node.name or "")
            self.generic_visit(node)

    visitor = Visitor()
    for n in nodes:
        visitor.visit(n)
    names.discard("")
    return names


def _base_name(node: c_ast.Node) -> str | None:
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else None


def _flatten_ref(node: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    subscripts: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]


class _Unsupported(Exception):
    """A construct that ends a SCoP; becomes an error in pragma mode."""

    def __init__(self, node: c_ast.Node | None, message: str, location: Location | None = None):
        super().__init__(message)
        self.node = node
        self.message = message
        self.location = location


@dataclass
class _Builder:
    """Builds statements, arrays and the schedule of one SCoP from a list of block items."""

    symbols: dict[str, Symbol]
    written: set[str]
    source: str
    prefix: str
    typedefs: dict[str, str] = field(default_factory=dict)
    functions: dict[str, Prototype] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    iterator_types: dict[str, Arith] = field(default_factory=dict)
    assumptions: list[isl.Set] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    locals: dict[str, Symbol] = field(default_factory=dict)
    accessed: dict[str, Location] = field(default_factory=dict)

    # -- names --------------------------------------------------------------
    def loc(self, node: c_ast.Node | None) -> Location:
        return Location.from_coord(getattr(node, "coord", None), self.source)

    def is_param(self, name: str) -> bool:
        """A parameter: an integer scalar declared outside the SCoP and never written in it."""
        sym = self.symbols.get(name)
        if sym is None or name in self.written or name in self.locals or not sym.is_integer:
            return False
        if name not in self.params:
            self.params.append(name)
        return True

    def type_of(self, name: str) -> Arith:
        """The C type of a loop iterator (the innermost loop of that name) or a parameter."""
        if name in self.iterator_types:
            return self.iterator_types[name]
        sym = self.symbols.get(name)
        return (sym.ctype if sym is not None else None) or INT

    def value_type(self, name: str) -> Arith | None:
        """The C type of a name's values in a statement: an iterator's type, a scalar's,
        or an array's element type."""
        if name in self.iterator_types:
            return self.iterator_types[name]
        sym = self.locals.get(name) or self.symbols.get(name)
        return parse_type(sym.element_type) if sym is not None else None

    def env(self, iterators: Sequence[str], bounds: isl.Set | None = None) -> AffineEnv:
        return AffineEnv(tuple(iterators), self.is_param, self.type_of, self.typedefs, bounds,
                         self.assumptions.append)

    def explain(self, exc: NotAffine) -> str:
        """Why a name cannot be a parameter, when that is the reason."""
        node = exc.node
        if isinstance(node, c_ast.ID) and node.name in self.written:
            return f"'{node.name}' is written inside the SCoP, so it is not a parameter"
        if isinstance(node, c_ast.ID) and node.name in self.symbols \
                and not self.symbols[node.name].is_integer:
            return f"'{node.name}' is not an integer scalar"
        return exc.what

    def affine(self, node: c_ast.Node, iterators: Sequence[str],
               bounds: isl.Set | None = None) -> isl.PwAff:
        """``node``'s value where it is evaluated (``bounds``: its conversions are exact)."""
        return self.typed(node, iterators, bounds)[0]

    def typed(self, node: c_ast.Node, iterators: Sequence[str],
              bounds: isl.Set | None = None) -> tuple[isl.PwAff, Arith]:
        try:
            return typed(node, self.env(iterators, bounds))
        except NotAffine as exc:
            raise _Unsupported(exc.node, f"expression '{c_text(node)}' is not affine: "
                               f"{self.explain(exc)}", self.loc(exc.node)) from None

    def condition(self, node: c_ast.Node, iterators: Sequence[str],
                  bounds: isl.Set | None = None) -> isl.Set:
        try:
            return to_set(node, self.env(iterators, bounds))
        except NotAffine as exc:
            raise _Unsupported(exc.node, f"condition '{c_text(node)}' is not affine: "
                               f"{self.explain(exc)}", self.loc(exc.node)) from None

    # -- block items -> schedule -------------------------------------------
    def items(self, items: Sequence[c_ast.Node], iterators: tuple[str, ...],
              domain: isl.Set) -> isl.Schedule | None:
        return _sequence(self.item(item, iterators, domain) for item in items)

    def item(self, node: c_ast.Node, iterators: tuple[str, ...],
             domain: isl.Set) -> isl.Schedule | None:
        if isinstance(node, c_ast.For):
            return self.loop(node, iterators, domain)
        if isinstance(node, c_ast.If):
            cond = self.condition(node.cond, iterators, domain)
            then = self.item(node.iftrue, iterators, domain.intersect(cond))
            other = None
            if node.iffalse is not None:
                other = self.item(node.iffalse, iterators, domain.intersect(cond.complement()))
            if then is None or other is None:
                return then or other
            return then.sequence(other)
        if isinstance(node, c_ast.Compound):
            return self.items(node.block_items or [], iterators, domain)
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp)):
            return self.statement(node, node, iterators, domain)
        if isinstance(node, c_ast.Decl):
            return self.declaration(node, iterators, domain)
        if isinstance(node, c_ast.DeclList):
            return _sequence(self.declaration(d, iterators, domain) for d in node.decls)
        if isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return None
        if isinstance(node, c_ast.FuncCall):
            name = c_text(node.name)
            raise _Unsupported(node, f"call to '{name}' in a SCoP may have side effects "
                               "and is not supported", self.loc(node))
        what = {c_ast.While: "'while' loop", c_ast.DoWhile: "'do' loop", c_ast.Goto: "'goto'",
                c_ast.Break: "'break'", c_ast.Continue: "'continue'", c_ast.Return: "'return'",
                c_ast.Switch: "'switch'", c_ast.Label: "label"}.get(type(node),
                                                                    type(node).__name__)
        raise _Unsupported(node, f"{what} is not supported in a SCoP", self.loc(node))

    def declaration(self, node: c_ast.Decl, iterators: tuple[str, ...],
                    domain: isl.Set) -> isl.Schedule | None:
        sym = self.symbols.get(node.name)
        if sym is not None and sym.pointer:
            raise _Unsupported(node, f"pointer '{node.name}' declared inside a SCoP: aliasing "
                               "pointers are not supported", self.loc(node))
        if sym is None or sym.extents:
            raise _Unsupported(node, f"declaration of array '{node.name}' inside a SCoP is "
                               "not supported", self.loc(node))
        self.locals[node.name] = sym
        if node.init is None:
            return None
        assign = c_ast.Assignment("=", c_ast.ID(node.name, coord=node.coord), node.init,
                                  coord=node.coord)
        return self.statement(assign, node, iterators, domain)

    # -- loops --------------------------------------------------------------
    def loop(self, node: c_ast.For, iterators: tuple[str, ...],
             domain: isl.Set) -> isl.Schedule | None:
        name, lower_node, ctype = self.loop_init(node)
        if name in iterators:
            raise _Unsupported(node, f"loop iterator '{name}' shadows an enclosing iterator",
                               self.loc(node))
        step = self.loop_step(node, name)
        inner = iterators + (name,)
        if name in _written_names([node.stmt]):
            raise _Unsupported(node.stmt, f"loop iterator '{name}' is written in the loop body",
                               self.loc(node.stmt))
        self.iterator_types[name] = ctype
        dom = domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set,
                                                               len(iterators), name)
        env = self.env(inner, dom)
        var = env.variable(name)
        if not ctype.signed or ctype.bits < INT.bits:
            # Modular types wrap: bound the iterator by its range (an unsigned 64-bit
            # one below 2^63, like parameters).  Signed overflow is undefined, so int
            # and long iterators need no bound (the model stays free of +-2^63).
            dom = dom.intersect(var.ge_set(env.constant(ctype.minimum))).intersect(
                var.le_set(env.constant(min(ctype.maximum, LLONG_MAX))))
        value, value_type = self.typed(lower_node, inner, dom)
        try:  # the initialisation converts the lower bound to the iterator's type
            lower = convert(value, value_type, ctype, self.env(inner, dom), lower_node)
        except NotAffine as exc:
            raise _Unsupported(exc.node, exc.what, self.loc(exc.node)) from None
        if node.cond is None:
            raise _Unsupported(node, "loop without a condition", self.loc(node))
        start = var.ge_set(lower) if step > 0 else var.le_set(lower)
        started = dom.intersect(start)
        cond = self.condition(node.cond, inner, started)
        self.check_interval(node, started, cond, len(iterators), step)
        dom = started.intersect(cond)
        if abs(step) > 1:
            offset = var.sub(lower).mod_val(isl.Val.int_from_si(CTX, abs(step)))
            dom = dom.intersect(offset.eq_set(env.constant(0)))
        self.check_wrap(node, dom, cond, inner, ctype, step)
        first = len(self.statements)
        body = self.item(node.stmt, inner, dom.coalesce())
        if body is None:
            return None
        parts = []
        for stmt in self.statements[first:]:
            dims = ", ".join(stmt.iterators)
            sign = "" if step > 0 else "-"
            parts.append(f"{stmt.name}[{dims}] -> [({sign}{name})]")
        band = isl.MultiUnionPwAff.from_union_pw_multi_aff(
            isl.UnionPwMultiAff("{ " + "; ".join(parts) + " }"))
        return body.insert_partial_schedule(band)

    def loop_init(self, node: c_ast.For) -> tuple[str, c_ast.Node, Arith]:
        """The iterator, its initial value and its C type."""
        init = node.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init:
            decl = init.decls[0]
            etype, extents, _ = _decode_type(decl.type, self.typedefs)
            ctype = None if extents else parse_type(etype)
            if ctype is None or ctype.floating:
                raise _Unsupported(decl, "loop iterator must be an integer", self.loc(decl))
            return decl.name, decl.init, ctype
        if isinstance(init, c_ast.Assignment) and init.op == "=" \
                and isinstance(init.lvalue, c_ast.ID):
            sym = self.symbols.get(init.lvalue.name)
            ctype = sym.ctype if sym is not None else None
            if ctype is None or ctype.floating:
                raise _Unsupported(init, f"loop iterator '{init.lvalue.name}' must be an "
                                   "integer variable", self.loc(init))
            return init.lvalue.name, init.rvalue, ctype
        raise _Unsupported(node, "loop initialisation must assign one integer iterator",
                           self.loc(init if init is not None else node))

    # An iterator of an unsigned or narrow type wraps around instead of overflowing:
    # i + s leaves [min, max] at the points W of the domain where it does; the loop
    # still ends there iff the condition fails at the wrapped value i + s -+ 2^w.
    # Parameter values for which it goes on are excluded by an assumption; a loop
    # that goes on for every parameter value is rejected.
    def check_wrap(self, node: c_ast.For, dom: isl.Set, cond: isl.Set,
                   inner: tuple[str, ...], ctype: Arith, step: int) -> None:
        """Reject a loop whose iterator wraps around and goes on (C's modular types)."""
        if ctype.signed and ctype.bits >= INT.bits:
            return  # overflow of a signed iterator is undefined: no valid program has it
        env = self.env(inner)
        after = env.variable(inner[-1]).add(env.constant(step))
        wraps = dom.intersect(after.lt_set(env.constant(ctype.minimum)).union(
            after.gt_set(env.constant(ctype.maximum))))
        if wraps.is_empty():
            return
        delta = step - (1 << ctype.bits) if step > 0 else step + (1 << ctype.bits)
        names = ", ".join(inner)
        moved = ", ".join(list(inner[:-1]) + [f"{inner[-1]} + ({delta})"])
        wrapped = wraps.apply(isl.Map(f"{{ [{names}] -> [{moved}] }}"))
        going_on = env.within_types(wrapped.intersect(cond)).params()
        if going_on.is_empty():
            return
        params = [going_on.get_dim_name(isl.dim_type.param, k)
                  for k in range(going_on.dim(isl.dim_type.param))]
        fine = env.within_types(env.universe(), params).params().subtract(going_on)
        if fine.is_empty():
            raise _Unsupported(node, f"loop iterator '{inner[-1]}' of type '{ctype.name}' "
                               "wraps around and the loop condition still holds (the loop "
                               "does not end where it seems to)", self.loc(node))
        self.assumptions.append(fine)  # checked at run time by the generated code

    def loop_step(self, node: c_ast.For, name: str) -> int:
        nxt = node.next
        step: int | None = None
        if isinstance(nxt, c_ast.UnaryOp) and _base_name(nxt.expr) == name \
                and isinstance(nxt.expr, c_ast.ID):
            step = {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(nxt.op)
        elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) \
                and nxt.lvalue.name == name:
            if nxt.op in ("+=", "-="):
                value = int_constant(nxt.rvalue)
                if value is not None:
                    step = value if nxt.op == "+=" else -value
            elif nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) \
                    and nxt.rvalue.op in ("+", "-"):
                rv = nxt.rvalue
                if isinstance(rv.left, c_ast.ID) and rv.left.name == name:
                    value = int_constant(rv.right)
                    if value is not None:
                        step = value if rv.op == "+" else -value
                elif rv.op == "+" and isinstance(rv.right, c_ast.ID) and rv.right.name == name:
                    step = int_constant(rv.left)
        if not step:
            raise _Unsupported(nxt or node, f"loop increment of '{name}' must add a non-zero "
                               "integer constant", self.loc(nxt or node))
        return step

    def check_interval(self, node: c_ast.For, started: isl.Set, cond: isl.Set, depth: int,
                       step: int) -> None:
        """Reject conditions that fail and then hold again: the loop would stop early.

        Bad points are ``i'`` between the start and some ``i`` satisfying the condition
        (same outer iterators) at which the condition does not hold.
        """
        space = started.get_space()
        n = space.dim(isl.dim_type.set)
        between = isl.Map.from_domain_and_range(started, started)
        for d in range(n):
            if d != depth:
                between = between.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
        if step > 0:
            between = between.order_le(isl.dim_type.out, depth, isl.dim_type.in_, depth)
        else:
            between = between.order_ge(isl.dim_type.out, depth, isl.dim_type.in_, depth)
        reached = between.intersect_domain(started.intersect(cond)).range()
        if not reached.subtract(cond).is_empty():
            raise _Unsupported(node.cond, f"loop condition '{c_text(node.cond)}' is not a bound "
                               "on the iterator (it may stop and hold again)",
                               self.loc(node.cond))

    # -- statements and accesses ---------------------------------------------
    def statement(self, expr: c_ast.Node, origin: c_ast.Node, iterators: tuple[str, ...],
                  domain: isl.Set) -> isl.Schedule:
        name = f"{self.prefix}{len(self.statements)}"
        body = copy.deepcopy(expr)
        dom = domain.set_tuple_name(name).coalesce()
        collector = _AccessCollector(self, name, iterators, dom)
        collector.statement(body)
        make_explicit(body, ExpressionTypes(self.value_type, self.typedefs, self.functions))
        op, array = _reduction(body, collector.accesses)
        stmt = Statement(name=name, domain=dom, iterators=iterators, body=body,
                         accesses=tuple(collector.accesses), text=c_text(body),
                         location=self.loc(origin), reduction=op, reduction_array=array,
                         iterator_types=tuple(self.type_of(i).name for i in iterators))
        self.statements.append(stmt)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(dom))


def _sequence(parts: Iterable[isl.Schedule | None]) -> isl.Schedule | None:
    """The schedules of consecutive block items (None: no statement) in textual order."""
    result: isl.Schedule | None = None
    for part in parts:
        if part is not None:
            result = part if result is None else result.sequence(part)
    return result


class _AccessCollector:
    """Records every array and scalar reference of one statement body."""

    def __init__(self, builder: _Builder, stmt: str, iterators: tuple[str, ...],
                 domain: isl.Set):
        self.b = builder
        self.stmt = stmt
        self.iterators = iterators
        self.domain = domain
        self.space = domain.get_space()
        self.accesses: list[Access] = []

    def statement(self, node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Assignment):
            # ``a = b = e`` (a chain of plain assignments) writes a and b, reads e.
            targets = [node]
            while targets[-1].op == "=" and isinstance(targets[-1].rvalue, c_ast.Assignment) \
                    and targets[-1].rvalue.op == "=":
                targets.append(targets[-1].rvalue)
            self.expression(targets[-1].rvalue)
            for target in reversed(targets):
                if target.op != "=":
                    self.reference(target.lvalue, READ)
                self.reference(target.lvalue, WRITE)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.reference(node.expr, READ)
            self.reference(node.expr, WRITE)
        else:
            raise _Unsupported(node, f"expression statement '{c_text(node)}' has no effect or "
                               "is not supported", self.b.loc(node))

    def expression(self, node: c_ast.Node, kind: str = READ) -> None:
        if isinstance(node, (c_ast.ArrayRef, c_ast.ID)):
            self.reference(node, kind)
        elif isinstance(node, c_ast.Constant):
            return
        elif isinstance(node, c_ast.BinaryOp):
            self.expression(node.left)
            self.expression(node.right)
        elif isinstance(node, c_ast.UnaryOp):
            if node.op in ("&", "*"):
                raise _Unsupported(node, f"pointer operation '{node.op}' is not supported in a "
                                   "SCoP", self.b.loc(node))
            if node.op in ("++", "--", "p++", "p--"):
                raise _Unsupported(node, "increment inside an expression is not supported",
                                   self.b.loc(node))
            if node.op == "sizeof":
                return
            self.expression(node.expr)
        elif isinstance(node, c_ast.Cast):
            self.expression(node.expr)
        elif isinstance(node, c_ast.TernaryOp):
            self.expression(node.cond)
            self.expression(node.iftrue)
            self.expression(node.iffalse)
        elif isinstance(node, c_ast.FuncCall):
            name = c_text(node.name)
            proto = self.b.functions.get(name)
            if proto is None:
                raise _Unsupported(node, f"call to '{name}', which is not declared (C needs "
                                   "a prototype: include its header)", self.b.loc(node))
            if name not in PURE_FUNCTIONS or not proto.library:
                raise _Unsupported(node, f"call to '{name}' may have side effects and is not "
                                   "supported in a SCoP", self.b.loc(node))
            for arg in (node.args.exprs if node.args else []):
                self.expression(arg)
        elif isinstance(node, c_ast.Assignment):
            raise _Unsupported(node, "assignment inside an expression is not supported",
                               self.b.loc(node))
        elif isinstance(node, c_ast.StructRef):
            raise _Unsupported(node, f"structure member access '{c_text(node)}' is not "
                               "supported in a SCoP", self.b.loc(node))
        else:
            raise _Unsupported(node, f"{type(node).__name__} is not supported in a SCoP",
                               self.b.loc(node))

    def reference(self, node: c_ast.Node, kind: str) -> None:
        if isinstance(node, c_ast.ID):
            base, subscripts = node, []
        elif isinstance(node, c_ast.ArrayRef):
            base, subscripts = _flatten_ref(node)
        else:
            raise _Unsupported(node, f"'{c_text(node)}' is not an array or scalar reference: "
                               "pointer dereference and arithmetic are not supported",
                               self.b.loc(node))
        if not isinstance(base, c_ast.ID):
            raise _Unsupported(node, f"'{c_text(node)}': pointer arithmetic is not supported",
                               self.b.loc(node))
        name = base.name
        if not subscripts:
            if name in self.iterators:
                if kind != READ:
                    raise _Unsupported(node, f"loop iterator '{name}' is written",
                                       self.b.loc(node))
                return
            if self.b.is_param(name):
                return
        sym = self.b.locals.get(name) or self.b.symbols.get(name)
        if sym is None:
            raise _Unsupported(node, f"'{name}' is not declared", self.b.loc(node))
        if parse_type(sym.element_type) == LDOUBLE:
            raise _Unsupported(node, f"'{name}' is a long double: CUDA has no long double "
                               "arithmetic (it would compute in double)", self.b.loc(node))
        if len(subscripts) != len(sym.extents):
            what = "pointer arithmetic or a partial array reference" if subscripts or \
                sym.extents else "too many subscripts"
            raise _Unsupported(node, f"'{c_text(node)}' uses {len(subscripts)} of "
                               f"{len(sym.extents)} subscripts: {what} is not supported",
                               self.b.loc(node))
        bounds = self.domain.reset_tuple_id()
        pieces = [self.b.affine(s, self.iterators, bounds) for s in subscripts]
        relation = _access_map(self.space, name, pieces)
        ref = f"{self.stmt}.{len(self.accesses)}"
        self.accesses.append(Access(name, kind, relation, ref, self.b.loc(node), node))
        self.b.accessed.setdefault(name, self.b.loc(node))


def _access_map(domain_space: isl.Space, array: str, pieces: list[isl.PwAff]) -> isl.Map:
    """``S[i] -> A[f_1(i), ..., f_k(i)]`` from the subscript functions."""
    if not pieces:
        universe = isl.Set.universe(domain_space)
        target = isl.Set(f"{{ {array}[] }}")
        return isl.Map.from_domain_and_range(universe, target)
    result = None
    for piece in pieces:
        pma = isl.PwMultiAff.from_pw_aff(piece)
        result = pma if result is None else result.flat_range_product(pma)
    relation = isl.Map.from_pw_multi_aff(result)
    relation = relation.set_tuple_name(isl.dim_type.out, array)
    name = domain_space.get_tuple_name(isl.dim_type.set)
    return relation.set_tuple_name(isl.dim_type.in_, name)


_ASSOCIATIVE = {"+=": "+", "-=": "+", "*=": "*"}


def _reduction(body: c_ast.Node, accesses: list[Access]) -> tuple[str | None, str | None]:
    """Detect ``X[f] op= e`` or ``X[f] = X[f] op e`` with ``e`` not reading ``X``."""
    if not isinstance(body, c_ast.Assignment):
        return None, None
    target = _base_name(body.lvalue)
    writes = [a for a in accesses if a.is_write]
    reads_x = [a for a in accesses if a.is_read and a.array == target]
    if len(writes) != 1 or len(reads_x) != 1 or not writes[0].relation.is_equal(
            reads_x[0].relation):
        return None, None
    if body.op in _ASSOCIATIVE:
        return _ASSOCIATIVE[body.op], target
    rv = body.rvalue
    if body.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op in ("+", "*"):
        if reads_x[0].node is rv.left or (rv.op in ("+", "*") and reads_x[0].node is rv.right):
            return rv.op, target
    return None, None


# -- SCoP regions -----------------------------------------------------------------

@dataclass(frozen=True)
class _Region:
    function: str
    items: tuple[c_ast.Node, ...]
    lines: tuple[int, int]
    location: Location
    function_ast: c_ast.FuncDef | None = None


# A loop counter i declared outside R ends R with the value that stopped its last
# loop; the generated code does not compute it.  i may be read after R iff, in text
# order from R's end (from F's start when R may run again), the first reference to i
# is not an assignment 'i = e' with e not reading i.
def _iterators_read_after(region: _Region, source: str) -> None:
    """Reject a SCoP whose loop counters (declared outside it) are read after it."""
    if region.function_ast is None:
        return
    counters = {_loop_counter(node) for item in region.items for node in _walk(item)
                if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.Assignment)}
    counters.discard(None)
    if not counters:
        return
    inside = {id(item) for item in region.items}
    state = {"after": False, "again": False}
    settled: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def __init__(self) -> None:
            self.loops = 0

        def visit(self, node: c_ast.Node) -> None:
            if id(node) in inside:
                state["after"] = True
                state["again"] = state["again"] or self.loops > 0
                return
            loop = isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
            self.loops += loop
            super().visit(node)
            self.loops -= loop

        def visit_Goto(self, node: c_ast.Goto) -> None:
            state["again"] = True

        def visit_Assignment(self, node: c_ast.Assignment) -> None:
            self.visit(node.rvalue)
            target = node.lvalue
            if isinstance(target, c_ast.ID) and node.op == "=":
                if state["after"] or state["again"]:
                    settled.add(target.name)
            else:
                self.visit(target)

        def visit_ID(self, node: c_ast.ID) -> None:
            if node.name in counters and node.name not in settled \
                    and (state["after"] or state["again"]):
                raise error(f"'{node.name}' is read after the SCoP of lines {region.lines[0]}-"
                            f"{region.lines[1]}, whose loops leave it at its final value, "
                            "which the generated code does not compute; declare the loop "
                            f"counter in the loop ('for (int {node.name} = ...') or use "
                            "another variable after the SCoP",
                            Location.from_coord(node.coord, source))

    visitor = Visitor()
    visitor.visit(region.function_ast.body)
    if state["again"]:  # R runs again: the code before it follows it too
        state["after"] = False
        visitor.visit(region.function_ast.body)


# The model has one array per name: a name declared inside R must mean one variable.
# A reference to x resolves to the innermost enclosing declaration inside R, else to
# the variable outside R; x is ambiguous if both kinds of reference occur, or if R
# declares x twice with different types.
def _check_scopes(region: _Region, source: str) -> None:
    """Reject a SCoP in which one name stands for two variables."""
    declared: dict[str, c_ast.Decl] = {}
    outer: dict[str, c_ast.Node] = {}
    inner: set[str] = set()

    def visit(node: c_ast.Node, scopes: list[set[str]]) -> None:
        if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList):
            scopes = scopes + [set()]  # a counter's type is its loop's (not an array)
            for decl in node.init.decls:
                if decl.init is not None:
                    visit(decl.init, scopes)
                scopes[-1].add(decl.name)
            for part in (node.cond, node.next, node.stmt):
                if part is not None:
                    visit(part, scopes)
            return
        if isinstance(node, (c_ast.Compound, c_ast.For)):
            scopes = scopes + [set()]
        if isinstance(node, c_ast.Decl) and node.name is not None:
            if node.init is not None:
                visit(node.init, scopes)
            first = declared.setdefault(node.name, node)
            if c_text(first.type) != c_text(node.type):
                raise error(f"'{node.name}' is declared twice in the SCoP with different types; "
                            "rename one", Location.from_coord(node.coord, source))
            scopes[-1].add(node.name)
            return
        if isinstance(node, c_ast.ID):
            if any(node.name in scope for scope in scopes):
                inner.add(node.name)
            else:
                outer.setdefault(node.name, node)
        if isinstance(node, c_ast.FuncCall):
            if node.args is not None:
                visit(node.args, scopes)
            return
        for _, child in node.children():
            visit(child, scopes)

    top: list[set[str]] = [set()]
    for item in region.items:
        visit(item, top)
    counters = {_loop_counter(node) for item in region.items for node in _walk(item)}
    for name in sorted((set(outer) & set(declared)) - counters):
        raise error(f"'{name}' names a variable declared outside the SCoP and one declared "
                    "inside it; rename one", Location.from_coord(outer[name].coord, source))


def _loop_counter(node: c_ast.Node) -> str | None:
    """The counter a ``for`` initialises (loop counters are not arrays of the model)."""
    if not isinstance(node, c_ast.For):
        return None
    init = node.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None


def _walk(node: c_ast.Node) -> Iterable[c_ast.Node]:
    yield node
    for _, child in node.children():
        yield from _walk(child)


# X is dead after the region R of function F iff X is declared exactly once in F's
# body (automatic storage, a plain scalar: not a parameter, global, pointer or array),
# &X never occurs in F, and no reference to X can execute after R: none follows R in
# F's text, and none lies outside R at all when R may run again (R inside a loop, or
# F containing a goto).
def _dead_after(region: _Region, symbols: dict[str, Symbol], global_names: set[str]
                ) -> frozenset[str]:
    """Scalars of the function whose value no code can read once the region has run."""
    if region.function_ast is None:
        return frozenset()
    inside = {id(item) for item in region.items}
    declared: dict[str, int] = {}
    excluded: set[str] = set(global_names)
    params = region.function_ast.decl.type.args
    for param in (params.params if params is not None else []):
        excluded.add(getattr(param, "name", None) or "")
    outside_before: set[str] = set()
    outside_after: set[str] = set()
    state = {"after": False, "loop": False, "goto": False}

    class Visitor(c_ast.NodeVisitor):
        def __init__(self) -> None:
            self.loops = 0
            self.in_region = False

        def visit(self, node: c_ast.Node) -> None:
            if id(node) in inside:
                state["loop"] = state["loop"] or self.loops > 0
                self.in_region = True
                super().visit(node)
                self.in_region = False
                state["after"] = True
                return
            loop = isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
            self.loops += loop
            super().visit(node)
            self.loops -= loop

        def visit_Decl(self, node: c_ast.Decl) -> None:
            if node.name is not None:
                declared[node.name] = declared.get(node.name, 0) + 1
                if set(node.storage) & {"static", "extern"} or "volatile" in node.quals:
                    excluded.add(node.name)
            self.generic_visit(node)

        def visit_Goto(self, node: c_ast.Goto) -> None:
            state["goto"] = True

        def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
            if node.op == "&" and isinstance(node.expr, c_ast.ID):
                excluded.add(node.expr.name)
            self.generic_visit(node)

        def visit_ID(self, node: c_ast.ID) -> None:
            if not self.in_region:
                (outside_after if state["after"] else outside_before).add(node.name)

    Visitor().visit(region.function_ast.body)
    referenced = outside_after | (outside_before if state["loop"] or state["goto"] else set())
    return frozenset(name for name, count in declared.items()
                     if count == 1 and name not in excluded and name not in referenced
                     and name in symbols and not symbols[name].extents
                     and not symbols[name].pointer)


def extract_scops(ast: c_ast.FileAST, source: str, *, auto: bool | None = None,
                  context: str | None = None, text: str | None = None) -> list[Scop]:
    """All SCoPs of a translation unit.

    ``auto`` None: pragma regions if the file has any ``#pragma scop``, else maximal
    static control parts found automatically; True: always automatic; False: pragmas
    only.  ``context`` is extra isl constraints on the parameters (``--ctx``), e.g.
    ``"[n] -> { : n >= 16 }"``.  ``text`` is the original source (read from ``source``
    when not given); it locates the end of automatically found regions.
    """
    typedefs: dict[str, str] = {}
    globals_ = _SymbolCollector(typedefs, source)
    functions: list[tuple[c_ast.FuncDef, dict[str, Symbol]]] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            local = _SymbolCollector(typedefs, source)
            local.symbols = dict(globals_.symbols)
            local.visit(ext)
            functions.append((ext, local.symbols))
        else:
            globals_.visit(ext)
    lines = text.splitlines() if text is not None else _read_lines(source)
    declared = prototypes(ast, typedefs)
    pragma_regions = [r for f, _ in functions for r in _pragma_regions(f, source)]
    use_auto = auto if auto is not None else not pragma_regions
    scops: list[Scop] = []
    for func, symbols in functions:
        name = func.decl.name
        regions = (_auto_regions(func, symbols, source, lines, typedefs, declared) if use_auto
                   else [r for r in pragma_regions if r.function == name])
        for region in regions:
            _check_scopes(region, source)
            _iterators_read_after(region, source)
            dead = _dead_after(region, symbols, set(globals_.symbols))
            scops.append(_build_scop(region, symbols, source, len(scops), context, dead,
                                     typedefs, declared))
    return scops


def _pragma_regions(func: c_ast.FuncDef, source: str) -> list[_Region]:
    """Block items between ``#pragma scop`` and ``#pragma endscop`` in one compound."""
    regions: list[_Region] = []

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Compound):
            start: c_ast.Pragma | None = None
            items: list[c_ast.Node] = []
            for item in node.block_items or []:
                word = item.string.strip() if isinstance(item, c_ast.Pragma) else None
                if word == "scop":
                    if start is not None:
                        raise error("nested '#pragma scop'", Location.from_coord(item.coord, source))
                    start, items = item, []
                elif word == "endscop":
                    if start is None:
                        raise error("'#pragma endscop' without '#pragma scop'",
                                    Location.from_coord(item.coord, source))
                    regions.append(_Region(func.decl.name, tuple(items),
                                           (start.coord.line, item.coord.line),
                                           Location.from_coord(start.coord, source),
                                           func))
                    start = None
                elif start is not None:
                    items.append(item)
                else:
                    visit(item)
            if start is not None:
                raise error("'#pragma scop' without '#pragma endscop'",
                            Location.from_coord(start.coord, source))
            return
        for _, child in node.children():
            visit(child)

    visit(func.body)
    return regions


def _auto_regions(func: c_ast.FuncDef, symbols: dict[str, Symbol], source: str,
                  text: list[str], typedefs: dict[str, str],
                  functions: dict[str, Prototype]) -> list[_Region]:
    """Maximal runs of consecutive block items that form a SCoP and contain a loop."""
    regions: list[_Region] = []

    def builds(items: list[c_ast.Node]) -> bool:
        try:
            builder = _Builder(symbols, _written_names(items), source, "S", typedefs, functions)
            return builder.items(items, (), _universe()) is not None
        except _Unsupported:
            return False

    def flush(run: list[c_ast.Node]) -> None:
        if any(isinstance(n, c_ast.For) for n in run):
            first, last = run[0].coord.line, _end_line(text, run[-1])
            regions.append(_Region(func.decl.name, tuple(run), (first, last),
                                   Location.from_coord(run[0].coord, source), func))

    def visit(node: c_ast.Node) -> None:
        if not isinstance(node, c_ast.Compound):
            for _, child in node.children():
                visit(child)
            return
        run: list[c_ast.Node] = []
        for item in node.block_items or []:
            if isinstance(item, c_ast.Pragma):
                continue
            if not isinstance(item, c_ast.Decl) and _in_file(item, source) \
                    and builds(run + [item]):
                run.append(item)
                continue
            flush(run)
            run = []
            if not isinstance(item, c_ast.Decl) and _in_file(item, source) and builds([item]):
                run = [item]
            else:
                visit(item)
        flush(run)

    visit(func.body)
    return regions


def _in_file(node: c_ast.Node, source: str) -> bool:
    """Automatic SCoPs are only taken from the main file, never from headers."""
    return node.coord is not None and node.coord.file == source


def _universe() -> isl.Set:
    return isl.Set.universe(isl.Space.create_from_names(CTX, set=[]))


def _read_lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return []


_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[(){};]|\belse\b|\n',
                    re.S)


def _end_line(lines: list[str], node: c_ast.Node) -> int:
    """Last source line of a statement: scan from its start for the ``;`` or ``}`` that
    ends it at nesting depth zero, continuing through an ``else``."""
    if not lines or node.coord is None:
        return getattr(node.coord, "line", 0)
    start_line, start_col = node.coord.line, max(node.coord.column, 1)
    body = "\n".join([lines[start_line - 1][start_col - 1:]] + lines[start_line:])
    line, depth, ended_at = start_line, 0, None
    for match in _TOKEN.finditer(body):
        tok = match.group(0)
        line_here = line
        line += tok.count("\n")
        if tok.startswith(("//", "/*", '"', "'")) or tok == "\n":
            continue
        if ended_at is not None:
            if tok == "else":
                ended_at = None
                continue
            return ended_at
        if tok in "({":
            depth += 1
        elif tok in ")}":
            depth -= 1
            if tok == "}" and depth == 0:
                ended_at = line_here
        elif tok == ";" and depth == 0:
            ended_at = line_here
    return ended_at if ended_at is not None else len(lines)


def _build_scop(region: _Region, symbols: dict[str, Symbol], source: str, index: int,
                context: str | None, dead_after: frozenset[str] = frozenset(),
                typedefs: dict[str, str] | None = None,
                functions: dict[str, Prototype] | None = None) -> Scop:
    builder = _Builder(symbols, _written_names(region.items), source, "S", typedefs or {},
                       functions or {})
    try:
        schedule = builder.items(list(region.items), (), _universe())
    except _Unsupported as exc:
        raise error(exc.message, exc.location or region.location) from None
    if schedule is None:
        raise error("the SCoP contains no statement", region.location)
    described = [_array(builder, name, loc, dead_after) for name, loc in builder.accessed.items()]
    arrays = tuple(a for a, _ in described)
    params = tuple(builder.params)
    param_space = isl.Space.create_from_names(CTX, set=[], params=list(params))
    types = tuple(builder.type_of(p) for p in params)
    ctx = _context(params, [v for _, v in described] + _type_ranges(params, types)
                   + builder.assumptions, context, region.location).align_params(param_space)
    # Within the context, the pieces that conversions and wrap-arounds add for
    # impossible parameter values (an unsigned extent below 0) drop out.
    known = ctx
    for name, ctype in zip(params, types):
        known = known.intersect(isl.Set(range_constraint(name, ctype)))
    statements = tuple(_align_statement(_simplified(s, known), param_space)
                       for s in builder.statements)
    schedule = schedule.gist_domain_params(known.align_params(
        schedule.get_domain().get_space()))
    used = _used_names(region.items)
    declared_inside = _declared_names(region.items)
    declarations = tuple((name, symbols[name].declaration) for name in sorted(used)
                         if name in symbols and name not in declared_inside
                         and symbols[name].declaration)
    # _generate_stmt terminates expression statements and declarations with ';'.
    code = "".join(_generator._generate_stmt(item) for item in region.items)
    return Scop(name=f"{region.function}_scop{index}", function=region.function, source=source,
                region=region.lines, parameters=params, context=ctx, arrays=arrays,
                statements=statements, schedule=schedule, location=region.location,
                original_code=code, declarations=declarations,
                parameter_types=tuple(t.name for t in types))


def _type_ranges(params: tuple[str, ...], types: tuple[Arith, ...]) -> list[isl.Set]:
    """``min_T <= p <= max_T`` for every parameter whose type is not ``int`` (an ``int``
    parameter keeps the context free of +-2^31, as before types were modelled)."""
    return [isl.Set(range_constraint(name, ctype)) for name, ctype in zip(params, types)
            if ctype != INT and (ctype.minimum > -LLONG_MAX - 1 or ctype.maximum != LLONG_MAX)]


def _used_names(items: Iterable[c_ast.Node]) -> set[str]:
    names: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            names.add(node.name)

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if node.args is not None:
                self.visit(node.args)

    for item in items:
        Visitor().visit(item)
    return names


def _declared_names(items: Iterable[c_ast.Node]) -> set[str]:
    names: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_Decl(self, node: c_ast.Decl) -> None:
            names.add(node.name)
            self.generic_visit(node)

    for item in items:
        Visitor().visit(item)
    return names


def _simplified(stmt: Statement, known: isl.Set) -> Statement:
    """The statement with its domain simplified by what is known of the parameters
    (the context and their types' ranges), when that makes it simpler."""
    within = stmt.domain.gist_params(known).coalesce()
    if within.n_basic_set() < stmt.domain.n_basic_set() or \
            within.n_basic_set() == stmt.domain.n_basic_set() and \
            len(str(within)) < len(str(stmt.domain)):
        return replace(stmt, domain=within)
    return stmt


def _align_statement(stmt: Statement, space: isl.Space) -> Statement:
    accesses = tuple(replace(a, relation=a.relation.align_params(space))
                     for a in stmt.accesses)
    return replace(stmt, domain=stmt.domain.align_params(space), accesses=accesses)


def _array(builder: _Builder, name: str, loc: Location,
           dead_after: frozenset[str] = frozenset()) -> tuple[Array, isl.Set]:
    """The Array of a referenced name, and the parameter constraint that its extents
    are non-negative (a C99 VLA dimension never has a negative size); a local of the
    SCoP is dead after it, like the function's scalars named in ``dead_after``."""
    local = name in builder.locals
    sym = builder.locals.get(name) or builder.symbols[name]
    extents = tuple(None if e is None else c_text(e) for e in sym.extents)
    extent_set: isl.Set | None = None
    dims = tuple(f"i{k}" for k in range(len(sym.extents)))
    env = AffineEnv(dims, builder.is_param, builder.type_of, builder.typedefs)
    valid = isl.Set("{ : }")
    if all(e is not None for e in sym.extents):
        try:
            extent_set = env.universe()
            for k, node in enumerate(sym.extents):
                size = to_pwaff(node, env)
                if size.is_cst() and size.lt_set(env.constant(0)).is_equal(env.universe()):
                    raise error(f"array '{name}' has a negative size '{c_text(node)}' in "
                                f"dimension {k + 1}", sym.location or loc)
                var = env.variable(dims[k])
                extent_set = extent_set.intersect(var.ge_set(env.constant(0))).intersect(
                    var.lt_set(size))
                valid = valid.intersect(size.ge_set(env.constant(0)).params())
            extent_set = extent_set.set_tuple_name(name)
        except NotAffine:
            extent_set = None
    dead = local or (name in dead_after and not extents)
    return Array(name, sym.element_type, extents, extent_set, sym.location or loc, local,
                 dead), valid


def _context(params: tuple[str, ...], valid: list[isl.Set], user: str | None,
             location: Location) -> isl.Set:
    """Parameter values the SCoP assumes: the ranges of the parameters' types,
    non-negative array extents, conversions to signed types in range, and the user's
    ``--ctx`` constraints."""
    ctx = isl.Set(f"[{', '.join(params)}] -> {{ : }}")
    for constraint in valid:
        ctx = ctx.intersect(constraint)
    if user:
        try:
            extra = isl.Set(user)
        except isl.Error:
            raise error(f"--ctx '{user}' is not an isl parameter set", location) from None
        ctx = ctx.intersect(extra.params())
    if ctx.is_empty():
        raise error("no parameter value satisfies the SCoP's assumptions (array extents "
                    "are non-negative" + (f", --ctx '{user}'" if user else "") + ")", location)
    return ctx.coalesce()
