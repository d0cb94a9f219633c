"""The search space of one SCoP: schedules, tile and block sizes, memory choices.

In:  the SCoP's ranked candidates (``driver.candidates``: proven legal, mapped).
Out: ``Config`` values, each a set of ordinary option values (``Config.changes``),
     and ``neighbours`` of a configuration for the local search.

A configuration is what the options can say, so that every point the tuner visits is
a build a user can reproduce with flags: the schedule candidate (``--schedule``), the
tile and block sizes of each kernel (PPCG's ``--sizes``), shared memory and register
promotion on or off, one-block execution on or off and, where the user lets the
search reorder sums (``polycu tune --reorder-reductions``), tree reductions
(``--parallel-reductions``), whose results differ from the original's by rounding and
pass the same check as every configuration.  ``Config()``, with no
changes, is polycu's own choice (its ranked schedule and its size rules), always
evaluated first so that the winner is never slower than the default it replaces.

Sizes come from ``SIZE_CHOICES``: for a kernel of ``d`` mapped members, blocks of
32 to 1024 threads whose x extent is a warp or a multiple of 16 (coalescing), times
1, 2 or 4 register lanes per member (tile = block x lanes, at most
``memory.placement.MAX_LANES`` lanes a thread).  The constraints CUDA imposes (1024
threads a block) hold by construction; the shared-memory budget and the register
count are the placement's and nvcc's to keep, so nothing is compiled that could not
run.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from ..gpu.mapping import DEFAULT_BLOCK
from ..gpu.rank import Candidate
from ..gpu.sizes import DEFAULT_TILE
from ..memory.placement import MAX_LANES

#: A kernel's sizes: (tile per band member, outer first; block x, y, z).
Sizes = tuple[tuple[int, ...], tuple[int, ...]]

_BLOCKS: dict[int, tuple[tuple[int, ...], ...]] = {
    1: ((32,), (64,), (128,), (256,), (512,), (1024,)),
    2: ((32, 1), (32, 2), (32, 4), (32, 8), (32, 16), (32, 32), (16, 8), (16, 16),
        (64, 2), (64, 4), (64, 8), (128, 1), (128, 2)),
    3: ((32, 4, 2), (32, 8, 1), (32, 2, 2), (16, 16, 1), (16, 8, 2), (64, 4, 1),
        (32, 4, 4)),
}
_LANES = (1, 2, 4)
#: Schedule candidates the cost model estimates this many times slower than the best
#: one are left out of the space.  The model misjudges by up to about 10x (bicg's
#: original order in one thread: 42 ms estimated, 338 ms measured on an H200), but
#: not by 20x in a candidate's favour; cholesky's original order (21 s estimated
#: against 12 ms) held a whole device call when the search measured it.
PRUNE_RATIO = 20.0


def _sizes(block: tuple[int, ...], lanes: tuple[int, ...]) -> Sizes:
    """Tile (outer member first) of a block (x first) with ``lanes`` (outer first)."""
    d = len(block)
    return tuple(block[d - 1 - k] * lanes[k] for k in range(d)), block


def size_choices(depth: int) -> tuple[Sizes, ...]:
    """Every (tile, block) of a kernel of ``depth`` mapped members."""
    result = []
    for block in _BLOCKS[depth]:
        for lanes in itertools.product(_LANES, repeat=depth):
            if math.prod(lanes) <= MAX_LANES:
                result.append(_sizes(block, lanes))
    return tuple(result)


@dataclass(frozen=True)
class Config:
    """One point of the space; None fields keep polycu's own choice."""

    schedule: str | None = None
    sizes: tuple[tuple[int, Sizes], ...] = ()     # (kernel index, sizes), by index
    shared_memory: bool | None = None
    private_memory: bool | None = None
    single_block: bool | None = None
    parallel_reductions: bool | None = None
    resident_grid: bool | None = None
    resident_sync: str | None = None

    def changes(self) -> dict[str, Any]:
        """The option values (``Options`` dest names) that build this configuration."""
        result: dict[str, Any] = {}
        if self.schedule is not None:
            result["schedule"] = self.schedule
        if self.sizes:
            result["sizes"] = sizes_text(dict(self.sizes))
        for name in ("shared_memory", "private_memory", "single_block", "parallel_reductions",
                     "resident_grid", "resident_sync"):
            if getattr(self, name) is not None:
                result[name] = getattr(self, name)
        return result


def sizes_text(sizes: Mapping[int, Sizes]) -> str:
    """PPCG's --sizes of ``{kernel: (tile, block)}``."""
    parts = []
    for kernel, (tile, block) in sorted(sizes.items()):
        parts.append(f"kernel[{kernel}] -> tile[{','.join(map(str, tile))}]")
        parts.append(f"kernel[{kernel}] -> block[{','.join(map(str, block))}]")
    return "{ " + "; ".join(parts) + " }"


