"""The values C leaves in loop counters declared outside a SCoP and read after it.

In:  every ``for`` statement the builder met (``Loop``: where it is reached, the
values its counter takes there, its initial value, step and type), the region's
items, and the counters the code after the SCoP reads (``liveness.py``).
Out: per such counter, its final value as a piecewise quasi-affine function of
the parameters (``final_value``) and a statement after the SCoP that assigns it
(``add_final_values``), or a located error where it cannot be computed.

Mathematics.  ``for (i = l; c; i += s)`` reached at the enclosing iterators ``o``
assigns ``i = l(o)``, then steps while ``c`` holds, so it leaves ``i`` at
``e(o) = max D(o) + s`` (``min`` when ``s < 0``) when its iterations
``D(o) = { i : (o, i) in D }`` are not empty, else at ``l(o)``; a modular counter
type reduces ``e`` modulo ``2^w`` (``for (unsigned i = n - 1; i < n; i--)`` ends at
``UINT_MAX``).  The execution at ``o`` happens at the time
``t(o) = (p_0, s_0 o_0, ..., s_{d-1} o_{d-1}, p_d)`` (``p_k``: the text position of
the ``k``-th enclosing loop, the loop itself last; ``s_k`` the sign of its step),
so over every loop ``L`` of the counter, reached where ``R_L`` holds (``C_L``: less
where a signed counter overflows, which is undefined), the last execution is at
``T(p) = lexmax U_L t_L(C_L)`` and ``final(p) = e_L(t_L^-1(T(p)))`` for the loop
whose times hold ``T(p)`` (each ``t_L`` is injective, the loops' times disjoint):
the last coordinate of ``lexmax U_L { (t_L(o), e_L(o)) : o in C_L }``, defined where
some loop is reached; elsewhere the counter keeps its value from before.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_parser

from ..diagnostics import Location, error
from ..model import WRITE, Access, Statement
from .ctype import INT, LLONG_MAX, Arith
from .syntax import c_text, walk

_OP = isl.ast_expr_op_type


@dataclass(frozen=True, eq=False)
class Loop:
    """One ``for`` statement as the builder modelled it: ``reach`` is the set of the
    enclosing iterators where it is reached, ``iterations`` the pairs (enclosing
    iterators, counter value) of its iterations, ``lower`` the counter's initial value
    (already of the counter's type ``ctype``) over the same space."""

    node: c_ast.For
    counter: str
    reach: isl.Set
    iterations: isl.Set
    lower: isl.PwAff
    step: int
    ctype: Arith

    @property
    def assigns_outside(self) -> bool:
        """Whether the counter is a variable of the code around the loop (``i = l``),
        not one the loop declares (``int i = l``)."""
        return isinstance(self.node.init, c_ast.Assignment)


# The generated code computes a final value in long long and assigns it: C's
# conversion to the counter's type reduces it modulo 2^w, so any representative
# within long long will do; the type's own range where it fits.
def _representatives(ctype: Arith) -> tuple[int, int] | None:
    """The interval of representatives of the counter's values modulo ``2^w`` (None: a
    signed int or wider, whose overflow is undefined and thus never happens)."""
    if ctype.signed and ctype.bits >= INT.bits:
        return None
    if ctype.maximum <= LLONG_MAX:
        return ctype.minimum, ctype.maximum
    return -LLONG_MAX - 1, LLONG_MAX


# e(o) = max D(o) + s on dom D (min for s < 0), l(o) on R \ dom D, reduced into the
# representatives [lo, hi] modulo 2^w as lo + (e(o) - lo) mod 2^w when it can leave
# them; a signed counter: undefined where it leaves its type (only an overflow takes
# it there), and such o are no completed execution (C_L).
def exit_values(loop: Loop) -> tuple[isl.PwAff, isl.Set]:
    """The value the loop leaves in its counter as a function of the enclosing
    iterators (a function, not a relation: the final value pulls it back), and where
    the loop is reached and completes."""
    depth = loop.reach.dim(isl.dim_type.set)
    steps = isl.Map.from_domain(loop.iterations).move_dims(
        isl.dim_type.out, 0, isl.dim_type.in_, depth, 1)
    try:
        last = steps.lexmax_pw_multi_aff() if loop.step > 0 else steps.lexmin_pw_multi_aff()
    except isl.Error:   # unbounded: a loop that ends only by overflow (undefined)
        raise ValueError("a loop without a last iteration") from None
    leaving = last.get_at(0).add_constant_val(isl.Val(str(loop.step)))
    initial = loop.lower.drop_dims(isl.dim_type.in_, depth, 1)
    initial = initial.align_params(leaving.get_space()).subtract_domain(
        leaving.domain().align_params(initial.get_space()))
    values = leaving.align_params(initial.get_space()).union_add(
        initial.align_params(leaving.get_space()))
    values = values.intersect_domain(loop.reach.align_params(values.get_space()))
    bounds = _representatives(loop.ctype)
    # a signed counter leaves its type's range only by an (undefined) overflow; its
    # own bounds, not long long's, keep the printed conditions from overflowing
    # (fuzz seed 3200073: n + 9223372036854775806 >= m for an int counter)
    lo, hi = bounds if bounds is not None else (loop.ctype.minimum, loop.ctype.maximum)
    graph = isl.Map.from_pw_aff(values)
    inside = isl.Set(f"{{ [v] : {lo} <= v <= {hi} }}").align_params(graph.get_space())
    if graph.range().is_subset(inside):
        return values.coalesce(), loop.reach
    if bounds is None:   # a signed counter beyond its type: only by overflow (undefined)
        completed = graph.intersect_range(inside).domain()
        return values.intersect_domain(completed).coalesce(), completed
    modulus = isl.Val(str(1 << loop.ctype.bits))
    return values.add_constant_val(isl.Val(str(-lo))).mod_val(modulus).add_constant_val(
        isl.Val(str(lo))).coalesce(), loop.reach


def positions(items: list[c_ast.Node]) -> dict[int, tuple[int, ...]]:
    """For each ``for`` node (by ``id``), the text positions of the loops around it
    and of itself, outermost first (the ``p_k`` of the module docstring)."""
    found: dict[int, tuple[int, ...]] = {}
    counter = [0]

    def visit(node: c_ast.Node, chain: tuple[int, ...]) -> None:
        counter[0] += 1
        if isinstance(node, c_ast.For):
            chain = chain + (counter[0],)
            found[id(node)] = chain
        for _, child in node.children():
            visit(child, chain)

    for item in items:
        visit(item, ())
    return found


# t_L(o) = (p_0, s_0 o_0, ..., p_d), padded with zeros to the deepest loop's length;
# T(p) = lexmax U_L t_L(C_L), final(p) = e_L(t_L^-1(T(p))) on { p : T(p) in t_L(C_L) }.
def final_value(loops: list[Loop], counter: str, items: list[c_ast.Node]) -> isl.PwAff:
    """The value the loops of ``counter`` leave in it after the SCoP, over the
    parameters where some loop is reached (raises ValueError where a loop of it has
    no last iteration).  The lexmax is over the times alone, the exit values pulled
    back to its result: one over the pairs (time, exit value) also splits the exit
    values' pieces, whose domains a modular conversion makes intricate, and took 88 s
    for one counter of fuzz seed 3400180."""
    chains = positions(items)
    signs = {id(loop.node): 1 if loop.step > 0 else -1 for loop in loops}
    nodes = {chain[-1]: signs[key] for key, chain in chains.items() if key in signs}
    own = [loop for loop in loops if loop.counter == counter and loop.assigns_outside]
    width = 2 * max(len(chains[id(loop.node)]) for loop in own) - 1
    exits: list[tuple[isl.PwAff, isl.Map]] = []
    times: isl.Set | None = None
    for loop in own:
        chain = chains[id(loop.node)]
        depth = len(chain) - 1
        if depth != loop.reach.dim(isl.dim_type.set) or any(p not in nodes for p in chain):
            raise ValueError("a loop inside one the model does not describe")
        names = [f"o{k}" for k in range(depth)]
        time = []
        for k, position in enumerate(chain[:-1]):
            time += [str(position), f"{nodes[position]} * o{k}"]
        time += [str(chain[-1])] + ["0"] * (width - 1 - len(time))
        to_time = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(time)}] }}")
        values, completed = exit_values(loop)
        reached = completed.apply(to_time.align_params(completed.get_space()))
        times = reached if times is None else times.align_params(reached.get_space()).union(
            reached.align_params(times.get_space()))
        exits.append((values, to_time))
    assert times is not None
    last = isl.Set.from_pw_multi_aff(times.lexmax_pw_multi_aff())
    result: isl.PwAff | None = None
    for values, to_time in exits:
        at = isl.PwMultiAff.from_set(last.apply(to_time.reverse().align_params(last.get_space())))
        value = values.align_params(at.get_space()).pullback_pw_multi_aff(
            at.align_params(values.get_space()))
        result = value if result is None else result.align_params(value.get_space()).union_add(
            value.align_params(result.get_space()))
    assert result is not None
    return result


