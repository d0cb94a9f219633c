"""The ``polycu`` command: argparse front end over the pipeline.

``polycu [compile] FILE.c [-o FILE.cu]`` is the default sub-command; the others are
listed in ``COMMANDS``.  Every user-facing failure is a located diagnostic on stderr
and a non-zero exit status, never a traceback: exit status 2 when the command line
cannot be parsed (an unknown option, a missing argument, a value of the wrong type:
argparse's status, with its message made one located line), 1 for everything found
after that (an option value out of range, a missing input, an error in the C file, a
failed run).
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Callable, NoReturn, Sequence

from . import __version__
from . import options as opts
from .deps import compute_dependences, format_dependences
from .codegen import host_path
from .driver import compile_file, dump_memory, dump_schedule, load_scops
from .diagnostics import Diagnostic, Location, PolycuError, Reporter, error
from .model import format_scop


def cmd_compile(args: argparse.Namespace) -> int:
    options = opts.Options.from_namespace(args)
    for path in args.files:
        scops = load_scops(path, options)
        if args.dump_scop or args.dump_deps or args.dump_schedule or args.dump_memory:
            for index, scop in enumerate(scops):
                if args.dump_scop:
                    print(format_scop(scop))
                if args.dump_deps:
                    print(format_dependences(scop, compute_dependences(scop)))
                if args.dump_schedule:
                    print(dump_schedule(scop, options, index=index))
                if args.dump_memory:
                    print(dump_memory(scop, options, index=index), end="")
            if not scops:
                print(f"{path}: no SCoP found", file=sys.stderr)
            continue
        write_cuda(path, args)
    return 0


def output_paths(path: str, output: str | None) -> tuple[Path, Path, Path]:
    """The .cu (``-o`` or the input's stem + .cu next to it), the host program
    OUT_host.c and OUT.kernels.json; none may be the input itself (also through a
    symbolic or hard link), and the directory they go to must exist, so that a long
    compilation is not lost to a typo."""
    cu = Path(output) if output else Path(path).with_suffix(".cu")
    where = Location("-o") if output else Location(path)
    host = host_path(cu)
    description = cu.with_name(cu.stem + ".kernels.json")
    for target in (cu, host, description):
        if _same_file(target, Path(path)):
            raise error(f"the output '{target}' would overwrite the input; name another "
                        "with -o", Location(path))
    if cu.is_dir():
        raise error(f"cannot write '{cu}': it is a directory (-o names the output file)",
                    where)
    if not cu.parent.is_dir():
        raise error(f"cannot write '{cu}': '{cu.parent}' is not a directory", where)
    return cu, host, description


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.samefile(b)
    except OSError:  # a does not exist yet
        return False


def write_cuda(path: str, args: argparse.Namespace) -> None:
    """Compile one C file to CUDA: the .cu, the host program (C) and the kernel
    description next to it."""
    if args.output and len(args.files) > 1:
        raise error("-o names one output but several input files were given", Location("-o"))
    cu, host, description = output_paths(path, args.output)
    generated = compile_file(path, opts.Options.from_namespace(args), Reporter())
    if not generated.description["scops"]:
        Reporter().warn("no SCoP found; the output is the input with the CUDA prologue",
                        Location(path))
    try:
        cu.write_text(generated.cuda)
        host.write_text(generated.host)
        description.write_text(generated.description_json())
    except OSError as exc:
        where = Location("-o") if args.output else Location(path)
        raise error(f"cannot write '{exc.filename}': {exc.strerror}", where) from None


def parse_assignments(items: Sequence[str]) -> dict[str, int]:
    """``--param n=100 --param m=2*8`` as ``{"n": 100, "m": 16}`` (each value a constant
    C integer expression); a located error when malformed."""
    from .runtime.cexpr import CExprError, c_integer
    values = {}
    for item in items:
        name, sep, text = item.partition("=")
        try:
            if not sep or not name.strip().isidentifier():
                raise ValueError
            values[name.strip()] = c_integer(text)
        except (ValueError, CExprError):
            raise error(f"--param expects NAME=INTEGER, got '{item}'") from None
    return values


def report_files(files: Sequence[str], reports_of: Callable[[str], list], what: str) -> int:
    """Print every SCoP's comparison (``runtime.report.EmulationReport``); the first
    mismatch (or device allocation never freed) becomes an error naming the wrong
    index and the seed that reproduces it, a build nvcc refused one quoting nvcc.
    ``what`` names the side compared with the CPU reference."""
    failures = []
    for path in files:
        reports = reports_of(path)
        if not reports:
            print(f"{path}: no SCoP found", file=sys.stderr)
        for report in reports:
            print(report.format())
            if not report.ok:
                failures.append(report)
    if failures:
        first = failures[0]
        if first.first_failure is None and first.nvcc is not None and first.nvcc.failed:
            raise error(f"{first.scop}: nvcc cannot build the generated CUDA: "
                        f"{first.nvcc.detail}", first.location)
        raise error(f"{first.scop}: {what} differ from the CPU reference: {first.failure()} "
                    f"(reproduce with --seed {first.seed})", first.location)
    return 0


def _compare_files(args: argparse.Namespace, run: Callable[..., list], what: str) -> int:
    """``emulate`` and ``check``: ``run(path, options, params=..., limit=..., seed=...)``
    on every file, with the --param values and one seed (a fresh one, printed, if
    --seed is not given), then ``report_files``."""
    from .runtime.inputs import fresh_seed
    options = opts.Options.from_namespace(args)
    fixed = parse_assignments(args.param)
    seed = fresh_seed() if args.seed is None else args.seed
    return report_files(args.files, lambda path: run(
        path, options, params=fixed, limit=args.max_param, seed=seed), what)


def cmd_check(args: argparse.Namespace) -> int:
    """``polycu check FILE.c...``: each SCoP's kernels on the GPU against the original
    on the CPU; the first mismatch is an error (non-zero exit) naming the array and
    index."""
    from .runtime.check import check_file
    return _compare_files(args, lambda path, options, **given: check_file(
        path, options, dataset=args.dataset, **given), "the GPU results")


def cmd_emulate(args: argparse.Namespace) -> int:
    """``polycu emulate FILE.c...``: the emulated kernels of every SCoP against the
    original code on the same random inputs."""
    from .runtime.emulate import emulate_file
    return _compare_files(args, emulate_file, "the emulated kernels")


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_command
    return run_command(args)


def cmd_tune(args: argparse.Namespace) -> int:
    """``polycu tune FILE.c...``: search each file's configurations on the GPU (or
    the emulation), check each against the CPU reference, cache the fastest."""
    from .tune.run import run_command
    return run_command(args, parse_assignments(args.param))


def cmd_device(args: argparse.Namespace) -> int:
    """``polycu device [--refresh]``: print the present device's record;
    ``polycu device --fit FILE.json...``: fit the cost model to tuning measurements
    (no GPU needed)."""
    if args.fit or args.files:
        if not (args.fit and args.files):
            raise error("measurement files go with --fit (polycu device --fit "
                        "FILE.json...)", Location("--fit"))
        from .tune.fit import run_fit
        run_fit(args.files, opts.Options.from_namespace(args))
        return 0
    from .runtime.device import cache_path, device_info, format_info
    print(format_info(device_info(refresh=args.refresh)))
    print(f"cache:               {cache_path()}")
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    opts.COMPILE: ("translate C files to CUDA (the default command)", cmd_compile),
    opts.EMULATE: ("run the generated kernels on the CPU (no GPU needed) and compare them "
                   "with the original code", cmd_emulate),
    opts.CHECK: ("run the generated kernels on the GPU and compare them with the original "
                 "code on the CPU", cmd_check),
    opts.BENCH: ("check and time many kernels (files or directories) and write reports",
                 cmd_bench),
    opts.DEVICE: ("measure the GPU's copy bandwidth and FMA peaks (cached), or fit the "
                  "cost model to the times of polycu tune --out files (--fit)", cmd_device),
    opts.TUNE: ("search schedules, sizes and memory choices of each SCoP on the GPU, "
                "each checked against the original, and cache the fastest (compile with "
                "--tuned to use it)", cmd_tune),
}

USAGE: dict[str, str] = {
    opts.COMPILE: "polycu [compile] FILE.c... [-o OUT.cu] [options]",
    opts.EMULATE: "polycu emulate FILE.c... [options]",
    opts.CHECK: "polycu check FILE.c... [options]",
    opts.BENCH: "polycu bench PATH... [options]",
    opts.DEVICE: "polycu device [--refresh] | polycu device --fit FILE.json... [-I DIR]",
    opts.TUNE: "polycu tune FILE.c... [--dataset D] [--strategy S] [--max-configs N] [options]",
}
"""Each sub-command's usage line: its positional arguments, the options left to --help."""

