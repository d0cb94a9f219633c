"""Relayout: an array stored along another integer basis, so that the threads of a
warp touch consecutive elements where, in C's layout, each touches its own row.

In:  the SCoP, its ``Dependences`` and, per array, the direction ``d`` in which its
     index moves from one thread to the next (gpu/layout.py finds it).
Out: ``Relayout`` (the new ``Scop``, its dependences and the new arrays) or None.

seidel-2d's wavefront ``4t + 2i + j`` runs, in one launch, the points ``(t, i, j)``
with ``j = c - 4t - 2i``: the next thread along ``i`` reads ``A[i + 1][j - 2]``, one
row further, so a warp's loads touch 32 rows.  No legal wavefront does better: any
hyperplane of seidel's dependences fixes ``j`` once ``t`` and ``i`` are fixed.
Stored as ``A'[2i + j][i]``, the same points are ``A'[c - 4t][i]``: consecutive.

Mathematics.  Let A be an array of rank r >= 2 every reference of which is an
affine function ``f`` of its statement's iterators, inside A's declared box E, and
``d`` in Z^r primitive (gcd 1).  Row operations of Euclid's algorithm on ``d``
give a unimodular U (integer, determinant +-1) with ``U d = e_r``, the last unit
vector.  With ``o`` the lowest corner of the box of ``U E`` and ``A'`` an array of
that box's extents, ``x -> U x - o`` is a bijection of Z^r, so the references
``A'[U f(i) - o]`` touch the same element exactly when the references ``A[f(i)]``
did: among the SCoP's own statements the dependences do not change, and a warp
whose index moves by ``d`` now moves by ``e_r``.  A copy ``A'[U x - o] = A[x]``
runs before the SCoP for each ``x`` whose value from before it is read (the
live-in reads), a copy ``A[x] = A'[U x - o]`` after it for each ``x`` the SCoP
writes last (the live-out writes).  The result is proven like an expansion: the
flow between the SCoP's statements is the original one, pair for pair, nothing
flows into the copy-in, the copy-in feeds exactly the live-in reads and the
copy-out takes each element from its original last writer.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast, c_generator

from ..deps import Dependences, compute_dependences, universes
from ..frontend.conditions import body_text
from ..model import READ, WRITE, Access, Array, Scop, Statement, sets_of
from .copyout import Copy, _affine_text, _ref
from .expand import _domain_of, _fresh_names, _parents, _replace


@dataclass(frozen=True, eq=False)
class Relayout:
    """The SCoP with some arrays stored along another basis, and its dependences."""

    scop: Scop
    deps: Dependences
    arrays: tuple[str, ...]          # the new arrays, e.g. ('A_L',)


def unimodular(d: tuple[int, ...]) -> tuple[tuple[int, ...], ...] | None:
    """An integer matrix U of determinant +-1 with ``U d = e_r``, or None when the
    entries of ``d`` have a common divisor other than 1."""
    r = len(d)
    if r == 0 or math.gcd(*d) != 1:
        return None
    u = [[int(k == l) for l in range(r)] for k in range(r)]
    v = list(d)
    while sum(1 for x in v if x) > 1:
        p = min((k for k in range(r) if v[k]), key=lambda k: abs(v[k]))
        for q in range(r):
            if q != p and v[q]:
                m = v[q] // v[p]
                v[q] -= m * v[p]
                u[q] = [a - m * b for a, b in zip(u[q], u[p])]
    (p,) = [k for k in range(r) if v[k]]
    if v[p] < 0:
        u[p] = [-a for a in u[p]]
    u[p], u[r - 1] = u[r - 1], u[p]
    return tuple(tuple(row) for row in u)


def _rows(u: tuple[tuple[int, ...], ...], names: list[str]) -> list[str]:
    """The rows of ``U x`` as isl text over ``names``."""
    return [" + ".join(f"{c} * {n}" for c, n in zip(row, names) if c) or "0" for row in u]


def _single(pwaff: isl.PwAff) -> isl.Aff | None:
    pieces: list[isl.Aff] = []
    pwaff.coalesce().foreach_piece(lambda _s, aff: pieces.append(aff))
    return pieces[0] if len(pieces) == 1 else None


def _footprint(scop: Scop, name: str) -> isl.Set | None:
    """The elements of array ``name`` the SCoP touches (None: none)."""
    touched = isl.UnionSet.empty(scop.context.get_space())
    for statement in scop.statements:
        for access in statement.accesses:
            if access.array == name:
                touched = touched.union(isl.UnionSet.from_set(
                    access.relation.intersect_domain(statement.domain).range()))
    sets = sets_of(touched.intersect_params(scop.context).coalesce())
    return sets[0] if sets else None


# The box of U F (F the footprint): o_k = min_F (U x)_k and n_k = max_F (U x)_k -
# o_k + 1, each one affine expression of the parameters where F is not empty; the
# outermost extent stays open (the host code sizes it from the accesses, as for a
# pointer), so that no parameter value allocates a negative size.
def _layout(scop: Scop, array: Array, u: tuple[tuple[int, ...], ...], name: str
            ) -> tuple[isl.Map, tuple[str | None, ...]] | None:
    """``{ A[x] -> A'[U x - o] }`` and the extents of ``A'`` (C text), or None when
    the box of ``U F`` has no single affine corner."""
    footprint = _footprint(scop, array.name)
    if footprint is None:
        return None
    names = [f"x{k}" for k in range(array.rank)]
    params = f"[{', '.join(scop.parameters)}] -> "
    turn = isl.Map(f"{params}{{ {array.name}[{', '.join(names)}] -> "
                   f"[{', '.join(_rows(u, names))}] }}").align_params(footprint.get_space())
    image = footprint.apply(turn)
    lows: list[str] = []
    extents: list[str | None] = [None]
    for k in range(array.rank):
        low, high = _single(image.dim_min(k)), _single(image.dim_max(k))
        if low is None or high is None:
            return None
        low_text = _affine_text(low, [])
        extent_text = _affine_text(high.sub(low).add_constant_val(isl.Val(1)), [])
        if low_text is None or extent_text is None:
            return None
        lows.append(low_text)
        if k:
            extents.append(extent_text)
    rows = [f"{row} - ({low})" for row, low in zip(_rows(u, names), lows)]
    layout = isl.Map(f"{params}{{ {array.name}[{', '.join(names)}] -> "
                     f"{name}[{', '.join(rows)}] }}").align_params(scop.context.get_space())
    return layout, tuple(extents)


def _subscripts(relation: isl.Map, iterators: tuple[str, ...]) -> list[str] | None:
    """The indices of the function ``relation`` as C text over ``iterators``."""
    function = isl.PwMultiAff.from_map(relation)
    texts = []
    for k in range(function.dim(isl.dim_type.out)):
        aff = _single(function.get_at(k))
        text = _affine_text(aff, list(iterators)) if aff is not None else None
        if text is None:
            return None
        texts.append(text)
    return texts


def _moved(statement: Statement, array: Array, layout: isl.Map, name: str
           ) -> Statement | None:
    """``statement`` with each reference ``A[f]`` made to ``A'[U f - o]``."""
    memo: dict[int, object] = {}
    body = copy.deepcopy(statement.body, memo)
    holder = c_ast.Compound([body])
    parents = _parents(holder)
    accesses = []
    refs: dict[int, c_ast.Node] = {}
    for access in statement.accesses:
        node = memo.get(id(access.node), access.node)
        if access.array != array.name:
            accesses.append(replace(access, node=node))
            continue
        relation = access.relation.apply_range(layout.align_params(access.relation.get_space()))
        if id(node) not in refs:
            subscripts = _subscripts(relation, statement.iterators)
            if subscripts is None or not isinstance(node, c_ast.ArrayRef):
                return None
            refs[id(node)] = _ref(name, subscripts)
            if not _replace(parents[id(node)], node, refs[id(node)]):
                return None
        accesses.append(replace(access, array=name, relation=relation, node=refs[id(node)]))
    body = holder.block_items[0]
    reduction_array = name if statement.reduction_array == array.name \
        else statement.reduction_array
    return replace(statement, body=body, accesses=tuple(accesses), text=body_text(body),
                   reduction_array=reduction_array)


def _copy(scop: Scop, elements: isl.Set, source: tuple[str, str], target: tuple[str, str],
          name: str, iterators: list[str], array: Array, index_type: str) -> Copy | None:
    """Statement ``name[c]: target[..] = source[..]`` over ``elements`` (sets of
    ``A[c]``), its iterators of type ``index_type``; each side is (array, isl text
    of its indices over ``c``)."""
    params = f"[{', '.join(scop.parameters)}] -> "
    tuple_ = f"{name}[{', '.join(iterators)}]"
    domain = elements.set_tuple_name(name)
    for k, iterator in enumerate(iterators):
        domain = domain.set_dim_name(isl.dim_type.set, k, iterator)
    space = domain.get_space()
    sides = []
    for array_name, indices in (source, target):
        relation = isl.Map(f"{params}{{ {tuple_} -> {array_name}[{indices}] }}") \
            .align_params(space).intersect_domain(domain)
        subscripts = _subscripts(relation, tuple(iterators))
        if subscripts is None:
            return None
        sides.append((array_name, relation, _ref(array_name, subscripts)))
    (read_array, read, read_node), (write_array, write, write_node) = sides
    body = c_ast.Assignment("=", write_node, read_node)
    accesses = (Access(read_array, READ, read, f"{name}.0", array.location, read_node),
                Access(write_array, WRITE, write, f"{name}.1", array.location, write_node))
    statement = Statement(name, domain, tuple(iterators), body, accesses,
                          c_generator.CGenerator().visit(body), array.location,
                          iterator_types=(index_type,) * len(iterators))
    band = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(
        isl.Map(f"{params}{{ {tuple_} -> [{', '.join(iterators)}] }}").align_params(space)))
    schedule = isl.Schedule.from_domain(isl.UnionSet.from_set(domain)) \
        .get_root().child(0).insert_partial_schedule(band).get_schedule()
    return Copy(statement, schedule)


