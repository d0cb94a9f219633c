"""Run the C preprocessor the way polycu needs it.

pycparser parses preprocessed C only, and the system's libc headers are full
of GNU extensions it rejects, so cpp runs with ``-nostdinc -undef`` and
polycu's own headers (``polycu/fakelibc/``, shipped as package data) as the only
system include directory.  The output keeps cpp's line markers
(``# 12 "file.c"``), which pycparser follows, so every AST coordinate names
the user's file and line.

cpp collapses the whitespace between tokens (``a  =  b`` becomes ``a = b``),
which would shift every column after the first token of a line.  Columns
matter because every diagnostic polycu prints is ``file:line:col``, so after
cpp has run each output line is re-spaced to put its tokens back at their
columns in the source (see ``_restore_columns``).
"""
from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..diagnostics import Diagnostic, Location, PolycuError, error

FAKELIBC: Path = Path(__file__).resolve().parents[1] / "fakelibc"
"""polycu's libc headers: package data inside ``polycu/``, so an installed copy finds them."""

# True facts about the one target fakelibc describes (x86-64 Linux, LP64);
# -undef removes them together with GCC's own macros (__GNUC__ must stay
# undefined, or headers and user code switch to GNU extensions).
_TARGET_MACROS: tuple[str, ...] = ("__linux__=1", "__unix__=1", "__x86_64__=1", "__LP64__=1")


@dataclass(frozen=True)
class Preprocessed:
    """One translation unit after cpp, ready for ``polycu.frontend.parse.parse``."""

    text: str
    """cpp output with line markers, so pycparser's coordinates name the user's files."""
    source: str
    """The main file's path exactly as given (the name used in the line markers)."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """cpp's warnings (e.g. a redefined macro), each followed by its include-chain notes."""


def preprocess(path: str, defines: Sequence[str] = (), includes: Sequence[str] = (),
               undefines: Sequence[str] = (), cpp: str | None = None) -> Preprocessed:
    """Preprocess the C file at ``path``.

    ``defines`` are ``NAME`` or ``NAME=VALUE`` (as after gcc's ``-D``),
    ``undefines`` are names (``-U``), ``includes`` are directories (``-I``),
    searched in the order given and before polycu's libc headers.  All
    defines are processed before all undefines, so ``defines=["N=10"],
    undefines=["N"]`` leaves N undefined as ``gcc -DN=10 -UN`` does.
    ``cpp`` is the preprocessor command (default ``cpp``; ``"gcc -E"`` works).
    Raises ``PolycuError`` located at cpp's ``file:line:col`` on failure.
    """
    file = Path(path)
    if not file.is_file():
        raise error("no such file", Location(path))
    source_text = file.read_text(encoding="utf-8", errors="replace")
    argv = _command(cpp, defines, includes, undefines) + [path]
    output, diagnostics = _run(argv, None)
    return Preprocessed(_restore_columns(output, {path: source_text}), path, diagnostics)


def preprocess_text(text: str, filename: str, defines: Sequence[str] = (),
                    includes: Sequence[str] = (), undefines: Sequence[str] = (),
                    cpp: str | None = None) -> Preprocessed:
    """Preprocess C source held in a string as if it were the file ``filename``.

    The file need not exist: its name only appears in line markers and
    diagnostics.  ``#include "x.h"`` searches the directory of ``filename``
    first, as it would for a real file; the other arguments are as for
    ``preprocess``.
    """
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    argv = _command(cpp, defines, includes, undefines)
    argv += ["-iquote", os.path.dirname(filename) or ".", "-"]
    output, diagnostics = _run(argv, f'#line 1 "{quoted}"\n{text}')
    return Preprocessed(_restore_columns(output, {filename: text}), filename, diagnostics)


