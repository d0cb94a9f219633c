"""The cells of an expanded temporary: which cell each loop iteration gets.

In:  the SCoP, the statements of one live-range component (expand.py) and the depth
     ``d`` of the loops that index the temporary.
Out: ``Cells``: the C text (also isl syntax) of each offset ``o_k`` and of each
     inner extent ``E_k`` (k > 0), or why there is none.

Let ``I = { (x_0..x_{d-1}) }`` be the iterations of the first ``d`` loops over the
component's instances and ``P`` the parameter values for which ``I`` is not empty
(the component runs).  Each offset ``o_k`` is the exact minimum of ``x_k`` over
``I`` when that is one affine piece without division, else the constant ``min``
of ``x_k`` over every parameter value, so indices start at 0 (a loop with step s,
or one that starts later for larger parameters, leaves unused cells: correctness
first).  The outermost extent is left to the code generator, which sizes it from
the footprint of the accesses, ``max(0, 1 + max index)``: exact, divisions
included, and 0 wherever the component does not run.  Each inner extent is
``E_k = 1 + max_I x_k - o_k``, printed by isl's AST generator in the context ``P``
as C with only ``+ - * / %`` (isl writes ``/`` and ``%`` only where it proves the
operands non-negative, so C and Python agree): ``E_k >= 1`` on ``P`` and the whole
size is ``0 * ...`` elsewhere, hence never negative for any parameter value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_parser

from ..model import Scop, Statement


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
def cells_of(scop: Scop, statements: list[Statement], d: int) -> Cells | str:
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


def c_expression(text: str) -> c_ast.Node:
    """The C AST of an integer expression (an index into the temporary)."""
    return c_parser.CParser().parse(f"int polycu_x = {text};").ext[0].init
