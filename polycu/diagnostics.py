"""Located diagnostics: the one exception type a polycu user ever sees.

Every failure caused by the input (unsupported construct, syntax error, bad
option value) is reported as ``file:line:col: error: message`` and makes the
command exit with a non-zero status.  Internal invariants use ``assert``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable, TextIO


@dataclass(frozen=True)
class Location:
    """A position in the user's source (after mapping back through cpp line markers)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        if self.column <= 0:
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.column}"

    @classmethod
    def from_coord(cls, coord: object, default_file: str = "<input>") -> "Location":
        """Build from a pycparser ``Coord`` (or None)."""
        if coord is None:
            return cls(default_file)
        return cls(getattr(coord, "file", None) or default_file,
                   int(getattr(coord, "line", 0) or 0),
                   int(getattr(coord, "column", 0) or 0))


@dataclass(frozen=True)
class Diagnostic:
    """One message about the input: severity is 'error', 'warning' or 'note'."""

    severity: str
    message: str
    location: Location | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.severity}: {self.message}"


class PolycuError(Exception):
    """Raised for any user-facing failure; carries one or more diagnostics."""

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def reworded(self, words: Callable[[str], str]) -> "PolycuError":
        """The same error with each message rewritten by ``words`` (the user's names
        of renamed identifiers put back, for one)."""
        return PolycuError(Diagnostic(d.severity, words(d.message), d.location)
                           for d in self.diagnostics)

    def __reduce__(self) -> tuple[type, tuple[tuple[Diagnostic, ...]]]:
        """Pickled as its diagnostics (not as its message), so that an error raised in
        a worker process or a Ray actor reaches the command as the same error."""
        return type(self), (self.diagnostics,)


def error(message: str, location: Location | None = None) -> PolycuError:
    """Shorthand: ``raise error("x is not affine", loc)``."""
    return PolycuError(Diagnostic("error", message, location))


@dataclass
class Reporter:
    """Collects warnings and notes emitted by phases that can go on after them."""

    stream: TextIO | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def warn(self, message: str, location: Location | None = None) -> None:
        self._emit(Diagnostic("warning", message, location))

    def note(self, message: str, location: Location | None = None) -> None:
        self._emit(Diagnostic("note", message, location))

    def _emit(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)
        print(diag, file=self.stream or sys.stderr)
