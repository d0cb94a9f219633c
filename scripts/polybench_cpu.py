#!/usr/bin/env python3
"""Build and run the PolyBench suite of ``polybench/`` on the CPU.

For one dataset, every kernel found under ``polybench/`` is compiled twice
with gcc: once with ``-DPOLYBENCH_DUMP_ARRAYS`` to record its output (the
reference that polycu's generated code is checked against) and once with
``-DPOLYBENCH_TIME`` to measure it.  The output directory receives

* ``<kernel>_<DATASET>.dump.gz``: the array dump (stderr) of each kernel,
  gzip-compressed with a zero timestamp so identical dumps give identical
  files;
* ``timings_<DATASET>.csv`` and ``timings_<DATASET>.json``: per kernel,
  the median and all samples of the time printed by the harness.

Example::

    scripts/polybench_cpu.py --dataset SMALL --out out/cpu-small --jobs 2

The reusable part (``find_kernels``, ``build_kernel``, ``run_kernel``,
``parse_dump``, ``run_suite``, ...) is ``polycu/bench/cpu.py``; this file is its
command line and passes its names on, for the scripts and tests that import it.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # run as a script from a source tree

from polycu.bench.cpu import (  # noqa: E402,F401 - passed on to importers
    DATASETS, DUMP_CFLAGS, POLYBENCH_ROOT, UTILITIES_DIR, BuildError, BuildResult, Kernel,
    KernelReport, Progress, RunError, RunResult, build_kernel, find_kernels, parse_dump,
    parse_time, read_dump, run_kernel, run_suite, write_dump, write_timings)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=DATASETS, default="SMALL")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "out" / "polybench_cpu",
                        help="directory for dumps and timings")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel builds and dump runs")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per kernel")
    parser.add_argument("--openmp", action="store_true", help="compile with -fopenmp")
    parser.add_argument("--no-timing", action="store_true",
                        help="only record the dumps (e.g. to refresh test references)")
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--kernels", nargs="*", metavar="NAME",
                        help="restrict to these kernels (default: all)")
    args = parser.parse_args(argv)

    kernels = find_kernels()
    if args.kernels:
        unknown = set(args.kernels) - {k.name for k in kernels}
        if unknown:
            parser.error(f"unknown kernels: {', '.join(sorted(unknown))}")
        kernels = [k for k in kernels if k.name in args.kernels]
    steps = len(kernels) * (1 if args.no_timing else 2)
    progress = Progress(steps)
    reports = run_suite(kernels, args.dataset, args.out, jobs=max(args.jobs, 1),
                        repeat=max(args.repeat, 1), timing=not args.no_timing,
                        openmp=args.openmp, cc=args.cc, on_step=progress.step)
    if not args.no_timing:
        write_timings(reports, args.dataset, args.out)
    failed = [r for r in reports if r.error]
    for report in failed:
        print(f"FAILED {report.kernel.name}: {report.error}", file=sys.stderr)
    print(f"{len(reports) - len(failed)}/{len(reports)} kernels OK; results in {args.out}",
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
