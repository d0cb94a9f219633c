"""The tuning table of docs/results/tuning.md, from `polycu tune` caches.

Usage: python scripts/tune_summary.py CACHE.json... [--suite N]

Prints, per tuned SCoP, polycu's default kernel time and the winner's, both
measured by the same search on the same device (the default is always the first
configuration measured), the speed-up and the winner's flags; then the geometric
mean of the speed-ups over the tuned SCoPs and, with --suite N, over N kernels,
those never tuned counted at 1.0 (their build is the default).
"""
from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polycu import tuned  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("caches", nargs="+")
    parser.add_argument("--suite", type=int, default=None,
                        help="kernels in the suite (the untuned count at 1.0)")
    args = parser.parse_args(argv)
    entries = {}
    for cache in args.caches:
        entries.update(tuned.read(Path(cache)))
    rows = sorted(entries.values(), key=lambda e: Path(e.source).stem)
    print("| kernel | configurations measured | default ms | tuned ms | speed-up | winner |")
    print("|---|--:|--:|--:|--:|---|")
    gains = []
    for e in rows:
        gain = e.default_s / e.kernel_s if e.default_s else None
        if gain is not None:
            gains.append(gain)
        flags = shlex.join(e.flags()) or "(the defaults)"
        print(f"| {Path(e.source).stem} | {e.evaluated} | {e.default_s * 1e3:.4g} | "
              f"{e.kernel_s * 1e3:.4g} | {f'{gain:.2f}x' if gain else '-'} | `{flags}` |")
    logs = sum(math.log(g) for g in gains)
    print(f"\nGeometric mean of the speed-ups over the {len(gains)} tuned kernels: "
          f"{math.exp(logs / len(gains)):.3f}x")
    if args.suite:
        print(f"Over the suite's {args.suite} kernels (the {args.suite - len(gains)} not "
              f"tuned at 1.0): {math.exp(logs / args.suite):.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
