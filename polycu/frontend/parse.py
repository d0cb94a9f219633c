"""Parse preprocessed C into a pycparser AST, with located syntax errors.

pycparser reports a syntax error as a ``ParseError`` whose message starts
with the coordinate (``file:line:col: before: }``); it is turned into a
``PolycuError`` at that location so the user sees ``file:line:col: error:``
like every other polycu diagnostic, never a traceback.  Some of pycparser's
errors ("Invalid expression", "At end of input") name only the file, so the
parser is subclassed to give those the position of the token it stopped at.
"""
from __future__ import annotations

import re
from typing import NoReturn

from pycparser import c_ast
from pycparser.c_lexer import CLexer, Token
from pycparser.c_parser import Coord, CParser, ParseError

from ..diagnostics import Location, PolycuError, error
from .preprocess import Preprocessed

_MESSAGE_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


class _RecordingLexer(CLexer):
    """A CLexer that remembers the last token it produced, to locate errors at end of input."""

    last: Token | None = None

    def token(self) -> Token | None:
        tok = super().token()
        if tok is not None:
            self.last = tok
        return tok


class _LocatingParser(CParser):
    """A CParser whose syntax errors always carry a line and a column."""

    def __init__(self) -> None:
        super().__init__(lexer=_RecordingLexer)

    def _parse_error(self, msg: str, coord: Coord | str | None) -> NoReturn:
        if not isinstance(coord, Coord):
            # The parser fails before the next token; with none left, after the last one.
            tok = self._peek()
            if tok is None:
                assert isinstance(self.clex, _RecordingLexer)
                tok = self.clex.last
                msg = "unexpected end of input" if msg == "At end of input" else msg
            if tok is not None:
                coord = Coord(tok.filename, tok.lineno, tok.column)
        super()._parse_error(msg, coord)


def parse(pre: Preprocessed) -> c_ast.FileAST:
    """Parse ``pre.text``; coordinates follow its line markers to the user's files.

    ``#pragma`` lines, such as ``#pragma scop``, become ``c_ast.Pragma``
    nodes where they stand, inside function bodies as well.
    """
    try:
        return _LocatingParser().parse(pre.text, pre.source)
    except ParseError as exc:
        raise _located(str(exc), pre.source) from None


def _located(message: str, source: str) -> PolycuError:
    """A ParseError's text as a located diagnostic (at ``source`` if it carries no place)."""
    m = _MESSAGE_RE.match(message)
    if m is None:
        return error(_readable(message), Location(source))
    return error(_readable(m["msg"]),
                 Location(m["file"] or source, int(m["line"]), int(m["col"] or 0)))


def _readable(message: str) -> str:
    """pycparser's terse "before: TOKEN" as the message a C compiler would print."""
    if message.startswith("before: "):
        return f"syntax error before '{message[len('before: '):]}'"
    return message
