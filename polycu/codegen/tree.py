"""Tree-reduction kernels: a ``Tree`` (``gpu/tree.py``) summed by many threads a row.

In:  a ``Placement``, one of its kernels that is a tree reduction, the arrays' layouts.
Out: the kernel's C text (the name and parameters ``kernel.py`` gives it) and its
     launch: ``rows`` rows a block along x, ``ceil((hi - lo + 1) / rows)`` blocks.

Thread (slice, row) of block b takes row i = lo + rows * b + row.  For each sum r it
adds the terms k = lo_r(i) + slice, + 2 slice, ... (C's statement with W_r's cell
replaced by the thread's partial sum p_r, which starts at the identity -0.0, or 0
for integers), stores p_r in shared memory, and the block adds the partial sums of
a row pairwise, slices / 2 apart, then / 4 apart, ..., with a barrier after each
step.  The row's slice 0 then runs P, adds the total to W_r where row i has terms,
and runs Q, every statement guarded by its domain.

An ordered tree (``gpu/ordered.py``) launches one more row of threads along y for
each sum r, its adders, whose thread for row i (its lane, or its x) reads W_r's cell
into p_r (the first sum's runs P before, and Q after a barrier that follows every
sum's last store); then, ``chunk`` terms at a time of every sum between the same
two barriers (the block's longest row sets the chunks, so every thread meets every
barrier), each loading thread computes its terms k = klo + base + slice (+ slices,
...) into that chunk's slot of a shared buffer of ``SLOTS`` (the statement with the
cell replaced by t, which starts at the identity: t is e), ahead of the chunk the
row's adder adds to p_r in k's order.  A loading thread computes a chunk's terms
from operands (``_operands``) it loaded into registers a chunk before, then issues
the loads of the chunk after, so they are in flight across the barrier.  Each adder
stores its p_r.
"""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from ..frontend.conditions import BLOCKS
from ..frontend.ctype import parse_type
from ..frontend.syntax import walk
from ..gpu.kernel import GpuProgram, Kernel
from ..gpu.ordered import SLOTS, buffer, chunk, launched, per_thread, row_stride, slot_cells
from ..gpu.tree import Part, Tree
from ..memory import Placement
from ..model import Access, Scop, Statement
from .ast import expr_of
from .nodes import Expr
from .cuda import INDENT, Layout, c_expr, index_type, reference_text, statement_text
from .constraints import bounds, condition, extreme
from .tensor import local_names

_LOCALS = ("slice", "row", "at", "i", "k", "klo", "khi", "p", "sum", "t", "n", "q", "base", "ld",
           "u", "terms", "adder")


def tree_launch(program: GpuProgram, kernel: Kernel, found: Tree
                ) -> tuple[tuple[Expr, Expr, Expr], tuple[int, int, int]]:
    """The grid (blocks along x, y, z, over the parameters and host values) and the
    block of ``found``'s kernel."""
    context = kernel.host_context(program.scop.context)
    span = found.upper.sub(found.lower).scale_down_val(isl.Val(found.rows)).floor() \
        .add_constant_val(isl.Val(1))
    one = Expr.int_(1)
    return (expr_of(span, context), one, one), (*launched(found), 1)


# An ordered tree's adders load a chunk's terms from shared memory ahead of their
# chain of additions, which takes registers: aiming at three blocks an SM, ptxas gave
# atax's column sums 32 and the adders waited for each load (one H200, LARGE: 25.1-26.3
# us; with a minimum of one block an SM, 42 registers and 19.8-20.1 us).
def launch_bounds(found: Tree) -> str:
    """``__launch_bounds__`` of the block: its threads, and for an ordered tree a
    minimum of one block an SM."""
    threads = launched(found)
    return f"__launch_bounds__({threads[0] * threads[1]}{', 1' if found.ordered else ''})"


def _args(stmt: Statement, part: Part, i: str, k: str | None, context: isl.Set
          ) -> tuple[Expr, ...]:
    """The instance's iterators: i, k (a sum's), and the values the launch fixes."""
    names = {part.row: i} if k is None else {part.row: i, part.term: k}
    return tuple(Expr.id_(names[d]) if d in names else expr_of(part.fixed[d], context)
                 for d in range(len(stmt.iterators)))


