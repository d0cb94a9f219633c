"""Two C loop idioms written as the counted loops they are.

In:  the pycparser AST of a translation unit (typedef names of integer types
already written out, ``typenames.py``).
Out: a new unit (the function definitions that change copied, the rest shared)
where

- a loop with **companion counters**, ``for (i = a, j = b; c; i++, j -= 2) S``,
  counts with ``i`` alone: each companion ``j`` is the affine function of ``i`` it
  equals in every iteration, ``j = b + t * s * (i - a)`` for ``i``'s step ``s = +-1``
  and ``j``'s constant step ``t``, written into ``c`` and ``S``: ``i - a`` in ``long
  long`` (an unsigned ``i`` counting down would wrap), a signed ``j``'s value in
  ``long long`` (the original never overflows, ``b`` plus the product could), an
  unsigned ``j``'s as the sum of both parts converted to its type, which wraps the
  way its steps do; cast back to ``j``'s type;
- a **post-decrement test**, ``for (i = e; i-- > l;) S`` (or ``i--`` alone for an
  unsigned ``i``: ``> 0``), the idiom of downward loops over unsigned counters, is
  ``for (i = e; i > l; i--) S[i := (T) (i - 1)]``: the body sees the decremented
  value, and the test the value before it.

Why: the model counts with one iterator, stepped in the loop's increment; both
forms were refused.  Each rewrite changes the values the variables hold after the
loop (the companions are no longer stepped; the rewritten counter stops at ``l``,
not ``l - 1``), so it applies only where those variables are dead there: declared
in the loop's own initialisation, or named nowhere else in the function.  Also
left as written: a variable assigned in the body, an address taken, a name
declared again in the body, initial values or bounds that call functions or name
what the loop writes.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .affine import int_constant
from .calls import cast_to
from .syntax import replace_child, rewrite_functions, walk, written_names

_INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "_Bool"}
_PURE = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename,
         c_ast.TypeDecl, c_ast.IdentifierType, c_ast.TernaryOp)


def _integer_names(decl: c_ast.Decl) -> list[str] | None:
    """The type words of an integer variable's declaration, or None."""
    kind = decl.type
    if isinstance(kind, c_ast.TypeDecl) and isinstance(kind.type, c_ast.IdentifierType) \
            and kind.type.names and set(kind.type.names) <= _INTEGER_WORDS:
        return list(kind.type.names)
    return None


def _pure(node: c_ast.Node) -> bool:
    """No calls, assignments or increments: the value can be evaluated again."""
    return all(isinstance(n, _PURE) or (isinstance(n, c_ast.UnaryOp)
                                        and n.op in ("-", "+", "~", "!"))
               for n in walk(node))


def _names(node: c_ast.Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID)}


def increment(node: c_ast.Node) -> tuple[str, int] | None:
    """(variable, constant step) of a loop increment: ``x++``, ``--x``, ``x += c``,
    ``x -= c``, ``x = x + c``, ``x = c + x``, ``x = x - c``; None for any other."""
    if isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, c_ast.ID):
        step = {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(node.op)
        return None if step is None else (node.expr.name, step)
    if not (isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID)):
        return None
    name, rv = node.lvalue.name, node.rvalue
    if node.op in ("+=", "-="):
        value = int_constant(rv)
        return None if value is None else (name, value if node.op == "+=" else -value)
    if node.op != "=" or not isinstance(rv, c_ast.BinaryOp) or rv.op not in ("+", "-"):
        return None
    if isinstance(rv.left, c_ast.ID) and rv.left.name == name:
        value = int_constant(rv.right)
        return None if value is None else (name, value if rv.op == "+" else -value)
    if rv.op == "+" and isinstance(rv.right, c_ast.ID) and rv.right.name == name:
        value = int_constant(rv.left)
        return None if value is None else (name, value)
    return None


