"""Contractions: the kernels the FP64 tensor cores run (``codegen/tensor.py``).

In:  a ``GpuProgram`` and one of its kernels.
Out: a ``Contraction`` (the arrays, the statements, the mapped members and the sets
     the tensor-core kernel needs), or None when the kernel is not one.

A kernel is a contraction when it runs the statements
    I[i, j]:     W[i][j] = f(W[i][j], scalars)                     (optional)
    U[.. i, j, k ..]:  W[i][j] = W[i][j] + s * X[i, k] * Y[k, j]   (or ``+=``;
                       the factors in either order: ``s * Y * X``)
and nothing else, with
  * D_U = { [i, j, k] : [i, j] in D_W and [i, k] in K }, where D_W = D_I (with I) or
    D_U's projection on (i, j) (without), and K = { [i, k] : lo(i) <= k <= hi(i) }
    an interval of k whose bounds are affine in i and the parameters: a cell (i, j)
    sums the products of the k in K(i), the same for every cell of a row.  Where K
    depends on i (symm's ``k < i``, a *triangular* K) the tensor-core kernel runs on
    mma the strips of k that K(i) holds for every row of a block, and the strips
    across the block's diagonal where Y's strip is finite; elsewhere it adds their
    products one at a time under the guard k in K(i) (``codegen/tensor.py``): a zero
    X in place of a product C does not compute would turn an infinite Y into NaN;
  * every subscript of W, X and Y one iterator: W's (i, j) in this order, X's a
    permutation of (i, k), Y's of (k, j); X and Y not written by the kernel;
  * s a product of values every thread reads alike (scalars passed by value,
    parameters, constants), multiplied first: C evaluates ``s * X * Y`` as
    ``(s * X) * Y`` (``s * Y * X`` as ``(s * Y) * X``: ``x_first`` False), which the
    emulation and the kernels that scale the first factor round alike;
  * the kernel's two mapped members equal to i and j on both statements, each
    starting at a constant tile offset;
  * W, X and Y arrays of ``double`` in device memory (neither constant memory nor a
    texture or surface object: the kernel's arguments stay the host code's).
Every cell's dependences on W[i][j] order I before U and U's instances by k, so the
original computes W[i][j] = f(W0) + (s X[i, k_lo]) Y[k_lo, j] + ... in that order. The
tensor-core kernel adds the products X Y of four (``mma.m8n8k4``) or eight
(``mma.m16n8k8``) consecutive k at a time, the groups in ascending order, from
zero, then W[i][j] = f(W0) + s * sum once (no multiplication in the k loop:
docs/results/memory.md, run s17).  The results differ from C's by rounding, within
the check's tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import islpy as isl
from pycparser import c_ast

from ..gpu.kernel import GpuProgram, Kernel, MappedMember
from ..model import Access, Statement, maps_of
from .kinds import GLOBAL, READ_ONLY
from .placement import REGISTER, SHARED, Placement

ELEMENT_TYPE = "double"
#: The padding of a shared tile's rows, in elements.  A tile keeps its array's
#: layout (``tile_rows``); a half warp's fragment reads are four consecutive elements
#: of four rows, or four of four columns, and rows of 8 n + PAD doubles (4 or 12
#: modulo 16) put them in distinct banks.
PAD = 4
#: mma tiles (8 x 8 outputs) of one warp: 2 * MAX_FRAGMENTS accumulators a thread.
MAX_FRAGMENTS = 16
#: Static shared memory of a block, and the copy pipeline's shapes, best first: (the
#: k strip of a shared tile, the shared buffers in flight).  Measured on an H200
#: (docs/results/memory.md, run s17): strips of 16 in 3 buffers run gemm, 2mm and
#: 3mm 1.24-1.31x faster than strips of 8 in 4 (half the barriers per k).
SHARED_BUDGET = 48 * 1024
PIPELINES = ((16, 4), (16, 3), (8, 4), (8, 3), (16, 2), (8, 2))
#: The kinds whose kernel argument is the array's device pointer.
POINTERS = frozenset({GLOBAL, READ_ONLY, REGISTER, SHARED})


@dataclass(frozen=True)
class Operand:
    """X (over i, k) or Y (over k, j): its array and, per subscript, 'i', 'j' or 'k'."""

    array: str
    dims: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Contraction:
    """What the tensor-core kernel of one kernel computes (see the module doc)."""

    kernel: str
    output: str                     # W
    left: Operand                   # X, scaled by ``scale``
    right: Operand                  # Y
    update: str                     # U
    positions: tuple[int, int, int]   # U's iterators that are i, j, k
    init: str | None                # I
    init_positions: tuple[int, int] | None
    scale: Any                      # the C node of s (None: no factor)
    rows: MappedMember              # the member equal to i
    cols: MappedMember              # the member equal to j
    cells: isl.BasicSet             # D_W: { [i, j] } over the parameters
    reduction: isl.BasicSet         # K: { [i, k] } over the parameters (gist on D_W's rows)
    warps: tuple[int, int]          # the block's warps along i and along j
    strip: int                      # the k of a shared tile (a multiple of 4)
    stages: int                     # shared buffers of the copy pipeline
    x_first: bool = True            # C's product is s * X * Y (else s * Y * X)

    def __str__(self) -> str:
        x = "".join(f"[{d}]" for d in self.left.dims)
        y = "".join(f"[{d}]" for d in self.right.dims)
        wr, wc = self.warps
        factors = [f"{self.left.array}{x}", f"{self.right.array}{y}"]
        if not self.x_first:
            factors.reverse()
        k = "k in K(i)" if self.triangular else "k in K"
        return (f"{self.output}[i][j] += {'s * ' if self.scale is not None else ''}"
                f"{' * '.join(factors)} ({k}), {self.rows.tile}x"
                f"{self.cols.tile} cells a block in {wr}x{wc} warps of "
                f"{self.rows.tile // wr}x{self.cols.tile // wc}, strips of {self.strip} k in "
                f"{self.stages} shared buffers")

    def buffer(self) -> int:
        """The doubles of one strip's X and Y tiles (``tile_rows``)."""
        return _buffer((self.left, self.right), self.rows.tile, self.cols.tile, self.strip)

    @property
    def triangular(self) -> bool:
        """Whether K depends on i: some constraint of K holds i, a bound of k (symm's
        ``k < i``) or a condition on the row alone (sums in rows ``i < 30`` of D_W's
        ``i < n``), so that the rows of a block sum different strips."""
        return any(c.get_coefficient_val(isl.dim_type.set, 0).to_python()
                   for c in self.reduction.get_constraints())

    @property
    def rows_set(self) -> isl.BasicSet:
        """{ [i] }: the rows of D_W."""
        return self.cells.project_out(isl.dim_type.set, 1, 1)

    @property
    def cols_set(self) -> isl.BasicSet:
        """{ [j] }: the columns of D_W."""
        return self.cells.project_out(isl.dim_type.set, 0, 1)


