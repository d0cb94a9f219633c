"""Tensor-core kernels: a ``Contraction`` (``memory/contraction.py``) on mma.f64.

In:  a ``Placement``, one of its kernels that is a contraction, the arrays' layouts.
Out: the kernel's C text, with the name and parameters ``kernel.py`` gives it, so the
     host code and the runtimes launch it unchanged (grid and block of the mapping).

Block (b_i, b_j) computes the cells [i0, i0 + BM) x [j0, j0 + BN) of the mapping's
tile, i0 = BM (b_i + floor(lo_i / BM)); its wr x wc warps own WM x WN = BM / wr x
BN / wc cells each, MT x NT fragments of 8 x 8.  K runs in strips of STRIP (the
contraction's ``strip``): the block copies X's BM x STRIP and Y's STRIP x BN elements
into shared tiles laid out as the arrays are (``contraction.tile_rows``), each thread
two neighbours of a row at once, in one 16-byte ``cp.async`` when their address is
16-byte aligned (checked at run time) and else in two; STAGES - 1 strips are in
flight, and an element outside D_W's rows or columns or outside K is a zero (such
rows and columns are never stored).  Each warp then runs the strip's mma steps of
four k each.  In mma.m8n8k4.f64 lane l = 4 g + t holds A[g][t] and B[t][g] and
accumulates D[g][2t] and D[g][2t + 1]; on sm_90, where a warp's fragment rows pair
up, one mma.m16n8k8 does the work of four of them on the same accumulators (``codegen/mma.py``).  The
accumulators start from zero; at the end each thread runs I's instance at its
cells of D_W and stores W[i][j] + s * acc there.

Where K depends on the row i (a triangular K), the block's strips run from the
least lower bound of k over its rows to the greatest upper bound (``block_bounds``),
X's elements outside K(i) are zeros, and a strip that K(i) holds for every row runs
as above.  A strip across the block's diagonal runs on mma too when every element of
Y's strip is finite (a block-wide vote, ``__syncthreads_or``): X's zeros then add
zeros.  Otherwise each cell adds its products of the k in K(i) one at a time, so
that no zero meets an infinity C never multiplies.

Before sm_80 (no DMMA, no cp.async) and in the CPU emulation the same code copies
with plain loads, and each thread starts from W[i][j] after I and adds its own cells'
products (s X) Y one k at a time, in C's order and rounding.  The emulation runs the
mma path too, warp by warp, when built with POLYCU_EMULATE_MMA (``codegen/mma.py``).
"""
from __future__ import annotations

import re
from typing import Callable

import islpy as isl

from ..gpu.kernel import GpuProgram
from ..memory import Placement
from ..memory.contraction import PAD, Contraction, Operand, tile_rows
from .nodes import Expr
from .constraints import block_bounds, bounds, condition, extreme
from .cuda import INDENT, Layout, expression_text, index_type, linearise, statement_text
from .grid import block_loops
from .mma import WIDE_STEP


_LOCALS = ("tid", "lane", "warp", "g", "t", "wi", "wj", "i0", "j0", "klo", "khi", "strips",
           "s", "kk", "m", "n", "e", "q", "r", "i", "j", "k", "ok", "ok1", "acc", "a", "b", "sx",
           "sy", "copy", "base", "buf", "bi", "bj", "flo", "fhi", "kq", "fin")


def local_names(program: GpuProgram, wanted: tuple[str, ...] = _LOCALS) -> dict[str, str]:
    """The kernel's local names ``wanted``, each made unlike every name of the SCoP."""
    scop = program.scop
    taken = set(scop.parameters) | {a.name for a in scop.arrays}
    for stmt in scop.statements:
        taken |= set(re.findall(r"[A-Za-z_]\w*", stmt.text))
    names = {}
    for local in wanted:
        name = local
        while name in taken:
            name += "_"
        names[local] = name
    return names


