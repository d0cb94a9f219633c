"""The CPU reference of a SCoP, and calling native code built from polycu's output.

In:  a ``Scop`` (its macro-expanded ``original_code`` and outside ``declarations``).
Out: a ``NativeFunction``: a gcc-built shared library exporting the SCoP as a C
function with the contract-1 signature ``void f(int p_1, ..., T_1 *a_1, ...)``
(parameters in order, then every non-local array, scalars as pointers to one
element, multi-dimensional arrays as flat row-major blocks of ``Array.extents``).

The reference re-declares each array as a pointer to VLA rows of its original
extents (``double (*A)[n + 1] = (double (*)[n + 1]) polycu_arg_A;``), so the
original text compiles unchanged.  Builds are cached on disk, keyed by a hash of
the source, the compiler and its flags; calls run in a fresh child process
(``native_child.py``, arrays shared through files in ``/dev/shm``) so that a
crash, an abort or a hang of generated code is a report, never the end of the
calling Python process.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..diagnostics import Location, error
from ..model import Array, Scop

#: gcc flags of the reference: no contraction of a*b+c, so results do not
#: depend on the host's FMA support (same choice as scripts/polybench_cpu.py).
REFERENCE_FLAGS = ("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared")

_DTYPES = {
    "double": np.float64, "float": np.float32, "long double": np.longdouble,
    "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8,
    "short": np.int16, "short int": np.int16, "signed short": np.int16,
    "unsigned short": np.uint16, "unsigned short int": np.uint16,
    "int": np.int32, "signed": np.int32, "signed int": np.int32,
    "unsigned": np.uint32, "unsigned int": np.uint32,
    "long": np.int64, "long int": np.int64, "signed long": np.int64,
    "unsigned long": np.uint64, "unsigned long int": np.uint64,
    "long long": np.int64, "long long int": np.int64, "unsigned long long": np.uint64,
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
    "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64,
}


def dtype_of(array: Array) -> np.dtype:
    """The numpy type of an array's elements (raises a located error if unknown)."""
    key = " ".join(array.element_type.replace("const", " ").replace("volatile", " ").split())
    if key not in _DTYPES:
        raise error(f"element type '{array.element_type}' of '{array.name}' cannot be run "
                    "on the CPU", array.location)
    return np.dtype(_DTYPES[key])


# -- the contract-1 signature ---------------------------------------------------

@dataclass(frozen=True)
class Signature:
    """What a SCoP function takes: parameters (int), then non-local arrays (pointers)."""

    parameters: tuple[str, ...]
    arrays: tuple[Array, ...]

    @classmethod
    def of(cls, scop: Scop) -> "Signature":
        return cls(scop.parameters, tuple(a for a in scop.arrays if not a.local))

    def prototype(self, name: str, argument: str = "polycu_arg_") -> str:
        """``void name(int n, ..., double *polycu_arg_A, ...)``."""
        args = [f"int {p}" for p in self.parameters]
        args += [f"{a.element_type} *{argument}{a.name}" for a in self.arrays]
        return f"void {name}({', '.join(args) or 'void'})"

    def argtypes(self) -> list[type]:
        return [ctypes.c_int] * len(self.parameters) + [ctypes.c_void_p] * len(self.arrays)


def reference_name(scop: Scop) -> str:
    return f"polycu_reference_{scop.name}"


def reference_source(scop: Scop) -> str:
    """C99 text of the SCoP as a function with the contract-1 signature."""
    sig = Signature.of(scop)
    arrays = {a.name for a in sig.arrays}
    body: list[str] = []
    for a in sig.arrays:
        arg = f"polycu_arg_{a.name}"
        if a.is_scalar:
            body.append(f"{a.element_type} {a.name} = *{arg};")
        elif a.rank == 1:
            body.append(f"{a.element_type} *{a.name} = {arg};")
        else:
            if any(e is None for e in a.extents[1:]):
                raise error(f"array '{a.name}' has an unknown inner extent", a.location)
            rows = "".join(f"[{e}]" for e in a.extents[1:])
            body.append(f"{a.element_type} (*{a.name}){rows} = "
                        f"({a.element_type} (*){rows}) {arg};")
    for name, declaration in scop.declarations:
        if name not in arrays and name not in scop.parameters:
            body.append(f"{declaration};")  # iterators and other outside locals
    body.append(scop.original_code.strip())
    body += [f"*polycu_arg_{a.name} = {a.name};" for a in sig.arrays if a.is_scalar]
    where = f"{scop.source} lines {scop.region[0]}-{scop.region[1]}"
    return "\n".join([
        f"/* CPU reference of SCoP {scop.name} ({where}), written by polycu. */",
        "#include <math.h>",
        "#include <stdlib.h>",
        "",
        sig.prototype(reference_name(scop)),
        "{",
        *("  " + line for text in body for line in text.splitlines()),
        "}",
        "",
    ])


# -- building shared libraries, cached ----------------------------------------

def cache_dir() -> Path:
    """Where built libraries are kept: $POLYCU_CACHE_DIR, else ~/.cache/polycu."""
    root = os.environ.get("POLYCU_CACHE_DIR")
    if root:
        path = Path(root)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        path = Path(base) / "polycu"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / f"polycu-cache-{os.getuid()}"
        path.mkdir(parents=True, exist_ok=True)
    return path


