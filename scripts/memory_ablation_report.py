"""The table (and plot) of the memory-placement ablation of scripts/memory_ablation.sh.

Usage: python3 scripts/memory_ablation_report.py SUMMARY.csv [--plot OUT.png] > TABLE.md

Reads the lines ``policy,kernel,status,kernel_ms,spread`` of one device run and
prints, per kernel, each policy's kernel time relative to the model's (above 1:
slower than the model), then the geometric mean of each policy over the kernels
every policy ran correctly, the best single fixed policy, and the kernels where
the model is more than 5% slower than the best policy that ran it correctly.
"""
from __future__ import annotations

import argparse
import csv
import math
from collections import defaultdict

ORDER = ("global", "read-only", "texture", "texture-2d", "surface", "constant", "on-chip",
         "texture+on-chip", "constant+on-chip", "model")


def load(path: str) -> dict[str, dict[str, float | None]]:
    """kernel -> policy -> ms (None when the run failed or did not check)."""
    times: dict[str, dict[str, float | None]] = defaultdict(dict)
    for row in csv.reader(open(path)):
        if len(row) < 4:
            continue
        policy, kernel, status, ms = row[:4]
        times[kernel][policy] = float(ms) if status == "ok" and ms else None
    return dict(times)


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(times: dict[str, dict[str, float | None]]) -> tuple[str, dict[str, float]]:
    policies = [p for p in ORDER if any(p in t for t in times.values())]
    lines = ["| kernel | model (ms) | " + " | ".join(p for p in policies if p != "model")
             + " |", "|---|--:|" + "--:|" * (len(policies) - 1)]
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
        lines.append(f"| {kernel} | {'-' if model is None else f'{model:.4g}'} | "
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
    args = parser.parse_args()
    text, relative = report(load(args.summary))
    print(text, end="")
    if args.plot:
        plot(relative, args.plot)


if __name__ == "__main__":
    main()
