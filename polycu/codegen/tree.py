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

An ordered tree (``gpu/ordered.py``) launches one more row of threads along y, the
adders' warp, whose thread for row i (its lane, or its x) runs P and reads W_r's
cell into p_r; then, ``chunk`` terms at a time (the block's longest row sets the
chunks, so every thread meets every barrier), each other thread computes its terms
k = klo + base + slice (+ slices, ...) into that chunk's slot of a shared buffer of
``SLOTS`` (the statement with the cell replaced by t, which starts at the identity:
t is e), ahead of the chunk the row's adder adds to p_r in k's order; one barrier a
chunk.  The adder stores p_r and runs Q.
"""
from __future__ import annotations

import islpy as isl

from ..frontend.ctype import parse_type
from ..gpu.kernel import GpuProgram, Kernel
from ..gpu.ordered import SLOTS, buffer, chunk, launched, row_stride, slot_cells
from ..gpu.tree import Part, Tree
from ..memory import Placement
from ..model import Statement
from .ast import Expr, expr_of
from .cuda import INDENT, Layout, c_expr, index_type, reference_text, statement_text
from .tensor import bounds, condition, extreme, local_names

_LOCALS = ("slice", "row", "at", "i", "k", "klo", "khi", "p", "sum", "t", "n", "q", "base",
           "u", "terms", "adder", "owner")


def tree_launch(program: GpuProgram, kernel: Kernel, found: Tree
                ) -> tuple[tuple[Expr, Expr, Expr], tuple[int, int, int]]:
    """The grid (blocks along x, y, z, over the parameters and host values) and the
    block of ``found``'s kernel."""
    context = kernel.host_context(program.scop.context)
    span = found.upper.sub(found.lower).scale_down_val(isl.Val(found.rows)).floor() \
        .add_constant_val(isl.Val(1))
    one = Expr.int_(1)
    return (expr_of(span, context), one, one), (*launched(found), 1)


