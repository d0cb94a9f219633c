"""The SCoP builder: C block items to statements, iteration domains and a schedule.

In:  the block items of one region, the symbol table (``symbols.Symbol`` by name),
the typedefs and the function prototypes of the translation unit.
Out: ``Builder.items`` gives the region's isl schedule and leaves in the builder the
``Statement`` values (domain, accesses, reduction), the parameters (and their
types), the assumptions the model makes on them, the SCoP's local variables and
every name referenced; ``scop.py`` assembles them into a ``Scop``.

A loop ``for (i = l; c(i); i += s)`` (``s`` a non-zero constant) contributes the
constraints ``i >= l`` (``i <= l`` when ``s < 0``), ``c(i)`` and ``exists k: i = l + s k``
to the domains inside it, and the schedule dimension ``i`` (``-i`` when ``s < 0``);
``if (c)`` contributes ``c`` to the then-branch and its complement to the else-branch;
an ``if`` whose condition is not affine is one statement (``conditional``,
conditions.py) whose writes are may-writes, and so is a ``while`` or ``do`` loop, or
a ``for`` loop whose header is not affine (loops.py).
Consecutive block items are ordered by an isl sequence node.  A loop condition must
hold on an interval of iterations starting at ``l``; that is checked exactly, and
so is an iterator of a modular type wrapping around.  A construct outside the model
raises ``syntax.Unsupported``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location
from ..model import Statement
from .accesses import AccessCollector
from .affine import CTX, AffineEnv, NotAffine, convert, ordinary, to_set, typed
from .calls import ExpressionTypes, Prototype, make_explicit
from .conditions import body_text, check_branches, conjunction, conjuncts
from .final_values import Loop
from .loops import (affine_header, data_dependent_loop, loop_step, runs_as_loop,
                    subscripts_data)
from .members import Members, flatten_members
from .ctype import INT, LLONG_MAX, Arith, parse_type
from .reductions import reduction
from .symbols import Symbol, decode_type
from .syntax import Unsupported, c_text, written_names


@dataclass
class Builder:
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
    members: Members = field(default_factory=lambda: Members({}, {}, set()))
    loops: list[Loop] = field(default_factory=list)  # every loop, for final_values.py

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
        if name in self.members.members:                  # a field array (members.py)
            member = self.members.members[name]
            name = f"{member.variable}.{member.field}"
        variable, _, field_name = name.partition(".")     # 'V.F': field F of V
        sym = self.locals.get(variable) or self.symbols.get(variable)
        if sym is not None and field_name:
            struct = self.members.types.get(sym.element_type)
            found = struct.field(field_name) if struct is not None else None
            return parse_type(found.element_type) if found is not None else None
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
        if isinstance(node, c_ast.StructRef):
            return f"structure member '{c_text(node)}' (a field is data, never a parameter)"
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
            raise Unsupported(exc.node, f"expression '{c_text(node)}' is not affine: "
                              f"{self.explain(exc)}", self.loc(exc.node)) from None

    def condition(self, node: c_ast.Node, iterators: Sequence[str],
                  bounds: isl.Set | None = None) -> isl.Set:
        try:
            return to_set(node, self.env(iterators, bounds))
        except NotAffine as exc:
            raise Unsupported(exc.node, f"condition '{c_text(node)}' is not affine: "
                              f"{self.explain(exc)}", self.loc(exc.node)) from None

    def is_affine(self, node: c_ast.Node, iterators: Sequence[str], bounds: isl.Set) -> bool:
        """Whether isl can describe condition ``node`` (else it filters at run time)."""
        env = AffineEnv(tuple(iterators), self.is_param, self.type_of, self.typedefs, bounds,
                        [].append)  # the assumptions come with ``condition``, if affine
        try:
            to_set(node, env)
        except NotAffine:
            return False
        return True

    def affine_test(self, node: c_ast.Node, iterators: Sequence[str],
                    bounds: isl.Set) -> isl.Set | None:
        """The set where condition ``node`` holds, if isl can describe it."""
        return self.condition(node, iterators, bounds) \
            if self.is_affine(node, iterators, bounds) else None

    # -- data-dependent conditions (conditions.py) -----------------------------
    def conditional(self, node: c_ast.If, iterators: tuple[str, ...],
                    domain: isl.Set) -> isl.Schedule:
        """``if (c) T else E`` with a non-affine ``c`` as one statement; without ``else``
        the affine conjuncts of ``c`` restrict its domain instead."""
        check_branches(node, self.loc)
        if node.iffalse is None:
            kept = []
            for part in conjuncts(node.cond):
                if self.is_affine(part, iterators, domain):
                    domain = domain.intersect(self.condition(part, iterators, domain))
                else:
                    kept.append(part)
            node = c_ast.If(conjunction(kept), node.iftrue, None, coord=node.coord)
        return self.statement(node, node, iterators, domain)

    # -- block items -> schedule -------------------------------------------
    def items(self, items: Sequence[c_ast.Node], iterators: tuple[str, ...],
              domain: isl.Set) -> isl.Schedule | None:
        return sequence(self.item(item, iterators, domain) for item in items)

    def item(self, node: c_ast.Node, iterators: tuple[str, ...],
             domain: isl.Set) -> isl.Schedule | None:
        if isinstance(node, (c_ast.While, c_ast.DoWhile)) or isinstance(node, c_ast.For) \
                and not affine_header(self, node, iterators, domain):
            return data_dependent_loop(self, node, iterators, domain)     # loops.py
        if isinstance(node, c_ast.For):
            return self.loop(node, iterators, domain)
        if isinstance(node, c_ast.If):
            if not self.is_affine(node.cond, iterators, domain):
                if runs_as_loop(self, node, iterators, domain):
                    return data_dependent_loop(self, node, iterators, domain)
                return self.conditional(node, iterators, domain)
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
            if subscripts_data(self, node, iterators, domain):
                return data_dependent_loop(self, node, iterators, domain)     # loops.py
            return self.statement(node, node, iterators, domain)
        if isinstance(node, c_ast.Decl):
            return self.declaration(node, iterators, domain)
        if isinstance(node, c_ast.DeclList):
            return sequence(self.declaration(d, iterators, domain) for d in node.decls)
        if isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return None
        if isinstance(node, c_ast.FuncCall):
            name = c_text(node.name)
            raise Unsupported(node, f"call to '{name}' in a SCoP may have side effects "
                              "and is not supported", self.loc(node))
        what = {c_ast.Goto: "'goto'", c_ast.Break: "'break'", c_ast.Continue: "'continue'",
                c_ast.Return: "'return'", c_ast.Switch: "'switch'",
                c_ast.Label: "label"}.get(type(node), type(node).__name__)
        raise Unsupported(node, f"{what} is not supported in a SCoP", self.loc(node))

    def declaration(self, node: c_ast.Decl, iterators: tuple[str, ...],
                    domain: isl.Set) -> isl.Schedule | None:
        sym = self.symbols.get(node.name)
        if sym is not None and sym.pointer:
            raise Unsupported(node, f"pointer '{node.name}' declared inside a SCoP is not read "
                              "as its array (its value changes after it)", self.loc(node))
        if sym is None:
            raise Unsupported(node, f"declaration of '{node.name}' inside a SCoP is not "
                              "supported", self.loc(node))
        if self.members.is_struct(sym):
            raise Unsupported(node, f"structure '{node.name}' declared inside a SCoP is not "
                              "supported: declare it before the SCoP", self.loc(node))
        element, extents, _ = decode_type(node.type, self.typedefs)
        if (element, [c_text(e) for e in extents if e is not None]) != \
                (sym.element_type, [c_text(e) for e in sym.extents if e is not None]):
            raise Unsupported(node, f"'{node.name}' declared inside the SCoP has another type "
                              "than a variable of the same name outside it; rename one",
                              self.loc(node))
        if sym.extents and node.init is not None:
            raise Unsupported(node, f"array '{node.name}' declared with an initialiser "
                              "inside a SCoP is not supported", self.loc(node))
        self.locals[node.name] = sym
        if node.init is None:
            return None
        assign = c_ast.Assignment("=", c_ast.ID(node.name, coord=node.coord), node.init,
                                  coord=node.coord)
        if subscripts_data(self, assign, iterators, domain):
            return data_dependent_loop(self, assign, iterators, domain)
        return self.statement(assign, node, iterators, domain)

    # -- loops --------------------------------------------------------------
    def loop(self, node: c_ast.For, iterators: tuple[str, ...],
             domain: isl.Set) -> isl.Schedule | None:
        name, lower_node, ctype = self.loop_init(node)
        if name in iterators:
            raise Unsupported(node, f"loop iterator '{name}' shadows an enclosing iterator",
                              self.loc(node))
        step = loop_step(node, name)
        assert step, "a non-constant step takes the data-dependent path (affine_header)"
        inner = iterators + (name,)
        if name in written_names([node.stmt]):
            raise Unsupported(node.stmt, f"loop iterator '{name}' is written in the loop body",
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
        # The initial value is a function of the enclosing iterators only: evaluated
        # over the counter's space, its conversions would split it by the counter's
        # own range (fuzz seed 3700063), and an initial value that reads the counter
        # (``k = k + 1``) would read the new iterator, not the value before the loop.
        value, value_type = self.typed(lower_node, iterators, domain)
        try:  # the initialisation converts the lower bound to the iterator's type
            lower = convert(value, value_type, ctype, self.env(iterators, domain), lower_node)
        except NotAffine as exc:
            raise Unsupported(exc.node, exc.what, self.loc(exc.node)) from None
        lower = lower.add_dims(isl.dim_type.in_, 1).set_dim_id(
            isl.dim_type.in_, len(iterators), isl.Id(name))
        if node.cond is None:
            raise Unsupported(node, "loop without a condition", self.loc(node))
        start = var.ge_set(lower) if step > 0 else var.le_set(lower)
        started = dom.intersect(start)
        cond = self.condition(node.cond, inner, started)
        self.check_interval(node, started, cond, len(iterators), step)
        dom = started.intersect(cond)
        if abs(step) > 1:
            offset = var.sub(lower).mod_val(isl.Val.int_from_si(CTX, abs(step)))
            dom = dom.intersect(offset.eq_set(env.constant(0)))
        self.check_wrap(node, dom, cond, inner, ctype, step)
        self.loops.append(Loop(node, name, domain, dom, lower, step, ctype))
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
            etype, extents, _ = decode_type(decl.type, self.typedefs)
            ctype = None if extents else parse_type(etype)
            if ctype is None or ctype.floating:
                raise Unsupported(decl, "loop iterator must be an integer", self.loc(decl))
            return decl.name, decl.init, ctype
        if isinstance(init, c_ast.Assignment) and init.op == "=" \
                and isinstance(init.lvalue, c_ast.ID):
            sym = self.symbols.get(init.lvalue.name)
            ctype = sym.ctype if sym is not None else None
            if ctype is None or ctype.floating:
                raise Unsupported(init, f"loop iterator '{init.lvalue.name}' must be an "
                                  "integer variable", self.loc(init))
            return init.lvalue.name, init.rvalue, ctype
        raise Unsupported(node, "loop initialisation must assign one integer iterator",
                          self.loc(init if init is not None else node))

    # An iterator of an unsigned or narrow type wraps around instead of overflowing:
    # i + s leaves [min, max] at the points W of the domain where it does; the loop
    # still ends there iff the condition fails at the wrapped value i + s -+ 2^w.
    # Parameter values for which it goes on are excluded by an assumption; a loop
    # that goes on for every parameter value is rejected.  A signed iterator (int or
    # wider) overflows at W, undefined: W's sizes in [0, 2^20] are excluded (seed 5602628).
    def check_wrap(self, node: c_ast.For, dom: isl.Set, cond: isl.Set,
                   inner: tuple[str, ...], ctype: Arith, step: int) -> None:
        """Reject a loop whose iterator wraps and goes on, or overflows everywhere."""
        env = self.env(inner)
        after = env.variable(inner[-1]).add(env.constant(step))
        wraps = dom.intersect(after.lt_set(env.constant(ctype.minimum)).union(
            after.gt_set(env.constant(ctype.maximum))))
        if wraps.is_empty():
            return
        if ctype.signed and ctype.bits >= INT.bits:
            bad = ordinary(env.within_types(wraps).params())
            if not bad.is_empty():
                self.exclude(node, bad, f"loop iterator '{inner[-1]}' of type "
                             f"'{ctype.name}' overflows for every parameter value")
            return
        delta = step - (1 << ctype.bits) if step > 0 else step + (1 << ctype.bits)
        names = ", ".join(inner)
        moved = ", ".join(list(inner[:-1]) + [f"{inner[-1]} + ({delta})"])
        wrapped = wraps.apply(isl.Map(f"{{ [{names}] -> [{moved}] }}"))
        going_on = env.within_types(wrapped.intersect(cond)).params()
        if not going_on.is_empty():
            self.exclude(node, going_on, f"loop iterator '{inner[-1]}' of type "
                         f"'{ctype.name}' wraps around and the loop condition still "
                         "holds (the loop does not end where it seems to)")

    def exclude(self, node: c_ast.For, bad: isl.Set, why: str) -> None:
        """Assume the parameters outside ``bad``; reject the loop (``why``) if none is left."""
        env = self.env(())
        params = [bad.get_dim_name(isl.dim_type.param, k) for k in range(bad.n_param())]
        fine = env.within_types(env.universe(), params).params().subtract(bad)
        if fine.is_empty():
            raise Unsupported(node, why, self.loc(node))
        self.assumptions.append(fine)

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
            raise Unsupported(node.cond, f"loop condition '{c_text(node.cond)}' is not a bound "
                              "on the iterator (it may stop and hold again)",
                              self.loc(node.cond))

    # -- statements and accesses ---------------------------------------------
    def statement(self, expr: c_ast.Node, origin: c_ast.Node, iterators: tuple[str, ...],
                  domain: isl.Set, collector: Callable[..., AccessCollector] = AccessCollector
                  ) -> isl.Schedule:
        """One statement of the model on ``domain``; ``collector`` records its accesses
        (a data-dependent loop's own: loops.py)."""
        name = f"{self.prefix}{len(self.statements)}"
        body = copy.deepcopy(expr)
        dom = domain.set_tuple_name(name).coalesce()
        references = collector(self, name, iterators, dom)
        references.collect(body)
        body, collected = flatten_members(body, references.accesses, self.members.members)
        make_explicit(body, ExpressionTypes(self.value_type, self.typedefs, self.functions))
        op, array = reduction(body, collected)
        stmt = Statement(name=name, domain=dom, iterators=iterators, body=body,
                         accesses=tuple(collected),
                         text=body_text(body),
                         location=self.loc(origin), reduction=op, reduction_array=array,
                         iterator_types=tuple(self.type_of(i).name for i in iterators),
                         loop=references.loop)
        self.statements.append(stmt)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(dom))