def with_tensor_cores(placement: Placement, forced: frozenset[str] = frozenset()
                      ) -> Placement:
    """``placement`` with every kernel that is a contraction run on tensor cores, but
    the kernels named in ``forced``, whose memory --memory chose for some array."""
    program = placement.program
    found = {}
    for kernel in program.kernels:
        kinds = {c.array: c.kind for c in placement.kernel(kernel.name).choices}
        one = contraction(program, kernel, kinds) if kernel.name not in forced else None
        if one is not None:
            found[kernel.name] = one
    return replace(placement, tensor=found)


def contraction(program: GpuProgram, kernel: Kernel, kinds: dict[str, str]
                ) -> Contraction | None:
    """``kernel`` as a ``Contraction``, or None (``kinds``: where the memory placement
    put each array the kernel touches)."""
    scop = program.scop
    if program.single_block or len(kernel.mapped) != 2 or kernel.host_ids or kernel.atomic:
        return None
    statements = [s for s in scop.statements if s.name in kernel.statements]
    updates = [(s, form) for s in statements for form in [_update(s)] if form is not None]
    if len(updates) != 1 or len(statements) > 2:
        return None
    update, (output, scale, first_access, second_access) = updates[0]
    init = next((s for s in statements if s is not update), None)
    x_first = True
    left_access, right_access = first_access, second_access
    positions = _positions(update, output, left_access, right_access)
    if positions is None:
        x_first = False
        left_access, right_access = second_access, first_access
        positions = _positions(update, output, left_access, right_access)
    if positions is None:
        return None
    i, j, k = positions
    left = _operand(left_access, update, {i: "i", k: "k"})
    right = _operand(right_access, update, {k: "k", j: "j"})
    if left is None or right is None or {left.array, right.array} & kernel.writes:
        return None
    arrays = {a.name: a for a in scop.arrays}
    if any(arrays[a].element_type != ELEMENT_TYPE or arrays[a].member is not None
           or kinds.get(a, GLOBAL) not in POINTERS
           for a in (output.array, left.array, right.array)):
        return None
    init_positions = None
    if init is not None:
        init_positions = _init_positions(init, output.array)
        if init_positions is None or not _init_first(kernel, init, output, update):
            return None
    cells, reduction = _sets(update, positions, init, init_positions)
    if cells is None or reduction is None:
        return None
    members = _members(kernel, update, (i, j))
    if members is None or (init is not None and _members(kernel, init, init_positions)
                           != members):
        return None
    shape = _shape(members[0].tile, members[1].tile, kernel.block_dims(), (left, right))
    if shape is None or any(p.dim(isl.dim_type.div) for p in (
            cells.project_out(isl.dim_type.set, 1, 1),
            cells.project_out(isl.dim_type.set, 0, 1))):
        return None
    return Contraction(kernel.name, output.array, left, right, update.name, positions,
                       init.name if init is not None else None, init_positions, scale,
                       members[0], members[1], cells, reduction, *shape, x_first)


