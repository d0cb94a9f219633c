"""isl AST building for kernels and host code, converted to our own small AST (nodes.py).

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
from typing import Callable, Mapping, Sequence, TypeVar

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel
from ..memory import LANE_INDEX, KernelPlacement, Placement, indices
from ..schedule import BudgetExceeded, operation_budget
from .cases import conditions, parameter_cases
from .coverage import WrongAst, covered
from .nodes import Expr, If, Node, to_expr, to_node, uniform_barriers


class Unexpressible(Exception):
    """isl's AST builder cannot write a placed reference's index at its instances
    (fuzz seed 5500195: "cannot handle void expression"); the kernel then keeps
    global memory, like one whose placed AST is wrong or over budget."""


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
    schedule = program.schedule.intersect_domain(kernel.thread_domain())
    return _by_cases(program, kernel.statements, kernel.context(program.scop.context),
                     lambda case: to_node(covered(_build(case, program.names.iterator),
                                                  schedule, case)))


def _by_cases(program: GpuProgram, statements: Sequence[str], context: isl.Set,
              build: Callable[[isl.Set], Node]) -> Node:
    """``build`` of ``context``, or of each parameter case of the statements'
    domains (``cases.py``: a wrapped loop bound) under an ``if`` that selects it."""
    cases = parameter_cases([program.scop.statement(s).domain for s in statements], context)
    if len(cases) == 1:
        return build(context)
    node: Node | None = None
    for case, cond in reversed(list(zip(cases, conditions(cases, context)))):
        node = If(to_expr(cond), build(case), node)
    assert node is not None
    return node


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

    return _by_cases(program, kernel.statements, context, lambda case: to_node(
        covered(_build(case, iterator), tree, case, annotated if indices else None), found))


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
    return _by_cases(program, [s.name for s in program.scop.statements], program.scop.context,
                     lambda case: to_node(covered(_build(case, program.names.iterator),
                                                  program.host, case)))


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
