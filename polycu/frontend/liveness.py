"""What the code around a SCoP does with its variables: checks and dead scalars.

In:  a ``Region`` (its items and the function around it) and the symbol table.
Out: ``iterators_read_after`` gives the loop counters declared outside the region
that code after it reads (final_values.py computes their values); ``check_scopes``
raises a located error for a SCoP the model would get wrong; ``dead_after`` gives
the function's scalars whose value nothing reads once the region has run.

The generated code replaces the region only: whatever the rest of the function
expects of the region's variables afterwards must still hold.  A loop counter
declared outside the region and read after it must leave it with its final value,
which the generated loops do not compute (a statement of the model assigns it); the
model has one array per name, so one name for two variables is rejected; and a
scalar that is dead
afterwards may be privatised (``deps.py`` uses ``Array.dead``).
"""
from __future__ import annotations

from pycparser import c_ast

from ..diagnostics import Location, error
from .regions import Region
from .symbols import Symbol
from .syntax import c_text, walk


class _AroundRegion(c_ast.NodeVisitor):
    """Visits a function body in text order, counting the loops around each node
    (``loops``); an item of the region is handed to ``region_item`` instead."""

    def __init__(self, region: Region) -> None:
        self.inside = {id(item) for item in region.items}
        self.loops = 0

    def visit(self, node: c_ast.Node) -> None:
        if id(node) in self.inside:
            self.region_item(node)
            return
        loop = isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
        self.loops += loop
        super().visit(node)
        self.loops -= loop

    def region_item(self, node: c_ast.Node) -> None:
        raise NotImplementedError


# A loop counter i declared outside R ends R with the value that stopped its last
# loop, which the SCoP must then compute.  i is read after R iff, in text order from
# R's end (from F's start when R may run again), the first reference to i is not an
# assignment 'i = e' with e not reading i.  A global i outlives F: any code may read it.
def iterators_read_after(region: Region, source: str, outliving: set[str]
                         ) -> dict[str, Location]:
    """The loop counters (declared outside the SCoP) that code after it may read,
    each with the location of its first such read (final_values.py computes them);
    those in ``outliving`` (globals) at their first loop."""
    loops = [node for item in region.items for node in walk(item)
             if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.Assignment)]
    counters = {_loop_counter(node) for node in loops}
    counters.discard(None)
    read: dict[str, Location] = {}
    for node in loops:
        if _loop_counter(node) in outliving:
            read.setdefault(node.init.lvalue.name, Location.from_coord(node.coord, source))
    if region.function_ast is None or not counters:
        return read
    state = {"after": False, "again": False}
    settled: set[str] = set()

    class Visitor(_AroundRegion):
        def region_item(self, node: c_ast.Node) -> None:
            state["after"] = True
            state["again"] = state["again"] or self.loops > 0

        def visit_Goto(self, node: c_ast.Goto) -> None:
            state["again"] = True

        def visit_Assignment(self, node: c_ast.Assignment) -> None:
            self.visit(node.rvalue)
            target = node.lvalue
            if isinstance(target, c_ast.ID) and node.op == "=":
                if state["after"] or state["again"]:
                    settled.add(target.name)
            else:
                self.visit(target)

        def visit_ID(self, node: c_ast.ID) -> None:
            if node.name in counters and node.name not in settled \
                    and (state["after"] or state["again"]):
                read.setdefault(node.name, Location.from_coord(node.coord, source))

    visitor = Visitor(region)
    visitor.visit(region.function_ast.body)
    if state["again"]:  # R runs again: the code before it follows it too
        state["after"] = False
        visitor.visit(region.function_ast.body)
    return read


