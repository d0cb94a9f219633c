"""The frontend in one call: C file -> preprocessed text -> C AST -> list of Scop."""
from __future__ import annotations

from typing import Sequence

from ..model import Scop
from .parse import parse
from .preprocess import Preprocessed, preprocess, preprocess_text
from .scop import extract_scops


def _scops(pre: Preprocessed, auto: bool | None, ctx: str | None,
           text: str | None = None) -> list[Scop]:
    return extract_scops(parse(pre), pre.source, auto=auto, context=ctx, text=text)


def load_file(path: str, *, defines: Sequence[str] = (), includes: Sequence[str] = (),
              undefines: Sequence[str] = (), auto: bool | None = None,
              ctx: str | None = None) -> list[Scop]:
    """Every SCoP of a C file, preprocessed like ``gcc -D... -I... -U...`` would."""
    return _scops(preprocess(path, defines, includes, undefines), auto, ctx)


def load_text(text: str, filename: str = "input.c", *, defines: Sequence[str] = (),
              includes: Sequence[str] = (), undefines: Sequence[str] = (),
              auto: bool | None = None, ctx: str | None = None) -> list[Scop]:
    """Every SCoP of C source text (diagnostics name ``filename``)."""
    return _scops(preprocess_text(text, filename, defines, includes, undefines), auto, ctx,
                  text)
