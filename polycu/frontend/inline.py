"""Calls of functions defined in the same file, inlined into a SCoP's block items.

In:  the block items of a region, the variables its function sees (``Symbol`` by
     name), and the translation unit: its function definitions, prototypes, typedefs.
Out: the items with every call of a function defined in the file replaced by the
     function's body, and the symbol table with the body's variables under fresh
     names; calls of the C library stay for ``calls.py`` and ``accesses.py``.

Why: the polyhedral model knows loops, conditions and array references, not calls.
Like PPCG (through pet), polycu inlines calls before the statements are built, so
the builder, the dependences, the schedules and the kernels see the callee's loops
and references as if written in the SCoP, and the emitted CUDA calls nothing.

A call statement becomes the function's body as a block (a final ``return E;`` is
dropped when ``E`` has no side effect).  A call inside an expression, of a function
ending in ``return E;``, becomes ``E`` converted to the result type; the function's
items before the return, which may write only its own locals, go before the
statement, so they run once per evaluation of the call (not inside a branch of
``?:``, ``&&``, ``||``, nor in a loop bound or condition).  The arguments' calls are
inlined first, then the calls in the body, with the chain of functions being
inlined (a function met again is recursion).  How parameters bind and names are
renamed: ``inline_body.py``.  What cannot be inlined raises ``Unsupported``.
"""
from __future__ import annotations

from typing import Sequence

from pycparser import c_ast

from ..diagnostics import Location
from .calls import PURE_FUNCTIONS, ExpressionTypes, Prototype, cast_to
from .ctype import Arith, parse_type
from .inline_body import INCREMENTS, Body, Inlined, rebuild, replaced
from .symbols import Symbol, decode_type
from .syntax import Unsupported, c_text, walk, written_names


def _parameters(func: c_ast.FuncDef) -> list[c_ast.Decl] | None:
    """The named parameters of a definition (None: variadic, K&R or unnamed ones)."""
    args = func.decl.type.args
    params = list(args.params) if args is not None else []
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) \
            and c_text(params[0]) == "void":
        return []
    if func.param_decls or not all(isinstance(p, c_ast.Decl) and p.name for p in params):
        return None
    return params


class Inliner:
    """The functions of one translation unit that calls inside its SCoPs inline."""

    def __init__(self, ast: c_ast.FileAST, globals_: dict[str, Symbol],
                 typedefs: dict[str, str], functions: dict[str, Prototype], source: str):
        self.definitions = {ext.decl.name: ext for ext in ast.ext
                            if isinstance(ext, c_ast.FuncDef)}
        self.globals = globals_
        self.typedefs = typedefs
        self.functions = functions
        self.source = source
        self.taken: set[str] = set()
        for node in walk(ast):
            for attr in ("name", "declname"):
                if isinstance(getattr(node, attr, None), str):
                    self.taken.add(getattr(node, attr))
            if isinstance(node, c_ast.IdentifierType):
                self.taken.update(node.names)

    def is_user_call(self, node: c_ast.Node) -> bool:
        """A call of a function of the user's (defined, or declared outside the C library)."""
        if not isinstance(node, c_ast.FuncCall) or not isinstance(node.name, c_ast.ID):
            return False
        proto = self.functions.get(node.name.name)
        return node.name.name in self.definitions or (proto is not None and not proto.library)

    def inline(self, items: Sequence[c_ast.Node], function: c_ast.FuncDef,
               symbols: dict[str, Symbol]) -> tuple[list[c_ast.Node], dict[str, Symbol]]:
        """``items`` of ``function`` (which sees ``symbols``) with every call of the
        user's functions inlined, and the symbols with the inlined variables."""
        if not any(self.is_user_call(n) for item in items for n in walk(item)):
            return list(items), symbols
        own = {n.name for n in walk(function) if isinstance(n, c_ast.Decl) and n.name}
        expansion = _Expansion(self, dict(symbols), own, function.decl.name)
        return expansion.items(items, ()), expansion.symbols