DESCRIPTION = """\
Translate the loop nests of a C program into CUDA with the polyhedral model:
`polycu FILE.c -o OUT.cu` writes OUT.cu (GPU kernels and the host functions that
launch them), OUT_host.c (the program, still C, with each loop nest replaced by a
call) and OUT.kernels.json; build with `nvcc -O3 -arch=sm_90 OUT.cu OUT_host.c`.
The loop nests are those between #pragma scop and #pragma endscop, or found
automatically.

'polycu COMMAND --help' lists the options of a command (of compile for the first
form); a first argument that is not a command means compile."""


class UsageError(PolycuError):
    """A command line argparse cannot parse (exit status 2, argparse's)."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are located diagnostics (``--tile-size: error: ...``)
    instead of the usage block and message argparse prints itself."""

    commands: dict[str, "_Parser"]
    """The sub-command parsers, by name (set on the top-level parser by build_parser)."""

    def error(self, message: str) -> NoReturn:
        about = re.fullmatch(r"argument ([^:]+): (.*)", message, re.DOTALL)
        if about:  # "argument -o/--output: expected one argument": the short spelling
            raise UsageError(Diagnostic("error", about.group(2),
                                        Location(about.group(1).split("/")[0])))
        raise UsageError(Diagnostic("error", message, Location(self.prog)))

    def unrecognized(self, extra: Sequence[str]) -> list[Diagnostic]:
        """What is wrong with the arguments this command left over: each unknown
        option (the words after one are likely its value, so they are not blamed),
        else the first surplus argument."""
        unknown = [arg.split("=", 1)[0] for arg in extra
                   if arg.startswith("-") and not _NUMBER.fullmatch(arg)]
        if not unknown:
            return [Diagnostic("error", f"unexpected argument (usage: {self.usage})",
                               Location(extra[0]))]
        return [Diagnostic("error", f"unknown option; {self._hint(flag)}", Location(flag))
                for flag in unknown]

    def _hint(self, flag: str) -> str:
        """A near spelling of one of this command's options, or the commands that do
        take ``flag``, or where the options are listed."""
        mine = [s for action in self._actions for s in action.option_strings]
        near = difflib.get_close_matches(flag, mine, n=1)
        if near:
            return f"did you mean {near[0]}?"
        others = [o.commands for o in opts.OPTIONS if flag in (o.flag, o.short)]
        if others:
            return f"{flag} is an option of {', '.join(others[0])}, not of " \
                f"{self.prog.split()[-1]}"
        return f"'{self.prog} --help' lists the options"


