"""The frontend in one call: C file -> preprocessed text -> C AST -> list of Scop."""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..diagnostics import PolycuError
from ..model import Scop
from .classify import lower_classifications
from .continues import fold_continues
from .enums import lower_enums
from .loop_forms import count_loops
from .parse import parse
from .preprocess import Preprocessed, preprocess, preprocess_text
from .scop import extract_scops
from .sizes import fold_sizes
from .switches import lower_switches
from .tables import fold_tables
from .spelling import respell
from .typenames import spell_type_names


def _scops(pre: Preprocessed, auto: bool | None, ctx: str | None,
           text: str | None = None) -> list[Scop]:
    """The SCoPs of the unit, built with its enumerations lowered to integers, its
    arithmetic typedef names written out, its ``sizeof``s and the constant elements
    of its ``const`` tables folded to numbers, its switches written as if chains, its
    guard clauses (``if (c) continue;``) as ifs around the rest of the body, its
    classification macros as the expressions glibc's values are, its loops with
    companion counters or post-decrement tests written as counted loops and
    the names isl, C++ or CUDA reserve renamed."""
    ast, spellings = respell(count_loops(lower_classifications(fold_continues(lower_switches(
        fold_tables(fold_sizes(spell_type_names(lower_enums(parse(pre), pre.source)))))))))
    try:
        scops = extract_scops(ast, pre.source, auto=auto, context=ctx, text=text)
    except PolycuError as exc:
        raise spellings.error(exc) from None
    return [replace(s, renamed=spellings.renamed) for s in scops]


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
