"""``--dump-memory``: the placement in words.

In:  a ``Placement`` (with the contractions the tensor cores run, the tree
     reductions and a resident grid's plan).
Out: one line per kernel and array: where it lives and why.
"""
from __future__ import annotations

from .placement import Placement
from .resident import ResidentGrid


def format_placement(placement: Placement) -> str:
    """``--dump-memory``: one line per kernel and array: where it lives and why."""
    scop = placement.program.scop
    lines = [f"# memory placement of SCoP {scop.name}"]
    if placement.resident is not None:
        lines += _resident_lines(placement.resident)
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


def _resident_lines(grid: ResidentGrid) -> list[str]:
    """The resident grid's plan (resident.py): the arrays its blocks keep on chip for
    the whole launch, which the lines of each kernel then call device memory (where
    the bands start and end, where the neighbours' edge rows pass, and where the
    device cannot hold the blocks with their shared memory)."""
    arrays = ", ".join(f"{a.name} (halo {a.halo} row{'s' if a.halo != 1 else ''})"
                       for a in grid.arrays)
    sync = "its two neighbours' flags" if grid.neighbours else "a grid-wide barrier"
    staged = "staged in shared memory" if grid.halos_on_chip else "read from device memory"
    return [f"# one cooperative launch of {grid.bands} blocks (--resident-grid): each keeps "
            f"a band of {grid.rows} rows of {arrays} in shared memory across every "
            f"phase, {grid.bytes} bytes a block; the halo rows a phase reads are {staged}; "
            f"a phase ends with {sync}",
            "# (the arrays below are in device memory before and after the launch, and "
            "throughout it where the device cannot hold every block on chip)"]
