"""Every option of polycu in one declarative table.

Each row says the flag, its type, default and help, which sub-commands accept it,
and whether it has PPCG's spelling and meaning (``ppcg=True``).  The command line
(``cli.py``) and the library (``Options(...)``) are both built from this table, so
an option exists in exactly one place.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Iterator

COMPILE, CHECK, EMULATE, BENCH, DEVICE = "compile", "check", "emulate", "bench", "device"
ALL = (COMPILE, CHECK, EMULATE, BENCH)


@dataclass(frozen=True)
class Option:
    """One row of the table. ``kind`` is 'flag', 'int', 'str', 'append' or 'bool' (--x/--no-x)."""

    flag: str
    kind: str
    default: Any
    help: str
    commands: tuple[str, ...] = ALL
    short: str | None = None
    metavar: str | None = None
    ppcg: bool = False
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    # -- preprocessing, like gcc ------------------------------------------------
    Option("--define", "append", [], "define a macro (NAME or NAME=VALUE), like gcc -D",
           short="-D", metavar="NAME[=VALUE]"),
    Option("--include-dir", "append", [], "add a directory to the include path, like gcc -I",
           short="-I", metavar="DIR"),
    Option("--undefine", "append", [], "undefine a macro, like gcc -U", short="-U",
           metavar="NAME"),
    # -- SCoP extraction ----------------------------------------------------------
    Option("--auto-scop", "bool", None,
           "find static control parts automatically (default: on when the file has no "
           "#pragma scop)"),
    Option("--ctx", "str", None, "extra constraints on the parameters, as an isl set, "
           "e.g. '[n] -> { : n >= 32 }'", ppcg=True, metavar="ISL_SET"),
    # -- dumps --------------------------------------------------------------------
    Option("--dump-scop", "flag", False, "print the polyhedral model of each SCoP and stop",
           commands=(COMPILE,)),
    Option("--dump-deps", "flag", False, "print the dependences of each SCoP and stop",
           commands=(COMPILE,)),
    # -- output -------------------------------------------------------------------
    Option("--output", "str", None, "output file (default: input name with .cu)",
           commands=(COMPILE,), short="-o", metavar="FILE"),
)


def option_table() -> Iterator[Option]:
    return iter(OPTIONS)


def add_to_parser(parser: argparse.ArgumentParser, command: str) -> None:
    """Add every option that ``command`` accepts to an argparse parser."""
    for opt in OPTIONS:
        if command not in opt.commands:
            continue
        names = [opt.short, opt.flag] if opt.short else [opt.flag]
        if opt.kind == "flag":
            parser.add_argument(*names, action="store_true", default=opt.default, help=opt.help)
        elif opt.kind == "bool":
            parser.add_argument(opt.flag, action=argparse.BooleanOptionalAction,
                                default=opt.default, help=opt.help)
        elif opt.kind == "append":
            parser.add_argument(*names, action="append", default=list(opt.default),
                                metavar=opt.metavar, help=opt.help)
        else:
            parser.add_argument(*names, type=int if opt.kind == "int" else str,
                                default=opt.default, metavar=opt.metavar, choices=opt.choices,
                                help=opt.help)


class Options:
    """Option values for the library API: ``Options(tile_size=16)``; defaults from the table."""

    def __init__(self, **values: Any):
        known = {opt.dest: opt for opt in OPTIONS}
        for key in values:
            if key not in known:
                raise TypeError(f"unknown polycu option '{key}'")
        for dest, opt in known.items():
            default = list(opt.default) if isinstance(opt.default, list) else opt.default
            object.__setattr__(self, dest, values.get(dest, default))

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> "Options":
        known = {opt.dest for opt in OPTIONS}
        return cls(**{k: v for k, v in vars(ns).items() if k in known})

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Options are immutable; use replace()")

    def replace(self, **changes: Any) -> "Options":
        values = {opt.dest: getattr(self, opt.dest) for opt in OPTIONS}
        values.update(changes)
        return Options(**values)

    def __repr__(self) -> str:
        fields = ", ".join(f"{o.dest}={getattr(self, o.dest)!r}" for o in OPTIONS)
        return f"Options({fields})"
