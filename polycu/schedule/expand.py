"""Scalar expansion: one cell of a temporary array per live range of a scalar.

In:  the SCoP and its ``Dependences``.
Out: ``Expanded`` (a new ``Scop`` and its dependences) or ``None`` when no scalar
     can be expanded.

ludcmp accumulates every ``A[i][j]`` of its LU factorisation in one scalar ``w``:
``w = A[i][j]; for k: w -= A[i][k] * A[k][j]; A[i][j] = w / A[j][j]``.  The anti
and output dependences on ``w`` order every ``(i, j)`` after the previous one, so
no schedule may run the ``k`` loop outermost (right-looking LU, what makes ``lu``
parallel); privatisation (gpu/mapping.py) cannot help since the whole triangular
solve of a row would have to run in one thread.  With ``w`` replaced by
``w_x0[i][j]`` those dependences vanish and the scheduler finds ``lu``'s schedule.

Mathematics.  Let X be a privatisation candidate (a scalar dead after the SCoP)
whose every read has a source inside the SCoP, and ``F_X`` its flow dependences
(each a live range ``write -> read``).  The statements accessing X are grouped
into the connected components of ``F_X``; in a component ``C`` let ``d`` be the
largest depth such that every pair of ``F_X`` within ``C`` has equal first ``d``
iterators, ``x_s[0..d) = x_t[0..d)``: each live range lies within one iteration of
those ``d`` loops (``d`` at most the largest rank of the SCoP's arrays, so that the
temporary grows no faster than the program's own data).  When ``d > 0``, the
first ``d`` iterators are non-negative on the component's domains, and each has
an affine maximum, X is replaced in ``C`` by a new local array
``X_xN[x_0]..[x_{d-1}]`` (extents ``max + 1``).  The
transformation is proven, not assumed: the expanded SCoP's flow dependences must
equal the original ones, instance pair for instance pair (so every read still
gets the value of the same write), else nothing is expanded.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import islpy as isl
import networkx as nx
from pycparser import c_ast, c_generator

from ..deps import Dependences, compute_dependences
from ..model import Access, Array, Scop, Statement, maps_of


@dataclass(frozen=True, eq=False)
class Expanded:
    """The SCoP with some scalars expanded, its dependences, and what was done."""

    scop: Scop
    deps: Dependences
    arrays: tuple[str, ...]          # the new arrays, e.g. ('w_x0', 'w_x1')


def _components(scop: Scop, name: str, flow: isl.UnionMap) -> list[set[str]]:
    """Statements accessing scalar ``name``, grouped by its flow dependences."""
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
            equal = m
            for k in range(d + 1):
                equal = equal.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
            if not m.is_subset(equal):
                return d
        d += 1
    return d


def _affine_c(pwaff: isl.PwAff, context: isl.Set) -> str | None:
    """C text of a one-piece affine function of the parameters, else None."""
    pieces: list[tuple[isl.Set, isl.Aff]] = []
    pwaff.gist_params(context).coalesce().foreach_piece(lambda s, a: pieces.append((s, a)))
    if len(pieces) != 1:
        return None
    aff = pieces[0][1]
    if not aff.get_denominator_val().is_one():
        return None
    terms = []
    for k in range(aff.dim(isl.dim_type.param)):
        coefficient = aff.get_coefficient_val(isl.dim_type.param, k).to_python()
        if coefficient:
            name = aff.get_dim_name(isl.dim_type.param, k)
            terms.append(name if coefficient == 1 else f"{coefficient} * {name}")
    constant = aff.get_constant_val().to_python()
    if constant or not terms:
        terms.append(str(constant))
    return " + ".join(terms).replace("+ -", "- ")


def _extents(scop: Scop, statements: list[Statement], d: int) -> tuple[str, ...] | None:
    """``max x_k + 1`` over the statements' domains for k < d, as C text, when every
    x_k is non-negative and the maxima are affine; else None."""
    extents = []
    for k in range(d):
        top: isl.PwAff | None = None
        for s in statements:
            domain = s.domain.intersect_params(scop.context)
            if domain.is_empty():
                continue
            if not domain.lower_bound_val(isl.dim_type.set, k, isl.Val(0)).is_equal(domain):
                return None
            high = domain.dim_max(k)
            top = high if top is None else top.max(high)
        if top is None:
            return None
        text = _affine_c(top.add(isl.PwAff.val_on_domain(
            isl.Set.universe(top.get_domain_space()), isl.Val(1))), scop.context)
        if text is None:
            return None
        extents.append(text)
    return tuple(extents)


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


def _rewrite(statement: Statement, scalar: str, array: Array, d: int) -> Statement:
    """``statement`` with every access to ``scalar`` made to ``array[x_0]..[x_{d-1}]``."""
    memo: dict[int, object] = {}
    body = copy.deepcopy(statement.body, memo)
    holder = c_ast.Compound([body])  # so that the body itself can be replaced too
    parents = _parents(holder)
    accesses = []
    refs: dict[int, c_ast.Node] = {}   # a compound update reads and writes one node
    for access in statement.accesses:
        node = memo.get(id(access.node), access.node)
        if access.array == scalar:
            if id(node) not in refs:
                ref: c_ast.Node = c_ast.ID(array.name)
                for k in range(d):
                    ref = c_ast.ArrayRef(ref, c_ast.ID(statement.iterators[k]))
                if not _replace(parents[id(node)], node, ref):
                    raise AssertionError(f"no parent holds the access to {scalar} in "
                                         f"{statement.text}")
                refs[id(node)] = ref
            ref = refs[id(node)]
            space = statement.domain.get_space()
            cells = ", ".join(statement.iterators[:d])
            relation = isl.Map(f"{{ {statement.name}[{', '.join(statement.iterators)}] -> "
                               f"{array.name}[{cells}] }}").align_params(space)
            access = replace(access, array=array.name, relation=relation, node=ref)
        else:
            access = replace(access, node=node)
        accesses.append(access)
    body = holder.block_items[0]
    reduction_array = array.name if statement.reduction_array == scalar \
        else statement.reduction_array
    return replace(statement, body=body, accesses=tuple(accesses),
                   text=c_generator.CGenerator().visit(body),
                   reduction_array=reduction_array)


def _fresh(stem: str, taken: set[str]) -> str:
    """``stem_xN`` with the smallest N not in ``taken`` (then taken)."""
    n = 0
    while f"{stem}_x{n}" in taken:
        n += 1
    name = f"{stem}_x{n}"
    taken.add(name)
    return name


def expand_scalars(scop: Scop, deps: Dependences) -> Expanded | None:
    """The SCoP with every expandable scalar component expanded (module docstring)."""
    taken = {a.name for a in scop.arrays} | set(scop.parameters) \
        | {it for s in scop.statements for it in s.iterators}
    statements = {s.name: s for s in scop.statements}
    arrays = list(scop.arrays)
    created = []
    # A temporary never has more dimensions than the SCoP's own arrays: its memory
    # then grows no faster than the data the program already holds.
    rank = max((a.rank for a in scop.arrays), default=0)
    for name, scalar in sorted(deps.scalars.items()):
        if not scalar.uninitialised.is_empty():
            continue
        for component in sorted(_components(scop, name, scalar.flow), key=sorted):
            members = [statements[s] for s in sorted(component)]
            depth = min(s.domain.dim(isl.dim_type.set) for s in members)
            inside = scalar.flow.intersect_domain(_domains(members)).intersect_range(
                _domains(members))
            d = min(_common_depth(inside, depth), rank)
            extents = _extents(scop, members, d) if d else None
            if not extents:
                continue
            original = scop.array(name)
            new_name = _fresh(name, taken)
            array = Array(new_name, original.element_type, extents,
                          _extent_set(scop, new_name, extents), original.location,
                          local=True, dead_after=True)
            arrays.append(array)
            created.append(array.name)
            for s in members:
                statements[s.name] = _rewrite(statements[s.name], name, array, d)
    if not created:
        return None
    expanded = replace(scop, arrays=tuple(arrays),
                       statements=tuple(statements[s.name] for s in scop.statements))
    expanded_deps = compute_dependences(expanded)
    if not expanded_deps.flow.is_equal(deps.flow):
        return None  # the proof failed: some read would see another write
    return Expanded(expanded, expanded_deps, tuple(created))


def _domains(statements: list[Statement]) -> isl.UnionSet:
    result = isl.UnionSet.from_set(statements[0].domain)
    for s in statements[1:]:
        result = result.union(isl.UnionSet.from_set(s.domain))
    return result


def _extent_set(scop: Scop, name: str, extents: tuple[str, ...]) -> isl.Set:
    """``{ X[a] : 0 <= a_k < extent_k }`` in the SCoP's parameter space."""
    cells = ", ".join(f"a{k}" for k in range(len(extents)))
    bounds = " and ".join(f"0 <= a{k} < {e}" for k, e in enumerate(extents))
    params = ", ".join(scop.parameters)
    return isl.Set(f"[{params}] -> {{ {name}[{cells}] : {bounds} }}")
