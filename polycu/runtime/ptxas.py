"""The PTX shape of a known ptxas defect: where a generated kernel may be miscompiled.

In:  PTX text (nvcc ``-ptx``).
Out: per kernel, the number of chains of the shape: a ``neg`` whose result feeds an
     integer ``min``/``max`` whose result feeds another ``min``/``max``.

Why.  ptxas (CUDA 12.8 to 13.3 at least; seen with 13.0 on sm_90, pytorch#190973)
fuses such a chain into one three-way integer min/max (VIMNMX3, VIADDMNMX) at
``-O1`` and above and may drop the negation: fuzz seed 5631703's kernel ran one
iteration past a loop bound, which cicc's loop unroller had written as
``-max(-a, -b)`` (docs/supported-c.md, "A known nvcc defect").  The shape is the
trigger, not the miscompilation: 0 here means the known trigger is absent, not that
ptxas is right, and a chain found may well be compiled right.  None of the 104 kernels
of the 30 PolyBench programs at LARGE has one (nvcc 13.0, sm_90).
"""
from __future__ import annotations

import re

ENTRY = re.compile(r"\.entry\s+(\w+)")
NEG = re.compile(r"^\s*neg\.s(?:32|64)\s+(%r[d]?\d+),")
MINMAX = re.compile(r"^\s*(?:min|max)\.s(?:32|64)\s+(%r[d]?\d+),\s*([^;]+);")

#: What to do where a kernel has the shape (``polycu emulate``'s report, the script).
ADVICE = ("its PTX has the shape of a known ptxas defect (CUDA 12.8-13.3: a negation "
          "fed into a chain of integer min/max may be dropped at -O1 and above; "
          "docs/supported-c.md); if its GPU results differ from the emulation, build "
          "with -Xptxas -O0")


def chains(ptx: str) -> dict[str, int]:
    """Kernel name -> negations feeding a min/max whose result feeds another."""
    found: dict[str, int] = {}
    for body in re.split(r"(?=\.visible \.entry|\.entry )", ptx)[1:]:
        name = ENTRY.search(body)
        if name is None:
            continue
        negated = {m.group(1) for m in map(NEG.match, body.splitlines()) if m}
        fed, feeding = set(), set()
        for m in filter(None, map(MINMAX.match, body.splitlines())):
            operands = {o.strip() for o in m.group(2).split(",")}
            if operands & negated:
                fed.add(m.group(1))
            if operands & fed:
                feeding.add(m.group(1))
        found[name.group(1)] = len(feeding)
    return found


def suspects(ptx: str) -> tuple[str, ...]:
    """The kernels with at least one such chain."""
    return tuple(name for name, count in chains(ptx).items() if count)
