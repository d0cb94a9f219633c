#!/usr/bin/env python3
"""Worked example of the scheduling library: explore the schedules of one kernel.

    .venv/bin/python scripts/explore_schedules.py              # PolyBench gemm
    .venv/bin/python scripts/explore_schedules.py jacobi-2d

Steps (each prints what it finds; docs/schedule.md walks through the output):
 1. load the kernel and compute its dependences;
 2. rank the candidates (identity, isl under each fusion strategy, relaxed
    reductions, coalescing permutations), every one proven legal;
 3. read the band flags of the best candidate;
 4. transform it: interchange its outer band and compare the cost, tile it;
 5. reverse each loop of the original order and read the proof's verdicts;
 6. save the chosen schedule, load it back (re-marked, re-proven);
 7. hand it to the GPU mapping.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import islpy as isl  # noqa: E402

import polycu  # noqa: E402
from polycu.driver import candidates  # noqa: E402
from polycu.gpu.rank import measure  # noqa: E402
from polycu.schedule import (IllegalSchedule, band_paths, check_legality,  # noqa: E402
                             interchange, load_schedule, node_at, save_schedule, tile)


def load(name: str):
    path = next(p for p in (ROOT / "polybench").rglob(f"{name}.c") if p.parent.name == name)
    scop = polycu.load(str(path), includes=[str(ROOT / "polybench" / "utilities"),
                                            str(path.parent)])[0]
    return scop, polycu.dependences(scop)


def describe_bands(schedule) -> None:
    for path in band_paths(schedule.tree):
        node = node_at(schedule.tree, path)
        n = node.band_n_member()
        flags = [node.band_member_get_coincident(k) for k in range(n)]
        print(f"   band at {path}: {node.band_get_partial_schedule()}")
        print(f"      permutable={node.band_get_permutable()} coincident={flags}")


def main(name: str = "gemm") -> None:
    print(f"1. {name}: load and dependences")
    scop, deps = load(name)
    for stmt in scop.statements:
        print(f"   {stmt.name}: {stmt.text}")

    print("\n2. ranked candidates (estimated ns; lower is better)")
    ranked = candidates(scop, deps)
    for k, cand in enumerate(ranked):
        print(f"   {k + 1}. {cand.schedule.name}: {cand.explanation}")
    best = ranked[0].schedule

    print(f"\n3. bands of the best candidate '{best.name}'")
    describe_bands(best)

    print("\n4. transformations (each result is re-marked and proven legal)")
    outer = next(p for p in band_paths(best.tree)
                 if node_at(best.tree, p).band_n_member() > 1 and
                 node_at(best.tree, p).band_get_permutable())
    n = node_at(best.tree, outer).band_n_member()
    order = tuple(reversed(range(n)))
    swapped = interchange(best, outer, order)
    before, after = measure(best), measure(swapped)
    print(f"   {swapped.name}: cost {after.cost:.3g} (coalesced: {after.coalesced}) "
          f"versus {before.cost:.3g} (coalesced: {before.coalesced})")
    tiled = tile(best, outer, (32,) * n)
    print(f"   {tiled.name}:")
    describe_bands(tiled)

    print("\n5. reversing each dimension of the original order in turn")
    flat = scop.schedule.get_map()
    width = max(_widths(flat))
    names = [f"t{k}" for k in range(width)]
    shown = False
    for k in range(width):
        target = [f"-{v}" if i == k else v for i, v in enumerate(names)]
        reverse = isl.UnionMap(f"{{ [{', '.join(names)}] -> [{', '.join(target)}] }}")
        try:
            check_legality(scop, deps, flat.apply_range(reverse), label=f"reverse t{k}")
            print(f"   t{k} reversed: legal")
        except IllegalSchedule as exc:
            print(f"   t{k} reversed: illegal ({exc.kind} {exc.source} -> {exc.sink}, "
                  f"e.g. {exc.example})")
            if not shown:
                for diag in exc.diagnostics:
                    print(f"      {diag}")
                shown = True

    print("\n6. save and load back")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / f"{name}.yaml")
        save_schedule(best, path)
        loaded = load_schedule(scop, deps, path)
        print(f"   {loaded.name}: same schedule: {loaded.get_map().is_equal(best.get_map())}")

    print("\n7. GPU mapping of the best candidate")
    program = ranked[0].program
    print(f"   {len(program.kernels)} kernel(s)")


def _widths(umap: isl.UnionMap) -> set[int]:
    widths: set[int] = set()
    umap.foreach_map(lambda m: widths.add(m.dim(isl.dim_type.out)))
    return widths


if __name__ == "__main__":
    main(*sys.argv[1:2])
