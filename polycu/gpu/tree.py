"""Tree reductions: kernels whose sequential inner loop is a sum, run over many threads.

In:  a ``GpuProgram`` and one of its kernels (``--parallel-reductions``).
Out: a ``Tree`` (the rows, the sums, the statements before and after them, the
     block's shape) for ``codegen/tree.py``, or None when the kernel is not one.

At one launch (host values h fixed, parameters of every set below) a kernel is a
tree reduction when its statements are
    P[i]:       any statement of row i                   (before the sums of row i)
    U_r[i, k]:  W_r[c_r(i)] = W_r[c_r(i)] + e_r(i, k)     (+=, -= or = with +)
    Q[i]:       any statement of row i                   (after them)
with i a bijection of the kernel's one mapped member, and
  * e_r reading only arrays the kernel does not write: its terms have their values
    of the launch's start, in whatever order they are computed;
  * c_r(i) one cell per row: U_r's instances write the same cell iff they have the
    same i; the W_r distinct;
  * D_U_r = { [i, k] : i in R_r and lo_r(i) <= k <= hi_r(i) }, one basic set whose
    constraints on k have the coefficient +-1 (the bounds print as affine
    expressions);
  * in the kernel's order, every instance of a P of row i before and every Q
    instance after every U instance of row i (isl's lexicographic order, exactly).
The mapping proved the rows independent (the member is parallel and equals one
function of i in every statement).  So row i computes W_r = W_r (after P) +
sum_k e_r(i, k).  The tree kernel has ``slices`` threads add every slices-th term
of a row (in C's types and rounding, as the statement does), adds their partial
sums pairwise in shared memory, and has one thread run P, add the total to W_r and
run Q.  The terms are summed in another order: floating-point results round
differently (integer sums wrap to the same value), hence the option; an ordered
tree (``gpu/ordered.py``, the default) keeps C's order.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from ..frontend.ctype import parse_type
from ..model import Access, Scop, Statement, maps_of, sets_of
from .kernel import GpuProgram, Kernel
from .where import instances, point_of, problem_sizes

#: Block shapes (threads along x, y): lanes on k when the big reads run along k
#: (a warp adds 32 consecutive terms of one row, 8 rows a block); lanes on i when
#: they run along i (16 consecutive rows, up to 64 slices of k a block: the largest
#: power of two no larger than a row's terms).  Static shared memory holds one
#: partial sum a thread for each sum.
LANES_ON_K = (32, 8)
LANES_ON_I = (16, 64)
SHARED_BUDGET = 48 * 1024
#: Fewer terms a row than this (on average, at the problem sizes the arrays'
#: extents allow: where.problem_sizes) leave most threads of a tree idle: the
#: kernel keeps its rows one a thread.
MIN_TERMS = 16


@dataclass(frozen=True, eq=False)
class Part:
    """One statement of the tree: where its i and k are among its iterators, the
    values of the others (fixed by the launch), and its domain over [i, k] ([i],
    [k] or [] without them)."""

    name: str
    row: int
    term: int | None
    fixed: dict[int, isl.PwAff]
    domain: isl.BasicSet


@dataclass(frozen=True, eq=False)
class Tree:
    """What the tree kernel of one kernel computes (see the module doc)."""

    kernel: str
    sums: tuple[Part, ...]          # U_r (independent: each adds its own cell)
    before: tuple[Part, ...]        # P, in order
    after: tuple[Part, ...]         # Q, in order
    lower: isl.PwAff                # min i over the launch
    upper: isl.PwAff                # max i
    lanes_on_k: bool
    block: tuple[int, int]          # threads along x and y
    ordered: bool = False           # C's order of the terms (gpu/ordered.py)

    @property
    def slices(self) -> int:
        """Threads that share one row's terms."""
        return self.block[0] if self.lanes_on_k else self.block[1]

    @property
    def rows(self) -> int:
        """Rows of one block."""
        return self.block[1] if self.lanes_on_k else self.block[0]

    def __str__(self) -> str:
        what = ", ".join(s.name for s in self.sums)
        how = ("the terms side by side, added in C's order" if self.ordered else
               "added in a tree")
        return (f"the sums of {what} over {self.slices} threads a row, {self.rows} row(s) "
                f"a block, {how} (lanes on {'k' if self.lanes_on_k else 'i'}"
                + ("" if self.ordered else "; the order of the terms changes") + ")")


def tree_reductions(program: GpuProgram) -> dict[str, Tree]:
    """The kernels of ``program`` that are tree reductions, by name."""
    found = {k.name: tree_reduction(program, k) for k in program.kernels} \
        if not (program.single_block or program.resident) else {}
    return {name: tree for name, tree in found.items() if tree is not None}


