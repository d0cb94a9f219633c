"""Data-dependent loops: a loop isl cannot describe is one statement of the model.

In:  a ``while`` or ``do ... while`` loop of a SCoP, or a ``for`` loop whose header is
not affine (a bound or initial value that reads data or multiplies variables, a
step that is no constant, no initialisation), that its body leaves early
(``break``, ``continue``) or whose counter its body writes; and a statement (or an
``if`` without loops) with a subscript that is data (``subscripts_data``), or an
``if`` on data without loops that declares variables (``runs_as_loop``), which are
handled the same way.
Out: the checks and the body that make the whole loop one statement
(``Statement.loop``) for each instance of the affine loops around it, run by one
thread as C runs it; its accesses come from ``loop_accesses.LoopCollector``
(over-approximated: the writes are may-writes, each subscript over the values the
loop's variables may take).

A scalar ``x`` of the model that the loop writes is copied into a local ``x_loc``
for the loop's duration: ``{ T x_loc = x; loop with x_loc; x = x_loc; }`` (``T
x_loc;`` when every use of ``x`` follows an assignment on every path, as a ``for``
counter's do).  So the model sees one read of ``x`` at the start (if any) and one
write at the end, exactly, and the values ``x`` carries inside one instance never
appear as dependences: a counter dead after the SCoP is then private to each
thread, and the loops around run in parallel.  Variables the loop declares are
locals of each instance, outside the model.

Rejected with a located error: a loop inside the loop (one thread would run the
whole nest), ``return``, ``goto``, ``switch``, labels and pragmas inside it, calls
with side effects, declarations of arrays, pointers, structures, ``static``
variables or of an enclosing iterator's name, a write to an enclosing loop's
iterator, and a subscript over loop values into an array of unknown extent.
"""
from __future__ import annotations

import copy
from typing import Callable, Protocol

import islpy as isl
from pycparser import c_ast

from .accesses import AccessCollector
from .affine import AffineEnv, NotAffine, to_set, typed
from .ctype import Arith
from .loop_accesses import LOOPS, LoopCollector, LoopNames, leaves_early, loop_step
from .symbols import Symbol, decode_type
from .syntax import Unsupported, walk, written_names

_REJECTED = {c_ast.Goto: "'goto'", c_ast.Return: "'return'", c_ast.Switch: "'switch'",
             c_ast.Label: "label", c_ast.Pragma: "pragma"}


class Builder(LoopNames, Protocol):
    """What this module asks of the SCoP builder (``builder.Builder``)."""

    iterator_types: dict[str, Arith]

    def loop_init(self, node: c_ast.For) -> tuple[str, c_ast.Node, Arith]: ...

    def statement(self, expr: c_ast.Node, origin: c_ast.Node, iterators: tuple[str, ...],
                  domain: isl.Set, collector: Callable[..., AccessCollector] = ...
                  ) -> isl.Schedule: ...


def affine_header(b: Builder, node: c_ast.For, iterators: tuple[str, ...],
                  domain: isl.Set) -> bool:
    """Whether ``for`` takes the affine path (its own diagnostics included): a counter
    set to an affine value, an affine condition (or none: an error there), a constant
    step, a body that leaves no iteration early."""
    if node.init is None:
        return False
    name, lower, _ = b.loop_init(node)
    if not loop_step(node, name) or leaves_early(node.stmt):
        return False
    inner = iterators + (name,)
    dom = domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set,
                                                           len(iterators), name)
    env = AffineEnv(inner, b.is_param, b.type_of, b.typedefs, dom, [].append)
    try:
        typed(lower, env)
        if node.cond is not None:
            to_set(node.cond, env)
    except NotAffine:
        return False
    return True


#: What ``NotAffine`` says of a subscript whose value is data (``subscripts_data``).
DATA_SUBSCRIPT = ("array element", "non-constant", "product of two", "is not a loop "
                  "iterator or a parameter", "operator '", "conversion to",
                  "StructRef in an affine")


