"""C names that another language of the pipeline reserves, renamed before the model.

In:  the pycparser AST of a translation unit.
Out: the same AST with every identifier that the user's files declare and that isl,
C++ or CUDA reserves renamed, and the ``Spellings`` that map each new name back.

Three languages read the names of a C program after polycu has seen them, and each
reserves words that C leaves free:

- isl's parser (the model is built from isl text) takes ``min``, ``max``, ``floor``,
  ``mod``, ``and``, ``not``, ``true``, ``rat`` ... as keywords, in any case
  (``Max`` too): ``int max;`` used as a parameter made ``isl_set_read_from_str``
  fail with a traceback;
- nvcc compiles the generated ``.cu`` as C++: ``new``, ``class``, ``this``,
  ``template``, ``delete``, ``bool`` ... are keywords there, so the kernels of a
  valid C program did not compile;
- CUDA predeclares ``threadIdx``, ``blockIdx``, ``blockDim``, ``gridDim``,
  ``warpSize``, ``dim3``, the vector types and the ``atomic*`` functions that the
  generated kernels use: a C variable of that name would hide them.

So such a name becomes ``NAME_`` (more underscores while that is taken) in the whole
unit, consistently: declarations, references, struct tags and fields, typedef
names.  C gives an identifier no meaning beyond its declaration, so the renamed
program is the same program; only the host program (still C, spliced into the
user's file) must call the generated code with the user's names, which
``Scop.in_source`` gives back (``codegen/splice.py``), as do diagnostics.  Names
that polycu's libc headers declare (``floor``, ``ceil``) are the library's and
stay as they are.
"""
from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast

from ..diagnostics import PolycuError
from .preprocess import FAKELIBC

# isl_stream.c's keywords (compared ignoring case) and the words its parsers of
# sets, maps and affine expressions give a meaning to.
ISL_WORDS = frozenset({
    "exists", "and", "or", "implies", "not", "infty", "infinity", "nan", "min", "max",
    "rat", "true", "false", "ceild", "floord", "mod", "ceil", "floor", "domain", "range",
})
# C++ keywords (and alternative operator spellings) that C does not reserve.
CXX_WORDS = frozenset({
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "consteval",
    "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield",
    "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator",
    "or", "or_eq", "private", "protected", "public", "reinterpret_cast", "requires",
    "static_assert", "static_cast", "template", "this", "thread_local", "throw", "true",
    "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
})
# What CUDA declares in every .cu and the generated kernels refer to.
CUDA_WORDS = frozenset({
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
    "atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicCAS", "atomicExch",
    "cudaTextureObject_t", "cudaSurfaceObject_t", "tex1Dfetch", "tex2D", "tex3D",
    "surf2Dread", "surf2Dwrite", "surf3Dread", "surf3Dwrite",
    "int2", "int4", "float2", "float4", "double2", "make_int2", "make_double2",
})


def reserved(name: str) -> bool:
    """Whether a C identifier cannot reach isl, C++ or CUDA under its own name."""
    return name.lower() in ISL_WORDS or name in CXX_WORDS or name in CUDA_WORDS


@dataclass(frozen=True)
class Spellings:
    """The renamed identifiers of a unit: ``renamed`` pairs (model name, C name),
    which each ``Scop`` carries too (``Scop.in_source``)."""

    renamed: tuple[tuple[str, str], ...] = ()

    def error(self, exc: PolycuError) -> PolycuError:
        """``exc`` with the user's names in its messages (quoted names only)."""
        if not self.renamed:
            return exc
        back = dict(self.renamed)
        return exc.reworded(lambda text: re.sub(
            r"'([A-Za-z_]\w*)'", lambda m: "'" + back.get(m.group(1), m.group(1)) + "'", text))


def _users(coord: object) -> bool:
    """Whether a declaration at ``coord`` is in the user's files (not polycu's libc)."""
    return _users_file(getattr(coord, "file", None) or "")


@functools.lru_cache(maxsize=None)
def _users_file(file: str) -> bool:
    return not file.startswith("<") and FAKELIBC not in Path(file).resolve().parents