def depths(candidate: Candidate) -> dict[int, int]:
    """Each kernel's number of mapped members (kernels of one thread left out)."""
    return {k.index: len(k.mapped) for k in candidate.program.kernels if k.mapped}


def promising(ranked: Sequence[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """The candidates worth measuring and those left out: estimated more than
    ``PRUNE_RATIO`` times the best candidate's cost (polycu's choice, ``ranked[0]``,
    is always kept)."""
    if not ranked:
        return [], []
    limit = PRUNE_RATIO * min(c.score for c in ranked)
    kept = [c for i, c in enumerate(ranked) if i == 0 or c.score <= limit]
    return kept, [c for c in ranked if c not in kept]


def space(ranked: Sequence[Candidate], reorder: bool = False) -> list[Config]:
    """Every configuration: each candidate schedule, with each kernel of ``d`` mapped
    members given the same choice of ``size_choices(d)`` (per-kernel choices are
    left to ``neighbours``), each with shared memory and registers on or off; a
    candidate that runs in one block also as such, without sizes.  Polycu's
    own choice comes first; a candidate whose kernels launch from host loops also
    without a resident grid and with one ended by each sync (``memory/resident.py``,
    where its plan holds; sizes given leave it out); with ``reorder``, it
    again with tree reductions next, and every other configuration both without and
    with them."""
    configs = [Config()]
    for candidate in ranked:
        name = candidate.schedule.name.split("=")[0]
        kernels = depths(candidate)
        if candidate.program.single_block:
            configs.append(Config(name, single_block=True))
        elif candidate.host_loops:      # one cooperative launch where its plan holds, and not
            configs += [Config(name, resident_grid=True, resident_sync=sync)
                        for sync in ("grid", "neighbours")] + [Config(name, resident_grid=False)]
        used = sorted(set(kernels.values()))
        for picks in itertools.product(*(size_choices(d) for d in used)):
            chosen = dict(zip(used, picks))
            sizes = tuple((k, chosen[d]) for k, d in sorted(kernels.items()))
            for shared, private in itertools.product((True, False), repeat=2):
                configs.append(Config(name, sizes, shared, private, False))
    if not reorder:
        return configs
    return [configs[0], Config(parallel_reductions=True)] + \
        [replace(c, parallel_reductions=tree) for c in configs[1:] for tree in (None, True)]


def neighbours(config: Config, ranked: Sequence[Candidate], rng: random.Random,
               reorder: bool = False) -> list[Config]:
    """Configurations one step from ``config``: one kernel's block or lanes doubled or
    halved along one member, shared memory or registers flipped (with ``reorder``,
    tree reductions too), or another schedule with polycu's sizes; in a random order
    (``rng``)."""
    by_name = {c.schedule.name.split("=")[0]: c for c in ranked}
    name = config.schedule or (ranked[0].schedule.name.split("=")[0] if ranked else None)
    result = [Config(other, single_block=config.single_block)
              for other in by_name if other != name]
    current = by_name.get(name) if name else None
    if current is not None:
        sizes = dict(config.sizes)
        for kernel, depth in depths(current).items():
            tile, block = sizes.get(kernel, _default(depth))
            for step in _size_steps(tile, block):
                moved = {**sizes, kernel: step}
                result.append(replace(config, schedule=name, single_block=False,
                                      sizes=tuple(sorted(moved.items()))))
    for flag in ("shared_memory", "private_memory"):       # None is polycu's default: on
        result.append(replace(config, **{flag: getattr(config, flag) is False}))
    if reorder:                         # None: what the user chose (by default, off)
        result.append(replace(config, parallel_reductions=None if config.parallel_reductions
                              else True))
    rng.shuffle(result)
    return result


def _default(depth: int) -> Sizes:
    """The mapping's default sizes of a kernel of ``depth`` mapped members."""
    return (DEFAULT_TILE,) * depth, DEFAULT_BLOCK[depth]


def _size_steps(tile: tuple[int, ...], block: tuple[int, ...]) -> list[Sizes]:
    """The sizes one doubling or halving away: of a block extent (its lanes kept) or
    of a member's lanes (its block kept), within ``size_choices``' bounds."""
    d = len(tile)
    lanes = tuple(max(1, tile[k] // block[d - 1 - k]) for k in range(d))
    steps = []
    for k in range(d):
        axis = d - 1 - k
        for factor in (2, 0.5):
            b = list(block)
            b[axis] = int(b[axis] * factor)
            if b[axis] >= 1 and 32 <= math.prod(b) <= 1024 and b[0] >= 16:
                steps.append(_sizes(tuple(b), lanes))
            moved = list(lanes)
            moved[k] = int(moved[k] * factor)
            if 1 <= moved[k] <= 8 and math.prod(moved) <= MAX_LANES:
                steps.append(_sizes(block, tuple(moved)))
    return steps
