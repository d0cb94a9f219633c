"""The CPU reference of a SCoP, and calling native code built from polycu's output.

In:  a ``Scop`` (its macro-expanded ``original_code`` and outside ``declarations``).
Out: a ``NativeFunction``: a gcc-built shared library exporting the SCoP as a C
function with the contract-1 signature ``void f(P_1 p_1, ..., T_1 *a_1, ...)``
(parameters in order, each with its C type ``Scop.parameter_type``, then every
non-local array, scalars as pointers to one element, multi-dimensional arrays as
flat row-major blocks of ``Array.extents``).

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
from pycparser import c_ast, c_parser

from ..diagnostics import Diagnostic, Location, PolycuError, error
from ..model import Array, Scop

#: gcc flags of the reference: no contraction of a*b+c, so results do not
#: depend on the host's FMA support (same choice as scripts/polybench_cpu.py).
REFERENCE_FLAGS = ("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared")
#: Added when the SCoP has signed integer data: a signed overflow (undefined in C,
#: so nothing to compare the generated code with) stops the reference with a trap
#: instruction instead of giving some value (no sanitizer library is needed).
OVERFLOW_TRAP_FLAGS = ("-fsanitize=signed-integer-overflow",
                       "-fsanitize-undefined-trap-on-error")
#: What a trap instruction raises (x86-64: ud2; AArch64: brk).
_TRAPS = (signal.SIGILL, signal.SIGTRAP)

_QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__",
                         "register", "static", "extern"})
# Type names that are not spelt with C's keywords (LP64: long and pointers are 64-bit).
_NAMED_TYPES = {
    "_Bool": np.bool_, "bool": np.bool_,
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
    "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64,
    "size_t": np.uint64, "ssize_t": np.int64, "ptrdiff_t": np.int64,
    "intptr_t": np.int64, "uintptr_t": np.uint64,
}
_KEYWORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "float", "double"})
# Integer numpy type -> the ctypes type of a parameter of that type (by name: the
# child process of a native call imports nothing but the standard library).
_CTYPES = {
    np.dtype(np.int8): "c_int8", np.dtype(np.uint8): "c_uint8",
    np.dtype(np.int16): "c_int16", np.dtype(np.uint16): "c_uint16",
    np.dtype(np.int32): "c_int32", np.dtype(np.uint32): "c_uint32",
    np.dtype(np.int64): "c_int64", np.dtype(np.uint64): "c_uint64",
}


def scalar_dtype(c_type: str) -> np.dtype | None:
    """The numpy type of a C arithmetic type, in any legal spelling (``long unsigned
    int``, ``const short``, ``uint64_t``); None for anything else.  A ``*`` is ignored:
    ``double *`` gives the element type."""
    words = [w for w in c_type.replace("*", " ").split() if w not in _QUALIFIERS]
    if len(words) == 1 and words[0] in _NAMED_TYPES:
        return np.dtype(_NAMED_TYPES[words[0]])
    count = {w: words.count(w) for w in _KEYWORDS}
    if not words or set(words) - _KEYWORDS or count["signed"] + count["unsigned"] > 1 \
            or any(n > (2 if w == "long" else 1) for w, n in count.items()):
        return None
    unsigned = count["unsigned"] == 1
    if count["float"] or count["double"]:
        if count["float"] and len(words) == 1:
            return np.dtype(np.float32)
        if count["double"] and set(words) <= {"double", "long"} and count["long"] <= 1:
            return np.dtype(np.longdouble if count["long"] else np.float64)
        return None
    if count["char"]:
        if set(words) - {"char", "signed", "unsigned"}:
            return None
        return np.dtype(np.uint8 if unsigned else np.int8)
    if count["short"]:
        if count["long"]:
            return None
        return np.dtype(np.uint16 if unsigned else np.int16)
    if count["long"]:
        return np.dtype(np.uint64 if unsigned else np.int64)
    return np.dtype(np.uint32 if unsigned else np.int32)


def integer_bounds(dtype: np.dtype) -> tuple[int, int]:
    """The smallest and largest value of an integer numpy type."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def dtype_of(array: Array) -> np.dtype:
    """The numpy type of an array's elements (raises a located error if unknown)."""
    dtype = scalar_dtype(array.element_type)
    if dtype is None or dtype == np.bool_:
        raise error(f"element type '{array.element_type}' of '{array.name}' cannot be run "
                    "on the CPU", array.location)
    return dtype


# -- the contract-1 signature ---------------------------------------------------

