"""References through pointers read as subscripts of the array pointed into.

In:  a SCoP's items (calls inlined), the symbols they see, and the function with the
     region's own items (to find the pointers defined before it).
Out: the items with ``*(p + i)``, ``(p + k)[i]``, ``*row``, ``&A[i][j]`` and every
     reference through a local pointer (``double *row = A + i * n; row[j]``) an
     ``ArrayRef`` of the array itself, and the pointers' declarations inside the SCoP
     removed (``pointer_subscripts``).

C written by hand walks arrays through pointers; the model knows arrays and
subscripts (``pointer_forms.py`` reads the pointer expressions).  A local pointer is
replaced by its value where that value is the same at every use: it is defined once
(its initialiser, or one assignment before the SCoP in a block around it), never
written or taken the address of elsewhere, its base is never assigned, and its
offsets hold no data and no name written anywhere in the function but an iterator of
a loop around both the definition and the SCoP (inside the SCoP: no name written
after the declaration in its block).  Then the SCoP's dependences are exact across
the two names.  A pointer defined once into an array that the SCoP also uses, but not
replaceable (or whose value is no pointer form read here, such as a cast to another
element type), is an error: the two names would be modelled as distinct arrays, and
the code would be wrong where they overlap.  A pointer assigned more than once (two
buffers swapped between time steps) keeps the assumption that distinct names do not
alias (docs/supported-c.md).  So does the pointer field of a local structure
(``struct_fields.py`` binds it to a name): set once before the SCoP, it is replaced by
its value (``_Outside._bound_field``); set otherwise, it may point into no array the
SCoP uses.
"""
from __future__ import annotations

import copy
import re
from typing import Mapping, Sequence

from pycparser import c_ast

from ..diagnostics import Location
from .pointer_forms import (Pointer, PointerForms, offset_names, offsets_plain,
                            pointer_decl)
from .symbols import Symbol
from .syntax import Unsupported, base_name, c_text, replace_child, walk


def pointer_subscripts(items: Sequence[c_ast.Node], symbols: Mapping[str, Symbol],
                       typedefs: Mapping[str, str], function: c_ast.FuncDef | None,
                       region: Sequence[c_ast.Node], source: str,
                       fields: Mapping[tuple[str, str], str] | None = None,
                       structs: Mapping[str, c_ast.Struct] | None = None
                       ) -> tuple[list[c_ast.Node], dict[str, Symbol]]:
    """``items`` with the pointer forms read as subscripts (module docstring); the
    inputs are left as they were.  ``fields``: the structure fields bound to names
    (``struct_fields.py``), which a pointer defined before the SCoP may point into and
    which may hold a known pointer themselves; ``structs``: the unit's structures."""
    forms = PointerForms(symbols, typedefs, fields or {})
    outside = _Outside(forms, function, region, source, structs or {}).aliases(items) \
        if function else {}
    if not outside and not any(_pointer_form(n) for item in items for n in walk(item)):
        return list(items), dict(symbols)
    block = _Block(forms, source)
    rewritten = block.items([copy.deepcopy(i) for i in items], outside)
    for name, value in outside.items():
        block.no_pointer_left(rewritten, name, value)
    return rewritten, dict(symbols)