def sequence(parts: Iterable[isl.Schedule | None]) -> isl.Schedule | None:
    """The schedules of consecutive block items (None: no statement) in textual order."""
    result: isl.Schedule | None = None
    for part in parts:
        if part is not None:
            result = part if result is None else result.sequence(part)
    return result


def universe() -> isl.Set:
    """The domain of a region's top-level items: no iterator yet."""
    return isl.Set.universe(isl.Space.create_from_names(CTX, set=[]))


def build(items: Sequence[c_ast.Node], symbols: dict[str, Symbol], source: str,
          typedefs: dict[str, str], functions: dict[str, Prototype],
          structs: dict[str, c_ast.Struct] | None = None
          ) -> tuple[Builder, isl.Schedule | None]:
    """The builder after building ``items`` and their schedule (None: no statement);
    raises ``Unsupported`` for a construct outside the model.  ``structs``: the
    structure definitions of the file, by spelling (for members, ``members.py``)."""
    members = Members(structs or {}, typedefs, set(symbols))
    builder = Builder(symbols, written_names(items), source, "S", typedefs, functions,
                      members=members)
    return builder, builder.items(list(items), (), universe())


def forms_scop(items: list[c_ast.Node], symbols: dict[str, Symbol], source: str,
               typedefs: dict[str, str], functions: dict[str, Prototype],
               structs: dict[str, c_ast.Struct] | None = None) -> bool:
    """Whether block items build into a SCoP with at least one statement."""
    try:
        return build(items, symbols, source, typedefs, functions, structs)[1] is not None
    except Unsupported:
        return False
