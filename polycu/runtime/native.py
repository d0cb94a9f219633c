"""Native code built from polycu's output: cached builds, calls in a child process.

In:  C, C++ or CUDA source and a compiler command; a built shared library exporting
     a function of the contract-1 signature (``signature.Signature``).
Out: the built product's path (``build_cached``: cached on disk, keyed by a hash of
     the source, the compiler and its flags); ``NativeFunction``: the function,
     callable on numpy arrays.

A call runs in a fresh child process (``native_child.py``, arrays shared through
files in ``/dev/shm``), so that a crash, an abort or a hang of generated code is a
located error, never the end of the calling Python process.
"""
from __future__ import annotations

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

from ..diagnostics import Diagnostic, Location, PolycuError, error
from .signature import Signature, dtype_of

#: What a trap instruction raises (x86-64: ud2; AArch64: brk).
_TRAPS = (signal.SIGILL, signal.SIGTRAP)

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


class BuildError(PolycuError):
    """A compiler refused a source: the located error, with what the compiler printed."""

    def __init__(self, message: str, location: Location | None, output: str):
        super().__init__(Diagnostic("error", message, location))
        self.output = output


_SUFFIXES = {"c": ".c", "c++": ".cu", "cu": ".cu"}


def build_cached(source: str, command: Sequence[str], *, suffix: str, language: str,
                 location: Location | None = None, extra_key: str = "") -> Path:
    """Compile ``source`` with ``command`` (compiler and flags, no input or output)
    unless the cache holds the result; return the product's path.

    ``language`` is the compiler's ``-x`` value (``c``, ``c++``, nvcc's ``cu``).
    The source stays next to the product (``KEY.c`` or ``KEY.cu``), so that compiler
    messages and crash reports point at a file one can open.  Concurrent builds of
    the same key are safe: each writes private files, then renames them into place.
    A failed build raises ``BuildError``.
    """
    key = hashlib.sha256("\0".join([*command, language, extra_key, source]).encode()).hexdigest()
    stem = cache_dir() / key[:24]
    target = stem.with_suffix(suffix)
    if target.exists():
        return target
    src = stem.with_suffix(_SUFFIXES[language])
    with tempfile.TemporaryDirectory(prefix="polycu-build-", dir=target.parent) as tmp:
        private = Path(tmp) / src.name
        private.write_text(source)
        os.replace(private, src)
        out = Path(tmp) / f"out{suffix}"
        argv = [*command, "-x", language, str(src), "-o", str(out)]
        if shutil.which(argv[0]) is None:
            raise error(f"'{argv[0]}' is needed to build the {language} code but is not "
                        "installed", location)
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"{Path(argv[0]).name} failed to build the {language} code:\n"
                             f"{proc.stderr.strip()}\ncommand: {' '.join(argv)}", location,
                             proc.stdout + proc.stderr)
        os.replace(out, target)
    return target


class SignedOverflow(PolycuError):
    """The reference overflowed a signed integer: its result is undefined."""

    def __init__(self, message: str, location: Location | None):
        super().__init__(Diagnostic("error", message, location))


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
    traps_overflow: bool = False    # built with reference.OVERFLOW_TRAP_FLAGS
    hint: str = ""                  # said after a crash or a non-zero exit

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
        sig.check_values(params, self.what, self.location)
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
                    "params": [[kind, int(params[p])]
                               for kind, p in zip(sig.ctypes_names(), sig.parameters)],
                    "arrays": files,
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
        if self.traps_overflow and -returncode in _TRAPS:
            raise SignedOverflow(f"{self.what} overflows a signed integer on these inputs "
                                 "(undefined behaviour in C)", self.location)
        hint = f" ({self.hint})" if self.hint else ""
        if returncode < 0:
            name = signal.Signals(-returncode).name
            raise error(f"{self.what} crashed ({name}){hint}{said}", self.location)
        if returncode != 0:
            raise error(f"{self.what} exited with status {returncode}{hint}{said}",
                        self.location)


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
