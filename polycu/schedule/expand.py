"""Expansion: one copy of a temporary scalar or array per live range.

In:  the SCoP and its ``Dependences``.
Out: ``Expanded`` (a new ``Scop`` and its dependences) or ``None`` when nothing
     can be expanded.

ludcmp accumulates every ``A[i][j]`` of its LU factorisation in one scalar ``w``:
``w = A[i][j]; for k: w -= A[i][k] * A[k][j]; A[i][j] = w / A[j][j]``.  The anti
and output dependences on ``w`` order every ``(i, j)`` after the previous one, so
no schedule may run the ``k`` loop outermost (right-looking LU, what makes ``lu``
parallel); privatisation (gpu/mapping.py) cannot help since the whole triangular
solve of a row would have to run in one thread.  With ``w`` replaced by
``w_x0[i][j]`` those dependences vanish and the scheduler finds ``lu``'s schedule.
doitgen's array ``sum[p]``, rewritten for every ``(r, q)``, serialises both loops
the same way; ``sum_x0[r][q][p]`` frees them.

Mathematics.  Let X be a scalar or array of rank ``m`` written in the SCoP whose
every read has a source inside it, and ``F_X`` its flow dependences (each a live
range ``write -> read``).  The statements accessing X are grouped into the
connected components of ``F_X``; in a component ``C`` let ``d`` be the largest
depth such that every pair of ``F_X`` within ``C`` has equal first ``d`` iterators,
``x_s[0..d) = x_t[0..d)``: each live range lies within one iteration of those
``d`` loops (``d + m`` at most the largest rank of the SCoP's arrays, so that the
temporary grows no faster than the program's own data).  When ``d > 0`` and some
false dependence of X joins two iterations of those loops (``_removes_order``),
``X[f]`` is replaced in ``C`` by ``X_xN[x_0 - o_0]..[x_{d-1} - o_{d-1}][f]`` in a new
local array (its cells: cells.py).  When the program may read X after the SCoP,
a statement run after it copies each element's final value back (copyout.py).

The transformation is proven, not assumed: the expanded SCoP's flow dependences
into the original statements must equal the original ones, instance pair for
instance pair (every read still gets the value of the same write), and each
copy must take its element from the original last write of it, else nothing is
expanded.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import Callable

import islpy as isl
import networkx as nx
from pycparser import c_ast

from ..deps import (ArrayDependences, Dependences, array_dependences, compute_dependences,
                    universes)
from ..diagnostics import Reporter
from ..frontend.conditions import body_text
from ..model import MAY_WRITE, Access, Array, Scop, Statement, equal_prefix, maps_of
from .cells import c_expression, cells_of
from .copyout import Copy, copy_out
from .snapshot import copy_in, snapshots


@dataclass(frozen=True, eq=False)
class Expanded:
    """The SCoP with some temporaries expanded (and reads served by snapshots), its
    dependences, and the new arrays."""

    scop: Scop
    deps: Dependences
    arrays: tuple[str, ...]          # the new arrays, e.g. ('w_x0', 'w_x1')


def _components(scop: Scop, name: str, flow: isl.UnionMap) -> list[set[str]]:
    """Statements accessing ``name``, grouped by its flow dependences."""
    graph = nx.Graph()
    graph.add_nodes_from(s.name for s in scop.statements
                         if any(a.array == name for a in s.accesses))
    for m in maps_of(flow):
        graph.add_edge(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))
    return [set(c) for c in nx.connected_components(graph)]


def _common_depth(flow: isl.UnionMap, depth: int) -> int:
    """The largest d <= depth with x_s[0..d) = x_t[0..d) on every pair of ``flow``."""
    d = 0
    while d < depth:
        for m in maps_of(flow):
            if not m.is_subset(equal_prefix(m, d + 1)):
                return d
        d += 1
    return d


def _replace(parent: c_ast.Node, old: c_ast.Node, new: c_ast.Node) -> bool:
    """Replace child ``old`` of ``parent`` (compared by identity) by ``new``."""
    for field_name in parent.__slots__:
        value = getattr(parent, field_name, None)
        if value is old:
            setattr(parent, field_name, new)
            return True
        if isinstance(value, list):
            for k, item in enumerate(value):
                if item is old:
                    value[k] = new
                    return True
    return False


def _parents(root: c_ast.Node) -> dict[int, c_ast.Node]:
    found: dict[int, c_ast.Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for _, child in node.children():
            found[id(child)] = node
            stack.append(child)
    return found


def _rewrite(statement: Statement, moved: Callable[[Access], bool], array: Array,
             subscripts: list[str]) -> Statement:
    """``statement`` with every ``moved`` access ``X[f]`` made to
    ``array[s_0]..[s_{d-1}][f]`` (``subscripts``: C text, also isl syntax)."""
    memo: dict[int, object] = {}
    body = copy.deepcopy(statement.body, memo)
    holder = c_ast.Compound([body])  # so that the body itself can be replaced too
    parents = _parents(holder)
    space = statement.domain.get_space()
    cell = isl.Map(f"[{', '.join(space.get_var_names(isl.dim_type.param))}] -> "
                   f"{{ {statement.name}[{', '.join(statement.iterators)}] -> "
                   f"[{', '.join(subscripts)}] }}").align_params(space)
    accesses = []
    refs: dict[int, c_ast.Node] = {}   # a compound update reads and writes one node
    for access in statement.accesses:
        node = memo.get(id(access.node), access.node)
        if moved(access):
            if id(node) not in refs:
                refs[id(node)] = _prefixed(node, parents, array.name, subscripts)
            relation = cell.range_product(access.relation).flatten_range() \
                .set_tuple_name(isl.dim_type.out, array.name)
            access = replace(access, array=array.name, relation=relation, node=refs[id(node)])
        else:
            access = replace(access, node=node)
        accesses.append(access)
    body = holder.block_items[0]
    reduction_array = array.name if any(moved(a) and a.array == statement.reduction_array
                                        for a in statement.accesses) \
        else statement.reduction_array
    return replace(statement, body=body, accesses=tuple(accesses),
                   text=body_text(body),
                   reduction_array=reduction_array)


def _prefixed(node: c_ast.Node, parents: dict[int, c_ast.Node], name: str,
              subscripts: list[str]) -> c_ast.Node:
    """The reference ``node`` (``X`` or ``X[f]..``) made to ``name[s_0]..[s_{d-1}][f]..``
    in its statement; returns the node that now makes the reference."""
    prefix: c_ast.Node = c_ast.ID(name)
    for subscript in subscripts:
        prefix = c_ast.ArrayRef(prefix, c_expression(subscript))
    if isinstance(node, c_ast.ID):
        if not _replace(parents[id(node)], node, prefix):
            raise AssertionError(f"no parent holds the reference to {node.name}")
        return prefix
    innermost = node
    while isinstance(innermost.name, c_ast.ArrayRef):
        innermost = innermost.name
    innermost.name = prefix
    return node


def _shifted(iterator: str, offset: str) -> str:
    """``x - o`` as C text (also isl syntax)."""
    if offset == "0":
        return iterator
    if re.fullmatch(r"-\d+", offset):
        return f"{iterator} + {offset[1:]}"
    return f"{iterator} - ({offset})" if " " in offset else f"{iterator} - {offset}"


def _fresh_names(stem: str, count: int, taken: set[str]) -> list[str]:
    """``count`` names ``stemN`` not in ``taken`` (then taken), N from 0 up."""
    names, n = [], 0
    while len(names) < count:
        if f"{stem}{n}" not in taken:
            names.append(f"{stem}{n}")
            taken.add(names[-1])
        n += 1
    return names


# Expanding X by the first d loops removes the false dependences of X that join two
# iterations of those loops or leave the component: F_X minus the pairs inside C with
# x_s[0..d) = x_t[0..d) must not be empty, else expansion only costs memory.
def _removes_order(false: isl.UnionMap, members: isl.UnionSet, d: int) -> bool:
    """Whether expanding by the first ``d`` loops removes some false dependence."""
    touching = false.intersect_domain(members).union(false.intersect_range(members))
    kept = isl.UnionMap.empty(false.get_space())
    for m in maps_of(false.intersect_domain(members).intersect_range(members)):
        kept = kept.union(isl.UnionMap.from_map(equal_prefix(m, d)))
    return not touching.subtract(kept).is_empty()


def _candidates(scop: Scop, deps: Dependences, rank: int) -> list[tuple[Array,
                                                                         ArrayDependences]]:
    """The arrays that expansion may help, with their own dependences: written in the
    SCoP, every read of them sourced in it, and of rank below the SCoP's largest."""
    written = {a.array for s in scop.statements for a in s.writes}
    found = []
    for array in sorted(scop.arrays, key=lambda a: a.name):
        if array.name not in written or array.rank >= rank:
            continue
        own = deps.scalars.get(array.name) or array_dependences(scop, array.name)
        if own.uninitialised.is_empty() and not own.flow.is_empty():
            found.append((array, own))
    return found