def _constant(value: isl.PwAff) -> int:
    """The value of a constant piecewise affine expression (contraction._members)."""
    return value.get_pieces()[0][1].get_constant_val().to_python()


def _cell(operand: Operand, layout: Layout, values: dict[str, str]) -> str:
    """The offset of X's or Y's element at (i, k) or (k, j) in its array."""
    return linearise([values[d] for d in operand.dims], layout.extents, layout.wide)


def tensor_kernel_body(placement: Placement, arrays: dict[str, Layout],
                       found: Contraction) -> list[str]:
    """The declarations and statements of the body of ``found``'s kernel (see the
    module doc)."""
    program = placement.program
    scop = program.scop
    itype = index_type(scop)
    v = local_names(program)
    statements = {s.name: s for s in scop.statements}
    update = statements[found.update]
    bm, bn = found.rows.tile, found.cols.tile
    wr, wc = found.warps
    wm, wn = bm // wr, bn // wc
    mt, nt = wm // 8, wn // 8
    threads = 32 * wr * wc
    stages, strip = found.stages, found.strip
    extent = {"i": bm, "j": bn, "k": strip}
    lo_i, lo_j = (_constant(m.tile_offset) for m in (found.rows, found.cols))
    triangular = found.triangular
    ends = (v["i0"], f"{v['i0']} + {bm - 1}")
    lowers, uppers = block_bounds(found.reduction, ends, True)
    k_conditions = [condition(isl.BasicSet.from_constraint(c), ["", ""])
                    for c in found.reduction.get_constraints()
                    if not any(c.get_coefficient_val(isl.dim_type.set, d).to_python()
                               for d in (0, 1))]
    cells = condition(found.cells, [v["i"], v["j"]])

    def rows(i: str) -> str:
        return condition(found.rows_set, [i])

    def cols(j: str) -> str:
        return condition(found.cols_set, [j])

    def in_k(i: str, k: str) -> str:    # k in K(i), where K depends on i
        return f"({rows(i)}) && ({condition(found.reduction, [i, k])})" if triangular \
            else rows(i)
    scale = f"({expression_text(update, found.scale, arrays, scop)}) * " \
        if found.scale is not None else ""
    w = arrays[found.output]
    x, y = found.left, found.right
    x_layout, y_layout = arrays[x.array], arrays[y.array]
    out = f"{found.output}[{linearise([v['i'], v['j']], w.extents, w.wide)}]"
    init = []
    if found.init is not None:
        first = statements[found.init]
        args = [Expr.id_("")] * 2
        for d, name in zip(found.init_positions, (v["i"], v["j"])):
            args[d] = Expr.id_(name)
        init = [statement_text(first, tuple(args), arrays, scop=scop)]
    k_ok = " && ".join(k_conditions + [f"{v['klo']} <= {v['khi']}"])
    I = INDENT  # noqa: E741
    unroll = "#pragma unroll"

    def copies(operand: Operand, layout: Layout, tile: str,
               guard: Callable[[str, str], str]) -> list[str]:
        # consecutive threads copy consecutive pairs of the array's last subscript,
        # which runs along the tile's rows
        first, last = operand.dims
        var = "i" if "i" in operand.dims else "j"
        span = extent[last] // 2
        local = {last: f"2 * ({v['q']} % {span})", first: f"{v['q']} / {span}"}
        rows_, length = tile_rows(operand, extent)
        at = f"({local[first]}) * {length} + {local[last]}"
        start = v["i0"] if var == "i" else v["j0"]
        count = rows_ * span
        body = [f"{I * 4}const int {v['q']} = {v['tid']} + {v['r']} * {threads};"]
        if count % threads:
            body.append(f"{I * 4}if ({v['q']} >= {count}) break;")
        # the pair's second element is one further along ``last``
        k_next, var_next = f"({v['k']} + 1)", f"({v[var]} + 1)"
        second = f"({guard(v[var], k_next)}) && {k_next} <= {v['khi']}" if last == "k" \
            else f"({guard(var_next, v['k'])}) && {v['k']} <= {v['khi']}"
        source = f"{operand.array} + (({v['ok']} || {v['ok1']}) ? {_cell(operand, layout, v)} : 0)"
        body += [f"{I * 4}const {itype} {v[var]} = {start} + {local[var]}, "
                 f"{v['k']} = {v['base']} + {local['k']};",
                 f"{I * 4}const bool {v['ok']} = ({guard(v[var], v['k'])}) && {v['k']} <= "
                 f"{v['khi']};",
                 f"{I * 4}const bool {v['ok1']} = {second};",
                 f"{I * 4}POLYCU_CP16({tile}, {v['buf']} * {rows_ * length} + {at}, {source}, "
                 f"{v['ok']}, {v['ok1']});"]
        return [f"{I * 3}{unroll}",
                f"{I * 3}for (int {v['r']} = 0; {v['r']} < {-(-count // threads)}; "
                f"{v['r']}++) {{", *body, f"{I * 3}}}"]

    # the block's tile: blockIdx, or the loop over the blocks of a looped axis
    names = {found.rows.axis: v["bi"], found.cols.axis: v["bj"]}
    kernel = next(k for k in program.kernels if k.name == found.kernel)
    looped = kernel.looped(scop)
    blocks = {a: names[a] if a in looped else f"(({itype})blockIdx.{a})" for a in names}
    x_copies = copies(x, x_layout, v["sx"], in_k)
    y_copies = copies(y, y_layout, v["sy"], lambda j, k: cols(j))

    def element(operand: Operand, tile: str, at: dict[str, str]) -> str:
        # the tile's element at i or j and k (``at``: C texts within the block's tile)
        first, last = operand.dims
        rows_, length = tile_rows(operand, extent)
        return f"{tile}[{v['buf']} * {rows_ * length} + ({at[first]}) * {length} + {at[last]}]"

    def a_at(k: str, step: str = f"{v['kk']} + ") -> str:   # X's (wi + 8 m + g, kk + k)
        return element(x, v["sx"], {"i": f"{v['wi']} + 8 * {v['m']} + {v['g']}",
                                    "k": f"{step}{k}"})

    def b_at(k: str, j: str, step: str = f"{v['kk']} + ") -> str:   # Y's (kk + k, wj + 8 n + j)
        return element(y, v["sy"], {"k": f"{step}{k}",
                                    "j": f"{v['wj']} + 8 * {v['n']} + {j}"})

    def product(k: str, step: str = f"{v['kk']} + ", scaled: bool = True) -> str:
        # the cell's product at k, its factors in C's order, s first (``scaled``)
        factors = [a_at(k, step), b_at(k, f"2 * {v['t']} + {v['e']}", step)]
        first, second = factors if found.x_first else factors[::-1]
        return f"({scale}{first}) * {second}" if scaled else f"{first} * {second}"

    # on the tensor cores the accumulators start from zero, and W gets s times their
    # sum at the end
    from_zero = ["#if POLYCU_MMA",
                 f"{I}{unroll}", f"{I}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++)",
                 f"{I * 2}{unroll}",
                 f"{I * 2}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
                 f"{I * 3}{v['acc']}[{v['m']}][{v['n']}][0] = "
                 f"{v['acc']}[{v['m']}][{v['n']}][1] = 0.0;",
                 "#else"]
    stored = f"{out} = {v['acc']}[{v['m']}][{v['n']}][{v['e']}];"
    # (without a k, as in C, W keeps I's value: s * 0 would turn an infinite s to NaN)
    summed = f"{v['strips']} > 0"
    if triangular:      # and the row's K(i) holds some k
        row_lowers, row_uppers, row_conditions = bounds(found.reduction, (v["i"], "k"), 1)
        summed = " && ".join([summed, *row_conditions, f"{extreme(row_lowers, '>')} <= "
                              f"{extreme(row_uppers, '<')}"])
    store = ["#if POLYCU_MMA", *[f"{I * 5}{s}" for s in init],
             f"{I * 5}if ({summed})",
             f"{I * 6}{out} = {out} + {scale}{v['acc']}[{v['m']}][{v['n']}][{v['e']}];",
             "#else", f"{I * 5}{stored}", "#endif"]
    # sm_90: one mma.m16n8k8 for each pair of fragment rows m, m + 1 and each n, 8 k
    # at once: a quarter of the instructions, the same shared reads
    k_of_s = f"4 * {v['s']} + {v['t']}"           # register s holds k = t + 4 s
    wide_steps = [] if mt % 2 else [
        "#if POLYCU_MMA16",
        f"{I * 2}{unroll}",
        f"{I * 2}for (int {v['kk']} = 0; {v['kk']} < {strip}; {v['kk']} += {WIDE_STEP}) {{",
        f"{I * 3}double {v['a']}[{mt}][{WIDE_STEP // 4}], {v['b']}[{nt}][{WIDE_STEP // 4}];",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++)",
        f"{I * 4}{unroll}",
        f"{I * 4}for (int {v['s']} = 0; {v['s']} < {WIDE_STEP // 4}; {v['s']}++)",
        f"{I * 5}{v['a']}[{v['m']}][{v['s']}] = {a_at(k_of_s)};",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
        f"{I * 4}{unroll}",
        f"{I * 4}for (int {v['s']} = 0; {v['s']} < {WIDE_STEP // 4}; {v['s']}++)",
        f"{I * 5}{v['b']}[{v['n']}][{v['s']}] = {b_at(k_of_s, v['g'])};",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']} += 2)",
        f"{I * 4}{unroll}",
        f"{I * 4}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
        f"{I * 5}polycu_mma16(" + ", ".join(
            [f"{v['acc']}[{v['m']}{r}][{v['n']}][{e}]" for r in ("", " + 1") for e in (0, 1)]
            + [f"{v['a']}[{v['m']}{' + 1' if q % 2 else ''}][{q // 2}]"
               for q in range(WIDE_STEP // 2)]
            + [f"{v['b']}[{v['n']}][{q}]" for q in range(WIDE_STEP // 4)]) + ");",
        f"{I * 2}}}",
        "#else"]
    # a strip's products: mma (sm_80, sm_90) or C's order one k at a time
    steps = [
        *wide_steps,
        f"{I * 2}{unroll}",
        f"{I * 2}for (int {v['kk']} = 0; {v['kk']} < {strip}; {v['kk']} += 4) {{",
        "#if POLYCU_MMA",
        f"{I * 3}double {v['a']}[{mt}], {v['b']}[{nt}];",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++)",
        f"{I * 4}{v['a']}[{v['m']}] = {a_at(v['t'])};",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
        f"{I * 4}{v['b']}[{v['n']}] = {b_at(v['t'], v['g'])};",
        f"{I * 3}{unroll}",
        f"{I * 3}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++)",
        f"{I * 4}{unroll}",
        f"{I * 4}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
        f"{I * 5}polycu_mma({v['acc']}[{v['m']}][{v['n']}][0], {v['acc']}[{v['m']}][{v['n']}][1], "
        f"{v['a']}[{v['m']}], {v['b']}[{v['n']}]);",
        "#else",
        f"{I * 3}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++)",
        f"{I * 4}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
        f"{I * 5}for (int {v['e']} = 0; {v['e']} < 2; {v['e']}++)",
        f"{I * 6}for (int {v['q']} = 0; {v['q']} < 4; {v['q']}++)",
        f"{I * 7}{v['acc']}[{v['m']}][{v['n']}][{v['e']}] += {product(v['q'])};",
        "#endif",
        f"{I * 2}}}",
        *(["#endif"] if wide_steps else []),
    ]
    # a triangular K: the strips K(i) holds for every row of the block run as above;
    # the others add each cell's products of k in K(i), one k at a time
    diagonal: list[str] = []
    if triangular:
        inner_lowers, inner_uppers = block_bounds(found.reduction, ends, False)
        whole = [condition(isl.BasicSet.from_constraint(c), [end, "k"])
                 for c in found.reduction.get_constraints()
                 if not c.get_coefficient_val(isl.dim_type.set, 1).to_python()
                 and c.get_coefficient_val(isl.dim_type.set, 0).to_python() for end in ends]
        first_k = f"{v['klo']} + {v['k']} * {strip}"
        full = " && ".join([f"{first_k} >= {v['flo']}",
                            f"{first_k} + {strip - 1} <= {v['fhi']}", *whole])
        cell = f"{v['acc']}[{v['m']}][{v['n']}][{v['e']}]"
        y_rows, y_length = tile_rows(y, extent)
        y_cols = y_length - PAD
        y_element = (f"{v['sy']}[{v['buf']} * {y_rows * y_length} + {v['q']} / {y_cols} * "
                     f"{y_length} + {v['q']} % {y_cols}]")
        diagonal = [
            f"{I * 2}if ({full}) {{",
            f"{I * 2}}} else {{",
            "#if POLYCU_MMA",
            f"{I * 3}/* on mma where Y's strip is finite: X's zeros outside K(i) add zeros */",
            f"{I * 3}bool {v['fin']} = true;",
            f"{I * 3}for (int {v['q']} = {v['tid']}; {v['q']} < {y_rows * y_cols}; {v['q']} += "
            f"{threads})",
            f"{I * 4}{v['fin']} = {v['fin']} && isfinite({y_element});",
            f"{I * 3}if (!__syncthreads_or(!{v['fin']})) {{",
            *steps,
            f"{I * 3}}} else",
            "#endif",
            f"{I * 3}{{",
            f"{I * 3}for (int {v['q']} = 0; {v['q']} < {strip}; {v['q']}++) {{",
            f"{I * 4}const {itype} {v['kq']} = {first_k} + {v['q']};",
            f"{I * 4}{unroll}", f"{I * 4}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++) {{",
            f"{I * 5}const {itype} {v['i']} = {v['i0']} + {v['wi']} + 8 * {v['m']} + {v['g']};",
            f"{I * 5}if ({in_k(v['i'], v['kq'])}) {{",
            f"{I * 6}{unroll}", f"{I * 6}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++)",
            f"{I * 7}{unroll}", f"{I * 7}for (int {v['e']} = 0; {v['e']} < 2; {v['e']}++)",
            "#if POLYCU_MMA",
            f"{I * 8}{cell} += {product(v['q'], '', scaled=False)};",
            "#else",
            f"{I * 8}{cell} += {product(v['q'], '')};",
            "#endif",
            f"{I * 5}}}", f"{I * 4}}}", f"{I * 3}}}", f"{I * 3}}}", f"{I * 2}}}"]
        block_k = [f"{I}const {itype} {v['flo']} = {extreme(inner_lowers, '>')}, {v['fhi']} = "
                   f"{extreme(inner_uppers, '<')};"]
    else:
        block_k = []
    tiles = [
        f"{I}POLYCU_SHARED16(double, {v[tile]}, {stages * n * length});   /* {op.array}: "
        f"{n} x {length - PAD} + {PAD} a buffer */"
        for tile, op in (("sx", x), ("sy", y)) for n, length in [tile_rows(op, extent)]]
    lines = [
        f"{I}const int {v['tid']} = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);",
        f"{I}const int {v['lane']} = {v['tid']} % 32, {v['warp']} = {v['tid']} / 32, "
        f"{v['g']} = {v['lane']} / 4, {v['t']} = {v['lane']} % 4;",
        f"{I}const int {v['wi']} = {v['warp']} / {wc} * {wm}, {v['wj']} = {v['warp']} % {wc} "
        f"* {wn};",
        f"{I}const {itype} {v['i0']} = {bm} * ({blocks[found.rows.axis]} + {lo_i}), "
        f"{v['j0']} = {bn} * ({blocks[found.cols.axis]} + {lo_j});",
        f"{I}const {itype} {v['klo']} = {extreme(lowers, '>')}, {v['khi']} = "
        f"{extreme(uppers, '<')};",
        f"{I}const {itype} {v['strips']} = ({k_ok}) ? ({v['khi']} - {v['klo']}) / {strip} + 1 "
        ": 0;",
        *block_k,
        f"{I}/* copy strip {v['s']} of X and Y into buffer {v['s']} % {stages} */",
        f"{I}auto {v['copy']} = [&]({itype} {v['s']}) {{",
        f"{I * 2}if ({v['s']} < {v['strips']}) {{",
        f"{I * 3}const {itype} {v['base']} = {v['klo']} + {v['s']} * {strip};",
        f"{I * 3}const int {v['buf']} = (int)({v['s']} % {stages});",
        *x_copies, *y_copies,
        f"{I * 2}}}",
        f"{I * 2}POLYCU_CP_COMMIT();",
        f"{I}}};",
        f"{I}/* the first strips are in flight while the accumulators start */",
        f"{I}for (int {v['s']} = 0; {v['s']} < {stages - 1}; {v['s']}++)",
        f"{I * 2}{v['copy']}({v['s']});",
        f"{I}double {v['acc']}[{mt}][{nt}][2];",
        *from_zero,
        f"{I}{unroll}", f"{I}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++) {{",
        f"{I * 2}{unroll}", f"{I * 2}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++) {{",
        f"{I * 3}{unroll}", f"{I * 3}for (int {v['e']} = 0; {v['e']} < 2; {v['e']}++) {{",
        f"{I * 4}const {itype} {v['i']} = {v['i0']} + {v['wi']} + 8 * {v['m']} + {v['g']}, "
        f"{v['j']} = {v['j0']} + {v['wj']} + 8 * {v['n']} + 2 * {v['t']} + {v['e']};",
        f"{I * 4}if ({cells}) {{",
        *[f"{I * 5}{s}" for s in init],
        f"{I * 5}{v['acc']}[{v['m']}][{v['n']}][{v['e']}] = {out};",
        f"{I * 4}}} else {{",
        f"{I * 5}{v['acc']}[{v['m']}][{v['n']}][{v['e']}] = 0.0;",
        f"{I * 4}}}", f"{I * 3}}}", f"{I * 2}}}", f"{I}}}",
        "#endif",
        f"{I}for ({itype} {v['k']} = 0; {v['k']} < {v['strips']}; {v['k']}++) {{",
        f"{I * 2}POLYCU_CP_WAIT({stages - 2});",
        f"{I * 2}__syncthreads();",
        f"{I * 2}{v['copy']}({v['k']} + {stages - 1});",
        f"{I * 2}const int {v['buf']} = (int)({v['k']} % {stages});",
        *diagonal[:1],
        *steps,
        *diagonal[1:],
        f"{I}}}",
        f"{I}POLYCU_CP_WAIT(0);",
        f"{I}{unroll}", f"{I}for (int {v['m']} = 0; {v['m']} < {mt}; {v['m']}++) {{",
        f"{I * 2}{unroll}", f"{I * 2}for (int {v['n']} = 0; {v['n']} < {nt}; {v['n']}++) {{",
        f"{I * 3}{unroll}", f"{I * 3}for (int {v['e']} = 0; {v['e']} < 2; {v['e']}++) {{",
        f"{I * 4}const {itype} {v['i']} = {v['i0']} + {v['wi']} + 8 * {v['m']} + {v['g']}, "
        f"{v['j']} = {v['j0']} + {v['wj']} + 8 * {v['n']} + 2 * {v['t']} + {v['e']};",
        f"{I * 4}if ({cells}) {{",
        *store,
        f"{I * 4}}}", f"{I * 3}}}", f"{I * 2}}}", f"{I}}}",
    ]
    return tiles + block_loops(program, kernel, lines, names, itype, shared=True)