# A subscript is data when its value comes from what the program computes: array
# elements (x[col[k]]), scalars the SCoP writes, fields, products and quotients of
# variables, operators and conversions isl has no form for.  Its statement is then
# one like a data-dependent loop (``data_dependent_loop``: such a subscript is any
# index of its dimension, and every write a may-write).  Floating constants,
# increments, calls and assignments in a subscript stay errors.
def subscripts_data(b: Builder, node: c_ast.Node, iterators: tuple[str, ...],
                    domain: isl.Set) -> bool:
    """Whether some subscript of statement ``node`` is data (see above)."""
    env = AffineEnv(iterators, b.is_param, b.type_of, b.typedefs, domain, [].append)
    for ref in walk(node):
        if isinstance(ref, c_ast.ArrayRef):
            try:
                typed(ref.subscript, env)
            except NotAffine as exc:
                if any(reason in exc.what for reason in DATA_SUBSCRIPT):
                    return True
    return False


def runs_as_loop(b: Builder, node: c_ast.If, iterators: tuple[str, ...],
                 domain: isl.Set) -> bool:
    """Whether the ``if`` on data ``node`` is one statement like a data-dependent
    loop: it holds no loop, and a data subscript or variables of its own (which a
    data-dependent statement, ``conditions.py``, cannot model)."""
    return not any(isinstance(n, LOOPS) for n in walk(node)) and (
        any(isinstance(n, c_ast.Decl) for n in walk(node))
        or subscripts_data(b, node, iterators, domain))


def data_dependent_loop(b: Builder, node: c_ast.Node, iterators: tuple[str, ...],
                        domain: isl.Set) -> isl.Schedule:
    """The loop ``node`` as one statement on ``domain`` (module docstring)."""
    if isinstance(node, c_ast.For) and node.cond is None:
        raise Unsupported(node, "loop without a condition", b.loc(node))
    declared = _check(b, node, iterators)
    copies = {}
    taken = set(b.symbols) | set(b.locals) | set(b.functions) | set(iterators) | \
        {n.name for n in walk(node) if isinstance(n, c_ast.ID)}
    for name in sorted(written_names([node]) - declared):
        sym = b.locals.get(name) or b.symbols.get(name)
        if sym is None or sym.extents or sym.ctype is None or name in iterators:
            continue            # an array, a structure, an iterator: the collector decides
        fresh = f"{name}_loc"
        suffix = 1
        while fresh in taken:
            suffix += 1
            fresh = f"{name}_loc{suffix}"
        taken.add(fresh)
        copies[name] = (fresh, sym)
    body = _with_copies(node, copies)
    local = set(declared) | {fresh for fresh, _ in copies.values()}
    types = {name: b.symbols[name].ctype for name in declared}
    types.update({fresh: sym.ctype for fresh, sym in copies.values()})
    for name, ctype in types.items():
        assert ctype is not None
        b.iterator_types[name] = ctype      # the types of the statement's own variables
    free = tuple(sorted(n for n in local if not types[n].floating))

    def collector(builder: LoopNames, stmt: str, outer: tuple[str, ...], dom: isl.Set
                  ) -> AccessCollector:
        return LoopCollector(builder, stmt, outer, dom, frozenset(local), free,
                             {n: types[n] for n in free})

    return b.statement(body, node, iterators, domain, collector)


def _check(b: Builder, node: c_ast.Node, iterators: tuple[str, ...]) -> set[str]:
    """Reject what the statement cannot hold; the names it declares (scalars of an
    arithmetic type: liveness.check_scopes makes each name one variable)."""
    declared: set[str] = set()
    where = "a data-dependent 'if'" if isinstance(node, c_ast.If) else "a data-dependent loop"
    for inner in walk(node):
        if isinstance(inner, LOOPS) and inner is not node:
            raise Unsupported(inner, "a loop inside a data-dependent loop is not supported "
                              "(one thread would run the whole nest); make the inner "
                              "loop the data-dependent one, or put the outer loop "
                              "outside the SCoP", b.loc(inner))
        what = _REJECTED.get(type(inner))
        if what is not None:
            raise Unsupported(inner, f"{what} inside {where} is not supported", b.loc(inner))
        if isinstance(inner, c_ast.Decl):
            element, extents, _ = decode_type(inner.type, b.typedefs)
            sym = b.symbols.get(inner.name)
            if extents or sym is None or sym.ctype is None or "static" in inner.storage \
                    or sym.element_type != element:
                raise Unsupported(inner, f"declaration of '{inner.name}' inside {where} is "
                                  "not supported: only scalars of an arithmetic type, not "
                                  "static", b.loc(inner))
            if inner.name in iterators:
                raise Unsupported(inner, f"'{inner.name}' declared inside {where} shadows "
                                  "an enclosing loop iterator; rename it", b.loc(inner))
            declared.add(inner.name)
    return declared


