"""The fuzzer's command line (``scripts/fuzz.py`` calls ``main``).

    fuzz.py --count 2000 --seed 0 --jobs 16 --out DIR [--keep]   a campaign
    fuzz.py --emit SEED                                          print one program
    fuzz.py --run FILE.c...                                      classify given files
    fuzz.py --minimise FILE.c [-o OUT.c]                         shrink a failing program
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path

from .campaign import failed, print_summary, run_campaign, select_seeds
from .emit import program_of_text
from .generate import generate
from .minimise import minimise
from .program import Finalised
from .run import STAGES, Outcome, Timeouts, run_file

#: the stages that show a failure of each stage (the reference and polycu always run)
SHOWN_BY = {"compile": ("compile",), "build": ("build",), "run": ("build", "run"),
            "compare": ("build", "run", "compare"), "nvcc": ("nvcc",), "gpu": ("gpu",),
            "emulate": ("emulate",)}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="fuzz.py", description="polycu's differential tester: random affine C programs "
        "compiled by polycu, emulated on the CPU, built with nvcc, run on the GPU where there is "
        "one, compared with gcc.")
    ap.add_argument("--count", type=int, default=100, help="programs to run (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--out", default="out/fuzz", help="output directory (default out/fuzz)")
    ap.add_argument("--keep", action="store_true", help="keep every program, not only failing ones")
    ap.add_argument("--no-nvcc", action="store_true", help="skip the nvcc build")
    ap.add_argument("--no-gpu", action="store_true",
                    help="skip the GPU stage (run where nvidia-smi lists a GPU)")
    ap.add_argument("--no-emulate", action="store_true", help="skip 'polycu emulate'")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds for polycu and for each build (default 120)")
    ap.add_argument("--polycu-flags", default="", metavar="FLAGS",
                    help="polycu options added to every program's own, given with '=': "
                         "--polycu-flags=--no-async-copies (campaigns and --run)")
    ap.add_argument("--only", metavar="FEATURE",
                    help="run only the seeds of --seed/--count whose programs use FEATURE "
                         "(a name of the summaries' features, e.g. array:flat)")
    ap.add_argument("--emit", type=int, metavar="SEED", help="print the program of SEED and stop")
    ap.add_argument("--run", nargs="+", metavar="FILE.c", help="classify these files and stop")
    ap.add_argument("--minimise", "--minimize", metavar="FILE.c",
                    help="shrink a failing generated program (the same failure must remain)")
    ap.add_argument("-o", "--output", help="where --minimise writes (default FILE.min.c)")
    ap.add_argument("--failure", help="with --minimise: which failure to keep, CLASS or "
                    "CLASS:STAGE (default: the first)")
    ap.add_argument("--max-tests", type=int, default=300, help="--minimise: most programs tried")
    return ap


def _stages(args: argparse.Namespace) -> tuple[str, ...]:
    skipped = {"nvcc": args.no_nvcc, "gpu": args.no_gpu, "emulate": args.no_emulate}
    return tuple(s for s in STAGES if not skipped.get(s))


def describe(outcome: Outcome) -> str:
    text = f"{outcome.name}: {outcome.cls}"
    if outcome.stage:
        text += f" ({outcome.stage})"
    if outcome.key:
        text += f": {outcome.key}"
    if outcome.detail:
        text += f"\n  {outcome.detail}"
    for f in outcome.failures[1:]:
        text += f"\n  also {f['class']} ({f['stage']}): {f['detail']}"
    return text


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    timeouts = Timeouts(compile=args.timeout, build=args.timeout)
    if args.emit is not None:
        sys.stdout.write(generate(args.emit).text)
        return 0
    if args.run:
        status = 0
        for path in args.run:
            with tempfile.TemporaryDirectory(prefix="polycu-fuzz-") as tmp:
                outcome = run_file(path, tmp, stages=_stages(args), timeouts=timeouts,
                                   extra=shlex.split(args.polycu_flags))
            print(describe(outcome))
            status |= outcome.cls not in ("match", "rejection")
        return status
    if args.minimise:
        return _minimise(args, timeouts)
    seeds = select_seeds(args.seed, args.count, args.only, args.jobs) if args.only else None
    summary = run_campaign(args.seed, args.count, args.out, jobs=args.jobs, keep=args.keep,
                           stages=_stages(args), timeouts=timeouts, seeds=seeds,
                           extra=tuple(shlex.split(args.polycu_flags)),
                           progress=lambda line: print(line, flush=True))
    print_summary(summary)
    print(f"summary: {os.path.join(args.out, 'summary.json')}, "
          f"{os.path.join(args.out, 'summary.md')}")
    return 1 if failed(summary) else 0


def _minimise(args: argparse.Namespace, timeouts: Timeouts) -> int:
    source = Path(args.minimise)
    program = program_of_text(source.read_text())
    if program is None:
        print(f"{source}: error: no '/* polycu-fuzz-program ... */' structure in this file "
              "(only generated programs can be minimised)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="polycu-fuzz-") as tmp:
        first = run_file(source, tmp, stages=_stages(args), timeouts=timeouts)
    print(describe(first))
    targets = [(f["class"], f["stage"], f["key"]) for f in first.failures]
    if first.cls == "rejection":
        targets = [("rejection", "compile", first.key)]
    if args.failure:
        want = args.failure.split(":")
        targets = [t for t in targets if list(t[:len(want)]) == want]
    if not targets:
        print(f"{source}: error: nothing to minimise (the program is a {first.cls}"
              + (f", no failure matches --failure {args.failure}" if args.failure else "") + ")",
              file=sys.stderr)
        return 1
    target = targets[0]
    stages = SHOWN_BY.get(target[1], ())
    print(f"keeping: {target[0]} ({target[1]}): {target[2]}")

    def keeps(fin: Finalised) -> bool:
        with tempfile.TemporaryDirectory(prefix="polycu-fuzz-min-") as tmp:
            path = Path(tmp) / f"{source.stem}.c"
            path.write_text(fin.text)
            outcome = run_file(path, Path(tmp) / "w", stages=stages, timeouts=timeouts)
        if target[0] == "rejection":
            return outcome.cls == "rejection" and outcome.key == target[2]
        return any((f["class"], f["stage"], f["key"]) == target for f in outcome.failures)

    best = minimise(program, keeps, max_tests=args.max_tests, log=print)
    output = Path(args.output) if args.output else source.with_suffix(".min.c")
    output.write_text(best.text)
    print(f"wrote {output}")
    return 0