def _copyable(scop: Scop, array: Array, components: list[set[str]]) -> str | None:
    """Why the final values of ``array`` cannot be copied out of a temporary, if so."""
    if len(components) != 1:
        return "its values flow along separate chains of statements"
    if any(a.kind == MAY_WRITE for s in scop.statements for a in s.accesses
           if a.array == array.name):
        return "some of its writes may not happen"
    if None in array.extents:
        return "the size of its first dimension is not known"
    return None


class _Rewriting:
    """The SCoP being rewritten: its statements, arrays and copies so far."""

    def __init__(self, scop: Scop) -> None:
        self.scop = scop
        self.taken = {a.name for a in scop.arrays} | set(scop.parameters) \
            | {it for s in scop.statements for it in s.iterators}
        self.statement_names = {s.name for s in scop.statements}
        self.statements = {s.name: s for s in scop.statements}
        self.arrays = list(scop.arrays)
        self.created: list[str] = []
        self.copies_in: list[Copy] = []
        self.copies_out: list[Copy] = []

    def add(self, array: Array) -> None:
        self.arrays.append(array)
        self.created.append(array.name)

    def rewrite(self, names: list[str], moved: Callable[[Access], bool], array: Array,
                subscripts: Callable[[Statement], list[str]]) -> None:
        for name in names:
            statement = self.statements[name]
            self.statements[name] = _rewrite(statement, moved, array, subscripts(statement))

    def result(self) -> Scop:
        schedule = self.scop.schedule
        for first in self.copies_in:
            schedule = first.schedule.sequence(schedule)
        for last in self.copies_out:
            schedule = schedule.sequence(last.schedule)
        statements = tuple(c.statement for c in self.copies_in) \
            + tuple(self.statements[s.name] for s in self.scop.statements) \
            + tuple(c.statement for c in self.copies_out)
        return replace(self.scop, arrays=tuple(self.arrays), schedule=schedule,
                       statements=statements)