def build_cached(source: str, command: Sequence[str], *, suffix: str, language: str,
                 location: Location | None = None, extra_key: str = "") -> Path:
    """Compile ``source`` with ``command`` (compiler and flags, no input or output)
    unless the cache holds the result; return the product's path.

    The source stays next to the product (``KEY.c`` or ``KEY.cu``), so that compiler
    messages and crash reports point at a file one can open.  Concurrent builds of
    the same key are safe: each writes private files, then renames them into place.
    """
    key = hashlib.sha256("\0".join([*command, language, extra_key, source]).encode()).hexdigest()
    stem = cache_dir() / key[:24]
    target = stem.with_suffix(suffix)
    if target.exists():
        return target
    src = stem.with_suffix(".cu" if language == "c++" else ".c")
    with tempfile.TemporaryDirectory(prefix="polycu-build-", dir=target.parent) as tmp:
        private = Path(tmp) / src.name
        private.write_text(source)
        os.replace(private, src)
        out = Path(tmp) / f"out{suffix}"
        argv = [*command, "-x", language, str(src), "-o", str(out)]
        if shutil.which(argv[0]) is None:
            raise error(f"'{argv[0]}' is needed to build on the CPU but is not installed",
                        location)
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise error(f"{argv[0]} failed to build the {language} code:\n"
                        f"{proc.stderr.strip()}\ncommand: {' '.join(argv)}", location)
        os.replace(out, target)
    return target


# -- calling native code in a child process -----------------------------------

@dataclass(frozen=True)
class Outcome:
    """How a native call ended: ``output`` is what it printed (stdout and stderr);
    ``live_allocations`` counts device allocations never freed (emulation only)."""

    output: str
    live_allocations: int | None = None


@dataclass(frozen=True)
class NativeFunction:
    """A contract-1 function in a shared library, callable on numpy arrays."""

    library: Path
    symbol: str
    signature: Signature
    what: str
    location: Location | None = None

    def __call__(self, params: Mapping[str, int], data: Mapping[str, np.ndarray], *,
                 timeout: float = 120.0, env: Mapping[str, str] | None = None) -> Outcome:
        """Run on ``data`` (arrays by name, updated in place) in a child process.

        A crash, a non-zero exit, or a run longer than ``timeout`` seconds raises a
        located error that quotes what the code printed.
        """
        sig = self.signature
        missing = [p for p in sig.parameters if p not in params]
        missing += [a.name for a in sig.arrays if a.name not in data]
        if missing:
            raise error(f"{self.what}: no value for {', '.join(missing)}", self.location)
        for a in sig.arrays:
            if data[a.name].dtype != dtype_of(a) or (a.is_scalar and data[a.name].size != 1):
                raise error(f"{self.what}: '{a.name}' must hold {a.element_type} "
                            f"{'values' if a.extents else 'value'}, not "
                            f"{data[a.name].dtype} of shape {data[a.name].shape}", self.location)
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        with tempfile.TemporaryDirectory(prefix="polycu-call-", dir=shm) as tmp:
            files = []
            for k, a in enumerate(sig.arrays):
                path = Path(tmp) / f"a{k}"
                np.ascontiguousarray(data[a.name]).tofile(path)
                files.append((str(path), int(data[a.name].nbytes)))
            status = Path(tmp) / "status"
            status.write_bytes((-1).to_bytes(8, "little", signed=True))
            spec = {"library": str(self.library), "symbol": self.symbol,
                    "params": [int(params[p]) for p in sig.parameters], "arrays": files,
                    "status": str(status)}
            output, returncode = _run_child(spec, timeout, env or {})
            self._check_status(returncode, output, timeout)
            for a, (path, _) in zip(sig.arrays, files):
                result = np.fromfile(path, dtype=data[a.name].dtype, count=data[a.name].size)
                np.copyto(data[a.name], result.reshape(data[a.name].shape))
            live = int.from_bytes(status.read_bytes(), "little", signed=True)
        return Outcome(output, None if live < 0 else live)

    def _check_status(self, returncode: int | None, output: str, timeout: float) -> None:
        said = f"; it printed:\n{output.strip()}" if output.strip() else ""
        if returncode is None:
            raise error(f"{self.what} did not finish within {timeout:g} s (a deadlock or "
                        f"an endless loop){said}", self.location)
        if returncode < 0:
            name = signal.Signals(-returncode).name
            raise error(f"{self.what} crashed ({name}){said}", self.location)
        if returncode != 0:
            raise error(f"{self.what} exited with status {returncode}{said}", self.location)


CHILD = Path(__file__).resolve().parent / "native_child.py"


def _run_child(spec: Mapping[str, object], timeout: float,
               env: Mapping[str, str]) -> tuple[str, int | None]:
    """Run ``native_child.py`` on ``spec``: (what it printed, exit status, None when it
    ran past ``timeout`` seconds and was killed; a signal as its negative number)."""
    with tempfile.TemporaryFile() as log:
        child = subprocess.Popen([sys.executable, "-I", "-S", str(CHILD), json.dumps(spec)],
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 env={**os.environ, **env}, start_new_session=True)
        try:
            returncode: int | None = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            returncode = None
        log.seek(0)
        output = log.read().decode(errors="replace")
    return output, returncode


# -- the reference itself -------------------------------------------------------

def build_reference(scop: Scop, *, compiler: str = "gcc") -> NativeFunction:
    """Compile the SCoP's original code into a cached shared library."""
    library = build_cached(reference_source(scop), [compiler, *REFERENCE_FLAGS], suffix=".so",
                           language="c", location=scop.location)
    return NativeFunction(library, reference_name(scop), Signature.of(scop),
                          f"the CPU reference of {scop.name}", scop.location)