def _with_copies(node: c_ast.Node, copies: dict[str, tuple[str, Symbol]]) -> c_ast.Node:
    """The statement's body: ``node`` itself, or with each written scalar ``x`` of
    ``copies`` replaced by its local copy, read first where ``x``'s value from before
    may be used (``_exposed``), written back last."""
    if not copies:
        return node
    exposed = _exposed(node, set(copies))
    node = copy.deepcopy(node)
    names = {id(n.field) for n in walk(node) if isinstance(n, c_ast.StructRef)} | \
        {id(n.name) for n in walk(node) if isinstance(n, c_ast.FuncCall)}
    for inner in walk(node):
        if isinstance(inner, c_ast.ID) and inner.name in copies and id(inner) not in names:
            inner.name = copies[inner.name][0]
    first: list[c_ast.Node] = []
    last: list[c_ast.Node] = []
    for name, (fresh, sym) in copies.items():
        assert sym.ctype is not None
        names_ = c_ast.IdentifierType(sym.ctype.name.split())
        kind = c_ast.TypeDecl(fresh, [], None, names_)
        init = c_ast.ID(name, coord=node.coord) if name in exposed else None
        first.append(c_ast.Decl(fresh, [], [], [], [], kind, init, None, coord=node.coord))
        last.append(c_ast.Assignment("=", c_ast.ID(name, coord=node.coord),
                                     c_ast.ID(fresh), coord=node.coord))
    return c_ast.Compound(first + [node] + last, coord=node.coord)


# Definite assignment (as C compilers check it): D, the names assigned on every path
# so far; a use of x outside D may see x's value from before the loop (so may the
# final write-back).  A loop's body may run zero times: after it only D holds (for a
# do loop, its body's D unless the body leaves early).
def _exposed(node: c_ast.Node, names: set[str]) -> set[str]:
    """The names of ``names`` whose value from before ``node`` it may use."""
    exposed: set[str] = set()

    def uses(expr: c_ast.Node | None, done: frozenset[str]) -> None:
        for inner in walk(expr) if expr is not None else ():
            if isinstance(inner, c_ast.ID) and inner.name in names and inner.name not in done:
                exposed.add(inner.name)

    def run(n: c_ast.Node | None, done: frozenset[str]) -> frozenset[str]:
        if n is None:
            return done
        if isinstance(n, (c_ast.Compound, c_ast.DeclList, c_ast.ExprList)):
            items = (n.block_items or []) if isinstance(n, c_ast.Compound) else \
                (n.decls if isinstance(n, c_ast.DeclList) else n.exprs)
            for item in items:
                done = run(item, done)
            return done
        if isinstance(n, c_ast.Assignment):
            if isinstance(n.rvalue, c_ast.Assignment):
                done = run(n.rvalue, done)
            else:
                uses(n.rvalue, done)
            if isinstance(n.lvalue, c_ast.ID) and n.op == "=":
                return done | {n.lvalue.name}
            uses(n.lvalue, done)
            return done
        if isinstance(n, c_ast.If):
            uses(n.cond, done)
            return run(n.iftrue, done) & run(n.iffalse, done)
        if isinstance(n, c_ast.While):
            uses(n.cond, done)
            run(n.stmt, done)
            return done
        if isinstance(n, c_ast.DoWhile):
            after = run(n.stmt, done)
            after = done if leaves_early(n.stmt) else after
            uses(n.cond, after)
            return after
        if isinstance(n, c_ast.For):
            done = run(n.init, done)
            uses(n.cond, done)
            run(n.stmt, done)
            run(n.next, done)
            return done
        uses(n.init if isinstance(n, c_ast.Decl) else n, done)
        return done

    final = run(node, frozenset())
    return exposed | (names - final)