def tile_rows(operand: Operand, extent: dict[str, int]) -> tuple[int, int]:
    """(rows, padded row length) of ``operand``'s shared tile for the ``extent`` of
    i, j and k: the tile keeps the array's layout, its rows along the last
    subscript, so that a thread copies two neighbours of a row at once (16 bytes)
    and neighbouring threads store to neighbouring banks, transposed operands too
    (syrk's A[j][k]: docs/results/memory.md, run s18)."""
    first, last = operand.dims
    return extent[first], extent[last] + PAD


def _buffer(operands: tuple[Operand, Operand], rows: int, cols: int, strip: int) -> int:
    """The doubles of one strip's tiles of ``operands`` for a block of ``rows`` x
    ``cols`` cells."""
    extent = {"i": rows, "j": cols, "k": strip}
    return sum(n * length for n, length in (tile_rows(op, extent) for op in operands))


# warps = wr * wc with BM = 8 m wr, BN = 8 n wc, m n <= MAX_FRAGMENTS; the most
# square warp tile (8m x 8n) wins, then the wider one; then the first pipeline whose
# buffers, 8 bytes * stages * the doubles of both tiles (``tile_rows``), fit.
def _shape(rows: int, cols: int, block: tuple[int, ...], operands: tuple[Operand, Operand]
           ) -> tuple[tuple[int, int], int, int] | None:
    """(warps along i and j, strip, pipeline stages) for a tile of ``rows`` x ``cols``
    run by ``block`` threads on X and Y (``operands``); None when no layout of whole
    warps fits."""
    threads = block[0] * block[1] * block[2]
    if threads % 32:
        return None
    warps = threads // 32
    layouts = [(wr, warps // wr) for wr in range(1, warps + 1) if warps % wr == 0
               and rows % (8 * wr) == 0 and cols % (8 * (warps // wr)) == 0
               and (rows // (8 * wr)) * (cols // (8 * (warps // wr))) <= MAX_FRAGMENTS]
    if not layouts:
        return None
    best = min(layouts, key=lambda w: (abs(rows // w[0] - cols // w[1]), -(cols // w[1])))
    for strip, stages in PIPELINES:
        if 8 * stages * _buffer(operands, rows, cols, strip) <= SHARED_BUDGET:
            return best, strip, stages
    return None


def _update(stmt: Statement) -> tuple[Access, Any, Access, Access] | None:
    """(W's write, s, the first factor's read, the second's) of ``W[..] = W[..] + s *
    P * Q`` (or ``+=``)."""
    body = stmt.body
    if stmt.loop or not isinstance(body, c_ast.Assignment) or len(stmt.writes) != 1:
        return None
    write = stmt.writes[0]
    if body.op == "+=":
        product = body.rvalue
    elif body.op == "=" and isinstance(body.rvalue, c_ast.BinaryOp) \
            and body.rvalue.op == "+":
        sides = (body.rvalue.left, body.rvalue.right)
        again = [n for n in sides if _reads(stmt, n) is not None
                 and _reads(stmt, n).array == write.array]
        if len(again) != 1:
            return None
        product = sides[1] if again[0] is sides[0] else sides[0]
    else:
        return None
    if not (isinstance(product, c_ast.BinaryOp) and product.op == "*"):
        return None
    right = _reads(stmt, product.right)
    first = product.left
    scale = None
    if isinstance(first, c_ast.BinaryOp) and first.op == "*":
        scale, first = first.left, first.right
    left = _reads(stmt, first)
    if left is None or right is None or (scale is not None and not _uniform(stmt, scale)):
        return None
    if write.array in (left.array, right.array) or not isinstance(write.node,
                                                                  c_ast.ArrayRef):
        return None
    return write, scale, left, right


def _reads(stmt: Statement, node: Any) -> Access | None:
    """The read access that is exactly ``node`` (an array element), if any."""
    for access in stmt.reads:
        if access.node is node and isinstance(node, c_ast.ArrayRef):
            return access
    return None


def _uniform(stmt: Statement, node: Any) -> bool:
    """Whether ``node`` is a product of constants and 0-d values (no iterator, no
    array element): the same value in every instance."""
    if isinstance(node, c_ast.Constant):
        return True
    if isinstance(node, c_ast.ID):
        return node.name not in stmt.iterators
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        return _uniform(stmt, node.left) and _uniform(stmt, node.right)
    return False


def _subscripts(stmt: Statement, access: Access) -> tuple[int, ...] | None:
    """Per subscript, the one iterator (its position) it equals on the statement's
    domain; None if a subscript has another form."""
    relation = access.relation.intersect_domain(stmt.domain)
    found = []
    for d in range(relation.dim(isl.dim_type.out)):
        same = [it for it in range(relation.dim(isl.dim_type.in_))
                if relation.equate(isl.dim_type.in_, it, isl.dim_type.out, d)
                .is_equal(relation)]
        if len(same) != 1:
            return None
        found.append(same[0])
    return tuple(found)


def _positions(stmt: Statement, output: Access, left: Access, right: Access
               ) -> tuple[int, int, int] | None:
    """U's iterators (i, j, k): W[i][j], X over {i, k}, Y over {k, j}, all three
    iterators of U."""
    w = _subscripts(stmt, output)
    x = _subscripts(stmt, left)
    y = _subscripts(stmt, right)
    if w is None or x is None or y is None or len(w) != 2 or len(x) != 2 or len(y) != 2:
        return None
    i, j = w
    rest = set(range(len(stmt.iterators))) - {i, j}
    if len(stmt.iterators) != 3 or len(rest) != 1 or i == j:
        return None
    (k,) = rest
    if set(x) != {i, k} or set(y) != {k, j}:
        return None
    return i, j, k


def _operand(access: Access, stmt: Statement, names: dict[int, str]) -> Operand | None:
    dims = _subscripts(stmt, access)
    if dims is None:
        return None
    return Operand(access.array, tuple(names[d] for d in dims))


def _init_positions(stmt: Statement, array: str) -> tuple[int, int] | None:
    """I's iterators (i, j) when it is ``W[i][j] = f(W[i][j], scalars)``: it writes
    W[i][j], and reads nothing but that cell and 0-d values."""
    if stmt.loop or len(stmt.iterators) != 2 or len(stmt.writes) != 1:
        return None
    write = stmt.writes[0]
    w = _subscripts(stmt, write)
    if write.array != array or w is None or len(w) != 2 or w[0] == w[1]:
        return None
    for access in stmt.reads:
        if access.relation.dim(isl.dim_type.out) == 0:
            continue
        if access.array != array or _subscripts(stmt, access) != w:
            return None
    return w


# I runs before the sums of its cell: { I[x] -> U[y] : W(I[x]) = W(U[y]) and O(I[x])
# >=_lex O(U[y]) } is empty, O the kernel's order (trmm's B[i][j] = alpha * B[i][j]
# after its sum is no I: before this check it ran first and the scale was lost).
def _init_first(kernel: Kernel, init: Statement, output: Access, update: Statement) -> bool:
    """Whether every instance of ``init`` runs before the instances of ``update`` that
    write its cell of W (``output``: U's write) in the kernel's order."""
    if kernel.order is None:
        return False
    first = init.writes[0].relation.intersect_domain(init.domain)
    sums = output.relation.intersect_domain(update.domain)
    first, sums = first.align_params(sums.get_space()), sums.align_params(first.get_space())
    same = isl.UnionMap.from_map(first.apply_range(sums.reverse()))
    order = kernel.order
    late = order.intersect_domain(isl.UnionSet.from_set(init.domain)).lex_ge_union_map(
        order.intersect_domain(isl.UnionSet.from_set(update.domain)))
    return late.intersect(same).is_empty()


def _sets(update: Statement, positions: tuple[int, int, int], init: Statement | None,
          init_positions: tuple[int, int] | None
          ) -> tuple[isl.BasicSet | None, isl.BasicSet | None]:
    """D_W and K when D_U joins them on i (see the module doc), each one basic set
    without existentials, K gist on D_W's rows; else (None, None)."""
    domain = _reordered(update, positions)
    reduction = domain.project_out(isl.dim_type.set, 1, 1).coalesce()
    if init is not None and init_positions is not None:
        cells = _reordered(init, init_positions)
    else:
        cells = domain.project_out(isl.dim_type.set, 2, 1)
    cells = cells.coalesce()
    reduction = reduction.align_params(cells.get_space())
    cells = cells.align_params(reduction.get_space())
    joined = cells.flat_product(reduction).equate(isl.dim_type.set, 0, isl.dim_type.set, 2) \
        .project_out(isl.dim_type.set, 2, 1)
    if not joined.is_equal(domain.align_params(joined.get_space())) \
            or cells.n_basic_set() != 1 or reduction.n_basic_set() != 1:
        return None, None
    one_cells = cells.get_basic_sets()[0]
    rows = isl.Set.from_basic_set(one_cells).project_out(isl.dim_type.set, 1, 1)
    context = rows.flat_product(isl.Set.universe(rows.get_space()))
    one_k = reduction.gist(context).coalesce()
    if one_cells.dim(isl.dim_type.div) or one_k.n_basic_set() != 1:
        return None, None
    one_k = one_k.get_basic_sets()[0]
    if not _interval(one_k):
        return None, None
    return one_cells, one_k


# K = { [i, k] : max_l (a_l) <= k <= min_u (b_u) }: every constraint on k has the
# coefficient +-1, so its bounds are affine expressions codegen/tensor.py prints.
def _interval(reduction: isl.BasicSet) -> bool:
    """Whether ``reduction`` is, at each i, an interval of k with unit-coefficient
    bounds (no existentials; ``2 k < n`` is refused), bounded on both sides."""
    if reduction.dim(isl.dim_type.div):
        return False
    signs = [c.get_coefficient_val(isl.dim_type.set, 1).to_python()
             for c in reduction.get_constraints()]
    if any(a not in (-1, 0, 1) for a in signs):
        return False
    equality = any(c.is_equality() and a for c, a in zip(reduction.get_constraints(), signs))
    return equality or (1 in signs and -1 in signs)


def _reordered(stmt: Statement, dims: tuple[int, ...]) -> isl.Set:
    """{ [x_d for d in dims] : x in D_S }: the domain with its iterators ``dims`` in
    that order (an anonymous set)."""
    names = ", ".join(stmt.iterators)
    picked = ", ".join(stmt.iterators[d] for d in dims)
    order = isl.Map(f"{{ {stmt.name}[{names}] -> [{picked}] }}")
    return stmt.domain.apply(order.align_params(stmt.domain.get_space()))


def _members(kernel: Kernel, stmt: Statement, dims: tuple[int, int] | None
             ) -> tuple[MappedMember, MappedMember] | None:
    """The mapped members equal to iterators ``dims`` (i, j) of ``stmt`` in the
    kernel's band, each with a constant lower bound; None if they are not."""
    if dims is None or kernel.band is None:
        return None
    band = [m for m in maps_of(kernel.band) if m.get_tuple_name(isl.dim_type.in_)
            == stmt.name]
    if len(band) != 1:
        return None
    relation = band[0].intersect_domain(stmt.domain.set_tuple_name(stmt.name))
    found = []
    for d in dims:
        matches = [m for m in kernel.mapped if relation.equate(
            isl.dim_type.in_, d, isl.dim_type.out, m.member).is_equal(relation)]
        if len(matches) != 1 or not matches[0].lower.is_cst():
            return None
        found.append(matches[0])
    return found[0], found[1]
