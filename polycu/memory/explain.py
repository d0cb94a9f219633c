"""``--dump-memory``: the placement in words.

In:  a ``Placement`` (with the contractions the tensor cores run and the tree
     reductions).
Out: one line per kernel and array: where it lives and why.
"""
from __future__ import annotations

from .placement import Placement


def format_placement(placement: Placement) -> str:
    """``--dump-memory``: one line per kernel and array: where it lives and why."""
    scop = placement.program.scop
    lines = [f"# memory placement of SCoP {scop.name}"]
    for placed in placement.kernels:
        lines.append(f"{placed.kernel}:")
        for choice in placed.choices:
            lines.append(f"  {choice.array}: {choice.kind} ({choice.reason})")
        if placed.padded:
            lines.append(f"  padded: {', '.join(sorted(placed.padded))} run on every lane "
                         "of the register tile, in range or not (no guard in edge blocks; "
                         "the extra lanes' results are never stored)")
        if not placed.choices:
            lines.append("  (no array)")
        if placed.kernel in placement.trees:        # gpu/tree.py
            lines.append(f"  runs as a tree reduction: {placement.trees[placed.kernel]}")
        if placed.kernel in placement.tensor:       # memory/contraction.py
            lines.append(f"  runs on the FP64 tensor cores: {placement.tensor[placed.kernel]} "
                         "(above: what the plain kernel would place at these sizes)")
    return "\n".join(lines) + "\n"