# The model has one array per name: a name declared inside R must mean one variable.
# A reference to x resolves to the innermost enclosing declaration inside R, else to
# the variable outside R; x is ambiguous if both kinds of reference occur, or if R
# declares x twice with different types.
def check_scopes(region: Region, source: str) -> None:
    """Reject a SCoP in which one name stands for two variables."""
    declared: dict[str, c_ast.Decl] = {}
    outer: dict[str, c_ast.Node] = {}
    inner: set[str] = set()

    def visit(node: c_ast.Node, scopes: list[set[str]]) -> None:
        if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList):
            scopes = scopes + [set()]  # a counter's type is its loop's (not an array)
            for decl in node.init.decls:
                if decl.init is not None:
                    visit(decl.init, scopes)
                scopes[-1].add(decl.name)
            for part in (node.cond, node.next, node.stmt):
                if part is not None:
                    visit(part, scopes)
            return
        if isinstance(node, (c_ast.Compound, c_ast.For)):
            scopes = scopes + [set()]
        if isinstance(node, c_ast.Decl) and node.name is not None:
            if node.init is not None:
                visit(node.init, scopes)
            first = declared.setdefault(node.name, node)
            if c_text(first.type) != c_text(node.type):
                raise error(f"'{node.name}' is declared twice in the SCoP with different types; "
                            "rename one", Location.from_coord(node.coord, source))
            scopes[-1].add(node.name)
            return
        if isinstance(node, c_ast.ID):
            if any(node.name in scope for scope in scopes):
                inner.add(node.name)
            else:
                outer.setdefault(node.name, node)
        if isinstance(node, c_ast.FuncCall):
            if node.args is not None:
                visit(node.args, scopes)
            return
        if isinstance(node, c_ast.StructRef):   # Z[i].im: a member's name is no variable
            visit(node.name, scopes)
            return
        for _, child in node.children():
            visit(child, scopes)

    top: list[set[str]] = [set()]
    for item in region.items:
        visit(item, top)
    counters = {_loop_counter(node) for item in region.items for node in walk(item)}
    for name in sorted((set(outer) & set(declared)) - counters):
        raise error(f"'{name}' names a variable declared outside the SCoP and one declared "
                    "inside it; rename one", Location.from_coord(outer[name].coord, source))


def _loop_counter(node: c_ast.Node) -> str | None:
    """The counter a ``for`` initialises (loop counters are not arrays of the model)."""
    if not isinstance(node, c_ast.For):
        return None
    init = node.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None


# X is dead after the region R of function F iff X is declared exactly once in F's
# body (automatic storage, a plain scalar: not a parameter, global, pointer or array),
# &X never occurs in F, and no reference to X can execute after R: none follows R in
# F's text, and none lies outside R at all when R may run again (R inside a loop, or
# F containing a goto).
def dead_after(region: Region, symbols: dict[str, Symbol], global_names: set[str]
               ) -> frozenset[str]:
    """Scalars of the function whose value no code can read once the region has run."""
    if region.function_ast is None:
        return frozenset()
    declared: dict[str, int] = {}
    excluded: set[str] = set(global_names)
    params = region.function_ast.decl.type.args
    for param in (params.params if params is not None else []):
        excluded.add(getattr(param, "name", None) or "")
    outside_before: set[str] = set()
    outside_after: set[str] = set()
    state = {"after": False, "loop": False, "goto": False}

    class Visitor(_AroundRegion):
        in_region = False

        def region_item(self, node: c_ast.Node) -> None:
            state["loop"] = state["loop"] or self.loops > 0
            self.in_region = True
            c_ast.NodeVisitor.visit(self, node)
            self.in_region = False
            state["after"] = True

        def visit_Decl(self, node: c_ast.Decl) -> None:
            if node.name is not None:
                declared[node.name] = declared.get(node.name, 0) + 1
                if set(node.storage) & {"static", "extern"} or "volatile" in node.quals:
                    excluded.add(node.name)
            self.generic_visit(node)

        def visit_Goto(self, node: c_ast.Goto) -> None:
            state["goto"] = True

        def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
            if node.op == "&" and isinstance(node.expr, c_ast.ID):
                excluded.add(node.expr.name)
            self.generic_visit(node)

        def visit_ID(self, node: c_ast.ID) -> None:
            if not self.in_region:
                (outside_after if state["after"] else outside_before).add(node.name)

    Visitor(region).visit(region.function_ast.body)
    referenced = outside_after | (outside_before if state["loop"] or state["goto"] else set())
    return frozenset(name for name, count in declared.items()
                     if count == 1 and name not in excluded and name not in referenced
                     and name in symbols and not symbols[name].extents
                     and not symbols[name].pointer)
