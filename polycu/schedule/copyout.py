"""The copy-out statement of an expanded array that the program reads after the SCoP.

In:  the SCoP, the array X being expanded, its temporary ``X_x`` (cells from
     cells.py) and X's live-out writes (deps.py).
Out: ``Copy``: a statement ``X[c] = X_x[p(c) - o][c]`` run after the whole SCoP,
     with its schedule, or why there is none.

Mathematics.  Let ``L = { S[i] -> X[c] }`` be X's live-out writes (the last write of
each element) and ``π_S(i) = (i_0..i_{d-1})`` the first ``d`` iterators of a writer.
The element ``c`` holds, after the SCoP, the value of cell ``π(L⁻¹(c))`` of ``X_x``;
the copy statement runs once per element of ``range(L)`` (elements the SCoP never
writes keep their values) and needs ``p = π ∘ L⁻¹`` to be a function given by one
affine expression without division per dimension, printed as C over ``c`` and the
parameters.  expand.py proves the result: the copy's flow sources must be exactly
``L``.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_generator

from ..model import READ, WRITE, Access, Array, Scop, Statement, maps_of
from .cells import Cells, c_expression


@dataclass(frozen=True, eq=False)
class Copy:
    """A copy statement and its schedule (a band over its elements); copy-in
    statements (snapshot.py) are ``Copy`` values too."""

    statement: Statement
    schedule: isl.Schedule


# p = π ∘ L⁻¹ : X[c] -> [x_0..x_{d-1}], one map over every writer statement.
def _last_cells(scop: Scop, live_out: isl.UnionMap, d: int) -> isl.Map | None:
    """For each element of X, the first ``d`` iterators of its last writer."""
    prefix = isl.UnionMap.empty(scop.context.get_space())
    for m in maps_of(live_out):
        statement = scop.statement(m.get_tuple_name(isl.dim_type.in_))
        first = ", ".join(statement.iterators[:d])
        prefix = prefix.union(isl.UnionMap(
            f"{{ {statement.name}[{', '.join(statement.iterators)}] -> [{first}] }}"))
    cells = maps_of(live_out.reverse().apply_range(prefix).coalesce())
    if len(cells) != 1 or not cells[0].is_single_valued():
        return None
    return cells[0]


def _affine_text(aff: isl.Aff, names: list[str]) -> str | None:
    """C text (also isl syntax) of an affine expression with integer coefficients and no
    division over the input dimensions ``names`` and the parameters, else None."""
    if aff.dim(isl.dim_type.div) or not aff.get_denominator_val().is_one():
        return None
    terms = []
    for kind, labels in ((isl.dim_type.param, None), (isl.dim_type.in_, names)):
        for k in range(aff.dim(kind)):
            coefficient = aff.get_coefficient_val(kind, k).to_python()
            if coefficient:
                name = aff.get_dim_name(kind, k) if labels is None else labels[k]
                terms.append(name if coefficient == 1 else f"{coefficient} * {name}")
    constant = aff.get_constant_val().to_python()
    if constant or not terms:
        terms.append(str(constant))
    return " + ".join(terms).replace("+ -", "- ")


def _index_texts(cells: isl.Map, names: list[str], offsets: tuple[str, ...]
                 ) -> list[str] | None:
    """``p_k(c) - o_k`` for each cell dimension k, or None when some ``p_k`` has no
    single affine form."""
    function = isl.PwMultiAff.from_map(cells)
    texts = []
    for k, offset in enumerate(offsets):
        pieces: list[isl.Aff] = []
        function.get_at(k).foreach_piece(lambda _s, aff: pieces.append(aff))
        text = _affine_text(pieces[0], names) if len(pieces) == 1 else None
        if text is None:
            return None
        texts.append(text if offset == "0" else f"{text} - ({offset})")
    return texts


def _ref(name: str, subscripts: list[str]) -> c_ast.Node:
    node: c_ast.Node = c_ast.ID(name)
    for text in subscripts:
        node = c_ast.ArrayRef(node, c_expression(text))
    return node


def copy_out(scop: Scop, array: Array, temporary: Array, cells: Cells,
             live_out: isl.UnionMap, name: str, iterators: list[str]) -> Copy | str:
    """Statement ``name`` copying the final value of each element of ``array`` out of
    ``temporary`` (module docstring), or why it cannot be written."""
    d = len(cells.offsets)
    last = _last_cells(scop, live_out, d)
    if last is None:
        return f"the last write of an element of '{array.name}' is not one loop iteration"
    indices = _index_texts(last, iterators, cells.offsets)
    if indices is None:
        return f"the iteration that writes an element of '{array.name}' last has no " \
               "affine form"
    params = f"[{', '.join(scop.parameters)}] -> "
    tuple_ = f"{name}[{', '.join(iterators)}]"
    domain = last.domain().set_tuple_name(name).intersect_params(scop.context)
    for k, iterator in enumerate(iterators):
        domain = domain.set_dim_name(isl.dim_type.set, k, iterator)
    read = isl.Map(f"{params}{{ {tuple_} -> {temporary.name}[{', '.join(indices + iterators)}] }}")
    write = isl.Map(f"{params}{{ {tuple_} -> {array.name}[{', '.join(iterators)}] }}")
    source, target = _ref(temporary.name, indices + iterators), _ref(array.name, iterators)
    body = c_ast.Assignment("=", target, source)
    space = domain.get_space()
    accesses = (Access(temporary.name, READ, read.align_params(space), f"{name}.0",
                       array.location, source),
                Access(array.name, WRITE, write.align_params(space), f"{name}.1",
                       array.location, target))
    statement = Statement(name, domain, tuple(iterators), body, accesses,
                          c_generator.CGenerator().visit(body), array.location,
                          iterator_types=("long",) * len(iterators))
    schedule = isl.Schedule.from_domain(isl.UnionSet.from_set(domain))
    if iterators:
        band = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(
            isl.Map(f"{params}{{ {tuple_} -> [{', '.join(iterators)}] }}").align_params(space)))
        schedule = schedule.get_root().child(0).insert_partial_schedule(band).get_schedule()
    return Copy(statement, schedule)
