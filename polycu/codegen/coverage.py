"""The check that an isl AST runs each instance of its schedule's domain once.

isl's AST builder once dropped one of two residue classes of a strided domain
(fuzz seed 1600081: ``S2[i, n - 3]`` never ran, in plain C with ``int`` loops).
``covered`` builds an AST while recording, at each leaf, the instances isl says it
runs there, and ``check_leaves`` demands that they partition the domain.
"""
from __future__ import annotations

from typing import Callable, Sequence

import islpy as isl


class WrongAst(Exception):
    """isl built an AST whose leaves miss the instances ``missing`` of the schedule's
    domain or run the instances ``repeated`` more than once."""

    def __init__(self, missing: isl.UnionSet, repeated: isl.UnionSet):
        super().__init__(f"isl's AST misses {missing} and repeats {repeated}")
        self.missing = missing
        self.repeated = repeated


AtDomain = Callable[[isl.AstNode, isl.AstBuild], isl.AstNode]


# With L_k the domain of the build's schedule at leaf k (the instances that leaf
# runs, in isl's own terms) and D the scheduled domain, the AST runs each instance
# of D exactly once when  U_k L_k = D  and  L_k ∩ L_l = {} for k != l,  within the
# build's context.
def covered(build: isl.AstBuild, schedule: isl.Schedule, context: isl.Set,
             at_domain: AtDomain | None = None) -> isl.AstNode:
    """isl's AST of ``schedule`` under ``build`` (with ``at_domain`` called at each
    leaf), checked to run every instance of its domain once."""
    leaves: list[isl.UnionSet] = []
    raised: list[Exception] = []

    def record(node: isl.AstNode, inner: isl.AstBuild) -> isl.AstNode:
        # nothing may raise across isl's C code (fuzz seed 1500116): kept, raised after
        if raised:
            return node
        try:
            leaves.append(inner.get_schedule().domain())
            return at_domain(node, inner) if at_domain is not None else node
        except Exception as exc:  # noqa: BLE001 - raised again below, outside isl
            raised.append(exc)
            return node

    build, _ = build.set_at_each_domain(record)
    node = build.node_from_schedule(schedule)
    if raised:
        raise raised[0]
    check_leaves(leaves, schedule.get_domain(), context)
    return node


def check_leaves(leaves: Sequence[isl.UnionSet], domain: isl.UnionSet,
                 context: isl.Set) -> None:
    """``WrongAst`` unless the leaves' domains ``leaves`` partition ``domain`` within
    ``context``."""
    context = context.align_params(domain.get_space())
    run = repeated = isl.UnionSet.empty(domain.get_space())
    for leaf in leaves:
        leaf = leaf.align_params(domain.get_space()).intersect_params(context)
        repeated = repeated.union(run.intersect(leaf))
        run = run.union(leaf)
    missing = domain.intersect_params(context).subtract(run)
    if not missing.is_empty() or not repeated.is_empty():
        raise WrongAst(missing, repeated)
