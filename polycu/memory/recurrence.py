"""Whether a kernel's threads carry values from step to step through memory.

In:  a kernel (its statements, its order with the host loops first) and the SCoP's
     accesses.
Out: ``carried``: whether a statement of the kernel reads, in a launch, an element
     that an earlier instance of itself wrote in that launch, an instance that does
     not write the element it reads (a recurrence through memory).

Why: a thread whose loop reads, at each step, what an earlier step stored
(``p[i][j] = f(p[i][j - 1])``, adi's sweeps) waits each step for the store to
come back through the cache, and runs at that latency whatever its other loads
cost.  A shared tile whose only gain is to hide those other loads' latency
(``shared.latency_bound``) then adds copies and barriers and hides nothing: adi
on an H200 took 17.8 ms with its latency tile and 16.1 ms without at MEDIUM
(docs/results/memory_ablation.md).  An update in place (``y[i] = y[i] + ...``:
the reading instance writes the element it reads) is no such carry: a register
holds it (``registers.py``).  Nor is a value read once after its loop by another
statement (gesummv's ``y[i] = alpha * tmp[i] + beta * y[i]``), whose latency is
paid once, not at every step; a recurrence spread over several statements is
not recognised (the tile stays, as before).
"""
from __future__ import annotations

import islpy as isl

from ..gpu.kernel import Kernel
from ..model import Scop
from .warps import in_one_launch, same_element, statement_accesses


# carried(K) <=> a statement S of K has a write w and a read r of one element X[e]
# (instances S[i] -> X[e] <- S[j]), O(S[i]) <lex O(S[j]), equal in the host loops'
# coordinates (one launch), S[j] not writing X[e] (O: the kernel order); X is
# not private to a thread.
def carried(scop: Scop, kernel: Kernel) -> bool:
    """Whether a statement of ``kernel`` reads back in a launch, at a later instance,
    an element an earlier instance of itself wrote (see the module doc)."""
    if kernel.order is None:
        return False
    for name in sorted((kernel.writes & kernel.reads) - kernel.private):
        listed = statement_accesses(scop, kernel, name)
        for ws, write in listed:
            if not write.is_write:
                continue
            for rs, read in listed:
                if rs is not ws or not read.is_read:
                    continue
                pairs = same_element(kernel, ws, write, read)
                for update in rs.accesses:      # readers writing what they read
                    if update.is_write and update.array == name:
                        same = update.relation.intersect(
                            read.relation.align_params(update.relation.get_space()))
                        pairs = pairs.subtract_range(isl.UnionSet.from_set(same.domain()))
                if any(not later.is_empty()
                       for later in in_one_launch(kernel, pairs, strict=True)):
                    return True
    return False
