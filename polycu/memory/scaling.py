"""Scaled tiles: a shared tile holding ``c * A[e]`` where every read of it is that
product (shared.py's tiles, chosen by placement.py)."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from pycparser import c_ast

from ..gpu.kernel import Kernel
from ..model import Access, Scop, Statement
from .shared import SharedOrder


# gemm reads A in (alpha * A[i][k]) * B[k][j]: C evaluates alpha * A[i][k] first and
# rounds it, so a tile holding the rounded products c * A[e], computed once per
# element in the copy, gives every reader the very value it computed (the product
# is commutative in IEEE arithmetic): one multiplication a strip instead of one per
# thread and lane (gemm LARGE on an H100: 0.295 ms against 0.309 ms).  A zero fill
# stays 0: only padded lanes, whose results are never stored, read it.  A tile whose
# every element one thread reads keeps A[e]: the product runs once an element either
# way, and a plain copy can be a cp.async (asynchronous.py; gemver's latency tiles of
# beta * A at LARGE on an H200 ran 2.8x slower as loads, products and stores).
def scaled(shared: SharedOrder, scop: Scop, kernel: Kernel,
           by_value: frozenset[str]) -> SharedOrder:
    """``shared`` with each tile whose reads are all ``c * A[e]`` (``c`` a scalar
    passed by value, of A's element type) holding the products."""
    accesses = {a.ref: (s, a) for s in scop.statements if s.name in kernel.statements
                for a in s.accesses}
    found = []
    for tile in shared.tiles:
        if tile.sharing == 1:
            found.append(tile)
            continue
        factors = {_factor(*accesses[ref], scop, by_value) for ref in tile.references}
        (factor,) = factors if len(factors) == 1 else (None,)
        found.append(replace(tile, scale=factor) if factor is not None else tile)
    return replace(shared, tiles=tuple(found))


def product_of(stmt: Statement, access: Access) -> c_ast.BinaryOp | None:
    """The product ``c * A[e]`` or ``A[e] * c`` of ``stmt``'s body whose operand is
    ``access``'s reference, if its other operand is a name."""
    for node in _nodes(stmt.body):
        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
            pair = (node.left, node.right)
            if any(side is access.node for side in pair) and \
                    any(isinstance(side, c_ast.ID) and side is not access.node for side in pair):
                return node
    return None


def _factor(stmt: Statement, access: Access, scop: Scop, by_value: frozenset[str]
            ) -> str | None:
    product = product_of(stmt, access)
    if product is None:
        return None
    name = (product.right if product.left is access.node else product.left).name
    element = scop.array(access.array).element_type
    if name not in by_value or scop.array(name).element_type != element:
        return None
    return name


def _nodes(node: c_ast.Node) -> Iterator[c_ast.Node]:
    yield node
    for _, child in node.children():
        yield from _nodes(child)
