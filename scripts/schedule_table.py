#!/usr/bin/env python3
"""Schedule every PolyBench kernel and write the table of docs/results/schedule_table.md.

For each kernel of ``polybench/`` (``<category>/<name>/<name>.c``): load the SCoP,
compute its dependences, rank the schedule candidates, choose one and prove it
legal again with ``check_legality``.  The table gives the number of candidates,
the chosen one, its parallel band depth, whether it is coalesced, its kernels and
host loops, and the compile time of scheduling (candidates + choice, the median
of ``--repeat`` runs, on this machine), next to the time of the front end and
of the dependence analysis for comparison.

    .venv/bin/python scripts/schedule_table.py                # writes the table
    .venv/bin/python scripts/schedule_table.py --kernel gemm  # one kernel, stdout
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import islpy  # noqa: E402

import polycu  # noqa: E402
from polycu.diagnostics import Reporter  # noqa: E402
from polycu.driver import candidates, choose  # noqa: E402
from polycu.schedule import check_legality  # noqa: E402

POLYBENCH = ROOT / "polybench"


@dataclass
class Row:
    kernel: str
    category: str
    n_candidates: int
    chosen: str
    depth: int
    coalesced: bool
    kernels: int
    host_loops: int
    relaxed: str
    cost: float
    t_load: float
    t_deps: float
    t_schedule: float
    warnings: int


def find_kernels(only: list[str]) -> list[Path]:
    """``polybench/<category>/<name>/<name>.c``, sorted by category then name."""
    found = [p for p in POLYBENCH.rglob("*.c")
             if p.stem == p.parent.name and p.parent.name != "utilities"]
    found = [p for p in found if not only or p.stem in only]
    return sorted(found, key=lambda p: (str(p.parent.parent.relative_to(POLYBENCH)), p.stem))


def timed(fn, repeat: int):
    """(result of the last call, median CPU seconds of this process over ``repeat`` calls).

    CPU time rather than wall-clock time: the development machine is shared, and
    the time the process itself computes is what does not depend on the others.
    """
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return result, statistics.median(times)


def measure(path: Path, repeat: int) -> Row:
    includes = [str(POLYBENCH / "utilities"), str(path.parent)]
    scops, t_load = timed(lambda: polycu.load(str(path), includes=includes), repeat)
    scop = scops[0]
    deps, t_deps = timed(lambda: polycu.dependences(scop), repeat)
    reporter = Reporter(stream=open(os.devnull, "w"))

    chosen, t_schedule = timed(lambda: choose(scop, deps, reporter=reporter), repeat)
    ranked = candidates(scop, deps, reporter=reporter)
    # the proof, once more, outside the library (on the expanded model when scalars
    # were expanded: its flow dependences are the original ones)
    check_legality(chosen.scop, chosen.deps, chosen)
    best = next(c for c in ranked if c.schedule.name == chosen.name)
    return Row(path.stem, str(path.parent.parent.relative_to(POLYBENCH)), len(ranked),
               chosen.name, best.parallel_depth, best.coalesced, best.kernels,
               best.host_loops, ", ".join(sorted(chosen.relaxed)) or "-", best.score,
               t_load, t_deps, t_schedule, len(reporter.diagnostics) // max(repeat, 1))


def _cell(text: str) -> str:
    """Table-cell safe: Markdown tables split cells at unescaped pipes."""
    return text.replace("|", "\\|")


def table(rows: list[Row], repeat: int) -> str:
    total = sum(r.t_schedule for r in rows)
    lines = [
        "# Schedules of the PolyBench kernels",
        "",
        "Written by `scripts/schedule_table.py`; do not edit by hand.  Every chosen",
        "schedule passed `check_legality` (the script proves it again after `choose`).",
        "Columns: candidates after removing duplicates; the chosen one (`a=b` means",
        "both strategies gave the same schedule; `|interchange(..)` a band permuted",
        "for coalescing; `+relax(S)` reductions of S run in parallel with atomics);",
        "parallel depth = mapped leading coincident members of the weakest kernel;",
        "coalesced = every parallel kernel's unit-stride test passes on its largest",
        "arrays; kernels and host loops as the mapping will see them; the model's",
        "estimated cost (ns, every parameter 1024).  See docs/schedule.md.",
        "",
        "Compile time of scheduling (`choose`: every candidate, ranking and choice; "
        f"CPU seconds, median of {repeat} run(s)) on this machine: "
        f"{platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, islpy "
        f"{islpy.__version__}.  Total {total:.2f} s for {len(rows)} kernels, "
        f"mean {total / max(len(rows), 1):.2f} s, max "
        f"{max((r.t_schedule for r in rows), default=0):.2f} s (load average "
        f"{os.getloadavg()[0]:.1f} when written).",
        "",
        "| kernel | category | candidates | chosen | parallel depth | coalesced | kernels "
        "| host loops | relaxed | est. cost (ns) | frontend (s) | deps (s) | schedule (s) |",
        "|---|---|---:|---|---:|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.kernel} | {r.category} | {r.n_candidates} | `{_cell(r.chosen)}` | {r.depth} | "
            f"{'yes' if r.coalesced else 'no'} | {r.kernels} | {r.host_loops} | {r.relaxed} | "
            f"{r.cost:.3g} | {r.t_load:.2f} | {r.t_deps:.2f} | {r.t_schedule:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "results" / "schedule_table.md"))
    parser.add_argument("--kernel", action="append", default=[],
                        help="only this kernel (repeatable); prints instead of writing")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for path in find_kernels(args.kernel):
        row = measure(path, args.repeat)
        print(f"{row.kernel:16s} {row.t_schedule:6.2f} s  {row.chosen}", file=sys.stderr)
        rows.append(row)
    text = table(rows, args.repeat)
    if args.kernel:
        print(text)
    else:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