def tree_reduction(program: GpuProgram, kernel: Kernel) -> Tree | None:
    """``kernel`` as a ``Tree``, or None (see the module doc)."""
    scop = program.scop
    if len(kernel.mapped) != 1 or kernel.atomic or kernel.private:
        return None
    statements = [s for s in scop.statements if s.name in kernel.statements]
    if any(s.loop and s.reduction for s in statements):
        return None
    domains = {s.get_tuple_name(): s for s in sets_of(kernel.at_host_point())}
    parts = {}
    for stmt in statements:
        part = _part(kernel, stmt, domains[stmt.name], stmt.reduction == "+")
        if part is None:
            return None
        parts[stmt.name] = part
    sums = [s for s in statements if parts[s.name].term is not None]
    others = [s for s in statements if parts[s.name].term is None]
    if not sums or not _rows_consistent(kernel, statements, domains, parts) \
            or len({s.reduction_array for s in sums}) != len(sums) \
            or not all(_sum_legal(scop, kernel, s, domains[s.name], parts[s.name])
                       for s in sums):
        return None
    before, after = [], []
    for stmt in others:
        side = _side(kernel, domains, parts, stmt, sums)
        if side is None:
            return None
        (before if side < 0 else after).append(stmt)
    ordered_before = _in_order(kernel, domains, parts, before)
    ordered_after = _in_order(kernel, domains, parts, after)
    terms = _terms_a_row(scop, sums, parts)
    if ordered_before is None or ordered_after is None or terms < MIN_TERMS:
        return None
    lanes_on_k = _along_k(scop, sums, domains, parts)
    slices = min(LANES_ON_I[1], 1 << (int(terms).bit_length() - 1))
    block = LANES_ON_K if lanes_on_k else (LANES_ON_I[0], slices)
    budget = sum(value_bytes(scop.array(s.reduction_array).element_type) for s in sums)
    if budget * block[0] * block[1] > SHARED_BUDGET:
        return None
    rows = None
    for part in parts.values():
        one = isl.Set.from_basic_set(part.domain)
        if part.term is not None:
            one = one.project_out(isl.dim_type.set, 1, 1)
        rows = one if rows is None else rows.union(one)
    return Tree(kernel.name, tuple(parts[s.name] for s in sums),
                tuple(parts[s.name] for s in ordered_before),
                tuple(parts[s.name] for s in ordered_after), rows.dim_min(0),
                rows.dim_max(0), lanes_on_k, block)


def _terms_a_row(scop: Scop, sums: list[Statement], parts: dict[str, Part]) -> float:
    """The fewest terms a row of any sum has on average over all launches, at the
    problem sizes: |D_U| / |D_U with k projected out|."""
    point = point_of(scop, problem_sizes(scop))
    fewest = float("inf")
    for stmt in sums:
        rows = instances(stmt.domain.project_out(isl.dim_type.set, parts[stmt.name].term, 1),
                         point)
        if rows:
            fewest = min(fewest, instances(stmt.domain, point) / rows)
    return 0.0 if fewest == float("inf") else fewest


def value_bytes(ctype: str) -> int:
    """Bytes of a value of a C type (8 for a type polycu does not know)."""
    t = parse_type(ctype)
    return 8 if t is None else max(1, t.bits // 8)


def _summable(ctype: str) -> bool:
    """Whether partial sums of this type can be kept and added on the device."""
    t = parse_type(ctype)
    return t is not None and t.name not in ("long double", "_Bool")


# An iterator d of S is fixed at a launch when min d = max d over D_S(h), both
# functions of the parameters and h.
def _fixed_value(domain: isl.Set, d: int) -> isl.PwAff | None:
    """The value of iterator ``d`` on ``domain`` when the parameters fix it."""
    n = domain.dim(isl.dim_type.set)
    one = domain.project_out(isl.dim_type.set, d + 1, n - d - 1).project_out(
        isl.dim_type.set, 0, d)
    low, high = one.dim_min(0), one.dim_max(0)
    if not low.domain().is_equal(high.domain()) or \
            not low.eq_set(high).is_equal(low.domain()):
        return None
    return low


def _member_of(kernel: Kernel, stmt: Statement, domain: isl.Set) -> isl.Map | None:
    """S[it] -> [m]: the statement's instances at one launch to the mapped member."""
    band = [m for m in maps_of(kernel.band) if m.get_tuple_name(isl.dim_type.in_)
            == stmt.name]
    if len(band) != 1:
        return None
    relation = band[0].intersect_domain(domain)
    member = kernel.mapped[0].member
    n = relation.dim(isl.dim_type.out)
    return relation.project_out(isl.dim_type.out, member + 1, n - member - 1) \
        .project_out(isl.dim_type.out, 0, member)


def _pick(name: str, n: int, keep: list[int], space: isl.Space) -> isl.Map:
    """{ name[x_0, ..., x_{n-1}] -> [x_d for d in keep] } (name '': anonymous), with the
    parameters of ``space``."""
    names = [f"x{d}" for d in range(n)]
    return isl.Map(f"{{ {name}[{', '.join(names)}] -> "
                   f"[{', '.join(names[d] for d in keep)}] }}").align_params(space)


def _on(relation: isl.Map, keep: list[int]) -> isl.Map:
    """``relation`` with its domain reduced to the dimensions ``keep`` (in order),
    anonymous."""
    pick = _pick("", relation.dim(isl.dim_type.in_), keep, relation.get_space())
    return relation.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out) \
        .apply_domain(pick)