class _Names(c_ast.NodeVisitor):
    """Every identifier of a unit, and those declared in the user's files or in
    polycu's headers (variables, functions, parameters, typedefs, struct tags and
    fields, enumerators)."""

    def __init__(self) -> None:
        self.all: set[str] = set()
        self.user: set[str] = set()
        self.library: set[str] = set()

    def _declaration(self, node: c_ast.Node) -> None:
        if node.name:
            self.all.add(node.name)
            (self.user if _users(node.coord) else self.library).add(node.name)
        self.generic_visit(node)

    visit_Decl = visit_Typedef = visit_Struct = visit_Union = visit_Enum = _declaration
    visit_Enumerator = _declaration

    def visit_ID(self, node: c_ast.ID) -> None:
        self.all.add(node.name)

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        self.all.update(node.names)


class _Rename(c_ast.NodeVisitor):
    """Renames, in place, every occurrence of the names of ``new``."""

    def __init__(self, new: dict[str, str]) -> None:
        self.new = new

    def _name(self, name: str | None) -> str | None:
        return self.new.get(name, name) if name else name

    def visit_ID(self, node: c_ast.ID) -> None:
        node.name = self._name(node.name)

    def _declaration(self, node: c_ast.Node) -> None:
        node.name = self._name(node.name)
        self.generic_visit(node)

    visit_Decl = visit_Typedef = visit_Struct = visit_Union = visit_Enum = _declaration
    visit_Enumerator = _declaration

    def visit_TypeDecl(self, node: c_ast.TypeDecl) -> None:
        node.declname = self._name(node.declname)
        self.generic_visit(node)

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        node.names = [self._name(n) for n in node.names]


class _ScopedRename(c_ast.NodeVisitor):
    """Renames, in place, the user's block-scope declarations of names the C library
    declares too (a parameter ``int floor`` beside <math.h>'s ``floor``) and the
    references inside their scopes, and leaves the library's uses alone."""

    def __init__(self, new: dict[str, str]) -> None:
        self.new = new
        self.scopes: list[set[str]] = [set()]

    def _scoped(self, node: c_ast.Node) -> None:
        self.scopes.append(set())
        self.generic_visit(node)
        self.scopes.pop()

    visit_Compound = _scoped
    visit_For = _scoped
    visit_FuncDecl = _scoped          # a prototype's parameters: their own scope

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.scopes.append(set())         # the parameters and the body
        args = node.decl.type.args if isinstance(node.decl.type, c_ast.FuncDecl) else None
        for param in args.params if args is not None else ():
            self.visit(param)
        self.visit(node.body)
        self.scopes.pop()

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name in self.new and _users(node.coord) and \
                not isinstance(node.type, c_ast.FuncDecl):
            self.scopes[-1].add(node.name)
            node.name = self.new[node.name]
            inner = node.type
            while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
                inner = inner.type
            if isinstance(inner, c_ast.TypeDecl):
                inner.declname = node.name
        self.generic_visit(node)

    def visit_Struct(self, node: c_ast.Struct) -> None:
        """Fields live in their structure's name space."""

    visit_Union = visit_Struct

    def visit_StructRef(self, node: c_ast.StructRef) -> None:
        self.visit(node.name)

    def visit_ID(self, node: c_ast.ID) -> None:
        if any(node.name in scope for scope in self.scopes):
            node.name = self.new[node.name]


def respell(ast: c_ast.FileAST) -> tuple[c_ast.FileAST, Spellings]:
    """``ast`` with the user's reserved names renamed (a copy; ``ast`` itself when
    there is none), and the renaming: everywhere for names only the user declares,
    within the scopes of the user's declarations for names the library declares too."""
    names = _Names()
    names.visit(ast)
    everywhere = sorted(n for n in names.user - names.library if reserved(n))
    scoped = sorted(n for n in names.user & names.library if reserved(n))
    if not everywhere and not scoped:
        return ast, Spellings()
    taken = set(names.all)
    new: dict[str, str] = {}
    for name in everywhere + scoped:
        spelling = name + "_"
        while spelling in taken or reserved(spelling):
            spelling += "_"
        taken.add(spelling)
        new[name] = spelling
    renamed = copy.deepcopy(ast)
    _Rename({n: new[n] for n in everywhere}).visit(renamed)
    _ScopedRename({n: new[n] for n in scoped}).visit(renamed)
    return renamed, Spellings(tuple((spelling, name) for name, spelling in new.items()))