def _expand(work: _Rewriting, deps: Dependences, reporter: Reporter) -> None:
    """Expand every expandable component of a scalar or array (module docstring)."""
    scop = work.scop
    # A temporary never has more dimensions than the SCoP's own arrays: its memory
    # then grows no faster than the data the program already holds.
    rank = max((a.rank for a in scop.arrays), default=0)
    for original, own in _candidates(scop, deps, rank):
        name = original.name
        components = sorted(_components(scop, name, own.flow), key=sorted)
        live = not original.dead_after
        for component in components:
            members = [work.statements[s] for s in sorted(component)]
            depth = min(s.domain.dim(isl.dim_type.set) for s in members)
            inside = own.flow.intersect_domain(_domains(members)).intersect_range(
                _domains(members))
            d = min(_common_depth(inside, depth), rank - original.rank)
            if not d or not _removes_order(own.false, _domains(members), d):
                continue
            where = original.location or scop.location
            what = f"{'scalar' if original.is_scalar else 'array'} '{name}'"
            why = _copyable(scop, original, components) if live else None
            cells = cells_of(scop, members, d) if why is None else why
            if isinstance(cells, str):
                reporter.note(f"{what} is not expanded in "
                              f"{', '.join(s.name for s in members)}: {cells}", where)
                continue
            array = Array(_fresh_names(f"{name}_x", 1, work.taken)[0], original.element_type,
                          cells.extents + original.extents, None, original.location,
                          local=True, dead_after=True)
            if live:
                back = copy_out(scop, original, array, cells, deps.live_out.intersect_range(
                    universes(scop, [name])), _fresh_names("S", 1, work.statement_names)[0],
                    _fresh_names("c", original.rank, work.taken))
                if isinstance(back, str):
                    reporter.note(f"{what} is not expanded: {back}", where)
                    continue
                work.copies_out.append(back)
            work.add(array)
            work.rewrite(sorted(component), lambda a, x=name: a.array == x, array,
                         lambda s, o=cells.offsets: [_shifted(it, off)
                                                     for it, off in zip(s.iterators, o)])