def tree_kernel_body(placement: Placement, arrays: dict[str, Layout], found: Tree
                     ) -> list[str]:
    """The declarations and statements of the body of ``found``'s kernel (see the
    module doc)."""
    if found.ordered:
        return _ordered_body(placement, arrays, found)
    program = placement.program
    scop = program.scop
    (kernel,) = [k for k in program.kernels if k.name == found.kernel]
    context = kernel.host_context(scop.context)
    itype = index_type(scop)
    wide = itype != "int"
    v = local_names(program, _LOCALS)
    statements = {s.name: s for s in scop.statements}
    I = INDENT  # noqa: E741
    bx, by = found.block
    slice_axis, row_axis = ("x", "y") if found.lanes_on_k else ("y", "x")
    stride = 1 if found.lanes_on_k else bx
    lower = c_expr(expr_of(found.lower, context), wide=wide)
    elements = [scop.array(statements[p.name].reduction_array).element_type
                for p in found.sums]
    lines = [f"{I}POLYCU_SHARED({element}, {v['sum']}{r}, {bx * by});"
             for r, element in enumerate(elements)]
    lines += [
        f"{I}const int {v['slice']} = threadIdx.{slice_axis}, {v['row']} = "
        f"threadIdx.{row_axis};",
        f"{I}const int {v['at']} = threadIdx.y * {bx} + threadIdx.x;",
        f"{I}const {itype} {v['i']} = ({lower}) + {found.rows} * ({itype})blockIdx.x + "
        f"{v['row']};"]
    has_terms = []
    for r, part in enumerate(found.sums):
        stmt = statements[part.name]
        element = elements[r]
        identity = "-0.0" if parse_type(element).floating else "0"
        texts = (v["i"], v["k"])
        lowers, uppers, rows = bounds(part.domain, texts, 1)
        klo, khi = f"{v['klo']}{r}", f"{v['khi']}{r}"
        own = {id(a.node): f"{v['p']}{r}" for a in stmt.accesses
               if a.array == stmt.reduction_array}
        term = statement_text(stmt, _args(stmt, part, v["i"], v["k"], context), arrays,
                              scop=scop, promoted=own)
        in_rows = " && ".join(rows) if rows else "1"
        has_terms.append(f"{in_rows} && {klo} <= {khi}")
        lines += [
            f"{I}{element} {v['p']}{r} = ({element}){identity};",
            f"{I}const {itype} {klo} = {extreme(lowers, '>')}, {khi} = "
            f"{extreme(uppers, '<')};",
            f"{I}if ({in_rows}) {{",
            f"{I * 2}#pragma unroll 4",
            f"{I * 2}for ({itype} {v['k']} = {klo} + {v['slice']}; {v['k']} <= {khi}; "
            f"{v['k']} += {found.slices})",
            f"{I * 3}{term}",
            f"{I}}}",
            f"{I}{v['sum']}{r}[{v['at']}] = {v['p']}{r};"]
    lines.append(f"{I}__syncthreads();")
    half = found.slices // 2
    while half:
        lines.append(f"{I}if ({v['slice']} < {half}) {{")
        for r, element in enumerate(elements):
            cell = f"{v['sum']}{r}[{v['at']}]"
            lines.append(f"{I * 2}{cell} = ({element}){cell} + ({element}){v['sum']}{r}"
                         f"[{v['at']} + {half * stride}];")
        lines += [f"{I}}}", f"{I}__syncthreads();"]
        half //= 2
    lines.append(f"{I}if ({v['slice']} == 0) {{")
    for part in found.before:
        lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
    for r, part in enumerate(found.sums):
        stmt = statements[part.name]
        element = elements[r]
        (write,) = stmt.writes
        cell = reference_text(stmt, _args(stmt, part, v["i"], f"{v['klo']}{r}", context),
                              write.node, arrays, scop)
        lines += [f"{I * 2}if ({has_terms[r]})",
                  f"{I * 3}{cell} = {cell} + ({element}){v['sum']}{r}[{v['at']}];"]
    for part in found.after:
        lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
    lines.append(f"{I}}}")
    return lines