def _affine_references(scop: Scop, array: Array) -> bool:
    """Whether every reference to ``array`` is one affine function (no struct field,
    no data-dependent loop, no may-write)."""
    if array.member is not None or array.struct is not None:
        return False
    return all(not statement.loop and access.kind in (READ, WRITE)
               and access.relation.is_single_valued()
               for statement in scop.statements for access in statement.accesses
               if access.array == array.name)


def _copies(scop: Scop, deps: Dependences, array: Array, layout: isl.Map, name: str,
            taken: set[str], statement_names: set[str]
            ) -> tuple[list[Copy], list[Copy]] | None:
    """The copy into ``name`` of ``array``'s live-in elements and the copy back of its
    live-out ones (each absent where there are none), or None when one cannot be
    written."""
    # not c0, c1, ...: the AST's own loop names, which would then all be renamed
    iterators = _fresh_names("x", array.rank, taken)
    indices = ", ".join(iterators)
    cells = ", ".join(_rows_of(layout, iterators))
    own = universes(scop, [array.name])
    made: tuple[list[Copy], list[Copy]] = ([], [])
    for into, relation, source, target in (
            (made[0], deps.live_in, (array.name, indices), (name, cells)),
            (made[1], deps.live_out, (name, cells), (array.name, indices))):
        if into is made[1] and array.dead_after:
            continue
        sets = sets_of(relation.intersect_range(own).range().intersect_params(scop.context))
        if not sets:
            continue
        (statement_name,) = _fresh_names("S", 1, statement_names)
        copy_ = _copy(scop, sets[0], source, target, statement_name, iterators, array,
                      _index_type(scop, array.name))
        if copy_ is None:
            return None
        into.append(copy_)
    return made