def _snapshot(work: _Rewriting) -> None:
    """Serve the reads of values from before the SCoP from copies (snapshot.py)."""
    scop = work.scop
    for snap in snapshots(scop):
        original = snap.array
        array = Array(_fresh_names(f"{original.name}_in", 1, work.taken)[0],
                      original.element_type,
                      (None,) + original.extents[1:], None, original.location,
                      local=True, dead_after=True)
        work.copies_in.append(copy_in(scop, snap, array,
                                      _fresh_names("S", 1, work.statement_names)[0],
                                      _fresh_names("c", original.rank, work.taken)))
        work.add(array)
        users = sorted(s.name for s in scop.statements
                       if any(a.ref in snap.refs for a in s.accesses))
        work.rewrite(users, lambda a, refs=snap.refs: a.ref in refs, array, lambda s: [])


def expand_temporaries(scop: Scop, deps: Dependences, reporter: Reporter | None = None,
                       snapshot: bool = False) -> Expanded | None:
    """The SCoP with every expandable component of a scalar or array expanded and,
    with ``snapshot``, the reads of values from before it served by copies (module
    docstring); ``reporter`` hears why a temporary whose live ranges stay inside
    loop iterations is not expanded."""
    reporter = reporter or Reporter()
    work = _Rewriting(scop)
    _expand(work, deps, reporter)
    if snapshot:
        _snapshot(work)
    if not work.created:
        return None
    expanded = work.result()
    expanded_deps = compute_dependences(expanded)
    if not _same_values(expanded, deps, expanded_deps, work.copies_in, work.copies_out):
        reporter.note(f"nothing of SCoP '{scop.name}' is expanded: with "
                      f"{', '.join(work.created)} some read would not get the value of "
                      "the same write", scop.location)
        return None
    return Expanded(expanded, expanded_deps, tuple(work.created))


def _domain_of(copies: list[Copy]) -> isl.UnionSet:
    result = isl.UnionSet("{ }")
    for c in copies:
        result = result.union(isl.UnionSet.from_set(c.statement.domain))
    return result


# The proof.  F, L: the original flow and live-out writes; F': the expanded flow.
# Every original read keeps its sources: F' without the pairs out of copy-ins and
# into copy-outs is F.  A copy-in C_in: X_in[c] = X[c] reads before everything
# (nothing flows into it) and feeds exactly the moved reads of its elements:
# (C_in -> X_in) ∘ F'(C_in ->)⁻¹ = ⋃ M (each moved read S[i] -> X_in[f(i)]).  A
# copy-out C: X[c] = X_x[..] takes element c's value from X's last writer:
# F'(-> C) ∘ (C -> X) = L_X.
def _same_values(scop: Scop, deps: Dependences, expanded: Dependences,
                 copies_in: list[Copy], copies_out: list[Copy]) -> bool:
    """Whether the expanded SCoP computes every value, and leaves every element after
    it, as the original does."""
    ins, outs = _domain_of(copies_in), _domain_of(copies_out)
    if not expanded.flow.subtract_domain(ins).subtract_range(outs).is_equal(deps.flow) \
            or not expanded.flow.intersect_range(ins).is_empty():
        return False
    for first in copies_in:
        (write,) = first.statement.writes
        fed = expanded.flow.intersect_domain(isl.UnionSet.from_set(first.statement.domain))
        moved = isl.UnionMap.empty(fed.get_space())
        for s in scop.statements:
            for a in s.reads:
                if a.array == write.array:
                    moved = moved.union(isl.UnionMap.from_map(
                        a.relation.intersect_domain(s.domain)))
        served = isl.UnionMap.from_map(write.relation).apply_range(moved.reverse())
        if not fed.is_equal(served.intersect_params(scop.context)):
            return False
    for last in copies_out:
        (write,) = last.statement.writes
        into = expanded.flow.intersect_range(isl.UnionSet.from_set(last.statement.domain))
        final = deps.live_out.intersect_range(universes(scop, [write.array]))
        if not into.apply_range(isl.UnionMap.from_map(write.relation)).is_equal(final):
            return False
    return True


def _domains(statements: list[Statement]) -> isl.UnionSet:
    result = isl.UnionSet.from_set(statements[0].domain)
    for s in statements[1:]:
        result = result.union(isl.UnionSet.from_set(s.domain))
    return result
