"""The accesses of one statement: which array elements and scalars it reads and writes.

In:  a statement body (an assignment, an increment, or the whole ``if`` of a
data-dependent condition: conditions.py; pycparser AST), the
statement's name, iterators and domain, and the builder's view of the names
(``Names``: symbols, parameters, affine subscripts).
Out: ``Access`` values (``S[i] -> A[f(i)]`` relations, in evaluation order: the
right-hand side's reads, then the target's) and, in the builder's ``accessed``,
every variable the statement references.

Anything the model cannot describe (pointer operations, calls that may have side
effects, a reference with the wrong number of subscripts, ``long double``) raises
``Unsupported``: it ends an automatically found SCoP, and is an error inside
``#pragma scop``.
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location
from ..model import MAY_WRITE, READ, WRITE, Access
from .calls import PURE_FUNCTIONS, Prototype
from .classify import UNSUPPORTED
from .conditions import conjuncts
from .ctype import LDOUBLE, parse_type
from .members import MemberRef, Members, member_ref
from .symbols import Symbol
from .syntax import Unsupported, c_text, flatten_ref


class Names(Protocol):
    """What the access collector asks of the SCoP builder (``builder.Builder``)."""

    symbols: dict[str, Symbol]
    locals: dict[str, Symbol]
    functions: dict[str, Prototype]
    accessed: dict[str, Location]
    members: Members

    def loc(self, node: c_ast.Node | None) -> Location: ...

    def is_param(self, name: str) -> bool: ...

    def affine(self, node: c_ast.Node, iterators: Sequence[str],
               bounds: isl.Set | None = None) -> isl.PwAff: ...

    def affine_test(self, node: c_ast.Node, iterators: Sequence[str],
                    bounds: isl.Set) -> isl.Set | None: ...


class AccessCollector:
    """Records every array and scalar reference of one statement body."""

    #: Whether the statements it collects are data-dependent loops (``Statement.loop``).
    loop = False

    def __init__(self, builder: Names, stmt: str, iterators: tuple[str, ...],
                 domain: isl.Set):
        self.b = builder
        self.stmt = stmt
        self.iterators = iterators
        self.domain = domain
        self.space = domain.get_space()
        self.accesses: list[Access] = []
        self.write_kind = WRITE
        self.guard: isl.Set | None = None

    # A reference is made only where the affine tests around it let evaluation reach
    # it (C's short circuits, the branches of '?:' and, in a data-dependent statement,
    # of a nested affine 'if'): its relation keeps those instances only, so
    # ``i > 0 && A[i - 1] > 0`` and ``(i > 0 ? A[i - 1] : 0.0)`` never read A[-1]
    # (taken everywhere, that read had put n <= 0 in the context of a plain 3-point
    # blur of a pointer parameter: its kernels never ran).  A test isl cannot describe
    # restricts nothing (the reference counts everywhere: an over-approximation).
    # Where ``test`` holds, each of its affine conjuncts holds; where it fails, each
    # of its affine disjuncts fails.
    def guarded(self, test: c_ast.Node, holds: bool, collect: Callable[[], None]) -> None:
        """Run ``collect`` with the references restricted to where ``test`` holds
        (``holds``) or fails."""
        where = None
        for part in conjuncts(test, "&&" if holds else "||"):
            if not self.stable(part):
                continue
            found = self.b.affine_test(part, self.iterators, self.bounds())
            if found is not None:
                found = found if holds else found.complement()
                where = found if where is None else where.intersect(found)
        self.assuming(where, collect)

    def assuming(self, where: isl.Set | None, collect: Callable[[], None]) -> None:
        """Run ``collect`` with the references restricted to ``where``."""
        if where is None:
            collect()
            return
        saved = self.guard
        self.guard = where if saved is None else saved.intersect(where)
        try:
            collect()
        finally:
            self.guard = saved

    def stable(self, test: c_ast.Node) -> bool:
        """Whether ``test`` keeps its value over the references it guards (nothing
        between them writes its variables; a data-dependent loop may: loops.py)."""
        return True

    def bounds(self) -> isl.Set:
        """Where the reference being collected is evaluated (iterators, parameters)."""
        domain = self.domain.reset_tuple_id()
        if self.guard is None:
            return domain
        return domain.align_params(self.guard.get_space()).intersect(
            self.guard.align_params(domain.get_space()))

    def collect(self, body: c_ast.Node) -> None:
        """Record the accesses of a statement body: one assignment or increment, or
        the ``if`` of a data-dependent condition."""
        if isinstance(body, c_ast.If):
            self.conditional(body)
        else:
            self.statement(body)

    # A data-dependent statement (conditions.py): its writes may not happen, and no
    # reference may read a variable an earlier part of the same path wrote (that value
    # would flow inside one instance, which no dependence describes).
    def conditional(self, node: c_ast.If) -> None:
        """Record the accesses of ``if (c) T else E``: reads, and may-writes."""
        self.write_kind = MAY_WRITE
        self._path(node, set())

    def _path(self, node: c_ast.Node, written: set[str]) -> set[str]:
        """Collect ``node``'s accesses after code that wrote ``written``; the names
        written once ``node`` has run."""
        if isinstance(node, c_ast.If):
            self._after(written, lambda: self.expression(node.cond))
            then: set[str] = set()
            other = written
            self.guarded(node.cond, True, lambda: then.update(self._path(node.iftrue,
                                                                         set(written))))
            if node.iffalse is not None:
                other = set()
                self.guarded(node.cond, False, lambda: other.update(self._path(node.iffalse,
                                                                               set(written))))
            return then | other
        if isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                written = self._path(item, written)
            return written
        if isinstance(node, c_ast.EmptyStatement):
            return written
        return written | self._after(written, lambda: self.statement(node))

    def _after(self, written: set[str], collect: Callable[[], None]) -> set[str]:
        """Run ``collect``; reject a read of a name in ``written``; the names written."""
        first = len(self.accesses)
        collect()
        for access in self.accesses[first:]:
            if access.is_read and access.array in written:
                raise Unsupported(access.node, f"'{access.array}' is read after being written "
                                  "in the same data-dependent statement: not supported "
                                  "(the value would flow inside one statement instance)",
                                  self.b.loc(access.node))
        return {a.array for a in self.accesses[first:] if a.is_write}

    def statement(self, node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Assignment):
            # ``a = b = e`` (a chain of plain assignments) writes a and b, reads e.
            targets = [node]
            while targets[-1].op == "=" and isinstance(targets[-1].rvalue, c_ast.Assignment) \
                    and targets[-1].rvalue.op == "=":
                targets.append(targets[-1].rvalue)
            self.expression(targets[-1].rvalue)
            for target in reversed(targets):
                if target.op != "=":
                    self.reference(target.lvalue, READ)
                self.reference(target.lvalue, self.write_kind)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.reference(node.expr, READ)
            self.reference(node.expr, self.write_kind)
        else:
            raise Unsupported(node, f"expression statement '{c_text(node)}' has no effect or "
                              "is not supported", self.b.loc(node))

    def expression(self, node: c_ast.Node, kind: str = READ) -> None:
        if isinstance(node, (c_ast.ArrayRef, c_ast.ID, c_ast.StructRef)):
            self.reference(node, kind)
        elif isinstance(node, c_ast.Constant):
            return
        elif isinstance(node, c_ast.BinaryOp):
            self.expression(node.left)
            if node.op in ("&&", "||"):     # the right operand runs where the left decides
                self.guarded(node.left, node.op == "&&", lambda: self.expression(node.right))
            else:
                self.expression(node.right)
        elif isinstance(node, c_ast.UnaryOp):
            if node.op in ("&", "*"):
                raise Unsupported(node, f"pointer operation '{node.op}' is not supported in a "
                                  "SCoP", self.b.loc(node))
            if node.op in ("++", "--", "p++", "p--"):
                raise Unsupported(node, "increment inside an expression is not supported",
                                  self.b.loc(node))
            if node.op == "sizeof":
                return
            self.expression(node.expr)
        elif isinstance(node, c_ast.Cast):
            self.expression(node.expr)
        elif isinstance(node, c_ast.TernaryOp):
            self.expression(node.cond)
            self.guarded(node.cond, True, lambda: self.expression(node.iftrue))
            self.guarded(node.cond, False, lambda: self.expression(node.iffalse))
        elif isinstance(node, c_ast.FuncCall):
            name = c_text(node.name)
            proto = self.b.functions.get(name)
            if proto is None:
                raise Unsupported(node, f"call to '{name}', which is not declared (C needs "
                                  "a prototype: include its header)", self.b.loc(node))
            if name in UNSUPPORTED and proto.library:
                raise Unsupported(node, UNSUPPORTED[name], self.b.loc(node))
            if name not in PURE_FUNCTIONS or not proto.library:
                raise Unsupported(node, f"call to '{name}' may have side effects and is not "
                                  "supported in a SCoP", self.b.loc(node))
            for arg in (node.args.exprs if node.args else []):
                self.expression(arg)
        elif isinstance(node, c_ast.Assignment):
            raise Unsupported(node, "assignment inside an expression is not supported",
                              self.b.loc(node))
        else:
            raise Unsupported(node, f"{type(node).__name__} is not supported in a SCoP",
                              self.b.loc(node))

    def reference(self, node: c_ast.Node, kind: str) -> None:
        try:
            member = member_ref(node)
        except Unsupported as exc:
            raise Unsupported(node, exc.message, self.b.loc(node)) from None
        if member is not None:
            self.member(node, member, kind)
            return
        if isinstance(node, c_ast.ID):
            base, subscripts = node, []
        elif isinstance(node, c_ast.ArrayRef):
            base, subscripts = flatten_ref(node)
        else:
            raise Unsupported(node, f"'{c_text(node)}' is not an array or scalar reference: "
                              "a pointer is read only as an array plus integer offsets "
                              "(docs/supported-c.md, 'Pointers')",
                              self.b.loc(node))
        if not isinstance(base, c_ast.ID):
            raise Unsupported(node, f"'{c_text(node)}': pointer arithmetic is not supported",
                              self.b.loc(node))
        name = base.name
        if not subscripts:
            if name in self.iterators:
                if kind != READ:
                    raise Unsupported(node, f"loop iterator '{name}' is written",
                                      self.b.loc(node))
                return
            if self.b.is_param(name):
                return
        sym = self.b.locals.get(name) or self.b.symbols.get(name)
        if sym is None:
            raise Unsupported(node, f"'{name}' is not declared", self.b.loc(node))
        if self.b.members.is_struct(sym):
            raise Unsupported(node, f"structure '{c_text(node)}' used as a whole (a whole "
                              "structure assigned or read as one value) is not supported in a "
                              "SCoP; use its fields", self.b.loc(node))
        if parse_type(sym.element_type) == LDOUBLE:
            raise Unsupported(node, f"'{name}' is a long double: CUDA has no long double "
                              "arithmetic (it would compute in double)", self.b.loc(node))
        if len(subscripts) != len(sym.extents):
            what = "pointer arithmetic or a partial array reference" if subscripts or \
                sym.extents else "too many subscripts"
            raise Unsupported(node, f"'{c_text(node)}' uses {len(subscripts)} of "
                              f"{len(sym.extents)} subscripts: {what} is not supported",
                              self.b.loc(node))
        self.record(node, name, subscripts, kind)

    def member(self, node: c_ast.Node, ref: MemberRef, kind: str) -> None:
        """Record a reference to a structure member: to its field array (members.py)."""
        sym = self.b.locals.get(ref.variable.name) or self.b.symbols.get(ref.variable.name)
        if sym is None:
            raise Unsupported(node, f"'{ref.variable.name}' is not declared", self.b.loc(node))
        try:
            name, _, _ = self.b.members.access(ref, sym, node)
        except Unsupported as exc:
            raise Unsupported(node, exc.message, self.b.loc(node)) from None
        self.record(node, name, ref.outer + ref.inner, kind)

    def record(self, node: c_ast.Node, name: str, subscripts: list[c_ast.Node],
               kind: str) -> None:
        """Add the access of ``node`` to element ``subscripts`` of model array ``name``."""
        bounds = self.bounds()
        pieces = [self.b.affine(s, self.iterators, bounds) for s in subscripts]
        relation = access_map(self.space, name, pieces)
        if self.guard is not None:
            guard = self.guard.set_tuple_name(self.stmt)
            relation = relation.align_params(guard.get_space()).intersect_domain(
                guard.align_params(relation.get_space()))
        ref = f"{self.stmt}.{len(self.accesses)}"
        self.accesses.append(Access(name, kind, relation, ref, self.b.loc(node), node))
        self.b.accessed.setdefault(name, self.b.loc(node))


def access_map(domain_space: isl.Space, array: str, pieces: list[isl.PwAff]) -> isl.Map:
    """``S[i] -> A[f_1(i), ..., f_k(i)]`` from the subscript functions."""
    if not pieces:
        universe = isl.Set.universe(domain_space)
        target = isl.Set(f"{{ {array}[] }}")
        return isl.Map.from_domain_and_range(universe, target)
    result = None
    for piece in pieces:
        pma = isl.PwMultiAff.from_pw_aff(piece)
        result = pma if result is None else result.flat_range_product(pma)
    relation = isl.Map.from_pw_multi_aff(result)
    relation = relation.set_tuple_name(isl.dim_type.out, array)
    name = domain_space.get_tuple_name(isl.dim_type.set)
    return relation.set_tuple_name(isl.dim_type.in_, name)