def launch_bounds(found: Tree) -> str:
    """``__launch_bounds__(threads)`` of the block."""
    threads = launched(found)
    return f"__launch_bounds__({threads[0] * threads[1]})"


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
    rows, size = found.rows, chunk(found)
    slice_axis, row_axis = ("x", "y") if found.lanes_on_k else ("y", "x")
    lower = c_expr(expr_of(found.lower, context), wide=itype != "int")

    def cell_at(q: str) -> str:         # a warp's lanes on consecutive cells
        return f"{v['row']} * {row_stride(found)} + {q}" if found.lanes_on_k else \
            f"({q}) * {rows} + {v['row']}"

    lines = [f"{I}POLYCU_SHARED({itype}, {v['terms']}{r}, {rows});"
             for r in range(len(found.sums))]
    # the adders' warp: the last row of threads along y; lane r adds row r where the
    # lanes run along k, the row of the thread's x where they run along i
    row = f"({v['adder']} ? threadIdx.x : threadIdx.y)" if found.lanes_on_k \
        else f"threadIdx.{row_axis}"
    lines += [
        f"{I}const bool {v['adder']} = threadIdx.y == {found.block[1]};",
        f"{I}const int {v['slice']} = threadIdx.{slice_axis}, {v['row']} = {row};",
        f"{I}const bool {v['owner']} = {v['adder']} && {v['row']} < {rows};",
        f"{I}const {itype} {v['i']} = ({lower}) + {rows} * ({itype})blockIdx.x + {v['row']};",
        f"{I}if ({v['owner']}) {{"]
    for part in found.before:
        lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
    lines.append(f"{I}}}")
    for r, part in enumerate(found.sums):
        stmt = statements[part.name]
        element = scop.array(stmt.reduction_array).element_type
        identity = "-0.0" if parse_type(element).floating else "0"
        lowers, uppers, conditions = bounds(part.domain, (v["i"], v["k"]), 1)
        in_rows = " && ".join(conditions) if conditions else "1"
        klo, khi, p, n, terms = (f"{v[name]}{r}" for name in ("klo", "khi", "p", "n", "terms"))
        term = statement_text(stmt, _args(stmt, part, v["i"], v["k"], context), arrays,
                              scop=scop, promoted={id(a.node): v["t"] for a in stmt.accesses
                                                   if a.array == stmt.reduction_array})
        (write,) = stmt.writes
        cell = reference_text(stmt, _args(stmt, part, v["i"], klo, context), write.node,
                              arrays, scop)
        has = f"{in_rows} && {klo} <= {khi}"
        cells = slot_cells(found)

        def slot(base: str, q: str) -> str:
            """Term q of the chunk at ``base``, in that chunk's slot of the buffer."""
            return f"{v['sum']}{r}[({base} / {size} % {SLOTS}) * {cells} + {cell_at(q)}]"

        def loads(base: str, depth: int) -> list[str]:
            """Each thread's terms of the chunk at ``base`` into its half of the buffer."""
            J = I * depth
            return [
                f"{J}#pragma unroll",
                f"{J}for (int {v['u']} = {v['slice']}; {v['u']} < {size}; {v['u']} += "
                f"{found.slices}) {{",
                f"{J}{I}const {itype} {v['k']} = {klo} + {base} + {v['u']};",
                f"{J}{I}{element} {v['t']} = ({element}){identity};",
                f"{J}{I}if ({in_rows} && {v['k']} <= {khi})",
                f"{J}{I * 2}{term}",
                f"{J}{I}{slot(base, v['u'])} = {v['t']};",
                f"{J}}}"]
        lines += [
            f"{I}POLYCU_SHARED({element}, {v['sum']}{r}, {buffer(found)});",
            f"{I}const {itype} {klo} = {extreme(lowers, '>')}, {khi} = "
            f"{extreme(uppers, '<')};",
            f"{I}{element} {p} = ({element}){identity};",
            f"{I}if ({v['owner']}) {{",
            f"{I * 2}{terms}[{v['row']}] = ({has}) ? {khi} - {klo} + 1 : 0;",
            f"{I * 2}if ({has})",
            f"{I * 3}{p} = {cell};",
            f"{I}}}",
            f"{I}__syncthreads();",
            f"{I}{itype} {n} = 0;",
            f"{I}for (int {v['q']} = 0; {v['q']} < {rows}; {v['q']}++)",
            f"{I * 2}{n} = {terms}[{v['q']}] > {n} ? {terms}[{v['q']}] : {n};",
            *[line for ahead in range(SLOTS - 1) for line in (
                f"{I}if (!{v['adder']} && {ahead * size} < {n}) {{",
                *loads(str(ahead * size), 2),
                f"{I}}}")],
            f"{I}__syncthreads();",
            # the loads of the next chunks in flight while the adders add this one's
            # terms (their slot held a chunk whose additions a barrier ended)
            f"{I}for ({itype} {v['base']} = 0; {v['base']} < {n}; {v['base']} += {size}) {{",
            f"{I * 2}if (!{v['adder']} && {v['base']} + {(SLOTS - 1) * size} < {n}) {{",
            *loads(f"({v['base']} + {(SLOTS - 1) * size})", 3),
            f"{I * 2}}}",
            f"{I * 2}if ({v['owner']} && {has}) {{",
            f"{I * 3}if ({v['base']} + {size} <= {khi} - {klo} + 1) {{",
            f"{I * 4}#pragma unroll",
            f"{I * 4}for (int {v['q']} = 0; {v['q']} < {size}; {v['q']}++)",
            f"{I * 5}{p} = {p} + {slot(v['base'], v['q'])};",
            f"{I * 3}}} else {{",
            f"{I * 4}for (int {v['q']} = 0; {v['base']} + {v['q']} <= {khi} - {klo}; "
            f"{v['q']}++)",
            f"{I * 5}{p} = {p} + {slot(v['base'], v['q'])};",
            f"{I * 3}}}",
            f"{I * 2}}}",
            f"{I * 2}__syncthreads();",
            f"{I}}}",
            f"{I}if ({v['owner']} && {has})",
            f"{I * 2}{cell} = {p};"]
    if found.after:
        lines.append(f"{I}if ({v['owner']}) {{")
        for part in found.after:
            lines += _guarded(statements[part.name], part, v["i"], context, arrays, program)
        lines.append(f"{I}}}")
    return lines


def _guarded(stmt: Statement, part: Part, i: str, context: isl.Set,
             arrays: dict[str, Layout], program: GpuProgram) -> list[str]:
    """P or Q at row i, under its domain's condition on i."""
    text = statement_text(stmt, _args(stmt, part, i, None, context), arrays,
                          scop=program.scop)
    return [f"{INDENT * 2}if ({condition(part.domain, [i])})", f"{INDENT * 3}{text}"]
