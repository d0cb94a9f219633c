"""The ``polycu`` command: argparse front end over the pipeline.

``polycu [compile] FILE.c [-o FILE.cu]`` is the default sub-command; the others are
listed in ``COMMANDS``.  Every user-facing failure is a located diagnostic on stderr
and a non-zero exit status, never a traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

from . import options as opts
from .deps import compute_dependences, format_dependences
from .codegen import compile_file
from .diagnostics import Location, PolycuError, Reporter, error
from .frontend.load import load_file
from .model import Scop, format_scop
from .schedule import format_candidates


def load_from(args: argparse.Namespace, path: str) -> list[Scop]:
    return load_file(path, defines=args.define, includes=args.include_dir,
                     undefines=args.undefine, auto=args.auto_scop, ctx=args.ctx)


def cmd_compile(args: argparse.Namespace) -> int:
    for path in args.files:
        scops = load_from(args, path)
        if args.dump_scop or args.dump_deps or args.dump_schedule:
            for index, scop in enumerate(scops):
                if args.dump_scop:
                    print(format_scop(scop))
                if args.dump_deps:
                    print(format_dependences(scop, compute_dependences(scop)))
                if args.dump_schedule:
                    print(format_candidates(scop, compute_dependences(scop),
                                            opts.Options.from_namespace(args), index=index))
            if not scops:
                print(f"{path}: no SCoP found", file=sys.stderr)
            continue
        write_cuda(path, args)
    return 0


def output_paths(path: str, output: str | None) -> tuple[Path, Path]:
    """The .cu (``-o`` or the input's stem + .cu next to it) and its FILE.kernels.json."""
    cu = Path(output) if output else Path(path).with_suffix(".cu")
    if cu.resolve() == Path(path).resolve():
        raise error(f"the output '{cu}' would overwrite the input; name another with -o",
                    Location(path))
    return cu, cu.with_name(cu.stem + ".kernels.json")


def write_cuda(path: str, args: argparse.Namespace) -> None:
    """Compile one C file to CUDA: the .cu and the kernel description next to it."""
    if args.output and len(args.files) > 1:
        raise error("-o names one output but several input files were given", Location(path))
    cu, description = output_paths(path, args.output)
    generated = compile_file(path, opts.Options.from_namespace(args), Reporter())
    if not generated.description["scops"]:
        Reporter().warn("no SCoP found; the output is the input with the CUDA prologue",
                        Location(path))
    try:
        cu.write_text(generated.cuda)
        description.write_text(generated.description_json())
    except OSError as exc:
        raise error(f"cannot write '{exc.filename}': {exc.strerror}", Location(path)) from None


def cmd_check(args: argparse.Namespace) -> int:
    from .runtime.check import run_command
    return run_command(args)


def cmd_emulate(args: argparse.Namespace) -> int:
    from .runtime.emulate import run_command
    return run_command(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_command
    return run_command(args)


def cmd_device(args: argparse.Namespace) -> int:
    from .runtime.device import run_command
    return run_command(args)


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    opts.COMPILE: ("translate C files to CUDA (the default command)", cmd_compile),
    opts.CHECK: ("run the generated kernels on the GPU and compare them with the original "
                 "code on the CPU", cmd_check),
    opts.EMULATE: ("run the generated kernels on the CPU (no GPU needed) and compare them "
                   "with the original code", cmd_emulate),
    opts.BENCH: ("check and time many kernels (files or directories) and write reports",
                 cmd_bench),
    opts.DEVICE: ("measure the GPU's copy bandwidth and FMA peaks (cached)", cmd_device),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polycu", description="Polyhedral C-to-CUDA compiler.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, _) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name != opts.DEVICE:
            p.add_argument("files", nargs="+", metavar="FILE.c")
        opts.add_to_parser(p, name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help"):
        argv.insert(0, opts.COMPILE)
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command][1](args)
    except PolycuError as exc:
        for diag in exc.diagnostics:
            print(diag, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (``polycu --dump-scop f.c | head``):
        # stop quietly, and keep Python from complaining while it flushes stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
