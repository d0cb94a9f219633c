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
temporary grows no faster than the program's own data).  When ``d > 0``, X is
replaced in ``C`` by a new local array ``X_xN[x_0 - o_0]..[x_{d-1} - o_{d-1}]``.

Cells.  Let ``I = { (x_0..x_{d-1}) }`` be the iterations of the first ``d`` loops
over the component's instances and ``P`` the parameter values for which ``I`` is
not empty (the component runs).  Each offset ``o_k`` is the exact minimum of
``x_k`` over ``I`` when that is one affine piece without division, else the
constant ``min`` of ``x_k`` over every parameter value, so indices start at 0 (a
loop with step s, or one that starts later for larger parameters, leaves unused
cells: correctness first).  The outermost extent is left to the code generator,
which sizes it from the footprint of the accesses, ``max(0, 1 + max index)``:
exact, divisions included, and 0 wherever the component does not run.  Each
inner extent is ``E_k = 1 + max_I x_k - o_k``, printed by isl's AST generator in
the context ``P`` as C with only ``+ - * / %`` (isl writes ``/`` and ``%`` only where
it proves the operands non-negative, so C and Python agree): ``E_k >= 1`` on ``P``
and the whole size is ``0 * ...`` elsewhere, hence never negative for any
parameter value.  When an offset or an inner extent has no such form the scalar
is not expanded (with a note).

The transformation is proven, not assumed: the expanded SCoP's flow dependences
must equal the original ones, instance pair for instance pair (so every read
still gets the value of the same write), else nothing is expanded.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace

import islpy as isl
import networkx as nx
from pycparser import c_ast, c_generator, c_parser

from ..deps import Dependences, compute_dependences
from ..diagnostics import Reporter
from ..model import Array, Scop, Statement, maps_of


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


@dataclass(frozen=True)
class Cells:
    """How a component's first ``d`` iterators index the temporary: ``offsets`` (C text,
    also isl syntax) and ``extents`` (C text; the outermost ``None``, from the footprint)."""

    offsets: tuple[str, ...]
    extents: tuple[str | None, ...]


# Only these characters, besides the parameters' names, may appear in the C text of
# an offset or extent: the code generator evaluates it in C and in Python.
_ARITHMETIC = re.compile(r"[\s\d+\-*/%()]*")


def _c_text(pwaff: isl.PwAff, where: isl.Set, parameters: tuple[str, ...]) -> str | None:
    """C text of ``pwaff`` valid wherever ``where`` holds, using only ``+ - * / %``
    on non-negative operands (isl's AST generator proves them), else None."""
    if pwaff.n_piece() != 1:
        return None
    text = isl.AstBuild.from_context(where).expr_from_pw_aff(pwaff).to_C_str()
    names = set(re.findall(r"[A-Za-z_]\w*", text))
    if not names <= set(parameters) or not _ARITHMETIC.fullmatch(re.sub(r"[A-Za-z_]\w*", "",
                                                                         text)):
        return None
    return text


def _offset(index: isl.Set, k: int, where: isl.Set,
            parameters: tuple[str, ...]) -> str | None:
    """``o_k``: the exact minimum of ``x_k`` over ``index`` when it is affine without
    division (isl syntax and C alike), else its least value for any parameter."""
    low = index.dim_min(k).gist_params(where).coalesce()
    pieces: list[isl.Aff] = []
    low.foreach_piece(lambda _s, aff: pieces.append(aff))
    if len(pieces) == 1 and pieces[0].dim(isl.dim_type.div) == 0 \
            and pieces[0].get_denominator_val().is_one():
        text = _c_text(low, where, parameters)
        if text is not None and "/" not in text and "%" not in text:
            return text
    least = index.dim_min_val(k)
    return str(least.to_python()) if least.is_int() else None


# I = the first d iterators of the component's instances, P = params(I);
# o_k = min x_k over I (or over every parameter value), E_k = 1 + max x_k - o_k (k > 0).
def _cells(scop: Scop, statements: list[Statement], d: int) -> Cells | str:
    """The offsets and extents of the component's temporary (module docstring), or
    why there are none."""
    index = None
    for s in statements:
        iterators = ", ".join(s.iterators)
        first = isl.Map(f"{{ {s.name}[{iterators}] -> [{', '.join(s.iterators[:d])}] }}")
        part = s.domain.intersect_params(scop.context).apply(first.align_params(
            s.domain.get_space()))
        index = part if index is None else index.union(part)
    assert index is not None
    where = index.params().coalesce()
    if where.is_empty():
        return "its statements never run"
    offsets, extents = [], [None]
    for k in range(d):
        offset = _offset(index, k, where, scop.parameters)
        if offset is None:
            return f"the least value of its loop iterator {statements[0].iterators[k]} " \
                   "is not an affine expression of the parameters"
        offsets.append(offset)
        if k == 0:
            continue
        shift = isl.PwAff(f"[{', '.join(scop.parameters)}] -> {{ [({offset})] }}")
        size = index.dim_max(k).sub(shift.align_params(where.get_space())) \
            .add_constant_val(isl.Val(1)).intersect_params(where).coalesce()
        extent = _c_text(size, where, scop.parameters)
        if extent is None:
            return f"the extent of dimension {k + 1} ({size}) has no C form exact for " \
                   "every parameter value"
        extents.append(extent)
    return Cells(tuple(offsets), tuple(extents))


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