def relayout(scop: Scop, deps: Dependences, directions: dict[str, tuple[int, ...]]
             ) -> Relayout | None:
    """The SCoP with each array of ``directions`` stored along a basis in which its
    direction is the last unit vector (module docstring), or None when none can be."""
    taken = {a.name for a in scop.arrays} | set(scop.parameters) \
        | {it for s in scop.statements for it in s.iterators}
    statement_names = {s.name for s in scop.statements}
    statements = {s.name: s for s in scop.statements}
    arrays = list(scop.arrays)
    copies_in: list[Copy] = []
    copies_out: list[Copy] = []
    relaid: dict[str, str] = {}
    for array_name, d in sorted(directions.items()):
        array = scop.array(array_name)
        u = unimodular(d)
        if u is None or array.rank != len(d) or array.rank < 2 \
                or not _affine_references(scop, array):
            continue
        (name,) = _fresh_names(f"{array_name}_L", 1, taken)
        found = _layout(scop, array, u, name)
        if found is None:
            continue
        layout, extents = found
        moved: dict[str, Statement] = {}
        for s in statements.values():
            if any(a.array == array_name for a in s.accesses):
                rewritten = _moved(s, array, layout, name)
                if rewritten is None:
                    break
                moved[s.name] = rewritten
        else:
            copies = _copies(scop, deps, array, layout, name, taken, statement_names)
            if copies is None:
                continue
            statements.update(moved)
            arrays.append(Array(name, array.element_type, extents, None, array.location,
                                local=True, dead_after=True))
            relaid[array_name] = name
            copies_in += copies[0]
            copies_out += copies[1]
    if not relaid:
        return None
    schedule = scop.schedule
    for first in copies_in:
        schedule = first.schedule.sequence(schedule)
    for last in copies_out:
        schedule = schedule.sequence(last.schedule)
    result = replace(scop, arrays=tuple(arrays), schedule=schedule, statements=(
        *(c.statement for c in copies_in), *(statements[s.name] for s in scop.statements),
        *(c.statement for c in copies_out)))
    result_deps = compute_dependences(result)
    if not _same_values(scop, result, deps, result_deps, copies_in, copies_out, relaid):
        return None
    return Relayout(result, result_deps, tuple(relaid.values()))


