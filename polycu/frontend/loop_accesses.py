"""The accesses of a data-dependent loop's statement (loops.py), over-approximated.

In:  the statement's body (the loop, with the copies of the scalars it writes:
loops.py), its iterators and domain, and its own variables (locals and copies).
Out: ``Access`` values ``S[o] -> A[...]`` that contain every element an instance
may touch: reads, may-writes, and the copies' write-backs as must-writes.

Let ``o`` be the enclosing iterators and ``v`` the statement's integer variables.
A reference ``A[f(o, v)]`` is ``{ S[o] -> A[f(o, v)] : (o, v) in F } ∩ extent(A)``
with ``v`` projected out, where ``F`` is what holds where it is evaluated:

* ``for (v = l; c; v += s)``, ``s`` a constant, ``v`` written by the step only, ``l``
  reading nothing the loop writes: ``v >= (T) l`` (``<=`` when ``s < 0``), ``T`` the
  counter's type, signed and of ``int`` width or more (overflow is undefined);
* an affine test (a loop condition, an ``if``, a short circuit) over the code it
  guards, when that code writes none of the test's variables;
* an unsigned or narrow variable's range.

A subscript isl cannot describe (``A[B[k]]``, ``A[k * k]``) is any index of its
dimension; one over values the loop computes needs the array's extents.
"""
from __future__ import annotations

from typing import Protocol

import islpy as isl
from pycparser import c_ast

from ..model import MAY_WRITE, WRITE, Access
from .accesses import AccessCollector, Names
from .affine import AffineEnv, NotAffine, to_pwaff
from .calls import cast_to
from .loop_forms import increment
from .ctype import INT, LLONG_MAX, Arith
from .syntax import Unsupported, c_text, walk, written_names

LOOPS = (c_ast.While, c_ast.DoWhile, c_ast.For)


class LoopNames(Names, Protocol):
    """What the collector asks of the SCoP builder beyond ``Names``."""

    typedefs: dict[str, str]

    def type_of(self, name: str) -> Arith: ...


def loop_step(node: c_ast.For, name: str) -> int | None:
    """The constant that ``for``'s increment adds to ``name`` (None: not of the forms
    ``loop_forms.increment`` reads)."""
    found = increment(node.next) if node.next is not None else None
    return found[1] if found is not None and found[0] == name else None


def leaves_early(body: c_ast.Node) -> bool:
    """Whether a ``break`` or ``continue`` of ``body`` ends an iteration of the loop
    around it (one not inside a loop of its own)."""
    if isinstance(body, (c_ast.Break, c_ast.Continue)):
        return True
    if isinstance(body, LOOPS) or isinstance(body, c_ast.Switch):
        return False
    return any(leaves_early(child) for _, child in body.children())


