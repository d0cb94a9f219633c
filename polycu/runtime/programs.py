"""Whole programs emitted by polycu, built for the CPU and run against the original.

In:  an emitted .cu (with its host program OUT_host.c beside it), how to build it
     (``ProgramBuild``: -D, -I, C sources to link such as the PolyBench harness), and
     the original C file or the dump it prints.
Out: ``ProgramReport``: the ``POLYBENCH_DUMP_ARRAYS`` dump of the emulated build
     (g++ with ``emulate.EMULATION_FLAGS`` and ``polycu_emu.h``) compared array by
     array with the original's (gcc), each value up to one unit in the last printed
     digit; a build or run that fails is the report's error.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from ..diagnostics import Location, PolycuError, error
from .emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env
from .native import build_cached

_DUMP_BEGIN, _DUMP_END = "==BEGIN DUMP_ARRAYS==", "==END   DUMP_ARRAYS=="
# PolyBench prints "begin dump: NAME" without a newline: the values may follow the
# name directly ("begin dump: x0.00 ..."); the end marker names the array again.
_DUMP_ARRAY = re.compile(r"begin dump: (\S+?)(.*?)end   dump: \1\n", re.S)


def parse_dump(text: str) -> dict[str, list[str]]:
    """The arrays of a PolyBench dump (stderr of a ``-DPOLYBENCH_DUMP_ARRAYS`` run), as the
    printed tokens (kept as text: their number of decimals is the precision)."""
    start, end = text.find(_DUMP_BEGIN + "\n"), text.rfind(_DUMP_END)
    if start < 0 or end < start:
        raise ValueError("no ==BEGIN DUMP_ARRAYS== ... ==END DUMP_ARRAYS== section")
    body = text[start + len(_DUMP_BEGIN) + 1:end]
    arrays = {}
    for match in _DUMP_ARRAY.finditer(body):
        arrays[match.group(1)] = match.group(2).split()
    if not arrays:
        raise ValueError("the dump holds no array")
    return arrays


@dataclass(frozen=True)
class DumpComparison:
    """One dumped array: values compared up to ``units`` in the last printed digit."""

    name: str
    size: int
    mismatches: int
    max_abs_error: float
    first_mismatch: int | None = None
    expected: str | None = None
    actual: str | None = None

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        text = (f"{self.name}: {self.size} values, max abs error {self.max_abs_error:.3g}, "
                f"{self.mismatches} mismatch{'es' if self.mismatches != 1 else ''}")
        if self.first_mismatch is not None:
            text += (f"; first at value #{self.first_mismatch}: expected {self.expected}, "
                     f"got {self.actual}")
        return text


def _last_digit(token: str) -> float:
    """The value of one unit in the last printed digit; 0 for an integer (exact)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa and not exponent:
        return 0.0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def compare_dumps(expected: str, actual: str, units: float = 1.0) -> list[DumpComparison]:
    """Compare two dumps array by array; a value matches when it differs by at most
    ``units`` in the last digit printed (two values that straddle a rounding boundary
    print one unit apart however close they are); integers must be equal."""
    want, got = parse_dump(expected), parse_dump(actual)
    if list(want) != list(got):
        raise ValueError(f"dumped arrays differ: expected {list(want)}, got {list(got)}")
    result = []
    for name, tokens in want.items():
        other = got[name]
        if len(tokens) != len(other):
            raise ValueError(f"{name}: {len(tokens)} values expected, {len(other)} dumped")
        e = np.array([float(t) for t in tokens])
        a = np.array([float(t) for t in other])
        ulp = np.array([_last_digit(t) for t in tokens])
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)
            both_nan = np.isnan(a) & np.isnan(e)
            bad = ~both_nan & ~(diff <= units * ulp * (1 + 1e-9))
        count = int(np.count_nonzero(bad))
        first = int(np.flatnonzero(bad)[0]) if count else None
        finite = np.isfinite(diff)
        result.append(DumpComparison(
            name, len(tokens), count, float(np.max(diff[finite], initial=0.0)), first,
            tokens[first] if first is not None else None,
            other[first] if first is not None else None))
    return result


@dataclass(frozen=True)
class ProgramReport:
    """The outcome of running an emitted program on the CPU against the original."""

    program: str
    arrays: tuple[DumpComparison, ...]
    output: str = ""
    error: str | None = None   # why no comparison was possible (build, crash, dump)

    @property
    def ok(self) -> bool:
        return self.error is None and all(c.ok for c in self.arrays)

    def format(self) -> str:
        verdict = "FAILED" if self.error else "OK" if self.ok else "MISMATCH"
        lines = [f"{self.program}: {verdict}"]
        if self.error:
            lines.append(f"  {self.error}")
        lines += [f"  {c.describe()}" for c in self.arrays]
        return "\n".join(lines)