def _ordered_body(placement: Placement, arrays: dict[str, Layout], found: Tree
                  ) -> list[str]:
    """The body of an ordered tree's kernel (see the module doc)."""
    program = placement.program
    scop = program.scop
    (kernel,) = [k for k in program.kernels if k.name == found.kernel]
    context = kernel.host_context(scop.context)
    itype = index_type(scop)
    v = local_names(program, _LOCALS)
    statements = {s.name: s for s in scop.statements}
    I = INDENT  # noqa: E741
    rows, loaders = found.rows, found.block[1]
    slice_axis, row_axis = ("x", "y") if found.lanes_on_k else ("y", "x")
    lower = c_expr(expr_of(found.lower, context), wide=itype != "int")
    # the adders: a row of threads along y for each sum after the loading ones; lane
    # r adds row r where the lanes run along k, the row of the thread's x where they
    # run along i
    row = f"({v['adder']} ? threadIdx.x : threadIdx.y)" if found.lanes_on_k \
        else f"threadIdx.{row_axis}"
    sums = [_OrderedSum(found, r, statements[part.name], part, arrays, scop, context, v)
            for r, part in enumerate(found.sums)]
    lines = [
        *(f"{I}POLYCU_SHARED({itype}, {v['terms']}{r}, {rows});" for r in range(len(sums))),
        f"{I}const bool {v['adder']} = threadIdx.y >= {loaders};",
        f"{I}const int {v['slice']} = threadIdx.{slice_axis}, {v['row']} = {row};",
        f"{I}const {itype} {v['i']} = ({lower}) + {rows} * ({itype})blockIdx.x + {v['row']};",
        f"{I}if ({_owner(v, loaders, rows, 0)}) {{"]
    for part in found.before:
        lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
    lines.append(f"{I}}}")
    if len(sums) > 1:       # P's writes seen by the other sums' adders
        lines.append(f"{I}__syncthreads();")
    for r, one in enumerate(sums):
        lines += one.declared(I, _owner(v, loaders, rows, r))
    lines.append(f"{I}__syncthreads();")
    n = v["n"]
    lines += [f"{I}{itype} {n} = 0;"]
    for one in sums:
        lines += one.counted(I, n)
    for one in sums:
        lines += one.prologue(I)
    # each chunk: the loading threads store the next chunk's terms from the operands
    # they loaded a chunk before and load those of the chunk after it, in flight
    # across the barrier, while the adders add this chunk's terms (its slot's
    # additions ended at the last barrier); every sum's chunk between the same two
    # barriers
    lines += [f"{I}__syncthreads();",
              f"{I}for ({itype} {v['base']} = 0; {v['base']} < {n}; {v['base']} += "
              f"{chunk(found)}) {{"]
    for r, one in enumerate(sums):
        lines += one.step(I * 2, _owner(v, loaders, rows, r))
    lines += [f"{I * 2}__syncthreads();", f"{I}}}"]
    for r, one in enumerate(sums):
        lines += one.finished(I, _owner(v, loaders, rows, r))
    if found.after:
        if len(sums) > 1:   # every sum's cell stored before Q reads it
            lines.append(f"{I}__syncthreads();")
        lines.append(f"{I}if ({_owner(v, loaders, rows, 0)}) {{")
        for part in found.after:
            lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
        lines.append(f"{I}}}")
    return lines


def _owner(v: dict[str, str], loaders: int, rows: int, r: int) -> str:
    """Whether the thread adds a row of sum r (the first sum's adders run P and Q)."""
    return f"(threadIdx.y == {loaders + r} && {v['row']} < {rows})"


