"""Ordered trees: a tree reduction's kernel that adds the terms in C's order.

In:  a ``GpuProgram``.
Out: its tree reductions (``gpu/tree.py``) whose terms an ordered tree adds to C's
     very value, marked ``ordered``, by kernel name.

A kernel that sums the terms e(i, k) of row i into W[c(i)] one thread a row reads
the row's terms one after the other: a few thousand threads (atax at LARGE: 1900)
cannot keep the device's memory busy.  An ordered tree gives a row ``slices``
threads, which compute ``chunk`` of its terms side by side, each by itself (the
statement with the cell replaced by the identity -0.0, or 0: exactly e, or -e for
``-=``), leave them in shared memory, and one thread adds them to the row's cell one
after the other, in k's order.  Only the loads and products run in parallel; the
additions are C's, so the value is C's where a term converts to W's type exactly
and one addition rounds as C's does: W double (e of any narrower type converts
exactly) or an integer type (sums wrap alike in any grouping).  A float W is left
out: C rounds W + e once, where e is double (a double constant in it), and the
term would round e first.
"""
from __future__ import annotations

from dataclasses import replace

from ..frontend.ctype import parse_type
from ..model import Scop
from .kernel import GpuProgram
from .tree import SHARED_BUDGET, Tree, tree_reductions, value_bytes

#: Terms each thread loads a chunk where a warp reads along k (a warp's 32 lanes
#: then read 32 consecutive terms, ``UNROLL`` times), and where it reads along i.
UNROLL = 4
UNROLL_ON_I = 4

#: Threads that share a row where a warp reads along i: with the adders' warp the
#: block stays within 1024 threads (16 rows x (32 + 1)).
SLICES_ON_I = 32


def per_thread(tree: Tree) -> int:
    """Terms of a chunk each loading thread computes."""
    return UNROLL if tree.lanes_on_k else UNROLL_ON_I


def chunk(tree: Tree) -> int:
    """Terms of a row an ordered tree loads at once."""
    return tree.slices * per_thread(tree)


def launched(tree: Tree) -> tuple[int, int]:
    """The block as launched: an ordered tree has one more row of threads along y for
    each sum, the rows' adders of that sum (so that the chains of several sums run
    side by side)."""
    return (tree.block[0], tree.block[1] + len(tree.sums)) if tree.ordered else tree.block


def row_stride(tree: Tree) -> int:
    """Cells between two rows' terms in the shared buffer where the lanes run along
    k: one more than a chunk, so that the adders (lanes of one warp, one row each)
    read different banks; where they run along i, a row's terms are ``rows`` apart
    and the adders' cells consecutive already."""
    return chunk(tree) + 1


#: Chunks of every row a sum's shared buffer holds: the one being added and the next,
#: whose terms the loading threads store from the operands they loaded a chunk
#: before (the loads of the chunk after it are then in flight across the barrier).
SLOTS = 2


def slot_cells(tree: Tree) -> int:
    """Cells of one chunk of every row in the shared buffer."""
    return (row_stride(tree) if tree.lanes_on_k else chunk(tree)) * tree.rows


def buffer(tree: Tree) -> int:
    """Cells of a sum's shared buffer."""
    return SLOTS * slot_cells(tree)


# The rows' adders are a warp of their own (the block's last row of threads along
# y): the warps that load a chunk wait for their loads, the adders meanwhile add the
# chunk before, so a chunk costs the longer of the two, not their sum (measured on
# an H200: atax's first kernel spent 76,811 cycles, each warp of a row waiting for
# its own loads before its adder could start).
def ordered_trees(program: GpuProgram) -> dict[str, Tree]:
    """The tree reductions of ``program`` an ordered tree adds exactly."""
    scop = program.scop
    found = {}
    for name, tree in tree_reductions(program).items():
        if not tree.lanes_on_k:
            tree = replace(tree, block=(tree.block[0], min(tree.block[1], SLICES_ON_I)))
        if all(_exact(_element(scop, part.name)) for part in tree.sums) \
                and sum(value_bytes(_element(scop, part.name)) for part in tree.sums) \
                * buffer(tree) <= SHARED_BUDGET:
            found[name] = replace(tree, ordered=True)
    return found


def _element(scop: Scop, statement: str) -> str:
    stmt = next(s for s in scop.statements if s.name == statement)
    return scop.array(stmt.reduction_array).element_type


def _exact(ctype: str) -> bool:
    """Whether a term converts to a cell of this type exactly (tree_reduction has
    already left out the types no sum runs on the device in)."""
    t = parse_type(ctype)
    return t is not None and (t.name == "double" or not t.floating)