def _substitute(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """A copy of ``node`` with each variable of ``values`` replaced by its value
    (member names after ``.`` and ``->`` are no variables)."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    node = copy.copy(node)
    for name, child in node.children():
        if isinstance(node, c_ast.StructRef) and name == "field":
            continue
        replace_child(node, name, _substitute(child, values))
    return node


class _Function:
    """What the rewrites ask of the function holding a loop."""

    def __init__(self, func: c_ast.FuncDef):
        self.nodes = list(walk(func))
        self.decls: dict[str, list[c_ast.Decl]] = {}
        for node in self.nodes:
            if isinstance(node, c_ast.Decl) and node.name:
                self.decls.setdefault(node.name, []).append(node)

    def integer(self, name: str, loop: c_ast.For) -> list[str] | None:
        """The type words of ``name``, an integer declared in the loop's
        initialisation or else once in the function, whose address is never taken
        and which the body does not declare again."""
        own = [d for d in loop.init.decls if d.name == name] \
            if isinstance(loop.init, c_ast.DeclList) else []
        decls = own or self.decls.get(name, [])
        scope = list(walk(loop)) if own else self.nodes
        if len(decls) != 1 or decls[0].storage:
            return None
        if any(isinstance(n, c_ast.Decl) and n.name == name for n in walk(loop.stmt)):
            return None
        if any(isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID)
               and n.expr.name == name for n in scope):
            return None
        return _integer_names(decls[0])

    def dead_after(self, name: str, loop: c_ast.For) -> bool:
        """Whether ``name`` is named nowhere in the function outside ``loop``."""
        inside = {id(n) for n in walk(loop)}
        return not any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in inside
                       for n in self.nodes)


def _initial(loop: c_ast.For) -> list[tuple[str, c_ast.Node]] | None:
    """(variable, initial value) of each assignment or declaration of the loop's
    initialisation, in order; None for any other form."""
    init = loop.init
    items = init.exprs if isinstance(init, c_ast.ExprList) else \
        init.decls if isinstance(init, c_ast.DeclList) else [init] if init is not None else []
    found = []
    for item in items:
        if isinstance(item, c_ast.Assignment) and item.op == "=" \
                and isinstance(item.lvalue, c_ast.ID):
            found.append((item.lvalue.name, item.rvalue))
        elif isinstance(item, c_ast.Decl) and item.init is not None \
                and not isinstance(item.init, c_ast.InitList):
            found.append((item.name, item.init))
        else:
            return None
    return found


def _keep_only(loop: c_ast.For, name: str) -> c_ast.Node:
    """The loop's initialisation reduced to the one of ``name``."""
    init = loop.init
    if isinstance(init, c_ast.DeclList):
        return c_ast.DeclList([d for d in init.decls if d.name == name], init.coord)
    return next(e for e in init.exprs if e.lvalue.name == name)


def _companions(loop: c_ast.For, function: _Function) -> c_ast.For | None:
    """The loop counted by its first unit-step variable alone (see the module)."""
    initial = _initial(loop)
    if not initial or len(initial) < 2 or not isinstance(loop.next, c_ast.ExprList):
        return None
    steps = [increment(e) for e in loop.next.exprs]
    if any(s is None for s in steps):
        return None
    step = dict(s for s in steps if s is not None)
    start = dict(initial)
    if len(step) != len(steps) or set(step) != set(start) or len(start) != len(initial):
        return None
    counter = next((n for n, _ in initial if abs(step[n]) == 1), None)
    if counter is None or loop.cond is None:
        return None
    body_written = written_names([loop.stmt, loop.cond])
    types: dict[str, str] = {}
    for name, value in initial:
        if name in body_written or not _pure(value) or _names(value) & (set(start) | body_written):
            return None
        words = function.integer(name, loop)
        if words is None:
            return None
        types[name] = " ".join(words)
        if name != counter and not (isinstance(loop.init, c_ast.DeclList)
                                    or function.dead_after(name, loop)):
            return None
    values: dict[str, c_ast.Node] = {}
    # the steps taken times the counter's step, exact in long long whatever the
    # counter's type (an unsigned counter's i - a wraps where it counts down)
    distance = c_ast.BinaryOp("-", cast_to("long long", c_ast.ID(counter)),
                              cast_to("long long", copy.deepcopy(start[counter])))
    for name, value in initial:
        if name == counter:
            continue
        factor = c_ast.Constant("int", str(step[name] * step[counter]))
        term = c_ast.BinaryOp("*", factor, copy.deepcopy(distance))
        if "unsigned" in types[name]:   # modular: each part converted, the sum wraps as j's steps
            first = cast_to(types[name], copy.deepcopy(value))
            term = cast_to(types[name], term)
        else:                           # exact in long long, where j's values are in range
            first = cast_to("long long", copy.deepcopy(value))
        values[name] = cast_to(types[name], c_ast.BinaryOp("+", first, term))
    next_step = next(e for e, s in zip(loop.next.exprs, steps) if s and s[0] == counter)
    return c_ast.For(_keep_only(loop, counter), _substitute(loop.cond, values),
                     copy.deepcopy(next_step), _substitute(loop.stmt, values), loop.coord)


def _decremented(cond: c_ast.Node | None) -> tuple[str, c_ast.Node | None] | None:
    """(variable, bound) of ``i-- > l`` or ``l < i--``; (variable, None) of ``i--``."""
    def post(node: c_ast.Node) -> str | None:
        return node.expr.name if isinstance(node, c_ast.UnaryOp) and node.op == "p--" \
            and isinstance(node.expr, c_ast.ID) else None
    if cond is None:
        return None
    if post(cond):
        return post(cond), None
    if isinstance(cond, c_ast.BinaryOp) and cond.op == ">" and post(cond.left):
        return post(cond.left), cond.right
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and post(cond.right):
        return post(cond.right), cond.left
    return None


def _post_decrement(loop: c_ast.For, function: _Function) -> c_ast.For | None:
    """``for (i = e; i-- > l;) S`` as ``for (i = e; i > l; i--) S[i := (T) (i - 1)]``."""
    test = _decremented(loop.cond)
    initial = _initial(loop)
    if test is None or loop.next is not None or not initial or len(initial) != 1:
        return None
    name, bound = test
    words = function.integer(name, loop)
    if initial[0][0] != name or words is None:
        return None
    if bound is None:
        if "unsigned" not in words:
            return None
        bound = c_ast.Constant("int", "0")
    written = written_names([loop.stmt])
    if name in written or not _pure(bound) or _names(bound) & (written | {name}):
        return None
    if not (isinstance(loop.init, c_ast.DeclList) or function.dead_after(name, loop)):
        return None
    value = cast_to(" ".join(words),
                    c_ast.BinaryOp("-", c_ast.ID(name), c_ast.Constant("int", "1")))
    return c_ast.For(copy.deepcopy(loop.init),
                     c_ast.BinaryOp(">", c_ast.ID(name, loop.cond.coord), copy.deepcopy(bound)),
                     c_ast.UnaryOp("p--", c_ast.ID(name)),
                     _substitute(loop.stmt, {name: value}), loop.coord)


class _Rewriting(c_ast.NodeVisitor):
    """Replaces, in place, every loop of one function that a rewrite applies to."""

    def __init__(self, function: _Function):
        self.function = function
        self.changed = False

    def generic_visit(self, node: c_ast.Node) -> None:
        for name, child in node.children():
            self.visit(child)
            if isinstance(child, c_ast.For):
                rewritten = _companions(child, self.function) \
                    or _post_decrement(child, self.function)
                if rewritten is not None:
                    replace_child(node, name, rewritten)
                    self.changed = True


def count_loops(ast: c_ast.FileAST) -> c_ast.FileAST:
    """``ast`` with its companion counters and post-decrement tests rewritten
    (function definitions copied where one changes), or ``ast`` itself."""
    def rewrite(func: c_ast.FuncDef) -> bool:
        rewriting = _Rewriting(_Function(func))
        rewriting.visit(func)
        return rewriting.changed
    return rewrite_functions(ast, lambda f: any(
        isinstance(n, c_ast.For) and (isinstance(n.next, c_ast.ExprList) or n.next is None)
        for n in walk(f.body)), rewrite)