class _OrderedSum:
    """The lines of one sum r of an ordered tree, as ``_ordered_body`` interleaves
    them with the other sums'."""

    def __init__(self, found: Tree, r: int, stmt: Statement, part: Part,
                 arrays: dict[str, Layout], scop: Scop, context: isl.Set,
                 v: dict[str, str]):
        self.found, self.r, self.v = found, r, v
        self.itype = index_type(scop)
        self.element = scop.array(stmt.reduction_array).element_type
        self.identity = "-0.0" if parse_type(self.element).floating else "0"
        lowers, uppers, conditions = bounds(part.domain, (v["i"], v["k"]), 1)
        self.lowest, self.highest = extreme(lowers, ">"), extreme(uppers, "<")
        self.in_rows = " && ".join(conditions) if conditions else "1"
        self.klo, self.khi, self.p, self.n, self.terms = (
            f"{v[name]}{r}" for name in ("klo", "khi", "p", "n", "terms"))
        (write,) = stmt.writes
        self.cell = reference_text(stmt, _args(stmt, part, v["i"], self.klo, context),
                                   write.node, arrays, scop)
        self.has = f"{self.in_rows} && {self.klo} <= {self.khi}"
        # the term's operands (its outermost reads: arrays the kernel does not write)
        # are loaded into registers a chunk before its terms are computed from them
        operands = _operands(stmt, arrays)
        self.held = [(f"{v['ld']}{r}_{j}", _type(arrays, a)) for j, a in enumerate(operands)]
        at_k = _args(stmt, part, v["i"], v["k"], context)
        self.loaded = [reference_text(stmt, at_k, a.node, arrays, scop) for a in operands]
        self.term = statement_text(stmt, at_k, arrays, scop=scop, promoted={
            **{id(a.node): v["t"] for a in stmt.accesses if a.array == stmt.reduction_array},
            **{id(a.node): f"{name}[{v['u']}]" for a, (name, _) in zip(operands, self.held)}})

    def slot(self, base: str, q: str) -> str:
        """Term q of the chunk at ``base``, in that chunk's slot of the buffer."""
        found, v = self.found, self.v
        at = f"{v['row']} * {row_stride(found)} + {q}" if found.lanes_on_k else \
            f"({q}) * {found.rows} + {v['row']}"     # a warp's lanes on consecutive cells
        return (f"{v['sum']}{self.r}[({base} / {chunk(found)} % {SLOTS}) * "
                f"{slot_cells(found)} + {at}]")

    def each(self, base: str, pad: str, body: list[str]) -> list[str]:
        """``body`` for each of the thread's terms u of the chunk at ``base``."""
        v = self.v
        return [f"{pad}#pragma unroll",
                f"{pad}for (int {v['u']} = 0; {v['u']} < {per_thread(self.found)}; "
                f"{v['u']}++) {{",
                f"{pad}{INDENT}const {self.itype} {v['k']} = {self.klo} + {base} + "
                f"{v['slice']} + {v['u']} * {self.found.slices};",
                *[f"{pad}{INDENT}{line}" for line in body],
                f"{pad}}}"]

    def load(self, base: str, pad: str) -> list[str]:
        """The operands of the thread's terms of the chunk at ``base``."""
        u, k = self.v["u"], self.v["k"]
        return self.each(base, pad, [
            f"{name}[{u}] = ({self.in_rows} && {k} <= {self.khi}) ? ({ctype})({text}) : "
            f"({ctype})0;" for (name, ctype), text in zip(self.held, self.loaded)])

    def store(self, base: str, pad: str) -> list[str]:
        """The thread's terms of the chunk at ``base`` into its slot of the buffer."""
        v = self.v
        at = f"{v['slice']} + {v['u']} * {self.found.slices}"
        return self.each(base, pad, [
            f"{self.element} {v['t']} = ({self.element}){self.identity};",
            f"if ({self.in_rows} && {v['k']} <= {self.khi})",
            f"{INDENT}{self.term}",
            f"{self.slot(base, at)} = {v['t']};"])

    def declared(self, pad: str, owner: str) -> list[str]:
        """The buffer, the row's bounds and sum, and (its adder) its terms and cell."""
        v, e = self.v, self.element
        return [f"{pad}POLYCU_SHARED({e}, {v['sum']}{self.r}, {buffer(self.found)});",
                f"{pad}const {self.itype} {self.klo} = {self.lowest}, {self.khi} = "
                f"{self.highest};",
                f"{pad}{e} {self.p} = ({e}){self.identity};",
                f"{pad}if ({owner}) {{",
                f"{pad}{INDENT}{self.terms}[{v['row']}] = ({self.has}) ? {self.khi} - "
                f"{self.klo} + 1 : 0;",
                f"{pad}{INDENT}if ({self.has})",
                f"{pad}{INDENT * 2}{self.p} = {self.cell};",
                f"{pad}}}"]

    def counted(self, pad: str, most: str) -> list[str]:
        """The block's longest row of this sum (``most``: of every sum) and the
        registers of its operands."""
        n, q = self.n, self.v["q"]
        return [f"{pad}{self.itype} {n} = 0;",
                f"{pad}for (int {q} = 0; {q} < {self.found.rows}; {q}++)",
                f"{pad}{INDENT}{n} = {self.terms}[{q}] > {n} ? {self.terms}[{q}] : {n};",
                f"{pad}{most} = {n} > {most} ? {n} : {most};",
                *(f"{pad}{ctype} {name}[{per_thread(self.found)}];"
                  for name, ctype in self.held)]

    def prologue(self, pad: str) -> list[str]:
        """The loading threads' first chunk, stored, and the second's operands."""
        size = chunk(self.found)
        return [f"{pad}if (!{self.v['adder']} && 0 < {self.n}) {{",
                *self.load("0", pad + INDENT), *self.store("0", pad + INDENT),
                f"{pad}{INDENT}if ({size} < {self.n}) {{",
                *self.load(str(size), pad + INDENT * 2),
                f"{pad}{INDENT}}}",
                f"{pad}}}"]

    def step(self, pad: str, owner: str) -> list[str]:
        """One chunk: the loading threads' next one, the adders' additions."""
        v, size, p = self.v, chunk(self.found), self.p
        base = v["base"]
        I = INDENT  # noqa: E741
        return [f"{pad}if (!{v['adder']} && {base} + {size} < {self.n}) {{",
                *self.store(f"({base} + {size})", pad + I),
                f"{pad}{I}if ({base} + {2 * size} < {self.n}) {{",
                *self.load(f"({base} + {2 * size})", pad + I * 2),
                f"{pad}{I}}}",
                f"{pad}}}",
                f"{pad}if ({owner} && {self.has}) {{",
                f"{pad}{I}if ({base} + {size} <= {self.khi} - {self.klo} + 1) {{",
                f"{pad}{I * 2}#pragma unroll",
                f"{pad}{I * 2}for (int {v['q']} = 0; {v['q']} < {size}; {v['q']}++)",
                f"{pad}{I * 3}{p} = {p} + {self.slot(base, v['q'])};",
                f"{pad}{I}}} else {{",
                f"{pad}{I * 2}for (int {v['q']} = 0; {base} + {v['q']} <= {self.khi} - "
                f"{self.klo}; {v['q']}++)",
                f"{pad}{I * 3}{p} = {p} + {self.slot(base, v['q'])};",
                f"{pad}{I}}}",
                f"{pad}}}"]

    def finished(self, pad: str, owner: str) -> list[str]:
        """The adder stores the row's sum in its cell."""
        return [f"{pad}if ({owner} && {self.has})", f"{pad}{INDENT}{self.cell} = {self.p};"]


