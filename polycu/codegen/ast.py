"""isl AST building for kernels and host code, and conversion to our own small AST.

In:  a ``GpuProgram``.
Out: ``Node`` trees (``For``, ``If``, ``Block``, ``User``) whose expressions are
``Expr`` values, printed by ``cuda.py`` (C) and ``description.py`` (Python).

* A kernel's AST is isl's AST of the whole schedule tree restricted to the instances
  of one block/thread, ``D_K(h) ∩ map(b, t)``, built in the context of the kernel
  (valid ``h``, ``0 <= t < B``, ``0 <= b < grid``): outer host bands are then fixed
  and generate no loop, mapped members become point loops strided by the block size
  (or plain values) and guards are exact.
* The host AST is isl's AST of the host schedule over the launch instances ``K[h]``.
* Grid sizes and array footprints are parametric ``PwAff`` turned into expressions by
  an AST build of their context (``AstBuild.expr_from_pw_aff``).

isl's AST generation can take minutes on some schedules (the guards of a tiled
skewed wavefront).  ``with_asts`` builds a program's ASTs once, each under an
operation budget (``MAX_OPERATIONS``, set by the driver), so that a
schedule whose code is too expensive is dropped for the next one; the printers
then reuse them.

isl's AST builder can also lose instances: on a strided domain it once printed
one of two residue classes of ``j`` and dropped the other (fuzz seed 1600081:
``S2[i, n - 3]`` never ran).  Every AST is therefore checked as it is built
(``coverage.py``): the domains isl reports at its leaves must cover the scheduled
domain and be disjoint, or ``WrongAst`` is raised and the driver tries the next
schedule.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence, TypeVar, Union

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel
from ..memory import BARRIERS, LANE_INDEX, KernelPlacement, Placement, indices
from ..schedule import BudgetExceeded, operation_budget
from .coverage import WrongAst, covered

_OP = isl.ast_expr_op_type
_OP_NAMES = {
    _OP.and_: "and", _OP.and_then: "and", _OP.or_: "or", _OP.or_else: "or",
    _OP.max: "max", _OP.min: "min", _OP.minus: "minus", _OP.add: "add", _OP.sub: "sub",
    _OP.mul: "mul", _OP.div: "div", _OP.fdiv_q: "fdiv_q", _OP.pdiv_q: "pdiv_q",
    _OP.pdiv_r: "pdiv_r", _OP.zdiv_r: "zdiv_r", _OP.cond: "cond", _OP.select: "cond",
    _OP.eq: "eq", _OP.le: "le", _OP.lt: "lt", _OP.ge: "ge", _OP.gt: "gt", _OP.call: "call",
}


@dataclass(frozen=True)
class Expr:
    """An integer expression: ``op`` is 'int', 'id' or an operator; ``value`` for leaves."""

    op: str
    args: tuple["Expr", ...] = ()
    value: int | str | None = None

    @staticmethod
    def int_(v: int) -> "Expr":
        return Expr("int", value=v)

    @staticmethod
    def id_(name: str) -> "Expr":
        return Expr("id", value=name)


@dataclass(frozen=True)
class For:
    """``for (var = init; var <= upper; var += step) body`` (upper inclusive)."""

    var: str
    init: Expr
    upper: Expr
    step: int
    body: "Node"
    degenerate: bool = False


@dataclass(frozen=True)
class If:
    cond: Expr
    then: "Node"
    else_: "Node | None" = None


@dataclass(frozen=True)
class Block:
    children: tuple["Node", ...]


@dataclass(frozen=True)
class User:
    """A statement instance ``S(args)`` (kernel) or a launch ``K[h](args)`` (host);
    ``refs`` gives the index expressions of its references to promoted arrays, keyed
    like ``memory.indices``."""

    name: str
    args: tuple[Expr, ...]
    refs: tuple[tuple[int, tuple[Expr, ...]], ...] = ()

    def ref(self, key: int) -> tuple[Expr, ...]:
        for k, exprs in self.refs:
            if k == key:
                return exprs
        raise KeyError(key)


Node = Union[For, If, Block, User]


class Unexpressible(Exception):
    """isl's AST builder cannot write a placed reference's index at its instances
    (fuzz seed 5500195: "cannot handle void expression"); the kernel then keeps
    global memory, like one whose placed AST is wrong or over budget."""


def to_expr(expr: isl.AstExpr) -> Expr:
    """Our Expr of an isl AST expression."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        return Expr.int_(expr.get_val().to_python())
    if kind == isl.ast_expr_type.id:
        return Expr.id_(expr.get_id().get_name())
    op = expr.get_op_type()
    if op not in _OP_NAMES:
        raise AssertionError(f"unexpected isl AST operator {op}")
    args = tuple(to_expr(expr.get_op_arg(i)) for i in range(expr.get_op_n_arg()))
    return Expr(_OP_NAMES[op], args)


