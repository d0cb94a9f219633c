"""One inlined copy of a function's body: its names renamed, its parameters bound.

In:  a function definition, the arguments of one call of it (their own calls
     already inlined), and the ``Site``: the region being inlined into (its symbols,
     fresh names, the C types of its expressions).
Out: ``Body``: the body's block items (``statement``) or the items before its final
     ``return E;`` and ``E`` (``value``), as new trees in the caller's names; the
     variables they declare entered in the site's symbols under fresh names.

C passes arrays by address and scalars by value; the binding says what each
parameter of the body is in the caller's terms:
- a scalar ``T x``: its argument, converted to ``T``, replaces ``x``, unless the body
  writes ``x`` or the call writes a variable the argument reads (an array passed to
  it); then a fresh local ``T f_x = arg;`` holds the value, as C's copy does.
- an array or pointer of rank r bound to ``A[s_1]...[s_m]`` (``A`` of rank m + r):
  ``p[k_1]...[k_r]`` is ``A[s_1]...[s_m][k_1]...[k_r]``; bound to ``&A[s_1]...[s_m]``
  (rank m + r - 1) or ``&x``: ``A[s_1]...[s_m + k_1][k_2]...``; ``*p`` is ``p[0]``.
  The extents of the rows (all but the first) must be those of ``A``'s, else the
  subscripts would address other elements.
- a local or loop iterator: a fresh name ``f_name`` (numbered when taken).
- a global: itself, if the caller sees the same variable; the body may read it only.
Every node copied from the body carries an ``Inlined`` coordinate naming the calls
it came through, so a diagnostic on it says where it was inlined from (``provenance``).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from pycparser import c_ast
from pycparser.c_parser import Coord

from ..diagnostics import Location
from .affine import int_constant
from .ctype import parse_type
from .symbols import Symbol, decode_type
from .syntax import Unsupported, c_text, flatten_ref, walk, written_names

INCREMENTS = ("++", "--", "p++", "p--")


@dataclass(slots=True)
class Inlined(Coord):
    """The coordinate of a node copied from an inlined body, and the calls it came through."""

    via: str = ""


def provenance(node: c_ast.Node | None) -> str:
    """`` (from inlining 'f' called at line L, ...)`` for a node of an inlined body, else ''."""
    coord = getattr(node, "coord", None)
    return f" ({coord.via})" if isinstance(coord, Inlined) else ""


@dataclass(frozen=True)
class _Array:
    """An array or pointer parameter bound to ``base[prefix]`` (``address``: ``&base[prefix]``);
    ``argument`` is the argument as passed, for a call in the body that passes it on."""

    argument: c_ast.Node
    base: str
    prefix: tuple[c_ast.Node, ...]
    address: bool


def replaced(node: c_ast.Node, **changes: Any) -> c_ast.Node:
    """A shallow copy of ``node`` with some attributes replaced."""
    new = copy.copy(node)
    for attr, value in changes.items():
        setattr(new, attr, value)
    return new


def rebuild(node: c_ast.Node, child: Callable[[c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """A shallow copy of ``node`` whose children are ``child`` of the old ones."""
    new = copy.copy(node)
    for attr in node.__slots__:
        value = getattr(node, attr, None)
        if attr != "coord" and isinstance(value, c_ast.Node):
            setattr(new, attr, child(value))
        elif isinstance(value, list):
            setattr(new, attr, [child(v) if isinstance(v, c_ast.Node) else v for v in value])
    return new


class Site(Protocol):
    """What a body asks of the region it is inlined into (``inline._Expansion``)."""

    symbols: dict[str, Symbol]    # the region's variables and the inlined ones
    globals: dict[str, Symbol]    # the file's global variables
    typedefs: dict[str, str]
    own: set[str]                 # the names the region's function declares
    caller: str                   # the region's function

    def loc(self, node: c_ast.Node) -> Location: ...

    def fresh(self, name: str) -> str: ...

    def register(self, decl: c_ast.Decl) -> c_ast.Decl: ...

    def converted(self, expr: c_ast.Node, ctype: str) -> c_ast.Node: ...

    def is_user_call(self, node: c_ast.Node) -> bool: ...

    def effect(self, node: c_ast.Node, user_calls: bool) -> c_ast.Node | None: ...


def _returned(node: c_ast.Node | None) -> c_ast.Node | None:
    """The expression of ``return E;`` or ``{ return E; }``, else None."""
    if isinstance(node, c_ast.Compound) and node.block_items and len(node.block_items) == 1:
        node = node.block_items[0]
    return node.expr if isinstance(node, c_ast.Return) else None


# A body that ends in guarded returns, ``if (c) return a; ... return b;`` or ``if (c)
# return a; else return b;``, returns ``c ? (T) a : (T) b``: the same value (each
# branch converted to the result type T, as its return converts it, so the
# conditional's usual conversions change nothing) and the same evaluation (only the
# chosen branch is evaluated).
def returns_folded(items: list[c_ast.Node], result: c_ast.Node) -> list[c_ast.Node]:
    """``items`` with its trailing guarded returns folded into one final return."""
    def cast(e: c_ast.Node) -> c_ast.Node:
        if not isinstance(result, c_ast.TypeDecl):
            return e
        return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, copy.deepcopy(result.type))), e, e.coord)

    def folded(test: c_ast.If, a: c_ast.Node, b: c_ast.Node) -> c_ast.Return:
        return c_ast.Return(c_ast.TernaryOp(test.cond, cast(a), cast(b), test.coord),
                            test.coord)

    items = list(items)
    last = items[-1] if items else None
    if isinstance(last, c_ast.If) and _returned(last.iftrue) is not None and \
            _returned(last.iffalse) is not None:
        items[-1] = folded(last, _returned(last.iftrue), _returned(last.iffalse))
    while len(items) >= 2 and isinstance(items[-1], c_ast.Return) and \
            items[-1].expr is not None and isinstance(items[-2], c_ast.If) and \
            items[-2].iffalse is None and _returned(items[-2].iftrue) is not None:
        items[-2:] = [folded(items[-2], _returned(items[-2].iftrue), items[-1].expr)]
    return items


class Body:
    """One inlined copy of a function's body: its names renamed, its parameters bound."""

    def __init__(self, site: Site, func: c_ast.FuncDef, params: list[c_ast.Decl],
                 args: list[c_ast.Node], via: str):
        self.site = site
        self.name = func.decl.name
        self.via = via
        self.scopes: list[dict[str, str]] = [{}]      # local name -> fresh name
        self.values: dict[str, c_ast.Node] = {}        # scalar parameter -> its value
        self.arrays: dict[str, _Array] = {}
        self.copies: list[c_ast.Node] = []             # locals holding scalar arguments
        self.body = returns_folded(list(func.body.block_items or []), func.decl.type.type)
        # A scalar needs its own copy where the body writes it or takes its address
        # (a call in the body may write it), or where the call writes what its
        # argument reads (an array passed to the same call).
        own = written_names(self.body) | {
            n.expr.name for item in self.body for n in walk(item)
            if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID)}
        decoded = [decode_type(p.type, site.typedefs) for p in params]
        bases = {a.name for a in (_base(arg) for arg, (_, ext, _) in zip(args, decoded) if ext)
                 if isinstance(a, c_ast.ID)}
        for param, arg, (element, extents, _) in zip(params, args, decoded):
            if not extents:
                self.bind_value(param, arg, element, param.name in own
                                or bool(bases & {n.name for n in walk(arg)
                                                 if isinstance(n, c_ast.ID)}))
        for param, arg, (element, extents, _) in zip(params, args, decoded):
            if extents and not self.bind_pointer(param, arg, extents):
                self.arrays[param.name] = self.bind_array(param, arg, element, extents)

    def coord(self, coord: Coord | None) -> Coord | None:
        """A copied node's coordinate: where it stands in the body, and the calls."""
        if coord is None:
            return None
        return Inlined(coord.file, coord.line, coord.column, self.via)

    def fail(self, node: c_ast.Node, message: str) -> Unsupported:
        """An error at a node of the body, saying which call it was inlined from."""
        return Unsupported(replaced(node, coord=self.coord(node.coord)), message,
                           self.site.loc(node))

    # -- parameters -----------------------------------------------------------
    def bind_value(self, param: c_ast.Decl, arg: c_ast.Node, element: str, copied: bool) -> None:
        """A scalar parameter: its argument's value, substituted or ``copied`` to a local."""
        if parse_type(element) is None:
            raise Unsupported(arg, f"parameter '{param.name}' of '{self.name}' has type "
                              f"'{element}': polycu inlines arithmetic scalars, arrays and "
                              "pointers to them", self.site.loc(arg))
        value = self.site.converted(arg, element)
        if not copied:
            self.values[param.name] = value
            return
        fresh = self.site.fresh(f"{self.name}_{param.name}")
        self.scopes[0][param.name] = fresh
        self.copies.append(self.site.register(replaced(
            param, name=fresh, type=self.type(param.type, fresh), init=value, storage=[],
            coord=self.coord(param.coord))))

    # A pointer parameter bound to a pointer expression that names no array, row or
    # address (``A + i * m``) is what C makes it: a local pointer holding the argument,
    # which frontend/pointers.py reads as the array it points into.
    def bind_pointer(self, param: c_ast.Decl, arg: c_ast.Node,
                     extents: tuple[c_ast.Node | None, ...]) -> bool:
        """Bind a pointer parameter to a local copy of a pointer expression argument;
        False where the argument is for ``bind_array``."""
        target = arg.expr if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" else arg
        base = flatten_ref(target)[0] if isinstance(target, c_ast.ArrayRef) else target
        if extents != (None,) or isinstance(base, c_ast.ID) and base.name in self.site.symbols:
            return False
        fresh = self.site.fresh(f"{self.name}_{param.name}")
        self.scopes[0][param.name] = fresh
        self.copies.append(self.site.register(replaced(
            param, name=fresh, type=self.type(param.type, fresh), init=copy.deepcopy(arg),
            storage=[], coord=self.coord(param.coord))))
        return True

    def bind_array(self, param: c_ast.Decl, arg: c_ast.Node, element: str,
                   extents: tuple[c_ast.Node | None, ...]) -> _Array:
        """An array or pointer parameter: the array, row or address its argument names,
        if the subscripts through it address the same elements as in C."""
        address = isinstance(arg, c_ast.UnaryOp) and arg.op == "&"
        target = arg.expr if address else arg
        base, prefix = flatten_ref(target) if isinstance(target, c_ast.ArrayRef) else (target, [])
        sym = self.site.symbols.get(base.name) if isinstance(base, c_ast.ID) else None
        what = f"argument '{c_text(arg)}' of '{self.name}'"
        if sym is None:
            raise Unsupported(arg, f"{what} for its array parameter '{param.name}' is not an "
                              "array, a row of one ('A[i]') or an address ('&A[i]', '&x')",
                              self.site.loc(arg))
        rank = len(sym.extents) - len(prefix) + address
        if rank != len(extents) or (address and not prefix and sym.extents):
            raise Unsupported(arg, f"{what} has {rank} dimension{'s' * (rank != 1)}, its "
                              f"parameter '{param.name}' {len(extents)}", self.site.loc(arg))
        if element != sym.element_type:
            raise Unsupported(arg, f"{what} has elements of type '{sym.element_type}', its "
                              f"parameter '{param.name}' of type '{element}'", self.site.loc(arg))
        mine = [None if e is None else c_text(self.node(e)) for e in extents[1:]]
        theirs = [None if e is None else c_text(e)
                  for e in sym.extents[len(sym.extents) - len(mine):]] if mine else []
        if mine != theirs or None in mine:
            raise Unsupported(arg, f"{what} has rows of [{']['.join(map(str, theirs))}] "
                              f"elements, its parameter '{param.name}' rows of "
                              f"[{']['.join(map(str, mine))}]: the extents must be the same",
                              self.site.loc(arg))
        return _Array(arg, base.name, tuple(prefix), address)

    # -- the body -------------------------------------------------------------
    def no_return(self, items: Sequence[c_ast.Node]) -> None:
        """Reject a ``return`` in ``items``: what follows it would run in the copy."""
        for node in (n for item in items for n in walk(item)):
            if isinstance(node, c_ast.Return):
                raise self.fail(node, f"'return' before the end of '{self.name}' cannot be "
                                "inlined (polycu inlines bodies that return only at their end)")

    def statement(self) -> list[c_ast.Node]:
        """The body of a call statement (a final ``return E;``: ``E`` is unused)."""
        items = self.body
        if items and isinstance(items[-1], c_ast.Return):
            result, items = items[-1].expr, items[:-1]
            if self.site.is_user_call(result):
                items = items + [result]      # its result is unused in turn
            elif result is not None and self.site.effect(result, user_calls=False):
                raise self.fail(result, f"the result of '{self.name}' is unused and its "
                                f"return expression '{c_text(result)}' may have side effects")
        self.no_return(items)
        return self.copies + [self.node(item) for item in items]

    def value(self, call: c_ast.FuncCall) -> tuple[list[c_ast.Node], c_ast.Node]:
        """The items before the final ``return E;`` and ``E``, for a call in an expression."""
        last = self.body[-1] if self.body else None
        if not isinstance(last, c_ast.Return) or last.expr is None:
            raise Unsupported(call, f"'{self.name}' does not end with 'return EXPR;': its call "
                              "cannot be inlined in an expression", self.site.loc(call))
        self.no_return(self.body[:-1])
        items = self.copies + [self.node(item) for item in self.body[:-1]]
        return items, self.node(last.expr)

    def resolve(self, name: str) -> str | c_ast.Node | _Array | None:
        """What a name of the body means: a fresh local name, a scalar argument's value,
        an array binding, or None (a global)."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return self.arrays[name] if name in self.arrays else self.values.get(name)

    def array_of(self, node: c_ast.Node) -> _Array | None:
        """The binding of an array parameter named by ``node`` (None: not one)."""
        if isinstance(node, c_ast.ID):
            target = self.resolve(node.name)
            return target if isinstance(target, _Array) else None
        return None

    def node(self, n: c_ast.Node) -> c_ast.Node:
        """The node renamed and bound (a new tree: the definition stays as it is)."""
        if isinstance(n, c_ast.ID):
            return self.identifier(n)
        if isinstance(n, c_ast.ArrayRef):
            return self.reference(n)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and self.array_of(n.expr):
            return self.reference(c_ast.ArrayRef(n.expr, c_ast.Constant("int", "0"), n.coord))
        if isinstance(n, c_ast.Assignment):
            self.written(n.lvalue)
        elif isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS:
            self.written(n.expr)
        elif isinstance(n, c_ast.Decl):
            return self.declare(n)
        elif isinstance(n, c_ast.FuncCall):
            args = n.args and replaced(n.args, exprs=[
                copy.deepcopy(self.array_of(a).argument) if self.array_of(a) else self.node(a)
                for a in n.args.exprs])
            return replaced(n, name=replaced(n.name, coord=self.coord(n.name.coord)),
                            args=args, coord=self.coord(n.coord))
        elif isinstance(n, c_ast.StructRef):
            return replaced(n, name=self.node(n.name), coord=self.coord(n.coord))
        scoped = isinstance(n, (c_ast.Compound, c_ast.For))
        if scoped:
            self.scopes.append({})
        new = rebuild(n, self.node)
        new.coord = self.coord(n.coord)
        if scoped:
            self.scopes.pop()
        return new

    def identifier(self, n: c_ast.ID) -> c_ast.Node:
        """A name read by the body: a fresh local, a scalar's value, or a global the
        caller sees as the same variable (else the inlined text would mean another)."""
        target = self.resolve(n.name)
        if isinstance(target, str):
            return c_ast.ID(target, self.coord(n.coord))
        if isinstance(target, _Array):
            raise self.fail(n, f"array parameter '{n.name}' of '{self.name}' is used without a "
                            "subscript: polycu inlines it subscripted, dereferenced or passed "
                            "to a call")
        if target is not None:
            return copy.deepcopy(target)
        if n.name in self.site.globals and (n.name in self.site.own
                                            or n.name not in self.site.symbols):
            raise self.fail(n, f"'{self.name}' uses the global '{n.name}', which "
                            f"'{self.site.caller}' does not see (declared after it, or hidden "
                            "by its own variable of that name)")
        return c_ast.ID(n.name, self.coord(n.coord))

    def reference(self, n: c_ast.ArrayRef) -> c_ast.Node:
        """``p[k]...`` through an array parameter's binding (see the module docstring)."""
        base, subscripts = flatten_ref(n)
        binding = self.array_of(base)
        if binding is None:
            new = rebuild(n, self.node)
            new.coord = self.coord(n.coord)
            return new
        coord = self.coord(n.coord)
        subs = [self.node(s) for s in subscripts]
        prefix = [copy.deepcopy(s) for s in binding.prefix]
        if binding.address:
            first = subs.pop(0)
            if prefix:
                last = prefix.pop()
                prefix.append(last if int_constant(first) == 0
                              else c_ast.BinaryOp("+", last, first, coord))
            elif int_constant(first) != 0:
                raise self.fail(n, f"'{c_text(n)}': '{base.name}' points to the scalar "
                                f"'{binding.base}', so only '{base.name}[0]' and "
                                f"'*{base.name}' name it")
        result: c_ast.Node = c_ast.ID(binding.base, coord)
        for sub in prefix + subs:
            result = c_ast.ArrayRef(result, sub, coord)
        return result

    def written(self, lvalue: c_ast.Node) -> None:
        """Check a target the body writes: its own local, or through an array parameter."""
        node = lvalue
        while isinstance(node, c_ast.ArrayRef) or isinstance(node, c_ast.UnaryOp) \
                and node.op == "*":
            node = node.name if isinstance(node, c_ast.ArrayRef) else node.expr
        if not isinstance(node, c_ast.ID):
            return      # the builder rejects the target itself
        target = self.resolve(node.name)
        if isinstance(target, _Array):
            if node is lvalue:
                raise self.fail(node, f"'{self.name}' assigns its pointer parameter "
                                f"'{node.name}' itself, which cannot be inlined")
        elif target is None:
            raise self.fail(lvalue, f"'{self.name}' writes '{node.name}', which is neither its "
                            "parameter nor its local: an inlined function may write only "
                            "through its parameters and to its own locals")

    def declare(self, n: c_ast.Decl) -> c_ast.Decl:
        """A local of the body under a fresh name; a static one would keep its value from
        call to call, which one copy per call cannot."""
        kept = set(n.storage) & {"static", "extern"}
        if kept:
            raise self.fail(n, f"'{self.name}' declares the {sorted(kept)[0]} variable "
                            f"'{n.name}', whose value outlives a call: it cannot be inlined")
        fresh = self.site.fresh(f"{self.name}_{n.name}")
        self.scopes[-1][n.name] = fresh
        return self.site.register(replaced(n, name=fresh, type=self.type(n.type, fresh),
                                           init=n.init and self.node(n.init),
                                           coord=self.coord(n.coord)))

    def type(self, t: c_ast.Node, name: str) -> c_ast.Node:
        """A declarator renamed to ``name`` (array extents bound too)."""
        if isinstance(t, c_ast.TypeDecl):
            return replaced(t, declname=name, coord=self.coord(t.coord))
        if isinstance(t, c_ast.ArrayDecl):
            return replaced(t, type=self.type(t.type, name), dim=t.dim and self.node(t.dim))
        if isinstance(t, c_ast.PtrDecl):
            return replaced(t, type=self.type(t.type, name))
        return t


def _base(arg: c_ast.Node) -> c_ast.Node:
    """The variable an array argument (``A``, ``A[i]``, ``&A[i]``, ``&x``) refers to."""
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
        arg = arg.expr
    return flatten_ref(arg)[0] if isinstance(arg, c_ast.ArrayRef) else arg
