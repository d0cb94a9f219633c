"""Pointer forms of array references read as subscripts of the array pointed into.

In:  a SCoP's items (calls inlined), the symbols they see, and the function with the
     region's own items (to find the pointers defined before it).
Out: the items with ``*(p + i)``, ``(p + k)[i]``, ``*row``, ``&A[i][j]`` and every
     reference through a local pointer (``double *row = A + i * n; row[j]``) an
     ``ArrayRef`` of the array itself, and the pointers' declarations inside the SCoP
     removed (``pointer_subscripts``).

C written by hand walks arrays through pointers; the model knows arrays and
subscripts.  A pointer expression is ``&B[s_1]...[s_k][o]``: an array ``B`` of rank
``r``, ``k < r`` leading subscripts and an offset ``o`` (a sum of integer terms).
Adding an integer adds a term; ``*P`` and ``P[e]`` append the subscript ``o + e``,
an element when ``k + 1 = r`` and a pointer to the next dimension otherwise.
C adds a pointer's offsets exactly (no integer type of them wraps), so a sum of two
or more terms narrower than 64 bits is computed in ``long long``:
``(p + k)[i]`` reads ``p[(long long) k + i]``.

A local pointer is replaced by its value where that value is the same at every use:
it is defined once (its initialiser, or one assignment before the SCoP in a block
around it), never written or taken the address of elsewhere, its base is never
assigned, and its offsets hold no data and no name written anywhere in the function
but an iterator of a loop around both the definition and the SCoP (inside the SCoP:
no name written after the declaration in its block).  Then the SCoP's dependences
are exact across the two names.  A pointer defined once into an array that the SCoP
also uses, but not replaceable, is an error: the two names would be modelled as
distinct arrays, and the code would be wrong where they overlap.  A pointer assigned
more than once (two buffers swapped between time steps) keeps the assumption that
distinct names do not alias (docs/supported-c.md).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from pycparser import c_ast

from ..diagnostics import Location
from .affine import int_constant
from .calls import ExpressionTypes
from .ctype import Arith, parse_type
from .symbols import Symbol
from .syntax import Unsupported, c_text, walk

#: One term of an offset: (negated, expression).
Term = tuple[bool, c_ast.Node]


@dataclass(frozen=True)
class Pointer:
    """``&base[fixed...][terms]``: where a pointer expression points."""

    base: str
    rank: int
    fixed: tuple[c_ast.Node, ...] = ()
    terms: tuple[Term, ...] = ()

    def shifted(self, by: c_ast.Node, negated: bool = False) -> Pointer:
        return replace(self, terms=self.terms + ((negated, by),))


class _Forms:
    """Reads pointer expressions and rewrites references through them."""

    def __init__(self, symbols: Mapping[str, Symbol], typedefs: Mapping[str, str]):
        self.symbols = symbols
        self.types = ExpressionTypes(self._name_type, dict(typedefs), {})

    def _name_type(self, name: str) -> Arith | None:
        sym = self.symbols.get(name)
        return None if sym is None else parse_type(sym.element_type)

    def value(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> Pointer | None:
        """Where ``node`` points, or None (not a pointer expression this module reads)."""
        if isinstance(node, c_ast.ID):
            if node.name in env:
                return env[node.name]
            sym = self.symbols.get(node.name)
            if sym is None or not sym.extents or sym.element_type.startswith(("struct", "union")):
                return None
            return Pointer(node.name, len(sym.extents))
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            left, right = self.value(node.left, env), self.value(node.right, env)
            if left is not None and right is None:
                return left.shifted(node.right, node.op == "-")
            if node.op == "+" and right is not None and left is None:
                return right.shifted(node.left)
            return None
        if isinstance(node, c_ast.ArrayRef):
            found = self.index(node.name, node.subscript, env)
            return found if isinstance(found, Pointer) else None
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            found = self.index(node.expr, None, env)
            return found if isinstance(found, Pointer) else None
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            element = self.element(node.expr, env)
            if element is None:
                return None
            base, subscripts = element
            return Pointer(base, len(subscripts), tuple(subscripts[:-1]),
                           ((False, subscripts[-1]),))
        return None

    def index(self, pointer: c_ast.Node, subscript: c_ast.Node | None,
              env: Mapping[str, Pointer]) -> Pointer | tuple[str, list[c_ast.Node]] | None:
        """``pointer[subscript]`` (``*pointer`` for None): a pointer to the next
        dimension, an element ``(base, subscripts)``, or None."""
        found = self.value(pointer, env)
        if found is None:
            return None
        terms = found.terms + (((False, subscript),) if subscript is not None else ())
        subscripts = [copy.deepcopy(f) for f in found.fixed]    # each use its own nodes
        subscripts.append(self.offset([(n, copy.deepcopy(t)) for n, t in terms],
                                      subscript or pointer))
        if len(subscripts) == found.rank:
            return found.base, subscripts
        return Pointer(found.base, found.rank, tuple(subscripts))

    def element(self, node: c_ast.Node, env: Mapping[str, Pointer]
                ) -> tuple[str, list[c_ast.Node]] | None:
        """The element ``node`` names, ``(array, subscripts)``, or None."""
        if isinstance(node, c_ast.ArrayRef):
            found = self.index(node.name, node.subscript, env)
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            found = self.index(node.expr, None, env)
        else:
            return None
        return found if isinstance(found, tuple) else None

    # C adds a pointer's offsets as integers of unbounded width; the sum of two terms
    # narrower than 64 bits could overflow their type, so it is made in long long.
    def offset(self, terms: Sequence[Term], near: c_ast.Node) -> c_ast.Node:
        """The C expression of the sum of ``terms`` (0 when there are none)."""
        terms = [t for t in terms if int_constant(t[1]) != 0]
        if not terms:
            return c_ast.Constant("int", "0", near.coord)
        # a positive term first, literals last: ``(long long) j + 1``
        ordered = sorted(terms, key=lambda t: (t[0], int_constant(t[1]) is not None))
        first_negated, first = ordered[0]
        if len(ordered) > 1 and all(self._narrow(t) for _, t in ordered):
            first = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
                None, [], None, c_ast.IdentifierType(["long", "long"]))), first, first.coord)
        total: c_ast.Node = c_ast.UnaryOp("-", first, first.coord) if first_negated else first
        for negated, term in ordered[1:]:
            total = c_ast.BinaryOp("-" if negated else "+", total, term, term.coord)
        return total

    def _narrow(self, term: c_ast.Node) -> bool:
        ctype = self.types.of(term)
        return ctype is None or ctype.bits < 64

    def rewrite(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> c_ast.Node:
        """``node`` with every element reached through a pointer form an ArrayRef of
        its array (children rewritten in place; ``node`` is a copy)."""
        element = self.element(node, env)
        if element is not None:
            base, subscripts = element
            built: c_ast.Node = c_ast.ID(base, node.coord)
            for s in subscripts:
                built = c_ast.ArrayRef(built, self.rewrite(s, env), node.coord)
            if c_text(built) != c_text(node) or isinstance(node, c_ast.UnaryOp):
                return built
        for attr, child in node.children():
            new = self.rewrite(child, env)
            if new is not child:
                _set(node, attr, new)
        return node


def _set(parent: c_ast.Node, attr: str, child: c_ast.Node) -> None:
    if "[" in attr:
        name, index = attr[:-1].split("[")
        getattr(parent, name)[int(index)] = child
    else:
        setattr(parent, attr, child)


def pointer_subscripts(items: Sequence[c_ast.Node], symbols: Mapping[str, Symbol],
                       typedefs: Mapping[str, str], function: c_ast.FuncDef | None,
                       region: Sequence[c_ast.Node], source: str
                       ) -> tuple[list[c_ast.Node], dict[str, Symbol]]:
    """``items`` with the pointer forms read as subscripts (module docstring); the
    inputs are left as they were."""
    forms = _Forms(symbols, typedefs)
    outside = _Outside(forms, function, region, source).aliases(items) if function else {}
    if not outside and not any(_pointer_form(n, symbols) for item in items for n in walk(item)):
        return list(items), dict(symbols)
    block = _Block(forms, source)
    rewritten = block.items([copy.deepcopy(i) for i in items], outside)
    for name, value in outside.items():
        block.no_pointer_left(rewritten, name, value)
    return rewritten, dict(symbols)


def _pointer_form(node: c_ast.Node, symbols: Mapping[str, Symbol]) -> bool:
    """Whether ``node`` may be a pointer form: a dereference, an address, or a local
    pointer declared with a value."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("*", "&"):
        return True
    if isinstance(node, c_ast.ArrayRef) and not isinstance(node.name, (c_ast.ID, c_ast.ArrayRef)):
        return True
    return isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.PtrDecl)