# A for loop's condition is `var <= ub` or `var < ub` (ub - 1 inclusive).
def _upper(cond: Expr, var: str) -> Expr:
    assert cond.op in ("le", "lt") and cond.args[0] == Expr.id_(var), \
        f"unexpected loop condition {cond}"
    ub = cond.args[1]
    if cond.op == "lt":
        ub = Expr.int_(ub.value - 1) if ub.op == "int" else Expr("sub", (ub, Expr.int_(1)))
    return ub


def to_node(node: isl.AstNode,
            refs: Mapping[str, tuple[tuple[int, tuple[Expr, ...]], ...]] | None = None) -> Node:
    """Our Node of an isl AST node (marks are transparent); ``refs`` holds the index
    expressions ``kernel_ast_of`` attached to user nodes, by annotation."""
    kind = node.get_type()
    if kind == isl.ast_node_type.for_:
        var = node.for_get_iterator().get_id().get_name()
        inc = to_expr(node.for_get_inc())
        assert inc.op == "int" and inc.value > 0, "loop strides are positive constants"
        body = to_node(node.for_get_body(), refs)
        init = to_expr(node.for_get_init())
        if node.for_is_degenerate():
            return For(var, init, init, 1, body, True)
        return For(var, init, _upper(to_expr(node.for_get_cond()), var), inc.value, body)
    if kind == isl.ast_node_type.if_:
        else_ = to_node(node.if_get_else_node(), refs) if node.if_has_else_node() else None
        return If(to_expr(node.if_get_cond()), to_node(node.if_get_then_node(), refs), else_)
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return Block(tuple(to_node(children.get_at(i), refs)
                           for i in range(children.n_ast_node())))
    if kind == isl.ast_node_type.user:
        call = to_expr(node.user_get_expr())
        assert call.op == "call" and call.args[0].op == "id"
        found = ()
        if refs:
            try:
                found = refs.get(node.get_annotation().get_name(), ())
            except isl.Error:   # a user node without annotation: nothing promoted
                pass
        return User(call.args[0].value, call.args[1:], found)
    if kind == isl.ast_node_type.mark:
        return to_node(node.mark_get_node(), refs)
    raise AssertionError(f"unexpected isl AST node {kind}")


def _iterators(prefix: str, ctx: isl.Context, count: int = 64) -> isl.IdList:
    ids = isl.IdList.alloc(ctx, count)
    for k in range(count):
        ids = ids.add(isl.Id(f"{prefix}{k}", context=ctx))
    return ids


def _build(context: isl.Set, iterator_prefix: str) -> isl.AstBuild:
    build = isl.AstBuild.from_context(context)
    return build.set_iterators(_iterators(iterator_prefix, context.get_ctx()))


T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Asts:
    """The ASTs of one ``GpuProgram``: host loops, each kernel's thread code, grids."""

    host: Node
    kernels: Mapping[str, Node]
    grids: Mapping[str, tuple[Expr, ...]]