def _pointer_form(node: c_ast.Node) -> bool:
    """Whether ``node`` may be a pointer form: a dereference, an address, or a local
    pointer declared with a value."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("*", "&"):
        return True
    if isinstance(node, c_ast.ArrayRef) and not isinstance(node.name, (c_ast.ID, c_ast.ArrayRef)):
        return True
    return isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.PtrDecl)


class _Block:
    """Rewrites block items in order: a pointer declared with a replaceable value is
    dropped and its uses read as the array's elements for the rest of its block."""

    def __init__(self, forms: PointerForms, source: str):
        self.forms = forms
        self.source = source

    def items(self, items: list[c_ast.Node], env: Mapping[str, Pointer]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        env = dict(env)
        added: list[str] = []
        for position, item in enumerate(items):
            if pointer_decl(item) and item.init is not None:
                value = self.forms.declared(item, item.init, env)
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
                and offsets_plain(value) and not offset_names(value) & written)

    def statement(self, node: c_ast.Node, env: Mapping[str, Pointer]) -> c_ast.Node:
        if isinstance(node, c_ast.Compound):
            node.block_items = self.items(list(node.block_items or []), env)
            return node
        for attr, child in node.children():
            if isinstance(child, c_ast.Compound) or isinstance(node, (
                    c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile)) and attr in (
                    "iftrue", "iffalse", "stmt"):
                replace_child(node, attr, self.statement(child, env))
            else:
                replace_child(node, attr, self.forms.rewrite(child, env))
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

    def __init__(self, forms: PointerForms, function: c_ast.FuncDef,
                 region: Sequence[c_ast.Node], source: str,
                 structs: Mapping[str, c_ast.Struct]):
        self.forms = forms
        self.structs = structs
        self.function = function
        self.region = region
        self.source = source
        self.writes: dict[str, int] = {}
        self.declared: dict[str, int] = {}
        #: the pointers the SCoP uses that are not replaced: what they may point
        #: into, why they are not replaced, where they are defined
        self.unreplaced: dict[str, tuple[set[str], str, c_ast.Node]] = {}
        #: how many times each (structure, field) is written, and every value that
        #: may reach a structure's fields (initialisers, assignments)
        self.field_writes: dict[tuple[str, str], int] = {}
        self.field_values: dict[str, list[c_ast.Node]] = {}
        targets = _address_targets(function.body)        # p = &m: p->f is m.f
        for n in walk(function.body):
            name = _written(n)
            if name:
                self.writes[name] = self.writes.get(name, 0) + 1
            target = n.lvalue if isinstance(n, c_ast.Assignment) else \
                n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") \
                else None
            if isinstance(target, c_ast.StructRef) and isinstance(target.name, c_ast.ID):
                for var in {target.name.name} | targets.get(target.name.name, set()):
                    key = (var, target.field.name)
                    self.field_writes[key] = self.field_writes.get(key, 0) + 1
            if isinstance(n, c_ast.Assignment) and base_name(n.lvalue):
                var = base_name(n.lvalue) or ""
                for each in {var} | targets.get(var, set()):
                    self.field_values.setdefault(each, []).append(n.rvalue)
            if isinstance(n, c_ast.Decl) and n.name and n.init is not None:
                self.field_values.setdefault(n.name, []).append(n.init)
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
        before: dict[str, tuple[c_ast.Node, int]] = {}     # declarations, field settings
        for depth, (node, index) in enumerate(trail):
            if not isinstance(node, c_ast.Compound):
                continue
            for item in (node.block_items or [])[:index]:
                if isinstance(item, c_ast.Decl) and item.name:
                    before[item.name] = (item, depth)
                elif isinstance(item, c_ast.Assignment) and item.op == "=" and \
                        isinstance(item.lvalue, c_ast.StructRef):
                    before[c_text(item.lvalue)] = (item, depth)
                if pointer_decl(item) and self.declared.get(item.name) == 1:
                    decls[item.name] = item
                    if item.init is not None and not self.writes.get(item.name):
                        self._define(item, item.init, item, trail[:depth], env, used)
                elif (isinstance(item, c_ast.Assignment) and item.op == "="
                      and isinstance(item.lvalue, c_ast.ID) and item.lvalue.name in decls
                      and decls[item.lvalue.name].init is None
                      and self.writes.get(item.lvalue.name) == 1):
                    self._define(decls[item.lvalue.name], item.rvalue, item, trail[:depth], env,
                                 used)
        for name in sorted(used):
            sym = self.forms.symbols.get(name)
            if sym is not None and sym.bound and sym.pointer:
                self._bound_field(name, sym, before, trail, env, used)
        replaced = {name: value for name, value in env.items() if name in used}
        self._no_hidden_alias(used | {v.base for v in replaced.values()})
        return replaced

    # Two names the model takes for distinct arrays must not be one array: a pointer
    # not replaced must point into no array the SCoP uses under another name, nor
    # into one that another such pointer points into.
    def _no_hidden_alias(self, used: set[str]) -> None:
        """Stop at a pointer left to itself that may share an array with another name
        the SCoP uses (``used``, the replaced pointers' arrays included)."""
        def spelt(name: str) -> str:               # M_data: M->data
            sym = self.forms.symbols.get(name)
            return sym.bound if sym is not None and sym.bound else name

        seen: dict[str, str] = {}
        for name, (bases, reason, where) in sorted(self.unreplaced.items()):
            into = sorted(spelt(b) for b in bases if b in used and b != name)
            if into:
                raise Unsupported(where, f"'{spelt(name)}' points into '{into[0]}', which the "
                                  f"SCoP also uses, and {reason}: polycu would take them for "
                                  "two arrays; subscript the array itself",
                                  Location.from_coord(where.coord, self.source))
            for base in sorted(bases):
                if base in seen:
                    raise Unsupported(where, f"'{spelt(name)}' and '{spelt(seen[base])}' both "
                                      f"point into '{spelt(base)}', and {reason}: polycu "
                                      "would take them for "
                                      "two arrays; subscript the array itself",
                                      Location.from_coord(where.coord, self.source))
                seen[base] = name

    # A pointer field of a local structure holds, when the SCoP starts, the value of
    # its one setting: the structure's initialiser (``mat m = { n, A };``) or one
    # assignment ``m.data = A + k;`` before the SCoP in a block around it, with no
    # other assignment to the structure, its field, or its address but that of the
    # one pointer the SCoP reaches it through (``mat *p = &m;``, ``p->data``).
    def _bound_field(self, name: str, sym: Symbol, before: dict[str, tuple[c_ast.Node, int]],
                     trail: list[tuple[c_ast.Node, int]], env: dict[str, Pointer],
                     used: set[str]) -> None:
        """Replace the name bound to a local structure's pointer field (``M_data`` for
        ``M->data``) by the field's value where it is known; else record what the field
        may point into."""
        var, arrow, field = re.fullmatch(r"(\w+)(\.|->)(\w+)", sym.bound).groups()
        addressed = 0
        if arrow == "->":
            decl = before.get(var, (None, 0))[0]
            if not self.declared.get(var) or decl is None:
                return                                  # a parameter: the assumption
            target = decl.init if isinstance(decl, c_ast.Decl) else None
            if not (isinstance(target, c_ast.UnaryOp) and target.op == "&" and
                    isinstance(target.expr, c_ast.ID)) or self.writes.get(var):
                return                  # a structure polycu does not see: the assumption
            var, addressed = target.expr.name, 1
        if not self.declared.get(var):
            return
        decl, depth = before.get(var, (None, 0))
        setting = before.get(f"{var}.{field}")
        settings = self.field_writes.get((var, field), 0)
        spelling = self.forms.symbols[var].element_type if var in self.forms.symbols else ""
        definition = _initialised(decl, field, self.structs.get(spelling))
        where: c_ast.Node = decl if decl is not None else self.function.decl
        if setting is not None and definition is None and settings == 1:
            definition, depth = setting[0].rvalue, setting[1]
            where = setting[0]
        elif settings:
            definition = None
        if decl is None or self.writes.get(var, 0) != addressed or definition is None:
            mentions = {n for node in self.field_values.get(var, []) for n in
                        _arrays_in(node, self.forms)}
            self.unreplaced[name] = (mentions, "its field is set more than once or where "
                                     "polycu does not follow it", where)
            return
        value = self.forms.value(definition, env)
        value = None if value is None else self.forms.viewed(value, _pointer_to(sym))
        self._settle(name, value, definition, where, trail[:depth], env, used)

    def _define(self, decl: c_ast.Decl, definition: c_ast.Node, where: c_ast.Node,
                around: list[tuple[c_ast.Node, int]], env: dict[str, Pointer],
                used: set[str]) -> None:
        """Record the pointer ``decl`` declares as ``definition`` (at ``where``) if it
        is replaceable, else what it may point into if the SCoP uses it."""
        self._settle(decl.name, self.forms.declared(decl, definition, env), definition,
                     where, around, env, used)

    def _settle(self, name: str, value: Pointer | None, definition: c_ast.Node,
                where: c_ast.Node, around: list[tuple[c_ast.Node, int]],
                env: dict[str, Pointer], used: set[str]) -> None:
        """``name`` replaced by ``value`` if that is the same at every use, else what
        ``definition`` may point into recorded."""
        if value is not None:
            reason = self._unreplaceable(value, around)
            if reason is None:
                env[name] = value
                return
            bases = [value.base]
        else:
            reason = "its value is no array plus integer offsets of the same element type"
            bases = sorted(_arrays_in(definition, self.forms) - {name})
        if name in used:
            self.unreplaced[name] = (set(bases), reason, where)

    def _unreplaceable(self, value: Pointer, around: list[tuple[c_ast.Node, int]]
                       ) -> str | None:
        """Why ``value`` may differ between its definition and the region (None: it
        cannot)."""
        if self.writes.get(value.base):
            return f"'{value.base}' is assigned in the function"
        if not offsets_plain(value):
            return "its offset reads data"
        loops = [node for node, _ in around if isinstance(node, c_ast.For)]
        for name in sorted(offset_names(value)):
            count = self.writes.get(name, 0)
            if count and not any(_counts_only(loop, name, count) for loop in loops):
                return f"'{name}' in its offset is assigned in the function"
        return None


