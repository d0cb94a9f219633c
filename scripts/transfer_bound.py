#!/usr/bin/env python3
"""Programs against their transfer bound (issue 14): each program's time next to its
compulsory transfers at the device's measured pageable rates plus its kernel time.

    python3 scripts/transfer_bound.py --device devices.json --bench results.csv \
        --programs programs.json [--dataset LARGE] KERNEL...

Inputs, all from one device call: ``devices.json`` (``polycu device --refresh``'s
record in polycu's cache: pageable and pinned rates each way), a ``polycu bench``
``results.csv`` (kernel ms) and ``scripts/gpu_programs.py``'s ``programs.json``
(the program's own PolyBench timer).  The compulsory bytes are the arrays live into
and out of the SCoP (``kernels.json``: ``live_in``, ``live_out``) at the dataset's
sizes, compiled here (no GPU needed).  Bound = in / pageable h2d + out / pageable d2h
+ kernel time; the issue asks for program / bound <= 1.5.  Achieved GB/s = the bytes
polycu copies (``copy_in``, ``copy_out``) over the program's time less its kernel
time.  Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from polycu.bench import cpu  # noqa: E402
from polycu.options import Options  # noqa: E402
from polycu.runtime.check import targets  # noqa: E402
from polycu.runtime.replay import evaluate  # noqa: E402
from polycu.runtime.signature import scalar_dtype  # noqa: E402


def moved_bytes(kernel: str, dataset: str) -> dict[str, int]:
    """Bytes live in, live out, copied in and copied out by the kernel's SCoP."""
    found = {k.name: k for k in cpu.find_kernels()}[kernel]
    options = Options(include_dir=[str(cpu.UTILITIES_DIR), str(found.directory)])
    (target,) = targets(str(found.source), options, dataset=dataset)
    totals = dict.fromkeys(("live_in", "live_out", "copy_in", "copy_out"), 0)
    for array in target.description.get("arrays", ()):     # none: left on the CPU
        if array["by_value"] or array["local"]:
            continue
        size = evaluate(array["count"], target.params) * \
            scalar_dtype(array["element_type"]).itemsize
        skipped = bool(array.get("covered")) and evaluate(array["covered"], target.params)
        for key in totals:
            totals[key] += size if array[key] and not (key == "copy_in" and skipped) else 0
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", type=Path, required=True)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--programs", type=Path, required=True)
    parser.add_argument("--dataset", default="LARGE")
    parser.add_argument("kernels", nargs="+")
    args = parser.parse_args()
    (record,) = json.loads(args.device.read_text()).values()
    kernel_ms = {row["kernel"]: float(row["kernel_ms"])
                 for row in csv.DictReader(args.bench.open()) if row["kernel_ms"]}
    runs = {r["kernel"]: r for r in json.loads(args.programs.read_text())["results"]
            if r["dataset"] == args.dataset and r["gpu_s"] is not None}
    print(f"{record['name']}: pageable {record['pageable_h2d'] / 1e9:.1f} GB/s in, "
          f"{record['pageable_d2h'] / 1e9:.1f} GB/s out; pinned "
          f"{record['pinned_h2d'] / 1e9:.1f} in, {record['pinned_d2h'] / 1e9:.1f} out\n")
    print("| kernel | launches | live in MB | live out MB | kernel ms | bound ms | program ms "
          "| program / bound | copied MB | achieved GB/s | CPU ms | CPU / program |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for kernel in args.kernels:
        run = runs[kernel]
        program, cpu_ms = 1e3 * run["gpu_s"], 1e3 * run["cpu_s"]
        if not run["launches"]:             # the cost model left it on the CPU
            print(f"| {kernel} | 0 | | | (on the CPU) | | {program:.2f} | | | | {cpu_ms:.2f} "
                  f"| {cpu_ms / program:.2f} |")
            continue
        moved = moved_bytes(kernel, args.dataset)
        ms = kernel_ms[kernel]
        bound = 1e3 * (moved["live_in"] / record["pageable_h2d"]
                       + moved["live_out"] / record["pageable_d2h"]) + ms
        copied = moved["copy_in"] + moved["copy_out"]
        # the copies' share of the program: none measurable where the kernels fill it
        rate = f"{copied / ((program - ms) / 1e3) / 1e9:.1f}" if program > 1.05 * ms else "–"
        print(f"| {kernel} | {run['launches']} | {moved['live_in'] / 1e6:.1f} | "
              f"{moved['live_out'] / 1e6:.2f} | {ms:.3f} | {bound:.2f} | {program:.2f} | "
              f"{program / bound:.2f} | {copied / 1e6:.1f} | {rate} | {cpu_ms:.2f} | "
              f"{cpu_ms / program:.2f} |")


if __name__ == "__main__":
    main()