def with_asts(program: GpuProgram, max_operations: int = 0) -> GpuProgram:
    """``program`` with its ASTs built (``kernel_ast``, ``host_ast`` and ``grid_exprs``
    return them from then on), each within ``max_operations`` isl operations (0: no
    limit; ``BudgetExceeded`` beyond)."""
    ctx = program.scop.context.get_ctx()

    def bounded(build: Callable[[], T]) -> T:
        with operation_budget(ctx, max_operations):
            return build()

    return replace(program, asts=Asts(
        bounded(lambda: _host_ast(program)),
        {k.name: bounded(lambda: _kernel_ast(program, k)) for k in program.kernels},
        {k.name: bounded(lambda: _grid_exprs(program, k)) for k in program.kernels}))


# Kernel K at block b, thread t: AST of the schedule on D_K(h) ∩ map(b, t).
def kernel_ast(program: GpuProgram, kernel: Kernel) -> Node:
    """The loops one thread of ``kernel`` runs, with statement instances as ``User``."""
    if program.asts is not None:
        return program.asts.kernels[kernel.name]
    return _kernel_ast(program, kernel)


def _kernel_ast(program: GpuProgram, kernel: Kernel) -> Node:
    context = kernel.context(program.scop.context)
    build = _build(context, program.names.iterator)
    schedule = program.schedule.intersect_domain(kernel.thread_domain())
    return to_node(covered(build, schedule, context))