def _part(kernel: Kernel, stmt: Statement, domain: isl.Set, summing: bool) -> Part | None:
    """The statement's ``Part``: one iterator a bijection of the member (i), at most
    one more free iterator (k, a sum's only), every other one fixed by the launch."""
    n = domain.dim(isl.dim_type.set)
    fixed = {}
    free = []
    for d in range(n):
        value = _fixed_value(domain, d)
        if value is None:
            free.append(d)
        else:
            fixed[d] = value
    member = _member_of(kernel, stmt, domain)
    if member is None:
        return None
    rows = [d for d in free for one in [_on(member, [d])]
            if one.is_single_valued() and one.is_injective()]
    if len(rows) != 1:
        return None
    row = rows[0]
    terms = [d for d in free if d != row]
    if len(terms) > (1 if summing else 0):
        return None
    term = terms[0] if terms else None
    keep = [row] if term is None else [row, term]
    reordered = domain.apply(_pick(stmt.name, n, keep, domain.get_space())).coalesce()
    if reordered.n_basic_set() != 1:
        return None
    basic = reordered.get_basic_sets()[0]
    if basic.dim(isl.dim_type.div):
        return None
    if term is not None and not _unit_bounds(basic, len(keep) - 1):
        return None
    return Part(stmt.name, row, term, fixed, basic)


# Every constraint on k has the coefficient -1, 0 or 1, and k is bounded both ways.
def _unit_bounds(domain: isl.BasicSet, k: int) -> bool:
    signs = [c.get_coefficient_val(isl.dim_type.set, k).to_python()
             for c in domain.get_constraints()]
    if any(a not in (-1, 0, 1) for a in signs):
        return False
    equality = any(c.is_equality() and a for c, a in zip(domain.get_constraints(), signs))
    return equality or (1 in signs and -1 in signs)


def _row_map(domain: isl.Set, part: Part) -> isl.Map:
    """S[it] -> [i] on the launch's instances."""
    return _pick(domain.get_tuple_name(), domain.dim(isl.dim_type.set), [part.row],
                 domain.get_space()).intersect_domain(domain)


def _rows_consistent(kernel: Kernel, statements: list[Statement],
                     domains: dict[str, isl.Set], parts: dict[str, Part]) -> bool:
    """Whether the member is one injective function of i over all statements."""
    together = None
    for stmt in statements:
        member = _member_of(kernel, stmt, domains[stmt.name])
        rows = _row_map(domains[stmt.name], parts[stmt.name])
        one = rows.reverse().apply_range(member).reset_tuple_id(isl.dim_type.out)
        together = one if together is None else together.union(one)
    return together.is_single_valued() and together.is_injective()


def _sum_legal(scop: Scop, kernel: Kernel, stmt: Statement, domain: isl.Set,
               part: Part) -> bool:
    """Whether U writes one cell of W per row (the same iff the same i), of a type
    the device adds, and its terms read nothing the kernel writes."""
    array = scop.array(stmt.reduction_array)
    if array.member is not None or array.struct or not _summable(array.element_type):
        return False
    (write,) = stmt.writes
    reads = [a for a in stmt.reads if a.array != stmt.reduction_array]
    if any(a.array in kernel.writes for a in reads):
        return False
    if not parse_type(array.element_type).floating and not _integer_terms(scop, stmt):
        return False
    cells = write.relation.intersect_domain(domain)
    same_cell = cells.apply_range(cells.reverse())
    rows = _row_map(domain, part)
    same_row = rows.apply_range(rows.reverse())
    return same_cell.is_equal(same_row)