def _command(cpp: str | None, defines: Sequence[str], includes: Sequence[str],
             undefines: Sequence[str]) -> list[str]:
    """The cpp argument list, without the input file."""
    if not (FAKELIBC / "stdio.h").is_file():
        raise error(f"polycu's libc headers are missing (expected in {FAKELIBC}); "
                    "install polycu from its source tree with 'pip install -e .'")
    argv = shlex.split(cpp) if cpp else ["cpp"]
    argv += ["-nostdinc", "-undef"]
    argv += [f"-D{macro}" for macro in _TARGET_MACROS]
    argv += [f"-D{d}" for d in defines]
    argv += [f"-U{u}" for u in undefines]
    for directory in includes:
        argv += ["-I", directory]
    argv += ["-isystem", str(FAKELIBC)]
    return argv


def _run(argv: list[str], stdin_text: str | None) -> tuple[str, tuple[Diagnostic, ...]]:
    """Run cpp; return its output and warnings, or raise its errors as a PolycuError."""
    try:
        proc = subprocess.run(argv, input=stdin_text, capture_output=True,
                              encoding="utf-8", errors="replace", check=False)
    except OSError as exc:
        raise error(f"cannot run the C preprocessor '{argv[0]}': {exc.strerror}") from None
    groups = _parse_cpp_stderr(proc.stderr)
    if proc.returncode != 0:
        failed = [g for g in groups if g[0].severity == "error"]
        if not failed:
            detail = proc.stderr.strip() or f"exit status {proc.returncode}"
            raise error(f"C preprocessor failed: {detail}")
        raise PolycuError([d for group in failed for d in group])
    return proc.stdout, tuple(d for group in groups for d in group)


_DIAG_RE = re.compile(r"^(?P<where>.*?): (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_WHERE_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?$")
_INCLUDED_RE = re.compile(r"^\s*(?:In file included )?from (?P<where>.*?)[:,]$")
_EXCERPT_RE = re.compile(r"^\s*\d*\s*\|")  # gcc's quoted source line and its caret line


def _location(where: str) -> Location | None:
    """``file:line:col`` / ``file:line`` / ``file`` as cpp prints them; None for the tool itself."""
    m = _WHERE_RE.match(where)
    if m:
        return Location(m["file"], int(m["line"]), int(m["col"] or 0))
    if where in ("cc1", "cpp", "gcc", "clang") or not where:
        return None
    return Location(where)


def _parse_cpp_stderr(stderr: str) -> list[list[Diagnostic]]:
    """Split cpp's stderr into groups: a message first, then its notes.

    The "In file included from a.c:3" lines printed before a message become
    notes after it, so that the message that matters comes first; gcc's
    source-and-caret excerpts are dropped (the location already says it).
    """
    groups: list[list[Diagnostic]] = []
    chain: list[Diagnostic] = []
    for line in stderr.splitlines():
        if _EXCERPT_RE.match(line):
            continue
        inc = _INCLUDED_RE.match(line)
        if inc:
            chain.append(Diagnostic("note", "in file included from here",
                                    _location(inc["where"])))
            continue
        m = _DIAG_RE.match(line)
        if not m:
            continue
        severity = "error" if m["sev"] == "fatal error" else m["sev"]
        diag = Diagnostic(severity, m["msg"], _location(m["where"]))
        if severity == "note" and groups:
            groups[-1].append(diag)
        else:
            groups.append([diag, *chain])
        chain = []
    return groups


# A C tokenizer just good enough to re-space cpp output: it must never split
# a real token in two (so longest punctuators first), and it must keep string
# and character literals whole.
_PUNCTUATORS = sorted(
    "%:%: ... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= "
    "## <: :> <% %> %:".split(), key=len, reverse=True)