def kernel_ast_of(program: GpuProgram, kernel: Kernel, order: isl.UnionMap,
                  indices: Mapping[str, Sequence[tuple[int, isl.Map]]] | None = None,
                  context: isl.Set | None = None, atomic: bool = False,
                  lanes: range = range(0), classes: int | None = None) -> Node:
    """The loops one thread of ``kernel`` runs in the flat ``order`` (the memory
    phase's, with its copy statements), with every instance as a ``User``, within
    ``context`` (the kernel's by default).  ``lanes``: the time dimensions of the
    lanes (``KernelPlacement.lane_dimensions``); ``classes``: that of the strips'
    classes (``KernelPlacement.strips``), unrolled.  ``indices`` (``memory.indices``) maps
    statements to (key, instance -> index): each ``User`` gets those indices as
    expressions of the loop iterators (PPCG's ``transform_index``: the instance is
    the inverse of the build's schedule, a function of its iterators).

    Built from a one-band schedule tree over the order, with the parameters in the
    context's order: isl's ``node_from_schedule_map`` printed a guard of
    gramschmidt's kernel 5 with the wrong parameter inside a ``%`` (t0 for h0)."""
    context = context if context is not None else kernel.context(program.scop.context)
    # explicit integer divisions for the existentials the copies' domains bring
    # (projections of strided loops): isl's AST builder, given a dozen copies of the
    # same unnamed existential, ran for minutes under its operation budget (fuzz seed
    # 4700234); with them named, 0.2 s
    order = order.align_params(context.get_space()).compute_divs()
    tree = isl.Schedule.from_domain(order.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(order))
    if atomic:
        band = tree.get_root().child(0)
        options = isl.UnionSet("{ atomic[x] }", context=band.get_ctx())
        tree = band.band_set_ast_build_options(options).get_schedule()
    if classes is not None:     # each class of strips its own code (memory.strips)
        band = tree.get_root().child(0).band_member_set_ast_loop_type(
            classes, isl.ast_loop_type.unroll)
        tree = band.get_schedule()
    build = _build(context, program.names.iterator)
    iterator = program.names.iterator
    found: dict[str, tuple[tuple[int, tuple[Expr, ...]], ...]] = {}

    def annotated(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        call = node.user_get_expr()
        name = call.get_op_arg(0).get_id().get_name()
        known = {}
        if indices and name in indices:
            instance = isl.Map.from_union_map(build.get_schedule()).reverse()
            for key, index in indices[name]:
                index = index.align_params(instance.get_space())
                at = isl.PwMultiAff.from_map(_function(instance.apply_range(index)))
                try:
                    known[key] = _arguments(build.access_from_pw_multi_aff(at))
                except isl.Error as exc:   # e.g. an index not defined at every instance
                    raise Unexpressible(f"{name}: {exc}") from exc
        if lanes and LANE_INDEX in known:
            # A lane is its loop's iterator (nvcc unrolls the loop and the index
            # becomes a constant); where isl dropped the loop, its value.
            space = build.get_schedule_space()
            known[LANE_INDEX] = tuple(
                Expr.id_(f"{iterator}{d}")
                if space.find_dim_by_name(isl.dim_type.set, f"{iterator}{d}") >= 0
                else value for d, value in zip(lanes, known[LANE_INDEX]))
        exprs = list(known.items())
        if not exprs:
            return node
        label = f"polycu_refs{len(found)}"
        found[label] = tuple(exprs)
        return node.set_annotation(isl.Id(label, context=node.get_ctx()))

    node = covered(build, tree, context, annotated if indices else None)
    return to_node(node, found)


#: Existentials (summed over its pieces) from which a leaf's index is simplified first.
EXISTENTIALS = 16


# With F a leaf's index as a function of its iterators, and F' the map F with every
# constraint on an existential dropped: F is a subset of F', so where F' is
# single-valued it agrees with F on F's domain, and the index expressions of F'
# serve the leaf.  The existentials come from projected copy domains
# (memory.strips); with them, isl took about a second a leaf to express the
# accesses (fuzz seed 5603723, 119 s in all); without, milliseconds.
def _function(index: isl.Map) -> isl.Map:
    """``index`` or a cheaper function equal to it on its domain (tried only where
    existentials abound: the check itself costs isl operations, which count against
    the kernel's budget)."""
    if sum(b.dim(isl.dim_type.div) for b in index.get_basic_maps()) < EXISTENTIALS:
        return index
    simpler = index.remove_unknown_divs()
    return simpler if simpler.is_single_valued() else index


def _arguments(access: isl.AstExpr) -> tuple[Expr, ...]:
    """The index expressions of an isl access expression ``A[e0][e1]..``."""
    return tuple(to_expr(access.get_op_arg(k)) for k in range(1, access.get_op_n_arg()))


def host_ast(program: GpuProgram) -> Node:
    """The host loops and launches (``User`` named after ``Kernel.launch_name``)."""
    if program.asts is not None:
        return program.asts.host
    return _host_ast(program)


def _host_ast(program: GpuProgram) -> Node:
    build = _build(program.scop.context, program.names.iterator)
    return to_node(covered(build, program.host, program.scop.context))


def expr_of(pwaff: isl.PwAff, context: isl.Set) -> Expr:
    """An expression computing ``pwaff`` wherever ``context`` holds."""
    context = context.align_params(pwaff.get_space())
    pwaff = pwaff.align_params(context.get_space())
    build = isl.AstBuild.from_context(context)
    return to_expr(build.expr_from_pw_aff(pwaff.gist_params(context)))


def grid_exprs(program: GpuProgram, kernel: Kernel) -> tuple[Expr, ...]:
    """Blocks along x, y, z at a launch, over the parameters and the host values h."""
    if program.asts is not None:
        return program.asts.grids[kernel.name]
    return _grid_exprs(program, kernel)


def _grid_exprs(program: GpuProgram, kernel: Kernel) -> tuple[Expr, ...]:
    context = kernel.host_context(program.scop.context)
    axes = kernel.by_axis()
    return tuple(expr_of(axes[a].grid, context) if a in axes else Expr.int_(1)
                 for a in ("x", "y", "z"))


# -- kernels with their memory placed -------------------------------------------------

def placed_kernel_ast(program: GpuProgram, kernel: Kernel, placed: KernelPlacement,
                      atomic: bool = False, split: bool = True) -> Node:
    """The loops one thread of ``kernel`` runs with its arrays where ``placed`` put
    them: the order with the copies, the blocks whose lanes are all in range apart
    (``atomic``: one loop per dimension, isl's option, which keeps the block's loops
    apart from guards on the thread ids), and in them (in every block if none is at
    the edge) the full strips apart (``split``; ``memory.strips``)."""
    if placed.order is None:
        return kernel_ast(program, kernel)
    refs = indices(program.scop, placed)
    context = kernel.context(program.scop.context)
    full = placed.full.align_params(context.get_space()).intersect(context) \
        if placed.full is not None else context
    rest = context.subtract(full).coalesce()
    lanes = placed.lane_dimensions
    classes, order = placed.strips if split and placed.strips else (None, placed.order)
    if full.is_empty() or rest.is_empty():
        return kernel_ast_of(program, kernel, order, refs, context, atomic, lanes, classes)
    # Blocks whose lanes all lie inside the ranges run code without lane guards.
    cond = to_expr(isl.AstBuild.from_context(context).expr_from_set(full.gist(context)))
    return If(cond, kernel_ast_of(program, kernel, order, refs, full, atomic, lanes, classes),
              kernel_ast_of(program, kernel, placed.order, refs, rest, atomic, lanes))


def uniform_barriers(node: Node, thread_ids: frozenset[str], inside: bool = False) -> bool:
    """Whether every barrier of ``node`` runs in code whose loops and conditions do
    not depend on the thread ids (so all threads of a block pass it equally often)."""
    if isinstance(node, User):
        return not (inside and node.name in BARRIERS)
    if isinstance(node, Block):
        return all(uniform_barriers(c, thread_ids, inside) for c in node.children)
    if isinstance(node, If):
        inner = inside or bool(_names(node.cond) & thread_ids)
        return uniform_barriers(node.then, thread_ids, inner) and (
            node.else_ is None or uniform_barriers(node.else_, thread_ids, inner))
    inner = inside or bool((_names(node.init) | _names(node.upper)) & thread_ids)
    return uniform_barriers(node.body, thread_ids, inner)


def _names(e: Expr) -> set[str]:
    if e.op == "id":
        return {str(e.value)}
    return set().union(*(_names(a) for a in e.args)) if e.args else set()


def with_kernel_asts(placement: Placement, max_operations: int = 0,
                     larger: Mapping[str, int] | None = None
                     ) -> tuple[Placement, frozenset[str]]:
    """``placement`` with each kernel's AST built within ``max_operations`` isl
    operations a kernel (``larger``: more for the kernels it names), and the kernels
    whose placed code could not be built (over the budget, an AST that runs some
    instance not exactly once, a placed reference isl cannot write, a barrier in
    code that depends on the thread id, or an error inside isl)."""
    program = placement.program
    ctx = program.scop.context.get_ctx()
    built: dict[str, Node] = {}
    failed: set[str] = set()
    for kernel, placed in zip(program.kernels, placement.kernels):
        if placed.order is None:
            built[kernel.name] = kernel_ast(program, kernel)
            continue
        threads = frozenset(m.thread_id for m in kernel.mapped)
        budget = (larger or {}).get(kernel.name, max_operations)
        # isl's separated loops read best; where they hoist a guard on the thread ids
        # above a barrier, one loop per dimension (atomic) keeps the block's loops;
        # where the full strips apart cost isl too much, without them.
        for split in (True, False) if placed.strips is not None else (False,):
            for atomic in (False, True) if placed.barriers else (False,):
                try:
                    with operation_budget(ctx, budget):
                        node = placed_kernel_ast(program, kernel, placed, atomic, split)
                except (BudgetExceeded, WrongAst, Unexpressible, isl.Error):
                    break       # isl.Error: its AST builder failing inside (seed 5602937)
                if not placed.barriers or uniform_barriers(node, threads):
                    built[kernel.name] = node
                    break
            if kernel.name in built:
                break
        if kernel.name not in built:
            failed.add(kernel.name)
    return replace(placement, asts=built), frozenset(failed)
