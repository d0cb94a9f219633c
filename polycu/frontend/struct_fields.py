"""Fields of a structure with pointer fields bound to names of their own.

In:  a SCoP's items (calls inlined), the symbols they see, the unit's structure
     definitions.
Out: the items with each ``V->f`` / ``V.f`` of such a structure variable an
     identifier ``V_f``, and the symbols with ``V_f`` declared as the field is
     (``Symbol.bound``: the C expression it stands for, which the host program
     passes) (``bind_fields``).

C that is not PolyBench keeps a matrix in a structure: ``struct mat { int rows,
cols; double *data; }``, ``M->data[i * M->cols + j]``.  The structure cannot travel
whole to the GPU (``members.py``: the bytes ``data`` points to are not in it), but
the SCoP only needs what the fields hold when it starts: a pointer field no
statement assigns is an array of its own, an arithmetic field no statement writes a
value fixed for the SCoP (an integer one is a parameter, so ``i < M->rows`` is an
affine bound), and an array field an array.  The host function is called with
``M->data``, ``M->rows`` ... (``Scop.in_source``).

Bound only where every reference to the variable is such a field and the variable
is a structure or one pointer to one; a field the SCoP assigns is an error, and any
other use (the structure passed whole, an array of structures) leaves the variable
to ``members.py``, which says what it does not support.  Two bound pointer fields are
assumed not to alias, as two pointer parameters are.
"""
from __future__ import annotations

import copy
from typing import Mapping, Sequence

from pycparser import c_ast

from ..diagnostics import Location
from .ctype import LDOUBLE, parse_type
from .symbols import Symbol, decode_type
from .syntax import Unsupported, c_text, replace_child, walk

#: A bound field: (variable, field) -> the name that stands for it.
Bindings = dict[tuple[str, str], str]


def bind_fields(items: Sequence[c_ast.Node], symbols: Mapping[str, Symbol],
                structs: Mapping[str, c_ast.Struct], typedefs: Mapping[str, str],
                source: str) -> tuple[list[c_ast.Node], dict[str, Symbol], Bindings]:
    """``items`` with the fields of structures with pointer fields bound (module
    docstring), the symbols with the bound names, and the bindings; ``Unsupported``
    at a field such a structure's SCoP assigns."""
    refs: dict[str, list[c_ast.StructRef]] = {}
    others: set[str] = set()
    for item in items:
        _collect(item, refs, others)
    written = _written_fields(items)
    table = dict(symbols)
    taken = set(symbols) | {n.name for item in items for n in walk(item)
                            if isinstance(n, c_ast.ID)}
    bindings: Bindings = {}
    for var in sorted(set(refs) & others):
        pointers = _pointer_fields(symbols.get(var), structs, typedefs)
        if pointers:
            node = next(n for item in items for n in walk(item)
                        if isinstance(n, c_ast.ID) and n.name == var and n not in
                        {r.name for r in refs[var]})
            raise Unsupported(node, f"'{var}', a structure with the pointer field "
                              f"'{pointers[0]}', is used here other than as '{var}"
                              f"{'->' if symbols[var].pointer else '.'}field': polycu reads "
                              "only its fields", Location.from_coord(node.coord, source))
    for var in sorted(set(refs) - others):
        fields = _fields(symbols.get(var), refs[var], structs, typedefs)
        if fields is None:
            continue
        for field in sorted(fields):
            if (var, field) in written:
                node = written[(var, field)]
                raise Unsupported(node, f"'{c_text(node)}' is assigned in the SCoP: polycu "
                                  "reads the fields of a structure with pointer fields as "
                                  "values fixed for the SCoP (it writes only the elements "
                                  "its pointers point to)",
                                  Location.from_coord(node.coord, source))
        sym = symbols[var]
        for field, decl in sorted(fields.items()):
            name = f"{var}_{field}"
            while name in taken:
                name += "_"
            taken.add(name)
            element, extents, pointer = decode_type(decl.type, dict(typedefs))
            declaration = f"{element} *{name}" if pointer else \
                f"{element} {name}" + "".join(f"[{c_text(e)}]" for e in extents if e)
            table[name] = Symbol(name, element, extents, sym.location, pointer, declaration,
                                 bound=f"{var}{'->' if sym.pointer else '.'}{field}")
            bindings[(var, field)] = name
    if not bindings:
        return list(items), table, bindings
    rewritten = [copy.deepcopy(item) for item in items]
    for item in rewritten:
        _bind(item, bindings)
    return rewritten, table, bindings


def _collect(node: c_ast.Node, refs: dict[str, list[c_ast.StructRef]], others: set[str]
             ) -> None:
    """``V->f`` and ``V.f`` by ``V`` into ``refs``; every other use of a name into
    ``others``."""
    if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID):
        refs.setdefault(node.name.name, []).append(node)
        return
    if isinstance(node, c_ast.ID):
        others.add(node.name)
        return
    for _, child in node.children():
        _collect(child, refs, others)


# An arithmetic field fixed for the SCoP is one no statement assigns, increments or
# takes the address of; a pointer field, one whose pointer (not its elements) no
# statement so writes.
def _written_fields(items: Sequence[c_ast.Node]) -> dict[tuple[str, str], c_ast.StructRef]:
    """(variable, field) of every ``V->f`` or ``V.f`` written as a whole, with one
    such reference."""
    found = {}
    for n in (n for item in items for n in walk(item)):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&"):
            target = n.expr
        if isinstance(target, c_ast.StructRef) and isinstance(target.name, c_ast.ID):
            found.setdefault((target.name.name, target.field.name), target)
    return found


def _pointer_fields(sym: Symbol | None, structs: Mapping[str, c_ast.Struct],
                    typedefs: Mapping[str, str]) -> list[str]:
    """The pointer fields of the structure type of ``sym`` (none: not a structure)."""
    definition = structs.get(sym.element_type) if sym is not None else None
    return [d.name for d in (definition.decls or []) if decode_type(d.type, dict(typedefs))[2]
            ] if definition is not None else []


def _fields(sym: Symbol | None, refs: list[c_ast.StructRef],
            structs: Mapping[str, c_ast.Struct], typedefs: Mapping[str, str]
            ) -> dict[str, c_ast.Decl] | None:
    """The fields ``refs`` use, by name, each with its declaration; None where the
    variable is not bound."""
    if sym is None or sym.extents not in ((), (None,)) or \
            not _pointer_fields(sym, structs, typedefs):
        return None                       # no pointer field: members.py's structure
    decls = {d.name: d for d in structs[sym.element_type].decls}
    used: dict[str, c_ast.Decl] = {}
    for ref in refs:
        if (ref.type == "->") != bool(sym.extents) or ref.field.name not in decls:
            return None
        decl = decls[ref.field.name]
        element, extents, pointer = decode_type(decl.type, dict(typedefs))
        ctype = parse_type(element)
        if decl.bitsize is not None or ctype is None or ctype == LDOUBLE or \
                pointer and extents != (None,):
            return None
        used[ref.field.name] = decl
    return used


def _bind(node: c_ast.Node, bindings: Bindings) -> None:
    """Replace, under ``node``, each bound ``V->f`` by its name (in place)."""
    for attr, child in node.children():
        if isinstance(child, c_ast.StructRef) and isinstance(child.name, c_ast.ID) and \
                (child.name.name, child.field.name) in bindings:
            replace_child(node, attr, c_ast.ID(bindings[(child.name.name, child.field.name)],
                                               child.coord))
        else:
            _bind(child, bindings)
