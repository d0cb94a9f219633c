"""Delinearisation: a flat array subscripted ``A[i * n + j]`` read as rows ``A[i][j]``.

In:  the SCoP's items (calls inlined) and the symbols they see.
Out: the items with each such reference rewritten, and the symbols with the array's
     extents ``(None, n)`` and ``delinearised`` set (``delinearise``).

C code that is not PolyBench keeps a matrix in a pointer or a one-dimensional array
and computes the offset itself: ``C[i * n + j] += A[i * n + k] * B[k * n + j]``.  The
product of an iterator and a parameter is not affine, so isl cannot describe the
access; modelled as any index of the array it needs the array's extent (unknown for a
pointer) and serialises every loop around a write.  Polly recovers such arrays from
the terms of the offsets; so does this module, before the model is built.

Each subscript of a flat array is written as a polynomial in integer variables (sum
of coefficient x product of names); a quasi-affine part that is no polynomial (``t %
2``, ``(i + 1) / 3``, ``MIN(i, n)``) is one unknown of it (an atom).  The stride ``P``
is the one name that every term of degree two or more holds and the SCoP does not
write (a parameter); dividing by it gives ``s = q * P + r`` (``r``: the terms without
``P``), and ``q`` is divided again while it is not affine: ``(i * n + j) * m + k``
gives ``A[i][j][k]`` with extents ``(None, n, m)``.  A subscript that is already
affine is row 0 (``x[j]`` is ``x[0][j]``).

The address ``q * P + r`` is the same in both forms, so the rewritten C computes what
the original does.  The model is exact when every column lies in its row,
``0 <= r < P`` at every instance (then two offsets are equal exactly when their rows
and columns are): the SCoP assumes it (``with_outside_rows``, ``inner_rows``), like a
pointer's first index (``scop._pointer_rows``), and where the parameters break it
the program runs the SCoP's own lines (``codegen/splice.py``).

Only what C evaluates exactly as the polynomial is rewritten: integer names and
literals joined by ``+``, ``-`` and ``*`` and converted where the value is kept, none
of these operations in ``unsigned int`` (which wraps modulo 2^32 to another element;
``size_t`` wraps modulo 2^64 as the address does); no element of an array (data).
Any other reference to the array (passed whole, through pointer arithmetic) leaves it
alone, as does an array the SCoP declares.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from typing import Mapping, Sequence

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location
from ..model import Array, Scop, Statement
from .affine import cast_type, is_int_literal
from .ctype import (INT, Arith, common, literal_type, literal_value, parse_type, promote,
                    range_constraint)
from .symbols import Symbol
from .syntax import c_text, flatten_ref, replace_child, walk, written_names

#: A polynomial: the sorted names of each term -> its coefficient.
Poly = dict[tuple[str, ...], int]


def delinearise(items: Sequence[c_ast.Node], symbols: Mapping[str, Symbol],
                typedefs: Mapping[str, str]) -> tuple[list[c_ast.Node], dict[str, Symbol]]:
    """``items`` and ``symbols`` with the flat arrays read as rows (module docstring);
    the inputs themselves are left as they were."""
    written = written_names(items)
    declared = {n.name for item in items for n in walk(item) if isinstance(n, c_ast.Decl)}
    uses: dict[str, list[c_ast.ArrayRef]] = {}
    whole: set[str] = set()
    for item in items:
        _references(item, uses, whole)
    strides: dict[str, list[str]] = {}
    for name, refs in uses.items():
        sym = symbols.get(name)
        if name in whole or name in declared or sym is None or len(sym.extents) != 1:
            continue
        polys = [_poly(ref.subscript, symbols, typedefs) for ref in refs]
        if any(p is None for p in polys):
            continue
        found = _strides([p for p in polys if p is not None], symbols, written)
        if found:
            strides[name] = found
    if not strides:
        return list(items), dict(symbols)
    rewritten = [copy.deepcopy(item) for item in items]
    flat = [(node, attr, child) for item in rewritten for node in walk(item)
            for attr, child in node.children() if _flat_name(child) in strides]
    for node, attr, child in flat:
        replace_child(node, attr,
                      _rows(child, strides[_flat_name(child) or ""], symbols, typedefs))
    table = dict(symbols)
    for name, found in strides.items():
        extents = (None,) + tuple(c_ast.ID(p) for p in found)
        table[name] = replace(symbols[name], extents=extents, delinearised=True)
    return rewritten, table


def _references(node: c_ast.Node, uses: dict[str, list[c_ast.ArrayRef]],
                whole: set[str]) -> None:
    """Collect the one-subscript references ``A[s]`` of each name in ``uses`` and the
    names used any other way (``A``, ``A[i][j]``, ``A + 1``) in ``whole``."""
    if isinstance(node, c_ast.ArrayRef):
        base, subscripts = flatten_ref(node)
        if isinstance(base, c_ast.ID):
            if len(subscripts) == 1:
                uses.setdefault(base.name, []).append(node)
            else:
                whole.add(base.name)
            for s in subscripts:
                _references(s, uses, whole)
            return
    if isinstance(node, c_ast.ID):
        whole.add(node.name)
        return
    for _, child in node.children():
        _references(child, uses, whole)


def _flat_name(node: c_ast.Node) -> str | None:
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID):
        return node.name.name
    return None


# C computes a polynomial exactly where no operation wraps: a signed operation
# overflows only where C is undefined, and one in a 64-bit unsigned type wraps modulo
# 2^64 as the address does; an operation in 'unsigned int' (``i * 3u``, ``u - 1`` with
# ``unsigned u``) may wrap modulo 2^32 to another element.
def _poly(node: c_ast.Node, symbols: Mapping[str, Symbol], typedefs: Mapping[str, str],
          atoms: dict[str, c_ast.Node] | None = None) -> Poly | None:
    """The polynomial of an integer expression, or None (module docstring); ``atoms``
    receives the node of each atom by its key."""
    found = _typed_poly(node, symbols, typedefs, {} if atoms is None else atoms)
    return None if found is None else found[0]


def _typed_poly(node: c_ast.Node, symbols: Mapping[str, Symbol], typedefs: Mapping[str, str],
                atoms: dict[str, c_ast.Node]) -> tuple[Poly, Arith] | None:
    """(polynomial, C type) of an integer expression C computes exactly (above)."""
    if is_int_literal(node) and isinstance(node, c_ast.Constant):
        value = literal_value(node.value)
        return ({(): value} if value else {}), literal_type(node.value)
    if isinstance(node, c_ast.ID):
        sym = symbols.get(node.name)
        ctype = sym.ctype if sym is not None else None
        if ctype is None or ctype.floating:
            return None
        return {(node.name,): 1}, promote(ctype)
    if isinstance(node, c_ast.Cast):
        target, inner = cast_type(node, typedefs), _typed_poly(node.expr, symbols, typedefs, atoms)
        if target is None or target.floating or inner is None or not _keeps(inner[1], target):
            return None
        return inner[0], promote(target)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        inner = _typed_poly(node.expr, symbols, typedefs, atoms)
        if inner is None or node.op == "-" and _wraps(inner[1]):
            return None
        return _scaled(inner[0], -1 if node.op == "-" else 1), inner[1]
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        left = _typed_poly(node.left, symbols, typedefs, atoms)
        right = _typed_poly(node.right, symbols, typedefs, atoms)
        if left is None or right is None:
            return None
        ctype = common(left[1], right[1])
        if _wraps(ctype):
            return None
        if node.op == "*":
            product: Poly = {}
            for a, x in left[0].items():
                for b, y in right[0].items():
                    _add(product, tuple(sorted(a + b)), x * y)
            return product, ctype
        result = dict(left[0])
        for term, c in _scaled(right[0], -1 if node.op == "-" else 1).items():
            _add(result, term, c)
        return result, ctype
    ctype = _atom_type(node, symbols, typedefs)
    if ctype is None:
        return None
    key = f"({c_text(node)})"
    atoms[key] = node
    return {(key,): 1}, ctype


# An atom is a quasi-affine part of a subscript that is no polynomial (``t % 2``,
# ``(i + 1) / 3``, ``MIN(i, n)``): one unknown of the polynomial, which the model
# describes exactly once it is a subscript of its own.  It holds no element of an
# array (data), no call and no side effect: a column that data computes could leave
# its row without any assumption saying so.
def _atom_type(node: c_ast.Node, symbols: Mapping[str, Symbol], typedefs: Mapping[str, str]
               ) -> Arith | None:
    """The C type of an integer expression of names, literals and operators, or None."""
    if is_int_literal(node) and isinstance(node, c_ast.Constant):
        return literal_type(node.value)
    if isinstance(node, c_ast.ID):
        sym = symbols.get(node.name)
        ctype = sym.ctype if sym is not None else None
        return None if ctype is None or ctype.floating else promote(ctype)
    if isinstance(node, c_ast.Cast):
        target = cast_type(node, typedefs)
        inner = _atom_type(node.expr, symbols, typedefs)
        return None if target is None or target.floating or inner is None else promote(target)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~", "!"):
        inner = _atom_type(node.expr, symbols, typedefs)
        return None if inner is None else INT if node.op == "!" else inner
    if isinstance(node, c_ast.BinaryOp):
        left = _atom_type(node.left, symbols, typedefs)
        right = _atom_type(node.right, symbols, typedefs)
        if left is None or right is None:
            return None
        if node.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return INT
        return left if node.op in ("<<", ">>") else common(left, right)
    if isinstance(node, c_ast.TernaryOp):
        kinds = [_atom_type(n, symbols, typedefs) for n in (node.cond, node.iftrue, node.iffalse)]
        return None if None in kinds else common(kinds[1], kinds[2])  # type: ignore[arg-type]
    return None


def _keeps(source: Arith, target: Arith) -> bool:
    """Whether converting to ``target`` keeps a value of ``source`` (modulo 2^64 for a
    64-bit target, as the address does)."""
    if target.bits >= 64:
        return True
    if source.signed == target.signed:
        return target.bits >= source.bits
    return target.signed and target.bits > source.bits


def _wraps(ctype: Arith) -> bool:
    """Whether arithmetic in ``ctype`` may wrap to another address (see above)."""
    return not ctype.signed and ctype.bits < 64


def _scaled(poly: Poly, factor: int) -> Poly:
    return {t: c * factor for t, c in poly.items()}


def _add(poly: Poly, term: tuple[str, ...], c: int) -> None:
    total = poly.get(term, 0) + c
    if total:
        poly[term] = total
    else:
        poly.pop(term, None)


def _strides(polys: list[Poly], symbols: Mapping[str, Symbol], written: set[str]
             ) -> list[str]:
    """The strides, outermost first, that divide every polynomial into affine rows and
    columns; [] when they are affine already or no single stride divides them."""
    found: list[str] = []
    while True:
        nonlinear = [t for p in polys for t in p if len(t) > 1]
        if not nonlinear:
            return found
        shared = {n for n in set(nonlinear[0]).intersection(*nonlinear[1:])
                  if n not in written and n in symbols}      # no atom
        if len(shared) != 1:
            return []
        stride = shared.pop()
        found.insert(0, stride)
        polys = [_quotient(p, stride) for p in polys]


def _quotient(poly: Poly, stride: str) -> Poly:
    """``q`` of ``poly = q * stride + r`` (``r``: the terms without ``stride``)."""
    result: Poly = {}
    for term, c in poly.items():
        if stride in term:
            rest = list(term)
            rest.remove(stride)
            _add(result, tuple(rest), c)
    return result


def _remainder(poly: Poly, stride: str) -> Poly:
    return {t: c for t, c in poly.items() if stride not in t}


def _rows(ref: c_ast.ArrayRef, strides: list[str], symbols: Mapping[str, Symbol],
          typedefs: Mapping[str, str]) -> c_ast.ArrayRef:
    """``A[s]`` as ``A[q_1]...[q_k][r]`` for the strides, outermost first."""
    atoms: dict[str, c_ast.Node] = {}
    poly = _poly(ref.subscript, symbols, typedefs, atoms)
    assert poly is not None
    subscripts: list[Poly] = []
    for stride in reversed(strides):
        column, poly = _remainder(poly, stride), _quotient(poly, stride)
        if set(column) == {()} and column[()] < 0:   # i * n + n - 1: row i, column n - 1
            column = {(stride,): 1, (): column[()]}
            _add(poly, (), -1)
        subscripts.insert(0, column)
    subscripts.insert(0, poly)
    result: c_ast.Node = ref.name
    for p in subscripts:
        result = c_ast.ArrayRef(result, _expression(p, atoms, ref.subscript.coord),
                                ref.coord)
    assert isinstance(result, c_ast.ArrayRef)
    return result


def _expression(poly: Poly, atoms: Mapping[str, c_ast.Node], coord: object) -> c_ast.Node:
    """A polynomial (``2 * i + j - 1``) as a pycparser expression, each atom a copy of
    its node."""
    result: c_ast.Node | None = None
    for term, c in sorted(poly.items(), key=lambda tc: (-len(tc[0]), tc[0])):
        factors: list[c_ast.Node] = [copy.deepcopy(atoms[n]) if n in atoms
                                     else c_ast.ID(n, coord) for n in term]
        if abs(c) != 1 or not factors:
            factors.insert(0, c_ast.Constant("int", str(abs(c)), coord))
        node = factors[0]
        for f in factors[1:]:
            node = c_ast.BinaryOp("*", node, f, coord)
        if result is None:
            result = node if c > 0 else c_ast.UnaryOp("-", node, coord)
        else:
            result = c_ast.BinaryOp("+" if c > 0 else "-", result, node, coord)
    return result if result is not None else c_ast.Constant("int", "0", coord)


# B_A = { p : some instance S[x] accesses A[r, c] with c_k < 0 or c_k >= P_k }: the
# parameters at which the rows of A are not exact.
def _outside(statements: Sequence[Statement], array: Array) -> isl.Set:
    """``B_A`` above."""
    dims = [f"polycu_d{k}" for k in range(array.rank)]
    outside = " or ".join(f"{d} < 0 or {d} >= {e}" for d, e in zip(dims[1:], array.extents[1:]))
    params = ", ".join(str(e) for e in array.extents[1:])
    bad_cells = isl.Set(f"[{params}] -> {{ {array.name}[{', '.join(dims)}] : {outside} }}")
    bad = bad_cells.params()
    bad = bad.subtract(bad)
    for stmt in statements:
        for access in stmt.accesses:
            if access.array != array.name:
                continue
            cells = stmt.domain.apply(access.relation.intersect_domain(stmt.domain))
            found = cells.intersect(bad_cells.align_params(cells.get_space())).params()
            bad = bad.align_params(found.get_space()).union(found.align_params(bad.get_space()))
    return bad.coalesce()


def with_outside_rows(statements: Sequence[Statement], arrays: Sequence[Array]
                      ) -> tuple[Array, ...]:
    """The arrays, each delinearised one with ``outside_rows`` (``B_A``) from the
    statements as built, before the context simplifies their domains."""
    return tuple(replace(a, outside_rows=_outside(statements, a)) if a.delinearised else a
                 for a in arrays)


# The complement of B_A for each delinearised array A.
def inner_rows(arrays: Sequence[Array]) -> list[isl.Set]:
    """Per delinearised array, the parameters at which every access's inner indices
    are within their extents (the assumption that makes the rows exact)."""
    return [a.outside_rows.complement().coalesce() for a in arrays
            if a.outside_rows is not None and not a.outside_rows.is_empty()]


def row_notes(scop: Scop) -> list[tuple[str, Location | None]]:
    """What the user is told of each delinearised array whose rows hold only for some
    parameter values (at the others the program runs the SCoP as written)."""
    notes = []
    for array in scop.arrays:
        if array.outside_rows is None:
            continue
        bad = array.outside_rows.align_params(scop.context.get_space())
        ranges = isl.Set.universe(bad.get_space())      # the parameters' types
        for p in scop.parameters:
            ctype = parse_type(scop.parameter_type(p))
            if ctype is not None and not ctype.floating:
                ranges = ranges.intersect(isl.Set(range_constraint(p, ctype)).align_params(
                    bad.get_space()))
        bad = bad.intersect(ranges)
        if bad.is_empty():
            continue
        rows = " x ".join(str(e) for e in array.extents[1:])
        notes.append((f"'{array.name}' is declared flat and read as rows of {rows} "
                      f"elements; some of its columns leave their rows where "
                      f"{bad.gist(ranges).coalesce()} (there the program runs the loops as "
                      "written, on the CPU)",
                      array.location))
    return notes
