"""Check generated kernels on the GPU against the CPU reference (``polycu check``).

In:  a C file's SCoPs, the sizes to run at, a seed.
Out: per SCoP, the comparison of every live-out array between the GPU run of the
generated kernels and the original SCoP compiled by gcc, both on copies of the
same random inputs; a mismatch is a diagnostic naming the first wrong index.

Sizes, in order of precedence: ``--param NAME=VALUE``; ``--dataset D`` for
PolyBench-style files, where the file is preprocessed with ``-DD_DATASET`` and
parameter ``p`` takes the value of the size macro ``P`` (``ni`` = ``NI``: main
passes ``int ni = NI;``), as PolyBench does for all 30 kernels; otherwise small
values chosen by the emulation's ``choose_parameters``.

Inputs are fresh random values (seeded, the emulation's ``random_inputs``), or
what the program's own initialisation function writes (``--init``,
``program_init.py``).

The build that is checked is the build that ``bench`` times: the device code
compiled with ``--fmad=false``, which rounds like the CPU reference (gcc with
``-ffp-contract=off``), so that "ok" is a statement about the code that was timed.
"""
from __future__ import annotations

import argparse
import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..driver import compile_file
from ..diagnostics import Location, error
from ..frontend.load import load_file
from ..frontend.preprocess import preprocess_text
from ..model import Scop
from ..options import Options
from .emulate import (DEFAULT_PARAMETER_LIMIT, DEFAULT_PROFILE, EmulationReport,
                      choose_parameters, compare_arrays, random_inputs, report_files,
                      run_reference)
from .device import import_pycuda
from .program_init import init_inputs
from .pycuda_run import DeviceProgram
from .reference import Signature

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

_PROBE = "polycu_size_of_"
_PROBE_RE = re.compile(rf"{_PROBE}(\w+)\s*=\s*\((.*)\)\s*;")
_INT_SUFFIX = re.compile(r"\b(\d+)[uUlL]+\b")