# An integer cell adds its terms modulo 2^w in any order only if they are integers:
# C converts W + e back to W's type after every term, and (int)(s + 0.5) + 0.5 is
# not (int)(s + 1.0).  The term must be integer arithmetic: integer constants,
# iterators, parameters and integer arrays, casts to integer types, no call.
def _integer_terms(scop: Scop, stmt: Statement) -> bool:
    """Whether every value ``stmt``'s body computes with is an integer."""
    accesses = {id(a.node): a for a in stmt.accesses}

    class Visitor(c_ast.NodeVisitor):
        integer = True

        def visit_Constant(self, node: c_ast.Constant) -> None:
            self.integer &= "float" not in node.type and "double" not in node.type \
                and node.type != "string"

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            self.integer = False

        def visit_Cast(self, node: c_ast.Cast) -> None:
            named = getattr(node.to_type.type, "type", None)
            t = parse_type(" ".join(named.names)) \
                if isinstance(named, c_ast.IdentifierType) else None
            if t is None or t.floating:
                self.integer = False
            else:
                self.visit(node.expr)

        def visit_ID(self, node: c_ast.ID) -> None:
            self._access(node)

        def visit_ArrayRef(self, node: c_ast.ArrayRef) -> None:
            if not self._access(node):
                self.generic_visit(node)
            else:
                self.generic_visit(node.subscript)

        def visit_StructRef(self, node: c_ast.StructRef) -> None:
            self.integer = False

        def _access(self, node: c_ast.Node) -> bool:
            access = accesses.get(id(node))
            if access is not None:
                t = parse_type(scop.array(access.array).element_type)
                self.integer &= t is not None and not t.floating
            return access is not None

    visitor = Visitor()
    visitor.visit(stmt.body)
    return visitor.integer


def _order(kernel: Kernel, domain: isl.Set) -> isl.UnionMap:
    return kernel.order.intersect_domain(isl.UnionSet.from_set(domain))


def _pairs(domains: dict[str, isl.Set], parts: dict[str, Part], a: str, b: str
           ) -> isl.UnionMap:
    """{ A[..] -> B[..] : same row } at the launch."""
    ra, rb = (_row_map(domains[n], parts[n]) for n in (a, b))
    return isl.UnionMap.from_map(ra.apply_range(rb.reverse()))


def _compare(kernel: Kernel, domains: dict[str, isl.Set], parts: dict[str, Part],
             a: str, b: str) -> int | None:
    """-1 when every instance of A runs before every instance of B of its row, 1
    when after, None otherwise (or when A and B share instances' times)."""
    pairs = _pairs(domains, parts, a, b)
    if pairs.is_empty():
        return -1
    oa, ob = _order(kernel, domains[a]), _order(kernel, domains[b])
    if pairs.is_subset(oa.lex_lt_union_map(ob)):
        return -1
    if pairs.is_subset(oa.lex_gt_union_map(ob)):
        return 1
    return None


def _side(kernel: Kernel, domains: dict[str, isl.Set], parts: dict[str, Part],
          stmt: Statement, sums: list[Statement]) -> int | None:
    """-1 when ``stmt`` (P) runs before every sum of its row, 1 when after (Q)."""
    sides = {_compare(kernel, domains, parts, stmt.name, s.name) for s in sums}
    return sides.pop() if len(sides) == 1 and None not in sides else None


def _in_order(kernel: Kernel, domains: dict[str, isl.Set], parts: dict[str, Part],
              statements: list[Statement]) -> list[Statement] | None:
    """``statements`` in the order the kernel runs them within one row; None when
    that order is not one for all rows."""
    ordered: list[Statement] = []
    for stmt in statements:
        at = 0
        for k, other in enumerate(ordered):
            side = _compare(kernel, domains, parts, stmt.name, other.name)
            if side is None:
                return None
            if side > 0:
                at = k + 1
        ordered.insert(at, stmt)
    return ordered


# Lanes go along k when most reads of arrays of two or more subscripts (the
# matrices) are consecutive in k: one step of k moves their last subscript by one.
def _along_k(scop: Scop, sums: list[Statement], domains: dict[str, isl.Set],
             parts: dict[str, Part]) -> bool:
    votes = 0
    for stmt in sums:
        part = parts[stmt.name]
        for access in stmt.reads:
            if access.array == stmt.reduction_array or \
                    access.relation.dim(isl.dim_type.out) < 2:
                continue
            step_k = _step(access, domains[stmt.name], part.term)
            step_i = _step(access, domains[stmt.name], part.row)
            if step_k is not None and step_i is not None:
                votes += (step_k == 1) - (step_i == 1)
    return votes >= 0


def _step(access: Access, domain: isl.Set, d: int) -> int | None:
    """How the last subscript moves when iterator ``d`` grows by one (None: not one
    constant)."""
    relation = access.relation.intersect_domain(domain)
    n = relation.dim(isl.dim_type.out)
    last = relation.project_out(isl.dim_type.out, 0, n - 1)
    k = domain.dim(isl.dim_type.set)
    names = [f"x{j}" for j in range(k)]
    moved = ", ".join(f"x{j} + 1" if j == d else f"x{j}" for j in range(k))
    name = domain.get_tuple_name()
    step = isl.Map(f"{{ {name}[{', '.join(names)}] -> {name}[{moved}] }}").align_params(
        relation.get_space())
    deltas = last.reverse().apply_range(step.apply_range(last)).deltas()
    if deltas.is_empty() or not deltas.is_singleton():
        return None
    return deltas.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