def _address_targets(body: c_ast.Node) -> dict[str, set[str]]:
    """For each variable assigned or initialised with ``&m``, every such ``m``."""
    found: dict[str, set[str]] = {}
    for n in walk(body):
        name, value = (n.name, n.init) if isinstance(n, c_ast.Decl) else \
            (n.lvalue.name, n.rvalue) if isinstance(n, c_ast.Assignment) and \
            isinstance(n.lvalue, c_ast.ID) else (None, None)
        if name and isinstance(value, c_ast.UnaryOp) and value.op == "&" and \
                isinstance(value.expr, c_ast.ID):
            found.setdefault(name, set()).add(value.expr.name)
    return found


def _initialised(decl: c_ast.Node | None, field: str, definition: c_ast.Struct | None
                 ) -> c_ast.Node | None:
    """The value a declaration of a structure of type ``definition`` gives ``field``
    (positional or designated initialiser), or None."""
    if not isinstance(decl, c_ast.Decl) or not isinstance(decl.init, c_ast.InitList):
        return None
    names = [d.name for d in definition.decls or []] if definition is not None else []
    position = 0
    for expr in decl.init.exprs:
        if isinstance(expr, c_ast.NamedInitializer):
            key = expr.name[0].name if len(expr.name) == 1 and \
                isinstance(expr.name[0], c_ast.ID) else None
            if key == field:
                return expr.expr
            position = names.index(key) + 1 if key in names else len(names)
            continue
        if position < len(names) and names[position] == field:
            return expr
        position += 1
    return None


def _pointer_to(sym: Symbol) -> c_ast.Node:
    """The declarator of a pointer to ``sym``'s elements (``double *``)."""
    return c_ast.PtrDecl([], c_ast.TypeDecl(None, [], None,
                                            c_ast.IdentifierType(sym.element_type.split())))


def _arrays_in(node: c_ast.Node, forms: PointerForms) -> set[str]:
    """The arrays, pointers and structure fields (``V.f``, or the name bound to it)
    an expression may point into (not under ``sizeof``)."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":
        return set()
    if isinstance(node, c_ast.ID):
        sym = forms.symbols.get(node.name)
        return {node.name} if sym is not None and sym.extents else set()
    if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID):
        key = (node.name.name, node.field.name)
        return {forms.fields.get(key, ".".join(key))}
    return {n for _, child in node.children() for n in _arrays_in(child, forms)}


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
