"""The figures of a bench run: ``speedup.png`` and ``roofline.png``.

In:  the ``BenchResult`` of every kernel and the run's ``meta`` (dataset, device,
device ceilings).
Out: the PNG files written (none without matplotlib, which is optional: the
``plots`` extra): the speedup of each checked kernel over both CPU baselines, and
each kernel on the device's roofline (copy bandwidth, FP64 and FP32 FMA peaks).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .result import BenchResult


def write_plots(results: Sequence[BenchResult], meta: Mapping[str, Any],
                out: Path) -> list[Path]:
    """speedup.png and roofline.png; nothing (an empty list) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    ok = [r for r in results if r.status == "ok" and r.kernel_s]
    written = []
    if ok:
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(ok) + 2), 4.5))
        xs = range(len(ok))
        width = 0.4
        for k, (label, attr) in enumerate((("vs gcc -O3, 1 thread", "cpu_s"),
                                           ("vs gcc -O3 autopar", "omp_s"))):
            ax.bar([x + (k - 0.5) * width for x in xs],
                   [r.speedup(getattr(r, attr)) or 0 for r in ok], width, label=label)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs), [r.kernel for r in ok], rotation=60, ha="right")
        ax.set_ylabel("speedup of the GPU kernels")
        title = f"polycu, PolyBench {meta.get('dataset', '')}, {meta.get('device', '')}"
        written.append(_save(plt, fig, ax, title, out / "speedup.png"))
    ceilings = meta.get("ceilings")
    points = [r for r in ok if r.figures and r.flops and r.bytes]
    if ceilings and points:
        fig, ax = plt.subplots(figsize=(7, 5))
        intensity = [r.flops / r.bytes for r in points]
        lo, hi = min(intensity + [0.01]) / 2, max(intensity + [100.0]) * 2
        bandwidth = ceilings["copy_bandwidth"]
        for peak, label in ((ceilings["fp64_peak"], "FP64 FMA"), (ceilings["fp32_peak"],
                                                                    "FP32 FMA")):
            ridge = peak / bandwidth
            xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
            ax.plot(xs, [min(peak, x * bandwidth) / 1e9 for x in xs], label=f"roof ({label})")
        ax.scatter(intensity, [r.figures["gflops"] for r in points], color="black", zorder=3)
        for x, r in zip(intensity, points):
            ax.annotate(r.kernel, (x, r.figures["gflops"]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flop per compulsory byte)")
        ax.set_ylabel("GFLOP/s")
        written.append(_save(plt, fig, ax, f"Roofline, {meta.get('device', '')}",
                             out / "roofline.png"))
    return written


def _save(plt: Any, fig: Any, ax: Any, title: str, path: Path) -> Path:
    """Title and legend, then the figure to ``path`` (closed: batches make many)."""
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
