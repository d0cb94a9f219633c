"""The table (and plot) of the memory-placement ablation of scripts/memory_ablation.sh.

Usage: python3 scripts/memory_ablation_report.py SUMMARY.csv [--plot OUT.png] > TABLE.md

Reads the lines ``policy,kernel,status,kernel_ms,spread[,program]`` of one device
run and prints, per kernel, each policy's kernel time relative to the model's
(above 1: slower than the model), then the geometric mean of each policy over the
kernels every policy ran correctly, the best single fixed policy, and the kernels
where the model is more than 5% slower than the best policy that ran it correctly.

Policies of a kernel that ran the same program (the same digest) timed one
program: each gets the median of their times (``--no-pool``: each its own), so
that the noise of two timings of one program is not read as a difference.
"""
from __future__ import annotations

import argparse
import csv
import math
import statistics
from collections import defaultdict

ORDER = ("global", "read-only", "texture", "texture-2d", "surface", "constant", "on-chip",
         "texture+on-chip", "constant+on-chip", "model")


Times = dict[str, dict[str, float | None]]


def load(path: str, pool: bool = True) -> Times:
    """kernel -> policy -> ms (None when the run failed or did not check), the
    times of one program pooled (see the module doc) unless ``pool`` is False."""
    times: Times = defaultdict(dict)
    programs: dict[str, dict[str, str]] = defaultdict(dict)
    for row in csv.reader(open(path)):
        if len(row) < 4:
            continue
        policy, kernel, status, ms = row[:4]
        times[kernel][policy] = float(ms) if status == "ok" and ms else None
        if len(row) > 5 and row[5] and times[kernel][policy] is not None:
            programs[kernel][policy] = row[5]
    if pool:
        for kernel, digests in programs.items():
            for digest in set(digests.values()):
                same = [p for p, d in digests.items() if d == digest]
                median = statistics.median(times[kernel][p] for p in same)  # type: ignore[misc]
                for p in same:
                    times[kernel][p] = median
    return dict(times)


def programs_per_kernel(path: str) -> dict[str, int]:
    """kernel -> how many different programs its policies ran."""
    seen: dict[str, set[str]] = defaultdict(set)
    for row in csv.reader(open(path)):
        if len(row) > 5 and row[5] and row[2] == "ok":
            seen[row[1]].add(row[5])
    return {k: len(v) for k, v in seen.items()}


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(times: Times, programs: dict[str, int]) -> tuple[str, dict[str, float]]:
    """The tables (markdown) and each policy's geometric mean over the model's;
    ``programs``: how many different programs each kernel's policies ran."""
    policies = [p for p in ORDER if any(p in t for t in times.values())]
    lines = ["| kernel | programs | model (ms) | " + " | ".join(p for p in policies
                                                             if p != "model")
             + " |", "|---|--:|--:|" + "--:|" * (len(policies) - 1)]
    complete = []
    worse = []
    for kernel in sorted(times):
        row = times[kernel]
        model = row.get("model")
        cells = []
        for p in policies:
            if p == "model":
                continue
            t = row.get(p)
            cells.append("-" if t is None or model is None else f"{t / model:.2f}")
        lines.append(f"| {kernel} | {programs.get(kernel, '-')} | "
                     f"{'-' if model is None else f'{model:.4g}'} | "
                     + " | ".join(cells) + " |")
        if all(row.get(p) is not None for p in policies):
            complete.append(kernel)
        ran = [t for t in row.values() if t is not None]
        if model is not None and model > 1.05 * min(ran):
            worse.append(f"{kernel} ({model / min(ran):.2f}x the best)")
    means = {p: geomean([times[k][p] for k in complete]) for p in policies}  # type: ignore[misc]
    fixed = {p: m for p, m in means.items() if p != "model"}
    best = min(fixed, key=fixed.__getitem__)
    lines += ["", f"Geometric mean of kernel time over the {len(complete)} kernels every "
              "policy ran correctly, relative to the model's:", "",
              "| policy | geomean / model |", "|---|--:|"]
    lines += [f"| {p} | {means[p] / means['model']:.3f} |" for p in policies]
    lines += ["", f"Best single fixed policy: {best} ({fixed[best] / means['model']:.3f}x "
              "the model's time).",
              "Kernels where the model is more than 5% slower than the best policy for "
              f"that kernel: {', '.join(worse) or 'none'}."]
    return "\n".join(lines) + "\n", {p: means[p] / means["model"] for p in policies}


def plot(relative: dict[str, float], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(relative)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(names, [relative[n] for n in names], color=["#777" if n != "model" else "#2a6"
                                                       for n in names])
    ax.axhline(1.0, color="#2a6", linewidth=0.8)
    ax.set_ylabel("kernel time / model's\n(geomean over kernels)")
    ax.set_title("Memory placement policies, PolyBench kernels")
    plt.xticks(rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary")
    parser.add_argument("--plot", help="write a bar chart of the geometric means here")
    parser.add_argument("--no-pool", action="store_true",
                        help="each policy its own time, even where programs are the same")
    args = parser.parse_args()
    text, relative = report(load(args.summary, pool=not args.no_pool),
                            programs_per_kernel(args.summary))
    print(text, end="")
    if args.plot:
        plot(relative, args.plot)


if __name__ == "__main__":
    main()