class LoopCollector(AccessCollector):
    """The accesses of a data-dependent loop's statement (module docstring): its
    domain's space has the statement's integer variables ``free`` after the
    iterators, projected out of every relation."""

    loop = True

    def __init__(self, builder: LoopNames, stmt: str, iterators: tuple[str, ...],
                 domain: isl.Set, local: frozenset[str], free: tuple[str, ...],
                 types: dict[str, Arith]):
        depth = len(iterators)
        space = domain.add_dims(isl.dim_type.set, len(free))
        for k, name in enumerate(free):
            space = space.set_dim_name(isl.dim_type.set, depth + k, name)
            ctype = types[name]
            if not ctype.signed or ctype.bits < INT.bits:   # modular or narrow: its range
                space = space.lower_bound_val(isl.dim_type.set, depth + k,
                                              isl.Val(str(ctype.minimum)))
                space = space.upper_bound_val(isl.dim_type.set, depth + k,
                                              isl.Val(str(min(ctype.maximum, LLONG_MAX))))
        super().__init__(builder, stmt, iterators + free, space.set_tuple_name(stmt))
        self.outer_domain = domain
        self.depth = depth
        self.local = local
        self.types = types
        self.write_kind = MAY_WRITE
        self.unstable: set[str] = set()

    def collect(self, body: c_ast.Node) -> None:
        """The copies' reads first, the loop (or the statement with data subscripts:
        loops.subscripts_data), then the copies' write-backs ``x = x_loc``:
        must-writes."""
        for item in body.block_items if isinstance(body, c_ast.Compound) else [body]:
            if isinstance(item, c_ast.Assignment) and item.op == "=" \
                    and isinstance(item.rvalue, c_ast.ID) and item.rvalue.name in self.local \
                    and isinstance(item.lvalue, c_ast.ID) and item.lvalue.name not in self.local:
                self.write_kind = WRITE
                self.statement(item)
                self.write_kind = MAY_WRITE
            else:
                self.item(item)

    def stable(self, test: c_ast.Node) -> bool:
        return not ({n.name for n in walk(test) if isinstance(n, c_ast.ID)} & self.unstable)

    def item(self, node: c_ast.Node | None) -> None:
        """Record the accesses of one statement inside the loop."""
        self.unstable = set()       # an expression writes nothing while evaluated
        if node is None or isinstance(node, (c_ast.Break, c_ast.Continue,
                                             c_ast.EmptyStatement)):
            return
        if isinstance(node, (c_ast.Compound, c_ast.DeclList, c_ast.ExprList)):
            items = (node.block_items or []) if isinstance(node, c_ast.Compound) else \
                (node.decls if isinstance(node, c_ast.DeclList) else node.exprs)
            for item in items:
                self.item(item)
        elif isinstance(node, c_ast.Decl):
            if node.init is not None:
                self.expression(node.init)
        elif isinstance(node, c_ast.If):
            self.expression(node.cond)
            self.region(node.cond, True, node.iftrue)
            if node.iffalse is not None:
                self.region(node.cond, False, node.iffalse)
        elif isinstance(node, c_ast.While):
            self.expression(node.cond)
            self.region(node.cond, True, node.stmt)
        elif isinstance(node, c_ast.DoWhile):
            self.item(node.stmt)
            self.expression(node.cond)
        elif isinstance(node, c_ast.For):
            self.item(node.init)
            self.assuming(self.counter_bound(node), lambda: self.loop_parts(node))
            self.item(node.next)
        elif isinstance(node, c_ast.FuncCall):
            raise Unsupported(node, f"call to '{c_text(node.name)}' in a SCoP may have side "
                              "effects and is not supported", self.b.loc(node))
        else:
            self.statement(node)

    def loop_parts(self, node: c_ast.For) -> None:
        """A ``for``'s condition and body (where its counter's bound holds)."""
        self.expression(node.cond)
        self.region(node.cond, True, node.stmt)

    def region(self, test: c_ast.Node, holds: bool, node: c_ast.Node) -> None:
        """Record ``node``, run where ``test`` held (``holds``) or failed just before:
        the parts of the test whose variables ``node`` writes are dropped."""
        self.unstable = written_names([node])
        self.guarded(test, holds, lambda: self.item(node))

    # for (v = l; c; v += s) with s a constant, v written by the step only and l not
    # reading what the loop writes: v >= (T) l inside (v <= (T) l when s < 0), T the
    # counter's signed type of int width or more (its overflow is undefined).
    def counter_bound(self, node: c_ast.For) -> isl.Set | None:
        """Where a ``for``'s counter can be in its condition and body (None: unknown)."""
        init = node.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
            name, lower = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c_ast.Assignment) and init.op == "=" \
                and isinstance(init.lvalue, c_ast.ID):
            name, lower = init.lvalue.name, init.rvalue
        else:
            return None
        step = loop_step(node, name)
        ctype = self.types.get(name)
        changed = written_names([node.stmt, node.next, init])
        if lower is None or not step or ctype is None or not ctype.signed \
                or ctype.bits < INT.bits or name in written_names([node.stmt]) \
                or {n.name for n in walk(lower) if isinstance(n, c_ast.ID)} & changed:
            return None
        test = c_ast.BinaryOp(">=" if step > 0 else "<=", c_ast.ID(name),
                              cast_to(ctype.name, lower))
        return self.b.affine_test(test, self.iterators, self.bounds())

    def reference(self, node: c_ast.Node, kind: str) -> None:
        if isinstance(node, c_ast.ID) and node.name in self.local:
            return                  # the statement's own variable: no access
        super().reference(node, kind)

    # { S[o] -> A[f(o, v)] : (o, v) in F } projected onto o, within A's extent; a
    # subscript that is not affine in (o, v) is any index of its dimension.
    def record(self, node: c_ast.Node, name: str, subscripts: list[c_ast.Node],
               kind: str) -> None:
        bounds = self.bounds()
        relation: isl.Map | None = None
        loose = False       # some subscript is over values the loop computes
        opaque = None       # a subscript isl cannot describe at all
        for subscript in subscripts:
            try:
                piece = isl.Map.from_pw_aff(self.b.affine(subscript, self.iterators, bounds))
            except Unsupported:
                self.expression(subscript)          # what it reads, read
                any_index = isl.Set.universe(isl.Space.set_alloc(bounds.get_ctx(), 0, 1))
                piece = isl.Map.from_domain_and_range(isl.Set.universe(bounds.get_space()),
                                                      any_index)
                loose, opaque = True, opaque or subscript
            loose = loose or piece.involves_dims(isl.dim_type.in_, self.depth,
                                                 len(self.iterators) - self.depth)
            relation = piece if relation is None else relation.flat_range_product(
                piece.align_params(relation.get_space()))
        if relation is None:
            relation = isl.Map.from_domain_and_range(bounds, isl.Set("{ [] }"))
        relation = relation.intersect_domain(bounds.align_params(relation.get_space()))
        relation = relation.project_out(isl.dim_type.in_, self.depth,
                                        len(self.iterators) - self.depth)
        relation = relation.set_tuple_name(isl.dim_type.in_, self.stmt) \
            .set_tuple_name(isl.dim_type.out, name)
        extent = _extent(self.b, name) if loose else None
        if loose and extent is None:
            self._unbounded(node, name, opaque)
        if extent is not None:
            relation = relation.intersect_range(extent.align_params(relation.get_space()))
        relation = relation.gist_domain(self.outer_domain.align_params(relation.get_space()))
        ref = f"{self.stmt}.{len(self.accesses)}"
        self.accesses.append(Access(name, kind, relation.coalesce(), ref, self.b.loc(node),
                                    node))
        self.b.accessed.setdefault(name, self.b.loc(node))

    def _unbounded(self, node: c_ast.Node, name: str, opaque: c_ast.Node | None) -> None:
        known = (f"it needs the extents of '{name}', which are not known (a pointer or a "
                 "non-affine size)")
        if opaque is None:
            raise Unsupported(node, f"subscript of '{name}' over values a data-dependent "
                              f"loop computes: {known}", self.b.loc(node))
        flat = any(isinstance(n, c_ast.BinaryOp) and n.op == "*" for n in walk(opaque))
        raise Unsupported(node, f"subscript '{c_text(opaque)}' of '{name}' is not affine "
                          f"(data, or a product of variables): {known}" + (
                              "; an offset computed by hand is read as rows only where one "
                              "parameter divides it and C computes it exactly "
                              "(docs/supported-c.md, 'Flat arrays')" if flat else ""),
                          self.b.loc(node))


def _extent(b: LoopNames, name: str) -> isl.Set | None:
    """``{ A[i] : 0 <= i_k < n_k }`` for model array ``name`` (None: some extent is not
    known or not affine)."""
    member = b.members.members.get(name)
    sym = b.locals.get(name) or b.symbols[member.variable if member else name]
    nodes = list(sym.extents)
    if member is not None:
        found = member.struct.field(member.field)
        assert found is not None
        nodes += [c_ast.Constant("int", e) for e in found.extents]
    if any(n is None for n in nodes):
        return None
    dims = tuple(f"i{k}" for k in range(len(nodes)))
    env = AffineEnv(dims, b.is_param, b.type_of, b.typedefs)
    result = env.universe()
    try:
        for k, extent in enumerate(nodes):
            var = env.variable(dims[k])
            result = result.intersect(var.ge_set(env.constant(0))).intersect(
                var.lt_set(to_pwaff(extent, env)))
    except NotAffine:
        return None
    return result.set_tuple_name(name)
