"""The order a pool of bench workers takes the kernels in, and the GPU of each.

In:  the kernels of a batch, the dataset and options, and optionally the results of
     an earlier bench (``--history``: its ``results.json``).
Out: ``Plan``: the kernels' indices in the order they are handed out, and for each
     the GPU (a lane of ``runtime.workers``) it must run on, or None (any).

Several workers take the kernels longest first (list scheduling, longest
processing time first), so that the last tasks are short and no worker idles long
while another ends a long kernel.  Without history, "longest" is the statement
instances at the dataset's sizes (``instances_estimate``).  With history, it is the
seconds the earlier bench's worker spent on each kernel, and the kernels that held
a GPU longest are spread over the GPUs by those seconds: where workers share a GPU
they take turns on it, so a GPU that got floyd-warshall, adi and nussinov
together (session 23) ends long after the other.  Only those kernels are pinned;
the others go to whichever worker is free first, which evens out the CPU work.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import islpy as isl

from ..diagnostics import Location, error
from ..options import Options


@dataclass(frozen=True)
class Plan:
    """Kernel indices in the order handed out, and the lane each must run in."""

    order: list[int]
    lanes: list[int | None]         # by position in ``order``


@dataclass(frozen=True)
class Past:
    """What an earlier bench recorded of one kernel."""

    seconds: float          # its worker's
    gpu_s: float            # of them, holding its GPU's turn


def read_history(path: str, dataset: str) -> dict[str, Past]:
    """The kernels of an earlier bench's ``results.json`` at ``dataset``."""
    try:
        results = json.loads(Path(path).read_text())["results"]
        return {r["kernel"]: Past(float(r.get("seconds") or 0.0),
                                  float((r.get("phases") or {}).get("gpu") or 0.0))
                for r in results if r.get("dataset") == dataset}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise error(f"cannot read the bench results '{path}': {exc}",
                    Location("--history")) from None


def plan(names: Sequence[str], estimates: Sequence[int], history: Mapping[str, Past],
         lanes: int) -> Plan:
    """Kernels without history first, most instances (``estimates``) first; then
    the others by their past seconds, longest first.  Over ``lanes`` > 1 GPUs, the
    kernels whose past GPU seconds are at least the mean are pinned, longest first,
    each to the GPU with the least pinned GPU seconds so far."""
    unknown = sorted((i for i, n in enumerate(names) if n not in history),
                     key=lambda i: -estimates[i])
    known = sorted((i for i, n in enumerate(names) if n in history),
                   key=lambda i: -history[names[i]].seconds)
    pinned: dict[int, int] = {}
    gpu = {i: history[names[i]].gpu_s for i in known}
    if lanes > 1 and gpu and max(gpu.values()) > 0:
        mean = sum(gpu.values()) / len(gpu)
        load = [0.0] * lanes
        for i in sorted((i for i in known if gpu[i] >= mean), key=lambda i: -gpu[i]):
            lane = min(range(lanes), key=lambda k: load[k])
            pinned[i] = lane
            load[lane] += gpu[i]
    order = unknown + known
    return Plan(order, [pinned.get(i) for i in order])


def instances_estimate(path: str, dataset: str, options: Options) -> int:
    """Statement instances of the file's SCoPs at the dataset's sizes, each domain
    counted by its bounding box: an overestimate of at most the loop depth's
    factorial (triangles), found without isl's counting, which takes seconds.
    0 for a file that does not load (its failure is quick)."""
    from ..driver import load_scops
    from ..runtime.check import at_dataset
    from ..runtime.metrics import fix_parameters
    from ..runtime.parameters import dataset_parameters

    try:
        total = 0
        for scop in load_scops(path, at_dataset(options, dataset)):
            values = dataset_parameters(path, scop.parameters, dataset,
                                        defines=options.define, includes=options.include_dir)
            for statement in scop.statements:
                box = fix_parameters(statement.domain.intersect_params(scop.context), values)
                total += math.prod(max(box.dim_max_val(i).to_python()
                                       - box.dim_min_val(i).to_python() + 1, 0)
                                   for i in range(box.dim(isl.dim_type.set)))
        return total
    except Exception:  # noqa: BLE001 - the estimate only orders the work
        return 0