@dataclass(frozen=True)
class Signature:
    """What a SCoP function takes: parameters, each with its C type (``int`` when
    ``parameter_types`` does not say), then non-local arrays (pointers)."""

    parameters: tuple[str, ...]
    arrays: tuple[Array, ...]
    parameter_types: tuple[str, ...] = ()

    @classmethod
    def of(cls, scop: Scop) -> "Signature":
        return cls(scop.parameters, tuple(a for a in scop.arrays if not a.local),
                   tuple(scop.parameter_type(p) for p in scop.parameters))

    def parameter_type(self, name: str) -> str:
        """The C type of parameter ``name``."""
        return dict(zip(self.parameters, self.parameter_types)).get(name, "int")

    def parameter_dtype(self, name: str, location: Location | None = None) -> np.dtype:
        """The numpy type of parameter ``name``: an integer type (a located error if not)."""
        dtype = scalar_dtype(self.parameter_type(name))
        if dtype is None or dtype.kind not in "iu":
            raise error(f"parameter '{name}' has type '{self.parameter_type(name)}', which "
                        "is not an integer type the runtimes can pass", location)
        return dtype

    def check_values(self, params: Mapping[str, int], what: str,
                     location: Location | None = None) -> None:
        """A located error when a parameter value does not fit its C type (C would
        convert it, silently, to another value than the one reported)."""
        for name in self.parameters:
            low, high = integer_bounds(self.parameter_dtype(name, location))
            if not low <= int(params[name]) <= high:
                raise error(f"{what}: {name}={int(params[name])} does not fit its type "
                            f"'{self.parameter_type(name)}' ({low}..{high})", location)

    def prototype(self, name: str, argument: str = "polycu_arg_") -> str:
        """``void name(int n, unsigned long m, ..., double *polycu_arg_A, ...)``."""
        args = [f"{self.parameter_type(p)} {p}" for p in self.parameters]
        args += [f"{a.element_type} *{argument}{a.name}" for a in self.arrays]
        return f"void {name}({', '.join(args) or 'void'})"

    def ctypes_names(self) -> list[str]:
        """The ctypes type name of each parameter (``c_int32``, ``c_uint64``, ...)."""
        return [_CTYPES[self.parameter_dtype(p)] for p in self.parameters]

    def argtypes(self) -> list[type]:
        return ([getattr(ctypes, n) for n in self.ctypes_names()]
                + [ctypes.c_void_p] * len(self.arrays))


def reference_name(scop: Scop) -> str:
    return f"polycu_reference_{scop.name}"


def free_names(code: str) -> list[str] | None:
    """The variables the C statements ``code`` use where none of their own
    declarations is in scope (C's block scopes: a name declared in a block, or in a
    ``for`` clause, is bound only there), in order of first use; None when pycparser
    cannot read the text (a type name it does not know)."""
    try:
        tree = c_parser.CParser().parse(f"void polycu_scop(void) {{\n{code}\n}}")
    except Exception:  # pycparser raises several types on text it cannot read
        return None
    found: dict[str, None] = {}
    scopes: list[set[str]] = []

    class Visitor(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            if not any(node.name in scope for scope in scopes):
                found.setdefault(node.name)

        def visit_Decl(self, node: c_ast.Decl) -> None:
            self.visit(node.type)             # array extents are read before the name binds
            if node.name:
                scopes[-1].add(node.name)
            if node.init is not None:
                self.visit(node.init)

        def visit_Compound(self, node: c_ast.Compound) -> None:
            scopes.append(set())
            self.generic_visit(node)
            scopes.pop()

        visit_For = visit_Compound

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if node.args is not None:      # the callee is a function, not a variable
                self.visit(node.args)

        def visit_StructRef(self, node: c_ast.StructRef) -> None:
            self.visit(node.name)          # the field is no variable

    Visitor().visit(tree.ext[0].body)
    return list(found)


def _outside_declaration(scop: Scop, name: str) -> str | None:
    """How the reference declares a variable the SCoP uses from outside when the
    frontend gave no declaration of it (it omits names that the SCoP also declares
    somewhere inside): as the SCoP's array of that name, or, for a loop counter, as
    a ``long`` (the iterator's values are the domain's, which its own type holds)."""
    for a in scop.arrays:
        if a.name == name:
            if a.extents and a.extents[0] is None:
                return f"{a.element_type} *{name}"
            return f"{a.element_type} {name}" + "".join(f"[{e}]" for e in a.extents)
    if any(name in s.iterators for s in scop.statements):
        return f"long {name}"
    return None  # a global, an enumerator, a function: nothing to declare


def reference_source(scop: Scop) -> str:
    """C99 text of the SCoP as a function with the contract-1 signature.

    The SCoP's text goes into a block of its own, after the declarations of what
    it uses from outside, so that a name it declares again (``int i;`` outside,
    ``for (int i = ...)`` or ``int i;`` inside) shadows the outside one as in the
    original function instead of colliding with it."""
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
    declarations = dict(scop.declarations)
    outside = list(declarations)
    outside += [n for n in free_names(scop.original_code) or () if n not in declarations]
    for name in outside:
        if name in arrays or name in scop.parameters:
            continue
        declaration = declarations.get(name) or _outside_declaration(scop, name)
        if declaration:
            body.append(f"{declaration};")  # iterators and other outside locals
    body.append("{")
    body += ["  " + line for line in scop.original_code.strip().splitlines()]
    body.append("}")
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
    traps_overflow: bool = False    # built with OVERFLOW_TRAP_FLAGS

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

class SignedOverflow(PolycuError):
    """The reference overflowed a signed integer: its result is undefined."""

    def __init__(self, message: str, location: Location | None):
        super().__init__(Diagnostic("error", message, location))


def build_reference(scop: Scop, *, compiler: str = "gcc") -> NativeFunction:
    """Compile the SCoP's original code into a cached shared library (trapping signed
    overflow when it has signed integer data: ``OVERFLOW_TRAP_FLAGS``)."""
    sig = Signature.of(scop)
    traps = any(dtype_of(a).kind == "i" for a in sig.arrays)
    flags = [*REFERENCE_FLAGS, *(OVERFLOW_TRAP_FLAGS if traps else ())]
    library = build_cached(reference_source(scop), [compiler, *flags], suffix=".so",
                           language="c", location=scop.location)
    return NativeFunction(library, reference_name(scop), sig,
                          f"the CPU reference of {scop.name}", scop.location, traps)