class _Expansion:
    """The inlining of one region: its fresh names and the symbols of the inlined variables.

    ``stack`` is the functions being inlined around a node (for recursion); ``before``
    collects the items a call inside an expression needs placed before its statement
    (None where there is no such place: loop bounds and conditions); ``conditional``
    tells that the expression might not be evaluated (a branch of ``?:``, ``&&``, ``||``).
    """

    def __init__(self, inliner: Inliner, symbols: dict[str, Symbol], own: set[str],
                 caller: str):
        self.inl = inliner
        self.globals = inliner.globals
        self.typedefs = inliner.typedefs
        self.symbols = symbols
        self.own = own
        self.caller = caller
        self.taken = set(inliner.taken)
        self.made: set[str] = set()       # the fresh names given
        self.types = ExpressionTypes(self.value_type, inliner.typedefs, inliner.functions)

    def value_type(self, name: str) -> Arith | None:
        sym = self.symbols.get(name)
        return parse_type(sym.element_type) if sym is not None else None

    def is_user_call(self, node: c_ast.Node) -> bool:
        return self.inl.is_user_call(node)

    def loc(self, node: c_ast.Node) -> Location:
        return Location.from_coord(node.coord, self.inl.source)

    def fresh(self, name: str) -> str:
        """``name``, or ``name_2``, ``name_3``, ...: a name nothing in the file uses."""
        candidate, k = name, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{name}_{k}"
        self.taken.add(candidate)
        self.made.add(candidate)
        return candidate

    def register(self, decl: c_ast.Decl) -> c_ast.Decl:
        """Enter a renamed declaration of an inlined body in the symbol table."""
        element, extents, pointer = decode_type(decl.type, self.inl.typedefs)
        bare = replaced(decl, init=None, bitsize=None, storage=[])
        self.symbols[decl.name] = Symbol(decl.name, element, extents, self.loc(decl), pointer,
                                         c_text(bare))
        return decl

    def converted(self, expr: c_ast.Node, ctype: str) -> c_ast.Node:
        """``expr`` converted to ``ctype`` as an assignment would (written out if needed)."""
        return expr if self.types.of(expr) == parse_type(ctype) else cast_to(ctype, expr)

    def has_calls(self, node: c_ast.Node | None) -> bool:
        """Whether a call to inline is under ``node`` (else it stays as it is)."""
        return node is not None and any(self.is_user_call(n) for n in walk(node))

    def effect(self, node: c_ast.Node, user_calls: bool) -> c_ast.Node | None:
        """The first part of ``node`` with a side effect: an assignment, an increment, a
        call other than of a pure library function (or of the user's if ``user_calls``:
        those are inlined and checked in turn)."""
        for n in walk(node):
            if isinstance(n, c_ast.Assignment) or \
                    isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS:
                return n
            if isinstance(n, c_ast.FuncCall) and not (user_calls and self.is_user_call(n)):
                proto = self.inl.functions.get(c_text(n.name))
                if proto is None or not proto.library or proto.name not in PURE_FUNCTIONS:
                    return n
        return None

    # -- block items ----------------------------------------------------------
    def items(self, items: Sequence[c_ast.Node], stack: tuple[str, ...]) -> list[c_ast.Node]:
        """Block items with their calls inlined (an item may become several)."""
        return [new for item in items for new in self.item(item, stack)]

    def single(self, node: c_ast.Node, stack: tuple[str, ...]) -> c_ast.Node:
        """The body of a loop or a branch, as one statement."""
        items = self.item(node, stack)
        return items[0] if len(items) == 1 else c_ast.Compound(items, node.coord)

    def item(self, node: c_ast.Node, stack: tuple[str, ...]) -> list[c_ast.Node]:
        if not self.has_calls(node):
            return [node]
        if isinstance(node, c_ast.Compound):
            return [replaced(node, block_items=self.items(node.block_items or [], stack))]
        if isinstance(node, c_ast.For):
            return [replaced(node, init=self.expr(node.init, stack, None, False),
                          cond=self.expr(node.cond, stack, None, False),
                          next=self.expr(node.next, stack, None, False),
                          stmt=self.single(node.stmt, stack))]
        if isinstance(node, c_ast.If):
            return [replaced(node, cond=self.expr(node.cond, stack, None, False),
                          iftrue=self.single(node.iftrue, stack),
                          iffalse=node.iffalse and self.single(node.iffalse, stack))]
        if not isinstance(node, (c_ast.Assignment, c_ast.UnaryOp, c_ast.Decl, c_ast.DeclList,
                                 c_ast.FuncCall)):
            return [node]   # not a SCoP construct: the builder says so where it stands
        before: list[c_ast.Node] = []
        if self.is_user_call(node):
            new = self.call_statement(node, stack, before)
        else:
            new = self.expr(node, stack, before, False)
        return before + [new]

    def expr(self, node: c_ast.Node | None, stack: tuple[str, ...],
             before: list[c_ast.Node] | None, conditional: bool) -> c_ast.Node | None:
        """An expression (or declaration) with its calls replaced by their values."""
        if node is None or not self.has_calls(node):
            return node
        if self.is_user_call(node):
            return self.call_value(node, stack, before, conditional)
        if isinstance(node, c_ast.TernaryOp):
            return replaced(node, cond=self.expr(node.cond, stack, before, conditional),
                         iftrue=self.expr(node.iftrue, stack, before, True),
                         iffalse=self.expr(node.iffalse, stack, before, True))
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            return replaced(node, left=self.expr(node.left, stack, before, conditional),
                         right=self.expr(node.right, stack, before, True))
        return rebuild(node, lambda n: self.expr(n, stack, before, conditional))

    # -- calls ------------------------------------------------------------------
    def prepare(self, call: c_ast.FuncCall, stack: tuple[str, ...],
                before: list[c_ast.Node] | None, conditional: bool
                ) -> tuple[Body, tuple[str, ...]]:
        """The body of the called function bound to the call's arguments (whose own
        calls are inlined first), and the functions being inlined inside it."""
        name = call.name.name
        func = self.inl.definitions.get(name)
        if func is None:
            raise Unsupported(call, f"call to '{name}', whose body is not in this file: polycu "
                              "inlines calls of functions defined in the same file, and only "
                              f"a prototype of '{name}' is visible", self.loc(call))
        if name in stack:
            chain = " -> ".join(stack[stack.index(name):] + (name,))
            raise Unsupported(call, f"recursive call of '{name}' ({chain}) cannot be inlined",
                              self.loc(call))
        params = _parameters(func)
        if params is None:
            raise Unsupported(call, f"'{name}' has variadic, unnamed or old-style parameters "
                              "and cannot be inlined", self.loc(call))
        args = list(call.args.exprs) if call.args is not None else []
        if len(args) != len(params):
            raise Unsupported(call, f"'{name}' takes {len(params)} argument"
                              f"{'s' * (len(params) != 1)} but the call passes {len(args)}",
                              self.loc(call))
        for arg in args:
            bad = self.effect(arg, user_calls=True)
            if bad is not None:
                raise Unsupported(bad, f"argument '{c_text(arg)}' of '{name}' has a side "
                                  f"effect ('{c_text(bad)}'): polycu inlines calls whose "
                                  "arguments have none", self.loc(bad))
        args = [self.expr(a, stack, before, conditional) for a in args]
        via = f"from inlining '{name}' called at line {getattr(call.coord, 'line', 0)}"
        if isinstance(call.coord, Inlined):
            via += f", {call.coord.via}"
        return Body(self, func, params, args, via), stack + (name,)

    def call_statement(self, call: c_ast.FuncCall, stack: tuple[str, ...],
                       before: list[c_ast.Node]) -> c_ast.Node:
        """A call statement: the function's body as a block."""
        body, inner = self.prepare(call, stack, before, False)
        return c_ast.Compound(self.items(body.statement(), inner), call.coord)

    def call_value(self, call: c_ast.FuncCall, stack: tuple[str, ...],
                   before: list[c_ast.Node] | None, conditional: bool) -> c_ast.Node:
        """A call inside an expression: the value the function returns."""
        name = call.name.name
        result = self.inl.functions[name].result if name in self.inl.functions else "?"
        body, inner = self.prepare(call, stack, before, conditional)
        if parse_type(result) is None:
            raise Unsupported(call, f"'{name}' returns '{result}', not an arithmetic value: "
                              "its call cannot be inlined in an expression", self.loc(call))
        items, value = body.value(call)
        items = self.items(items, inner)
        value = self.expr(value, inner, items, conditional)
        outside = sorted(written_names(items + [value]) - self.made)
        if outside:
            raise Unsupported(call, f"'{name}' writes '{outside[0]}' through its parameters: a "
                              "call inside an expression cannot be inlined (call it as a "
                              "statement)", self.loc(call))
        if items and (before is None or conditional):
            where = "a loop bound or a condition" if before is None else \
                "a branch of '?:', '&&' or '||'"
            raise Unsupported(call, f"'{name}' has statements before its 'return' (or calls a "
                              f"function that has): a call of it in {where} cannot be inlined",
                              self.loc(call))
        if items:
            before.extend(items)
        return self.converted(value, result)
