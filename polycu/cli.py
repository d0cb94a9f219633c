"""The ``polycu`` command: argparse front end over the pipeline.

``polycu [compile] FILE.c [-o FILE.cu]`` is the default sub-command; the others are
listed in ``COMMANDS``.  Every user-facing failure is a located diagnostic on stderr
and a non-zero exit status, never a traceback.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from . import options as opts
from .deps import compute_dependences, format_dependences
from .diagnostics import Location, PolycuError, error
from .frontend.load import load_file
from .model import Scop, format_scop


def load_from(args: argparse.Namespace, path: str) -> list[Scop]:
    return load_file(path, defines=args.define, includes=args.include_dir,
                     undefines=args.undefine, auto=args.auto_scop, ctx=args.ctx)


def cmd_compile(args: argparse.Namespace) -> int:
    for path in args.files:
        scops = load_from(args, path)
        if args.dump_scop or args.dump_deps:
            for scop in scops:
                if args.dump_scop:
                    print(format_scop(scop))
                if args.dump_deps:
                    print(format_dependences(scop, compute_dependences(scop)))
            if not scops:
                print(f"{path}: no SCoP found", file=sys.stderr)
            continue
        raise error("CUDA code generation is not available yet; use --dump-scop or --dump-deps",
                    Location(path))
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    opts.COMPILE: ("translate C files to CUDA (the default command)", cmd_compile),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polycu", description="Polyhedral C-to-CUDA compiler.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, _) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
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


if __name__ == "__main__":
    sys.exit(main())