_TOKEN_RE = re.compile("|".join([
    r'(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"',
    r"[uUL]?'(?:\\.|[^'\\\n])*'",
    r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*",
    r"[A-Za-z_$][0-9A-Za-z_$]*",
    *(re.escape(p) for p in _PUNCTUATORS),
    r"\S",
]))
# In source text, comments, backslash-newlines and whitespace other than
# newlines (counted separately) are skipped; every other character starts a
# token, since the last alternative of _TOKEN_RE is any non-space character.
_SOURCE_RE = re.compile(
    r"(?P<skip>/\*.*?\*/|//(?:\\\n|[^\n])*|\\\n|[^\S\n]+)|(?P<token>" + _TOKEN_RE.pattern + ")",
    re.S)
_MARKER_RE = re.compile(r'^# (\d+) "((?:\\.|[^"\\])*)"')


def _source_tokens(text: str) -> dict[int, list[tuple[str, int]]]:
    """Tokens of a source file by line number: (token, 0-based column) pairs."""
    by_line: dict[int, list[tuple[str, int]]] = {}
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        if text[pos] == "\n":
            line, line_start, pos = line + 1, pos + 1, pos + 1
            continue
        m = _SOURCE_RE.match(text, pos)
        assert m is not None, "every character is skipped or starts a token"
        if m["token"] is not None:
            by_line.setdefault(line, []).append((m["token"], pos - line_start))
        newlines = m.group().count("\n")
        if newlines:
            line += newlines
            line_start = m.start() + m.group().rfind("\n") + 1
        pos = m.end()
    return by_line


def _respace(line: str, source: list[tuple[str, int]]) -> str:
    """Re-space one cpp output line so tokens that come from ``source`` sit at their columns.

    Tokens are matched with the source line's tokens in order (a macro
    expansion leaves some unmatched).  A matched token moves right to its
    source column; every token keeps at least the separation cpp gave it,
    so the token sequence, and with it the meaning, is unchanged.
    """
    tokens = [(m.group(), m.start()) for m in _TOKEN_RE.finditer(line)]
    if not tokens:
        return line
    matcher = difflib.SequenceMatcher(None, [t for t, _ in tokens], [t for t, _ in source],
                                      autojunk=False)
    target: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            target[block.a + k] = source[block.b + k][1]
    pieces: list[str] = []
    column = 0
    previous_end = 0
    for index, (text, start) in enumerate(tokens):
        gap = start - previous_end  # cpp's spacing: the indentation, then 0 or 1
        least = column + (gap if index == 0 else min(gap, 1))
        place = max(target.get(index, least), least)
        pieces.append(" " * (place - column) + text)
        column = place + len(text)
        previous_end = start + len(text)
    return "".join(pieces)


def _restore_columns(output: str, known: dict[str, str]) -> str:
    """Re-space every output line that comes from a user file (see ``_respace``).

    ``known`` maps file names (as in the line markers) to their text; other
    files named in markers are read from disk, except polycu's own headers
    and cpp's pseudo-files such as ``<command-line>``, whose columns nobody
    reports.
    """
    tokens_of: dict[str, dict[int, list[tuple[str, int]]] | None] = {
        name: _source_tokens(text) for name, text in known.items()}
    lines = output.split("\n")
    current: dict[int, list[tuple[str, int]]] | None = None
    line_no = 0
    for i, line in enumerate(lines):
        marker = _MARKER_RE.match(line)
        if marker:
            name = marker[2].replace('\\"', '"').replace("\\\\", "\\")
            if name not in tokens_of:
                tokens_of[name] = _read_tokens(name)
            current, line_no = tokens_of[name], int(marker[1])
            continue
        if current is not None and line_no in current:
            lines[i] = _respace(line, current[line_no])
        line_no += 1
    return "\n".join(lines)


def _read_tokens(name: str) -> dict[int, list[tuple[str, int]]] | None:
    """Source tokens of a file named in a line marker, or None if it is not a user file."""
    path = Path(name)
    if name.startswith("<") or FAKELIBC in path.resolve().parents or not path.is_file():
        return None
    return _source_tokens(path.read_text(encoding="utf-8", errors="replace"))