def _guarded(stmt: Statement, part: Part, i: str, context: isl.Set,
             arrays: dict[str, Layout], program: GpuProgram) -> list[str]:
    """P or Q at row i, under its domain's condition on i."""
    text = statement_text(stmt, _args(stmt, part, i, None, context), arrays,
                          scop=program.scop)
    return [f"{INDENT * 2}if ({condition(part.domain, [i])})", f"{INDENT * 3}{text}"]


def _operands(stmt: Statement, arrays: dict[str, Layout]) -> list[Access]:
    """The reads of a sum's term that an ordered tree loads a chunk ahead: those of
    other arrays than the cell's (the term reads no array the kernel writes), not
    inside another such read's subscripts, not a scalar passed by value, and ones C
    evaluates once whenever the statement runs: none of a body with control flow
    (``frontend/conditions.py``: a read in a loop or on a local), none under ``?:``,
    ``&&`` or ``||`` (out of bounds, maybe, where C skips it)."""
    if isinstance(stmt.body, BLOCKS):
        return []
    reads = [a for a in stmt.reads if a.array != stmt.reduction_array
             and not arrays[a.array].by_value]
    skipped: list[c_ast.Node] = []
    for n in walk(stmt.body):
        if isinstance(n, c_ast.TernaryOp):
            skipped += [n.iftrue, n.iffalse]
        elif isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            skipped.append(n.right)
    inner = {id(n) for a in reads for _, child in a.node.children() for n in walk(child)} \
        | {id(n) for top in skipped for n in walk(top)}
    return [a for a in reads if id(a.node) not in inner]


def _type(arrays: dict[str, Layout], access: Access) -> str:
    """The C type of the value ``access`` reads: its array's element type."""
    return arrays[access.array].array.element_type
