"""The symbol table: what each variable name of a translation unit is declared as.

In:  a pycparser ``FileAST`` and the name of its main file.
Out: ``Symbols``: the typedefs (name -> resolved type text), the file-scope
variables, and for each function definition the variables it can see (the
globals declared before it, its parameters and every local, by name).

A SCoP is built from names, not from C's nested scopes: a loop bound ``n`` is a
parameter because ``n`` is an integer scalar declared outside the SCoP, an
access ``A[i][j]`` has two subscripts because ``A`` is declared with two
extents.  Where a name is declared twice in one SCoP the liveness checks
(``liveness.check_scopes``) reject it, so one ``Symbol`` per name suffices.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Location
from .ctype import Arith, parse_type, resolve_typedefs
from .syntax import c_text


@dataclass(frozen=True)
class Symbol:
    """A declared variable: element type, array extents (C text) and whether it is a pointer."""

    name: str
    element_type: str
    extents: tuple[c_ast.Node | None, ...]
    location: Location
    pointer: bool = False
    declaration: str = ""
    #: declared flat, read as rows by the SCoP (``delinearise.py``)
    delinearised: bool = False
    #: the structure field this name stands for, ``M->data`` (``struct_fields.py``)
    bound: str = ""

    @property
    def is_integer(self) -> bool:
        return self.ctype is not None and not self.ctype.floating

    @property
    def ctype(self) -> Arith | None:
        """The arithmetic type of a scalar (None for a struct, a pointer or an array)."""
        return None if self.extents else parse_type(self.element_type)


def decode_type(decl_type: c_ast.Node, typedefs: dict[str, str]
                ) -> tuple[str, tuple[c_ast.Node | None, ...], bool]:
    """(element type, extents, is-pointer) of a declarator such as ``double A[n][m]``."""
    extents: list[c_ast.Node | None] = []
    pointer = False
    node = decl_type
    while True:
        if isinstance(node, c_ast.ArrayDecl):
            extents.append(node.dim)
            node = node.type
        elif isinstance(node, c_ast.PtrDecl):
            extents.append(None)
            pointer = True
            node = node.type
        else:
            break
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        element = resolve_typedefs(node.type.names, typedefs)
    elif isinstance(node, c_ast.TypeDecl) and isinstance(node.type, (c_ast.Struct, c_ast.Union)):
        keyword = "struct" if isinstance(node.type, c_ast.Struct) else "union"
        element = f"{keyword} {node.type.name}" if node.type.name else f"<anonymous {keyword}>"
    elif isinstance(node, c_ast.TypeDecl):
        element = type(node.type).__name__
    elif isinstance(node, c_ast.FuncDecl):
        element = "<function>"
    else:
        element = ""
    return element, tuple(extents), pointer


class _SymbolCollector(c_ast.NodeVisitor):
    """Every variable declaration under a node (parameters and locals of a function)."""

    def __init__(self, typedefs: dict[str, str], default_file: str,
                 structs: dict[str, c_ast.Struct]):
        self.typedefs = typedefs
        self.default_file = default_file
        self.structs = structs
        self.symbols: dict[str, Symbol] = {}

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        etype, extents, _ = decode_type(node.type, self.typedefs)
        inner = getattr(node.type, "type", None)
        if etype == "<anonymous struct>" and isinstance(inner, c_ast.Struct) \
                and inner.decls is not None:
            etype = node.name             # typedef struct { ... } T: the type is spelt T
            self.structs[etype] = inner
        if not extents:
            self.typedefs[node.name] = etype
        self.generic_visit(node)

    def visit_Struct(self, node: c_ast.Struct) -> None:
        if node.name is not None and node.decls is not None:
            self.structs[f"struct {node.name}"] = node

    def visit_Union(self, node: c_ast.Union) -> None:
        """Not descended into: a union's members are no variables of the file (nor are a
        structure's, which visit_Struct leaves alone too)."""

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name is not None and not isinstance(node.type, c_ast.FuncDecl):
            etype, extents, pointer = decode_type(node.type, self.typedefs)
            bare = copy.copy(node)
            bare.init, bare.bitsize = None, None
            bare.storage = [s for s in bare.storage if s not in ("extern", "static")]
            self.symbols[node.name] = Symbol(node.name, etype, extents,
                                             Location.from_coord(node.coord, self.default_file),
                                             pointer, c_text(bare))
        self.generic_visit(node)

    def visit_FuncDecl(self, node: c_ast.FuncDecl) -> None:
        """The return type only (it may define a structure): the parameters of a
        prototype, of a function pointer or of a typedef of a function type are no
        variables.  Collected, the 's' of 'sprintf(char *s, ...)' in <stdio.h> was a
        global, so a function's own scalar 's' was never dead after its SCoP (never
        private).  A definition's parameters are visited by visit_FuncDef."""
        self.visit(node.type)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        params = node.decl.type.args
        if params is not None:
            self.visit(params)
        self.visit(node.body)


@dataclass
class Symbols:
    """The declarations of one translation unit (see the module docstring); ``structs``
    the definition of each structure type by its spelling (``struct point``, or the
    name of a typedef of an anonymous structure)."""

    typedefs: dict[str, str] = field(default_factory=dict)
    globals: dict[str, Symbol] = field(default_factory=dict)
    functions: list[tuple[c_ast.FuncDef, dict[str, Symbol]]] = field(default_factory=list)
    structs: dict[str, c_ast.Struct] = field(default_factory=dict)


def collect_symbols(ast: c_ast.FileAST, source: str) -> Symbols:
    """The typedefs, the globals and each function's visible variables, in file order
    (a function sees the globals declared before it; typedefs are shared by all)."""
    typedefs: dict[str, str] = {}
    structs: dict[str, c_ast.Struct] = {}
    globals_ = _SymbolCollector(typedefs, source, structs)
    functions: list[tuple[c_ast.FuncDef, dict[str, Symbol]]] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            local = _SymbolCollector(typedefs, source, structs)
            local.symbols = dict(globals_.symbols)
            local.visit(ext)
            functions.append((ext, local.symbols))
        else:
            globals_.visit(ext)
    return Symbols(typedefs, globals_.symbols, functions, structs)