# A copy's iterators run over the indices the statements compute: they take the
# type of those statements' iterators ("long" where the types differ), so that a
# SCoP of int loops keeps int arithmetic in its kernels.
def _index_type(scop: Scop, name: str) -> str:
    """The C type of the iterators of the statements that reference array ``name``."""
    types = {t for s in scop.statements if any(a.array == name for a in s.accesses)
             for t in (s.iterator_types or ("int",) * len(s.iterators))}
    return types.pop() if len(types) == 1 else "long"


def _rows_of(layout: isl.Map, iterators: list[str]) -> list[str]:
    """The indices of ``layout`` (``A[x] -> A'[U x - o]``) as isl text over ``iterators``."""
    texts = _subscripts(layout, tuple(iterators))
    assert texts is not None, "a layout is affine by construction"
    return texts


# F, I, L: the original flow, live-in reads and live-out writes; F', I': the new
# flow and live-in reads.  The statements' own values: F' without the pairs out of
# copy-ins and into copy-outs is F, nothing flows into a copy-in, and no read of a
# new array A' takes a value from before the SCoP (I' has none).  A copy-in C[x]:
# A'[..] = A[x] feeds exactly A's live-in reads: F'(C ->) = (C -> A) ∘ I_A⁻¹.  Each
# array whose values the program may read afterwards (L_A not empty, A not dead
# after) has a copy-out C[x]: A[x] = A'[..] taking element x from its last writer:
# F'(-> C) ∘ (C -> A) = L_A.
def _same_values(scop: Scop, result: Scop, deps: Dependences, new: Dependences,
                 copies_in: list[Copy], copies_out: list[Copy], relaid: dict[str, str]
                 ) -> bool:
    """Whether ``result``, ``scop`` with the arrays ``relaid`` (old name -> new name),
    computes what ``scop`` computes."""
    ins, outs = _domain_of(copies_in), _domain_of(copies_out)
    if not new.flow.subtract_domain(ins).subtract_range(outs).is_equal(deps.flow) \
            or not new.flow.intersect_range(ins).is_empty() \
            or not new.live_in.intersect_range(universes(result, relaid.values())).is_empty():
        return False
    for first in copies_in:
        (read,) = first.statement.reads
        fed = new.flow.intersect_domain(isl.UnionSet.from_set(first.statement.domain))
        live = deps.live_in.intersect_range(universes(scop, [read.array]))
        served = isl.UnionMap.from_map(read.relation).apply_range(live.reverse())
        if not fed.is_equal(served):
            return False
    back = {c.statement.writes[0].array: c for c in copies_out}
    for original in relaid:
        final = deps.live_out.intersect_range(universes(scop, [original]))
        last = back.get(original)
        if last is None:
            if not (scop.array(original).dead_after or final.is_empty()):
                return False
            continue
        into = new.flow.intersect_range(isl.UnionSet.from_set(last.statement.domain))
        if not into.apply_range(isl.UnionMap.from_map(last.statement.writes[0].relation)) \
                .is_equal(final):
            return False
    return True