def c_integer(text: str) -> int:
    """Value of a constant C integer expression (``1000 + 0``, ``(2*N)/3`` expanded).

    ``/`` and ``%`` truncate toward zero as in C; anything but integer literals,
    parentheses and ``+ - * / %`` is refused with ValueError.
    """
    tree = ast.parse(_INT_SUFFIX.sub(r"\1", text.strip()), mode="eval")

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            v = value(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = value(node.left), value(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, (ast.Div, ast.Mod)) and b != 0:
                quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                return quotient if isinstance(node.op, ast.Div) else a - b * quotient
        raise ValueError(f"not a constant integer expression: {text!r}")

    return value(tree.body)


def dataset_parameters(path: str, parameters: Sequence[str], dataset: str, *,
                       defines: Sequence[str] = (), includes: Sequence[str] = ()
                       ) -> dict[str, int]:
    """The value of each parameter at a PolyBench dataset: the size macro of its name.

    The file is preprocessed as for loading it, with ``-D<dataset>_DATASET`` and a
    probe line ``polycu_size_of_p = (P);`` per parameter appended.
    """
    if dataset not in DATASETS:
        raise error(f"unknown dataset '{dataset}' (one of {', '.join(DATASETS)})")
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    probe = "".join(f"\n{_PROBE}{p} = ({p.upper()});" for p in parameters)
    pre = preprocess_text(text + "\n" + probe + "\n", path,
                          [*defines, f"{dataset}_DATASET"], includes)
    found = {m.group(1): m.group(2) for m in _PROBE_RE.finditer(pre.text)}
    values = {}
    for p in parameters:
        try:
            values[p] = c_integer(found[p])
        except (KeyError, ValueError, SyntaxError):
            raise error(f"cannot size parameter '{p}' for dataset {dataset}: macro "
                        f"{p.upper()} does not expand to an integer (give --param "
                        f"{p}=VALUE)", Location(path)) from None
    return values


def parse_assignments(items: Sequence[str]) -> dict[str, int]:
    """``["n=100", "m=20"]`` (``--param``) as a dict; a located error when malformed."""
    values = {}
    for item in items:
        name, sep, text = item.partition("=")
        try:
            if not sep or not name.strip().isidentifier():
                raise ValueError
            values[name.strip()] = c_integer(text)
        except (ValueError, SyntaxError):
            raise error(f"--param expects NAME=INTEGER, got '{item}'") from None
    return values


def scop_parameters(scop: Scop, path: str, *, dataset: str | None,
                    overrides: Mapping[str, int], defines: Sequence[str] = (),
                    includes: Sequence[str] = ()) -> dict[str, int] | None:
    """Sizes from ``overrides`` and the dataset; None when neither gives them all."""
    unknown = set(overrides) - set(scop.parameters)
    if unknown:
        raise error(f"--param names {', '.join(sorted(unknown))}, not parameters of "
                    f"{scop.name} ({', '.join(scop.parameters) or 'none'})", scop.location)
    missing = [p for p in scop.parameters if p not in overrides]
    values = dict(overrides)
    if missing and dataset:
        values.update(dataset_parameters(path, missing, dataset, defines=defines,
                                         includes=includes))
    return values if all(p in values for p in scop.parameters) else None


# -- checking on the GPU ------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Target:
    """One SCoP of a file with its generated code, at fixed sizes."""

    scop: Scop
    description: Mapping[str, Any]
    params: dict[str, int]
    path: str = ""
    defines: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()

    def inputs(self, seed: int, init: str | None = None,
               profile: str = DEFAULT_PROFILE) -> dict[str, np.ndarray]:
        """Seeded random inputs of a ``profile``, or what the program's function
        ``init`` writes."""
        if init is None:
            return random_inputs(self.scop, self.params, seed, profile)
        return init_inputs(self.path, self.scop, self.params, init, seed,
                           defines=self.defines, includes=self.includes, profile=profile)


def targets(path: str, options: Options, *, dataset: str | None = None,
            overrides: Mapping[str, int] | None = None,
            limit: int = DEFAULT_PARAMETER_LIMIT) -> list[Target]:
    """Compile ``path`` (with ``-D<dataset>_DATASET``) and size each of its SCoPs."""
    if dataset:
        options = options.replace(define=[*options.define, f"{dataset}_DATASET"])
    generated = compile_file(path, options)
    scops = {s.name: s for s in load_file(path, defines=options.define,
                                          includes=options.include_dir,
                                          undefines=options.undefine, auto=options.auto_scop,
                                          ctx=options.ctx)}
    result = []
    for description in generated.description["scops"]:
        scop = scops[description["name"]]
        fixed = {k: v for k, v in (overrides or {}).items() if k in scop.parameters}
        sized = scop_parameters(scop, path, dataset=dataset, overrides=fixed,
                                defines=options.define, includes=options.include_dir)
        # choose_parameters also proves that every access stays inside its array.
        params = choose_parameters(scop, limit, sized if sized is not None else fixed)
        result.append(Target(scop, description, params, path, tuple(options.define),
                             tuple(options.include_dir)))
    return result


#: nvcc options of the build that is checked and timed: no contraction of a*b+c
#: into an FMA, as in the CPU reference (see the module docstring).
DEVICE_OPTIONS = ("--fmad=false",)


@dataclass(frozen=True, eq=False)
class Checked:
    """The comparison of one SCoP and the program that ran: the one to time."""

    report: EmulationReport
    program: DeviceProgram
    inputs: dict[str, np.ndarray]


def check_target(target: Target, seed: int, *, rtol: float | None = None,
                 timeout: float = 600.0, init: str | None = None,
                 profile: str = DEFAULT_PROFILE) -> Checked:
    """Run the CPU reference and the GPU kernels on copies of the same inputs and
    compare every array they may change.

    One build is made (``DEVICE_OPTIONS``): the program returned is the one that
    was compared, so a timing of it is a timing of checked code."""
    scop, params = target.scop, target.params
    ran = run_reference(scop, params, lambda kind: target.inputs(seed, init, kind), profile,
                        timeout=timeout)
    program = DeviceProgram(target.description, params, ran.inputs, options=DEVICE_OPTIONS)
    actual = program.run()
    comparisons = tuple(compare_arrays(a.name, ran.expected[a.name], actual[a.name], rtol)
                        for a in Signature.of(scop).arrays if not a.dead_after)
    report = EmulationReport(scop.name, params, seed, comparisons, location=scop.location,
                             profile=ran.profile, note=ran.note)
    return Checked(report, program, ran.inputs)


def fresh_seed() -> int:
    return int(np.random.SeedSequence().entropy % (2 ** 31))


def check_file(path: str, options: Options | None = None, *, dataset: str | None = None,
               params: Mapping[str, int] | None = None,
               limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
               profile: str = DEFAULT_PROFILE) -> list[EmulationReport]:
    """Compile ``path``, run every SCoP on the GPU and on the CPU, compare (the library
    form of ``polycu check``); a report per SCoP, mismatches included."""
    import_pycuda()  # before any compilation: without a GPU nothing can be checked
    seed = fresh_seed() if seed is None else seed
    options = options or Options()
    return [check_target(target, seed, init=options.init, profile=profile).report
            for target in targets(path, options, dataset=dataset, overrides=params,
                                  limit=limit)]


def run_command(args: argparse.Namespace) -> int:
    """``polycu check FILE.c...``: print each SCoP's comparison; the first mismatch is
    an error (non-zero exit) naming the array and index."""
    options = Options.from_namespace(args)
    overrides = parse_assignments(args.param)
    seed = fresh_seed() if args.seed is None else args.seed
    return report_files(args.files, lambda path: check_file(
        path, options, dataset=args.dataset, params=overrides, limit=args.max_param,
        seed=seed), "the GPU results")