_NUMBER = re.compile(r"-\d+(\.\d*)?")
"""A negative number is a surplus argument, not an option."""


def version() -> str:
    """The installed distribution's version; the package's own outside an install."""
    try:
        return metadata.version("polycu")
    except metadata.PackageNotFoundError:
        return __version__


def build_parser() -> _Parser:
    """The command line: the plain compile form first in the usage and description,
    then the sub-commands, then the two options of ``polycu`` alone."""
    parser = _Parser(prog="polycu", usage="\n       ".join(
        ["polycu FILE.c -o OUT.cu [options]",
         "polycu COMMAND ... (COMMAND: " + ", ".join(COMMANDS) + ")", "polycu --version"]),
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False)
    sub = parser.add_subparsers(dest="command", required=True, title="commands",
                                metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, _) in COMMANDS.items():
        p = sub.add_parser(name, prog=f"polycu {name}", help=help_text,
                           description=help_text, usage=USAGE[name])
        if name != opts.DEVICE:
            p.add_argument("files", nargs="+", metavar="PATH" if name == opts.BENCH else "FILE.c")
        else:
            p.add_argument("files", nargs="*", metavar="FILE.json",
                           help="with --fit: files of polycu tune --out")
        opts.add_to_parser(p, name)
    alone = parser.add_argument_group("options")  # after the commands in --help
    alone.add_argument("-h", "--help", action="help", help="show this help and exit")
    alone.add_argument("--version", action="version", version=f"polycu {version()}",
                       help="print polycu's version and exit")
    parser.commands = sub.choices
    return parser


def check_inputs(args: argparse.Namespace) -> None:
    """Every input path exists, and is a file where a C file is expected (``bench``
    also takes directories), before any phase starts."""
    for path in getattr(args, "files", ()):
        if not os.path.exists(path):
            raise error("no such file or directory" if args.command == opts.BENCH
                        else "no such file", Location(path))
        if os.path.isdir(path) and args.command != opts.BENCH:
            raise error("is a directory, not a C file", Location(path))
        if not os.access(path, os.R_OK):
            raise error("permission denied: cannot read it", Location(path))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version"):
        argv.insert(0, opts.COMPILE)
    try:
        if not argv:
            raise UsageError(Diagnostic("error", f"no input file (usage: {USAGE[opts.COMPILE]};"
                                        " 'polycu --help' lists the commands)",
                                        Location("polycu")))
        parser = build_parser()
        try:
            args, extra = parser.parse_known_args(argv)
        except SystemExit as done:  # --help and --version printed; argparse exits
            return int(done.code or 0)
        if extra:
            raise UsageError(parser.commands[args.command].unrecognized(extra))
        opts.check_values(vars(args))
        check_inputs(args)
        return COMMANDS[args.command][1](args)
    except PolycuError as exc:
        for diag in exc.diagnostics:
            print(diag, file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (``polycu --dump-scop f.c | head``):
        # stop quietly, and keep Python from complaining while it flushes stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
