"""Where the SCoPs of a function are: the block items each one is built from.

In:  a function definition (pycparser ``FuncDef``) and the name of the main file.
Out: ``Region`` values: a run of consecutive block items of one compound
statement, the source lines it spans and where to report it.

Two ways to find them.  ``pragma_regions``: the items between ``#pragma scop``
and ``#pragma endscop`` (misplaced pragmas are errors).  ``auto_regions``: with no
pragma in the file, every maximal run of consecutive items that form a SCoP and
contain a loop; whether items form a SCoP is the caller's question (``builds``),
so finding regions does not depend on building them.  pycparser gives a
statement's first line only; ``statement_end`` finds its last in the source text,
which the code generator needs to replace the region; an automatic region must
have its lines to itself (``_alone``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pycparser import c_ast

from ..diagnostics import Location, error
from .syntax import walk


@dataclass(frozen=True)
class Region:
    """The block items of one SCoP in function ``function`` (lines: first, last)."""

    function: str
    items: tuple[c_ast.Node, ...]
    lines: tuple[int, int]
    location: Location
    function_ast: c_ast.FuncDef | None = None


def pragma_regions(func: c_ast.FuncDef, source: str) -> list[Region]:
    """Block items between ``#pragma scop`` and ``#pragma endscop`` in one compound."""
    regions: list[Region] = []

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Compound):
            start: c_ast.Pragma | None = None
            items: list[c_ast.Node] = []
            for item in node.block_items or []:
                word = item.string.strip() if isinstance(item, c_ast.Pragma) else None
                if word == "scop":
                    if start is not None:
                        raise error("nested '#pragma scop'", Location.from_coord(item.coord, source))
                    start, items = item, []
                elif word == "endscop":
                    if start is None:
                        raise error("'#pragma endscop' without '#pragma scop'",
                                    Location.from_coord(item.coord, source))
                    regions.append(Region(func.decl.name, tuple(items),
                                          (start.coord.line, item.coord.line),
                                          Location.from_coord(start.coord, source),
                                          func))
                    start = None
                elif start is not None:
                    items.append(item)
                else:
                    visit(item)
            if start is not None:
                raise error("'#pragma scop' without '#pragma endscop'",
                            Location.from_coord(start.coord, source))
            return
        for _, child in node.children():
            visit(child)

    visit(func.body)
    return regions


def auto_regions(func: c_ast.FuncDef, source: str, text: list[str],
                 builds: Callable[[list[c_ast.Node]], bool]) -> list[Region]:
    """Maximal runs of consecutive block items that form a SCoP (``builds``) and
    contain a loop; ``text`` is the main file's lines."""
    regions: list[Region] = []

    def flush(run: list[c_ast.Node]) -> None:
        # A loop anywhere: if (flag) { for ... } is a SCoP with a loop.
        if any(isinstance(n, c_ast.For) for item in run for n in walk(item)):
            first, (last, rest) = run[0].coord.line, statement_end(text, run[-1])
            if _alone(func.body, run, first, last) and _blank(rest):
                regions.append(Region(func.decl.name, tuple(run), (first, last),
                                      Location.from_coord(run[0].coord, source), func))

    def visit(node: c_ast.Node) -> None:
        if not isinstance(node, c_ast.Compound):
            for _, child in node.children():
                visit(child)
            return
        run: list[c_ast.Node] = []
        for item in node.block_items or []:
            if isinstance(item, c_ast.Pragma):
                continue
            if not isinstance(item, c_ast.Decl) and _in_file(item, source) \
                    and builds(run + [item]):
                run.append(item)
                continue
            flush(run)
            run = []
            if not isinstance(item, c_ast.Decl) and _in_file(item, source) and builds([item]):
                run = [item]
            else:
                visit(item)
        flush(run)

    visit(func.body)
    return regions


def _in_file(node: c_ast.Node, source: str) -> bool:
    """Automatic SCoPs are only taken from the main file, never from headers."""
    return node.coord is not None and node.coord.file == source


def read_lines(path: str) -> list[str]:
    """The lines of a source file (none if it cannot be read)."""
    try:
        return Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return []


_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[(){};]|\belse\b|\n',
                    re.S)


def statement_end(lines: list[str], node: c_ast.Node) -> tuple[int, str]:
    """Last source line of a statement and the text after it on that line: scan from
    its start for the ``;`` or ``}`` that ends it at nesting depth zero, continuing
    through an ``else``."""
    if not lines or node.coord is None:
        return getattr(node.coord, "line", 0), ""
    start_line, start_col = node.coord.line, max(node.coord.column, 1)
    body = "\n".join([lines[start_line - 1][start_col - 1:]] + lines[start_line:])
    line, depth, ended = start_line, 0, None
    for match in _TOKEN.finditer(body):
        tok = match.group(0)
        line_here = line
        line += tok.count("\n")
        if tok.startswith(("//", "/*", '"', "'")) or tok == "\n":
            continue
        if ended is not None:
            if tok == "else":
                ended = None
                continue
            return ended
        if tok in "({":
            depth += 1
        elif tok in ")}":
            depth -= 1
            if tok == "}" and depth == 0:
                ended = line_here, body[match.end():].split("\n", 1)[0]
        elif tok == ";" and depth == 0:
            ended = line_here, body[match.end():].split("\n", 1)[0]
    return ended if ended is not None else (len(lines), "")


# The host program replaces a region's whole lines (codegen/splice.py), so an
# automatically found region must have them to itself: no other statement, call or
# brace of the function starts on them (``for (t...) { f(t); for (i...) x[i] = 0; }``
# on one line: the inner loop alone is a SCoP, and replacing its line dropped the
# call and the outer loop), and nothing but a comment follows it on its last line.
def _alone(body: c_ast.Node, run: list[c_ast.Node], first: int, last: int) -> bool:
    """Whether no node of ``body`` outside the items ``run`` starts on lines
    ``first``..``last``."""
    inside = {id(item) for item in run}

    def clash(node: c_ast.Node) -> bool:
        if id(node) in inside:
            return False
        line = getattr(node.coord, "line", 0) if node.coord is not None else 0
        if first <= line <= last and not isinstance(node, c_ast.Pragma):
            return True
        return any(clash(child) for _, child in node.children())
    return not any(clash(child) for _, child in body.children()) and \
        not (body.coord is not None and first <= body.coord.line <= last)


def _blank(text: str) -> bool:
    """Whether ``text`` (the rest of a line) holds only white space and comments."""
    return not re.sub(r"/\*.*?\*/|//.*", "", text).strip()