def _pointer_decl(node: c_ast.Node) -> bool:
    """Whether ``node`` declares one pointer to a scalar (``double *restrict p``)."""
    return (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.PtrDecl)
            and isinstance(node.type.type, c_ast.TypeDecl))


def _plain(node: c_ast.Node) -> bool:
    """Whether an offset is integer arithmetic on names and literals (no data, no call,
    no side effect)."""
    for n in walk(node):
        if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall, c_ast.Assignment)):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&", "++", "--", "p++", "p--"):
            return False
    return True


def _offset_names(pointer: Pointer) -> set[str]:
    nodes = list(pointer.fixed) + [t for _, t in pointer.terms]
    return {n.name for node in nodes for n in walk(node) if isinstance(n, c_ast.ID)}


def _offsets_plain(pointer: Pointer) -> bool:
    return all(_plain(n) for n in list(pointer.fixed) + [t for _, t in pointer.terms])


class _Block:
    """Rewrites block items in order: a pointer declared with a replaceable value is
    dropped and its uses read as the array's elements for the rest of its block."""

    def __init__(self, forms: _Forms, source: str):
        self.forms = forms
        self.source = source

    def items(self, items: list[c_ast.Node], env: Mapping[str, Pointer]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        env = dict(env)
        added: list[str] = []
        for position, item in enumerate(items):
            if _pointer_decl(item) and item.init is not None:
                value = self.forms.value(item.init, env)
                rest = items[position + 1:]
                if value is not None and self._replaceable(item.name, value, rest):
                    env[item.name] = value
                    added.append(item.name)
                    continue
            out.append(self.statement(item, env))
        for name in added:
            self.no_pointer_left(out, name, env[name])
        return out

    def _replaceable(self, name: str, value: Pointer, rest: Sequence[c_ast.Node]) -> bool:
        written = {n.name for item in rest for n in walk(item) if isinstance(n, c_ast.Decl)}
        written |= {w for item in rest for n in walk(item) if (w := _written(n))}
        return (name not in written and value.base not in written
                and _offsets_plain(value) and not _offset_names(value) & written)

    def statement(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> c_ast.Node:
        if isinstance(node, c_ast.Compound):
            node.block_items = self.items(list(node.block_items or []), env)
            return node
        for attr, child in node.children():
            if isinstance(child, c_ast.Compound) or isinstance(node, (
                    c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile)) and attr in (
                    "iftrue", "iffalse", "stmt"):
                _set(node, attr, self.statement(child, env))
            else:
                _set(node, attr, self.forms.rewrite(child, env))
        return node

    def no_pointer_left(self, items: Sequence[c_ast.Node], name: str, value: Pointer) -> None:
        """Stop at a use of the replaced pointer ``name`` that is no element."""
        for n in (n for item in items for n in walk(item)):
            if isinstance(n, c_ast.ID) and n.name == name:
                raise Unsupported(n, f"pointer '{name}' into '{value.base}' is used here other "
                                  "than subscripted or dereferenced: polycu reads a pointer "
                                  "only through its elements",
                                  Location.from_coord(n.coord, self.source))


class _Outside:
    """The local pointers defined before a region that it may read as elements of the
    array they point into (module docstring)."""

    def __init__(self, forms: _Forms, function: c_ast.FuncDef,
                 region: Sequence[c_ast.Node], source: str):
        self.forms = forms
        self.function = function
        self.region = region
        self.source = source
        self.writes: dict[str, int] = {}
        self.declared: dict[str, int] = {}
        for n in walk(function.body):
            name = _written(n)
            if name:
                self.writes[name] = self.writes.get(name, 0) + 1
            if isinstance(n, c_ast.Decl) and n.name:
                self.declared[n.name] = self.declared.get(n.name, 0) + 1

    def aliases(self, items: Sequence[c_ast.Node]) -> dict[str, Pointer]:
        """The replaceable pointers ``items`` use, by name; stops at one that points
        into an array the items use but is not replaceable."""
        trail = _trail(self.function.body, self.region[0], []) if self.region else None
        if trail is None:
            return {}
        used = {n.name for item in items for n in walk(item) if isinstance(n, c_ast.ID)}
        env: dict[str, Pointer] = {}
        decls: dict[str, c_ast.Decl] = {}
        for depth, (node, index) in enumerate(trail):
            if not isinstance(node, c_ast.Compound):
                continue
            for item in (node.block_items or [])[:index]:
                if _pointer_decl(item) and self.declared.get(item.name) == 1:
                    decls[item.name] = item
                    if item.init is not None and not self.writes.get(item.name):
                        self._define(item.name, item.init, item, trail[:depth], env, used)
                elif (isinstance(item, c_ast.Assignment) and item.op == "="
                      and isinstance(item.lvalue, c_ast.ID) and item.lvalue.name in decls
                      and decls[item.lvalue.name].init is None
                      and self.writes.get(item.lvalue.name) == 1):
                    self._define(item.lvalue.name, item.rvalue, item, trail[:depth], env, used)
        return {name: value for name, value in env.items() if name in used}

    def _define(self, name: str, definition: c_ast.Node, where: c_ast.Node,
                around: list[tuple[c_ast.Node, int]], env: dict[str, Pointer],
                used: set[str]) -> None:
        value = self.forms.value(definition, env)
        if value is None:
            return
        reason = self._unreplaceable(value, around)
        if reason is None:
            env[name] = value
        elif name in used and value.base in used:
            raise Unsupported(where, f"'{name}' points into '{value.base}', which the SCoP "
                              f"also uses, and {reason}: polycu would take them for two "
                              "arrays; subscript the array itself",
                              Location.from_coord(where.coord, self.source))

    def _unreplaceable(self, value: Pointer, around: list[tuple[c_ast.Node, int]]
                       ) -> str | None:
        """Why ``value`` may differ between its definition and the region (None: it
        cannot)."""
        if self.writes.get(value.base):
            return f"'{value.base}' is assigned in the function"
        if not _offsets_plain(value):
            return "its offset reads data"
        loops = [node for node, _ in around if isinstance(node, c_ast.For)]
        for name in sorted(_offset_names(value)):
            count = self.writes.get(name, 0)
            if count and not any(_counts_only(loop, name, count) for loop in loops):
                return f"'{name}' in its offset is assigned in the function"
        return None


def _counts_only(loop: c_ast.For, name: str, count: int) -> bool:
    """Whether the ``count`` writes of ``name`` are all in ``loop``'s init and next
    (``name`` is its iterator, constant in each iteration of its body)."""
    header = [n for n in (loop.init, loop.next) if n is not None]
    return (len(_assigned(header, name)) == count) and not _assigned([loop.stmt], name)


def _assigned(nodes: Sequence[c_ast.Node], name: str) -> list[c_ast.Node]:
    return [n for node in nodes for n in walk(node) if _written(n) == name]


def _written(node: c_ast.Node) -> str | None:
    """The variable (not an element) ``node`` assigns, increments or takes the
    address of."""
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        return node.lvalue.name
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&") \
            and isinstance(node.expr, c_ast.ID):
        return node.expr.name
    return None


def _trail(node: c_ast.Node, target: c_ast.Node, above: list[tuple[c_ast.Node, int]]
           ) -> list[tuple[c_ast.Node, int]] | None:
    """The nodes from ``node`` down to ``target``'s block, each with the index of the
    child on the way (for a compound: the block item)."""
    if isinstance(node, c_ast.Compound):
        for index, item in enumerate(node.block_items or []):
            if item is target:
                return above + [(node, index)]
            found = _trail(item, target, above + [(node, index)])
            if found is not None:
                return found
        return None
    for index, (_, child) in enumerate(node.children()):
        found = _trail(child, target, above + [(node, index)])
        if found is not None:
            return found
    return None
