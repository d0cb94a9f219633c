"""Parameter cases: code for each range of the parameters a wrapped loop bound splits.

An unsigned loop bound that wraps around (``for (unsigned k = 0; k < n - 1; k++)``
with ``int n``) gives a statement's domain two pieces that hold at disjoint
parameter values: ``0 <= k <= n - 2`` where ``n >= 2`` and ``0 <= k <= 2^32 + n - 2``
where ``n <= 0``.  One isl AST over both bounds its loops by their maximum and
guards every instance inside: fuzz seed 5607087's tiled loop ran 2^26 empty tiles a
thread at n = 11 (``c3 <= floord(n - 1, 64) + 67108863``).  The AST is built once
per case instead, each under the parameters of its case, and the cases chosen by
an ``if`` on the parameters.
"""
from __future__ import annotations

from typing import Sequence

import islpy as isl

#: A constant this large in a domain's constraints marks a bound that wrapped
#: (2^32 or 2^64 added to it); only such domains are split, so that code for the
#: ordinary edge values of the parameters (n = 1, n = 2) is never duplicated.
WRAPPED = 2 ** 31
#: At most this many cases; beyond, one AST as before.
MAX_CASES = 4


def _wrapped(piece: isl.BasicSet) -> bool:
    constraints = piece.get_constraint_list()
    return any(abs(constraints.get_at(k).get_constant_val().to_python()) >= WRAPPED
               for k in range(constraints.n_constraint()))


# With D_1 .. D_m the basic sets of the domains and P_k = params(D_k), the cases are
# the nonempty cells of the partition of the context C that the P_k refine
# (C ∩ P_k and C - P_k in turn) on which some domain is nonempty.
def parameter_cases(domains: Sequence[isl.Set], context: isl.Set) -> list[isl.Set]:
    """The parameter ranges within ``context`` to build code for apart: one
    (``context``) unless a piece of ``domains`` wrapped and its pieces' parameter
    ranges differ."""
    pieces = [b for d in domains for b in d.get_basic_sets()]
    if not any(_wrapped(b) for b in pieces):
        return [context]
    cells = [context]
    for piece in pieces:
        where = isl.Set.from_basic_set(piece.params()).align_params(context.get_space())
        cells = [part.coalesce() for cell in cells
                 for part in (cell.intersect(where), cell.subtract(where))
                 if not part.is_empty()]
        if len(cells) > 2 * MAX_CASES:
            return [context]
    live = [cell for cell in cells
            if any(not d.align_params(cell.get_space()).intersect_params(cell).is_empty()
                   for d in domains)]
    return live if 1 < len(live) <= MAX_CASES else [context]


def conditions(cases: Sequence[isl.Set], context: isl.Set) -> list[isl.AstExpr]:
    """The conditions that select each of ``cases`` within ``context``."""
    build = isl.AstBuild.from_context(context)
    return [build.expr_from_set(case.gist(context)) for case in cases]