def _rewrite(statement: Statement, scalar: str, array: Array, cells: Cells) -> Statement:
    """``statement`` with every access to ``scalar`` made to
    ``array[x_0 - o_0]..[x_{d-1} - o_{d-1}]``."""
    memo: dict[int, object] = {}
    body = copy.deepcopy(statement.body, memo)
    holder = c_ast.Compound([body])  # so that the body itself can be replaced too
    parents = _parents(holder)
    subscripts = [_shifted(it, o) for it, o in zip(statement.iterators, cells.offsets)]
    accesses = []
    refs: dict[int, c_ast.Node] = {}   # a compound update reads and writes one node
    for access in statement.accesses:
        node = memo.get(id(access.node), access.node)
        if access.array == scalar:
            if id(node) not in refs:
                ref: c_ast.Node = c_ast.ID(array.name)
                for subscript in subscripts:
                    ref = c_ast.ArrayRef(ref, _c_node(subscript))
                if not _replace(parents[id(node)], node, ref):
                    raise AssertionError(f"no parent holds the access to {scalar} in "
                                         f"{statement.text}")
                refs[id(node)] = ref
            ref = refs[id(node)]
            space = statement.domain.get_space()
            relation = isl.Map(f"[{', '.join(space.get_var_names(isl.dim_type.param))}] -> "
                               f"{{ {statement.name}[{', '.join(statement.iterators)}] -> "
                               f"{array.name}[{', '.join(subscripts)}] }}").align_params(space)
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


def _shifted(iterator: str, offset: str) -> str:
    """``x - o`` as C text (also isl syntax)."""
    if offset == "0":
        return iterator
    if re.fullmatch(r"-\d+", offset):
        return f"{iterator} + {offset[1:]}"
    return f"{iterator} - ({offset})" if " " in offset else f"{iterator} - {offset}"


def _c_node(text: str) -> c_ast.Node:
    """The C AST of an integer expression."""
    return c_parser.CParser().parse(f"int polycu_x = {text};").ext[0].init


def _fresh(stem: str, taken: set[str]) -> str:
    """``stem_xN`` with the smallest N not in ``taken`` (then taken)."""
    n = 0
    while f"{stem}_x{n}" in taken:
        n += 1
    name = f"{stem}_x{n}"
    taken.add(name)
    return name


def expand_scalars(scop: Scop, deps: Dependences,
                   reporter: Reporter | None = None) -> Expanded | None:
    """The SCoP with every expandable scalar component expanded (module docstring);
    ``reporter`` hears why a scalar that has per-iteration live ranges is not."""
    reporter = reporter or Reporter()
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
            if not d:
                continue
            cells = _cells(scop, members, d)
            if isinstance(cells, str):
                reporter.note(f"scalar '{name}' is not expanded in "
                              f"{', '.join(s.name for s in members)}: {cells}",
                              scop.array(name).location or scop.location)
                continue
            original = scop.array(name)
            new_name = _fresh(name, taken)
            array = Array(new_name, original.element_type, cells.extents, None,
                          original.location, local=True, dead_after=True)
            arrays.append(array)
            created.append(array.name)
            for s in members:
                statements[s.name] = _rewrite(statements[s.name], name, array, cells)
    if not created:
        return None
    expanded = replace(scop, arrays=tuple(arrays),
                       statements=tuple(statements[s.name] for s in scop.statements))
    expanded_deps = compute_dependences(expanded)
    if not expanded_deps.flow.is_equal(deps.flow):
        reporter.note(f"no scalar of SCoP '{scop.name}' is expanded: with "
                      f"{', '.join(created)} some read would not get the value of the "
                      "same write", scop.location)
        return None
    return Expanded(expanded, expanded_deps, tuple(created))


def _domains(statements: list[Statement]) -> isl.UnionSet:
    result = isl.UnionSet.from_set(statements[0].domain)
    for s in statements[1:]:
        result = result.union(isl.UnionSet.from_set(s.domain))
    return result