@dataclass(frozen=True)
class ProgramBuild:
    """How to build a program: -D and -I as for gcc, plus C sources linked with it
    (compiled by gcc, e.g. the PolyBench harness)."""

    defines: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    c_sources: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ("-O2", "-ffp-contract=off")

    def preprocessor_flags(self) -> list[str]:
        return [f"-D{d}" for d in self.defines] + [f"-I{i}" for i in self.includes]


def _c_objects(build: ProgramBuild, compiler: str = "gcc") -> list[str]:
    """The extra C sources as cached objects (keyed by their text and headers')."""
    objects = []
    for path in build.c_sources:
        source = Path(path)
        headers = "".join(p.read_text() for inc in build.includes
                          for p in sorted(Path(inc).glob("*.h")) if p.is_file())
        flags = [compiler, *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                 "-c"]
        objects.append(str(build_cached(source.read_text(), flags, suffix=".o", language="c",
                                        extra_key=headers)))
    return objects


def _run_program(argv: list[str], timeout: float, env: Mapping[str, str] | None,
                 what: str) -> tuple[str, str]:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise error(f"{what} did not finish within {timeout:g} s") from None
    if proc.returncode != 0:
        how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise error(f"{what} {how}" + (f"; it printed:\n{tail}" if tail else ""))
    return proc.stdout, proc.stderr


def build_program(source: Path, output: Path, build: ProgramBuild, *, emulate: bool) -> None:
    """Build a whole program: the emitted .cu with g++ and the emulation header and
    its host program OUT_host.c with gcc (``emulate``), or the original C with gcc;
    the extra C sources are linked in."""
    objects = _c_objects(build)
    host = source.with_name(source.stem + "_host.c")
    if emulate and host.exists():
        objects.append(str(output.with_name(output.name + "_host.o")))
        argv = ["gcc", *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                "-c", str(host), "-o", objects[-1]]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise error(f"gcc failed to build {host}:\n{proc.stderr.strip()}\n"
                        f"command: {' '.join(argv)}", Location(str(host)))
    if emulate:
        argv = ["g++", *EMULATION_FLAGS, "-I", str(INCLUDE_DIR), *build.preprocessor_flags(),
                "-I", str(source.parent), "-x", "c++", str(source), "-x", "none", *objects,
                "-lm", "-o", str(output)]
    else:
        argv = ["gcc", *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                str(source), *objects, "-lm", "-o", str(output)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise error(f"{argv[0]} failed to build {source}:\n{proc.stderr.strip()}\n"
                    f"command: {' '.join(argv)}", Location(str(source)))


def emulate_program(cu_file: str | Path, build: ProgramBuild, *,
                    original: str | Path | None = None, reference_dump: str | None = None,
                    units: float = 1.0, timeout: float = 300.0) -> ProgramReport:
    """Build the emitted program for the CPU, run it, and compare its array dump with
    ``reference_dump`` or, when None, with a fresh gcc build of ``original``.

    Both builds get ``build``'s defines (add ``POLYBENCH_DUMP_ARRAYS`` and the
    dataset there).  Build and run failures are returned as a failed report.
    """
    cu_file = Path(cu_file)
    if reference_dump is None and original is None:
        raise ValueError("emulate_program needs the original program or a reference dump")
    original_path = Path(original) if original is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="polycu-emulate-") as tmp:
            emulated = Path(tmp) / "emulated"
            build_program(cu_file, emulated, build, emulate=True)
            if original_path is not None and reference_dump is None:
                reference = Path(tmp) / "reference"
                build_program(original_path, reference, build, emulate=False)
                reference_dump = _run_program([str(reference)], timeout, None,
                                              f"the gcc build of {original}")[1]
            out, err = _run_program([str(emulated)], timeout, emulation_env(),
                                    f"the emulated build of {cu_file}")
    except PolycuError as exc:  # a failed build or run is the report
        return ProgramReport(str(cu_file), (), error="\n".join(d.message for d in exc.diagnostics))
    try:
        arrays = tuple(compare_dumps(reference_dump, err, units))
    except ValueError as exc:
        return ProgramReport(str(cu_file), (), out + err, error=f"bad dump: {exc}")
    return ProgramReport(str(cu_file), arrays, out + err)