# F_i[] : i = final_i(p) on dom final_i, one per counter i, after the whole SCoP.
def add_final_values(loops: list[Loop], items: list[c_ast.Node], schedule: isl.Schedule | None,
                     statements: list[Statement], accessed: dict[str, Location],
                     read_after: dict[str, Location], assumed: isl.Set, source: str
                     ) -> isl.Schedule | None:
    """``schedule`` followed by a statement per counter read after the SCoP that
    assigns it its final value (appended to ``statements``, its scalar to
    ``accessed``), for the parameter values ``assumed``; a located error for a
    counter whose value cannot be computed."""
    recorded = {id(loop.node) for loop in loops}
    read = {access.array for statement in statements for access in statement.reads}
    for loop in loops:
        if loop.assigns_outside and loop.counter in accessed \
                and (loop.counter in read or loop.counter in read_after):
            raise error(f"loop counter '{loop.counter}' is also used in the SCoP outside "
                        "the affine loops that count with it, where its value after such "
                        "a loop is not modelled; use another variable there",
                        accessed[loop.counter])
    for counter, location in read_after.items():
        own = [node for item in items for node in walk(item) if isinstance(node, c_ast.For)
               and isinstance(node.init, c_ast.Assignment)
               and getattr(node.init.lvalue, "name", None) == counter]
        if counter in accessed and not any(id(node) in recorded for node in own):
            continue   # only data-dependent loops assign it: their statements write it
        try:
            if not own or any(id(node) not in recorded for node in own):
                raise ValueError("a loop the model does not describe")
            value = final_value(loops, counter, items)
            assumed = assumed.align_params(value.get_space())
            value = value.intersect_params(assumed).gist_params(assumed)
        except ValueError as exc:
            raise error(f"'{counter}' is read after the SCoP, whose loops leave it at a "
                        f"final value that polycu cannot compute ({exc}); declare the "
                        f"loop counter in the loop ('for (int {counter} = ...') or use "
                        "another variable after the SCoP", location) from None
        if value.domain().is_empty():
            continue   # none of its loops is ever reached: it keeps its value
        statement = _assignment(counter, value, assumed, f"S{len(statements)}",
                                Location.from_coord(own[-1].coord, source))
        statements.append(statement)
        accessed.setdefault(counter, statement.location)
        part = isl.Schedule.from_domain(isl.UnionSet.from_set(statement.domain))
        schedule = part if schedule is None else schedule.sequence(part)
    return schedule


