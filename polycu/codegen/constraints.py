"""C text of isl constraints: the bounds and conditions the tensor-core kernels
(``tensor.py``) and the tree reductions (``tree.py``) print themselves.

In:  isl basic sets whose constraints on the dimension of interest have unit
     coefficients (``contraction._interval``, ``gpu/tree.py``), and C texts naming
     their dimensions.
Out: C expressions: sums of terms, conjunctions, bounds, maxima and minima, and the
     bounds of k over a block's rows where they depend on the row.
"""
from __future__ import annotations

import islpy as isl

from .literals import literal


def terms(constraint: isl.Constraint, texts: list[str], skip: int | None = None) -> str:
    """sum of coefficient * name over the set dimensions (``texts``, but ``skip``) and
    the parameters, plus the constant: C text."""
    parts = []
    space = (isl.dim_type.set, isl.dim_type.param)
    for kind in space:
        for d in range(constraint.get_space().dim(kind)):
            if kind == isl.dim_type.set and d == skip:
                continue
            coefficient = constraint.get_coefficient_val(kind, d).to_python()
            if coefficient:
                name = texts[d] if kind == isl.dim_type.set else \
                    constraint.get_space().get_dim_name(kind, d)
                parts.append(f"{literal(coefficient)} * {name}" if coefficient != 1 else name)
    constant = constraint.get_constant_val().to_python()
    if constant or not parts:
        parts.append(literal(constant))
    return " + ".join(parts).replace("+ -", "- ")


def condition(bset: isl.BasicSet, texts: list[str]) -> str:
    """C text of ``bset``'s constraints, its dimensions named ``texts``."""
    parts = [f"{terms(c, texts)} {'==' if c.is_equality() else '>='} 0"
             for c in bset.get_constraints()]
    return " && ".join(f"({p})" for p in parts) if parts else "1"


def bounds(bset: isl.BasicSet, texts: tuple[str, ...] = ("k",), k: int = 0
           ) -> tuple[list[str], list[str], list[str]]:
    """The lower bounds and upper bounds of dimension ``k`` of ``bset`` (C texts, the
    dimensions named ``texts``) and its constraints without k (every coefficient of
    k is -1, 0 or 1: ``contraction._interval``, ``gpu/tree.py``)."""
    lowers, uppers, conditions = [], [], []
    for c in bset.get_constraints():
        a = c.get_coefficient_val(isl.dim_type.set, k).to_python()
        rest = terms(c, list(texts), skip=k)
        if a == 0:
            conditions.append(f"({rest} {'==' if c.is_equality() else '>='} 0)")
            continue
        bound = f"-({rest})" if a == 1 else f"({rest})"
        if c.is_equality() or a == 1:
            lowers.append(bound)
        if c.is_equality() or a == -1:
            uppers.append(bound)
    return lowers, uppers, conditions


# For one constraint a k + c i + rest >= 0 (or = 0) with a = +-1, k's bound is
# v(i) = -a (c i + rest), of slope -a c: over the rows [lo, hi] it is least at lo when
# the slope is positive, else at hi, and greatest at the other end.
def block_bounds(reduction: isl.BasicSet, ends: tuple[str, str], union: bool
                 ) -> tuple[list[str], list[str]]:
    """Bounds of k over the rows ``ends`` = (first, last) of a block (C texts) of K =
    ``reduction`` ({ [i, k] }): with ``union``, each lower bound's least and each upper
    bound's greatest value (their max and min bound the union of the rows' K(i) from
    outside); else each lower bound's greatest and each upper bound's least value (the
    intersection of the rows' K(i), exactly)."""
    lowers, uppers = [], []
    for c in reduction.get_constraints():
        a = c.get_coefficient_val(isl.dim_type.set, 1).to_python()
        if a == 0:
            continue
        slope = -a * c.get_coefficient_val(isl.dim_type.set, 0).to_python()
        for lower in (True, False):
            if not (c.is_equality() or a == (1 if lower else -1)):
                continue
            least = lower == union
            at = ends[0] if (slope > 0) == least else ends[1]
            rest = terms(c, [f"({at})", "k"], skip=1)
            (lowers if lower else uppers).append(f"-({rest})" if a == 1 else f"({rest})")
    return lowers, uppers


def extreme(texts: list[str], op: str) -> str:
    """max (``op`` '>') or min ('<') of C texts, by conditional expressions."""
    result = texts[0]
    for other in texts[1:]:
        result = f"(({result}) {op} ({other}) ? ({result}) : ({other}))"
    return result