def _assignment(counter: str, value: isl.PwAff, assumed: isl.Set, name: str,
                location: Location) -> Statement:
    """The statement ``counter = e`` on ``{ name[] : e defined }``, ``e`` the C text of
    ``value`` in ``long long`` (the assignment converts it to the counter's type)
    where the parameters take values ``assumed``."""
    domain = value.domain().set_tuple_name(name)
    build = isl.AstBuild.from_context(value.domain().params().intersect(assumed))
    text = _c_text(build.expr_from_pw_aff(value))
    tree = c_parser.CParser().parse(f"long long polycu_x = {text};")
    target = c_ast.ID(counter)
    body = c_ast.Assignment("=", target, tree.ext[0].init)
    relation = isl.Map.from_domain_and_range(isl.Set.universe(domain.get_space()),
                                             isl.Set(f"{{ {counter}[] }}"))
    access = Access(counter, WRITE, relation.align_params(domain.get_space()), f"{name}.0",
                    location, target)
    return Statement(name, domain, (), body, (access,), c_text(body), location)


_BINARY = {_OP.add: "+", _OP.sub: "-", _OP.mul: "*", _OP.div: "/", _OP.pdiv_q: "/",
           _OP.pdiv_r: "%", _OP.zdiv_r: "%", _OP.eq: "==", _OP.le: "<=", _OP.lt: "<",
           _OP.ge: ">=", _OP.gt: ">", _OP.and_: "&&", _OP.and_then: "&&", _OP.or_: "||",
           _OP.or_else: "||"}


def _c_text(expr: isl.AstExpr) -> str:
    """C text of an isl AST expression, every value in ``long long`` (isl's division
    operators: ``/`` and ``%`` on non-negative operands, floor through
    ``polycu_floord``)."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        value = expr.get_val().to_python()
        if not -(1 << 63) <= value < 1 << 63:     # no signed type in C (codegen.literals.literal)
            raise OverflowError(f"internal error: the literal {value} is beyond long long")
        return f"({value + 1}LL - 1)" if value == -(1 << 63) else f"({value}LL)"
    if kind == isl.ast_expr_type.id:
        return f"((long long) {expr.get_id().get_name()})"
    op = expr.get_op_type()
    args = [_c_text(expr.get_op_arg(k)) for k in range(expr.get_op_n_arg())]
    if op in _BINARY:
        return "(" + f" {_BINARY[op]} ".join(args) + ")"
    if op == _OP.minus:
        return f"(-{args[0]})"
    if op == _OP.fdiv_q:
        return f"polycu_floord({args[0]}, {args[1]})"
    if op in (_OP.cond, _OP.select):
        return f"({args[0]} ? {args[1]} : {args[2]})"
    assert op in (_OP.min, _OP.max), f"unexpected isl AST operator {op}"
    text = args[0]
    for arg in args[1:]:
        text = f"({text} {'<' if op == _OP.min else '>'} {arg} ? {text} : {arg})"
    return text
