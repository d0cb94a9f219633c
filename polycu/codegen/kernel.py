"""Kernels: their parameters and their bodies, each array where the placement put it.

In:  a ``Placement`` (``polycu.memory``), the kernel's AST (``ast.py``: built with the
     placement's copies, its shared tiles' indices and its lanes) and the arrays'
     device layouts (``cuda.layouts``).
Out: ``extern "C" __global__`` functions as C text.

A kernel's parameters are the SCoP's parameters and the host values it is launched
at, the read-only scalars by value, then the arrays in device memory (``const
T *__restrict__`` where the kernel only reads them) and the texture and surface
objects (``objects.py``).  Its body declares the views of arrays in textures,
surfaces and constant memory (named like the arrays), the privatised scalars, the
register tiles ``T r[U0][U1]`` and the shared tiles ``POLYCU_SHARED(T, s, N)``, then
prints one thread's loops: a statement with its promoted references replaced by
their registers or tiles, a copy as one assignment, a barrier as
``__syncthreads()``, the lanes' no-op statements as nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..gpu.kernel import AXES, GpuProgram, Kernel
from ..model import Array, Scop, Statement, storage_names
from ..memory import (BARRIERS, COPY_INDEX, Carry, GLOBAL, LANE_INDEX, LANES, MAX_SHARED_MEMORY, POINT,
                      SURFACE, TEXTURE_2D, KernelPlacement, Placement, product_of, serving)
from ..memory.shared import element_bytes
from .ast import placed_kernel_ast
from .nodes import Expr, User
from .cuda import (INDENT, Layout, atom, c_expr, index_type, linearise, print_node, reference_text,
                   statement_text)
from .grid import block_loops
from .objects import CONSTANT, OBJECT_KINDS, PARAMETER_TYPES, kernel_view, object_name
from .staging import Lanes, staged
from .mma import launch_bounds
from .tensor import tensor_kernel_body
from .tree import launch_bounds as tree_bounds, tree_kernel_body


@dataclass(frozen=True)
class KernelArg:
    """One kernel parameter: C declaration pieces and its role for the runtimes."""

    name: str
    ctype: str
    role: str              # 'param' | 'iterator' | 'scalar' | 'array' | 'texture' | 'surface'
    array: str | None = None

    @property
    def declaration(self) -> str:
        sep = "" if self.ctype.endswith("*") else " "
        return f"{self.ctype}{sep}{self.name}"


def kernel_args(program: GpuProgram, kernel: Kernel, arrays: dict[str, Layout],
                memory: KernelPlacement | None = None) -> tuple[KernelArg, ...]:
    """Parameters, host values, read-only scalars by value, then device pointers and
    texture and surface objects, each as ``memory`` placed its array (private
    scalars are none of these: each thread declares its own; an array in constant
    memory is none either: the kernel reads its ``__constant__`` copy)."""
    itype = index_type(program.scop)
    args = [KernelArg(p, itype, "param") for p in program.scop.parameters]
    args += [KernelArg(h, itype, "iterator") for h in kernel.host_ids]
    used = (kernel.reads | kernel.writes) - kernel.private
    for array in program.scop.arrays:
        layout = arrays[array.name]
        if array.name in used and layout.by_value:
            args.append(KernelArg(array.name, array.element_type, "scalar", array.name))
    for array in program.scop.arrays:
        layout = arrays[array.name]
        if array.name not in used or layout.by_value:
            continue
        if array.member is not None:
            args += struct_arg(program.scop, array, kernel.writes, args)
            continue
        kind = memory.of(array.name).kind if memory is not None else None
        if kind == CONSTANT:
            continue
        if kind in OBJECT_KINDS:
            role = "surface" if kind == SURFACE else "texture"
            args.append(KernelArg(object_name(program.scop, array.name, kind),
                                  PARAMETER_TYPES[kind], role, array.name))
            continue
        # plain loads of an array the kernel only reads (--memory K:A=global): no
        # __restrict__; else the read-only path
        const = "" if array.name in kernel.writes else "const "
        restrict = "" if const and kind == GLOBAL else "__restrict__"
        args.append(KernelArg(array.name, f"{const}{array.element_type} *{restrict}",
                              "array", array.name))
    return tuple(args)


def struct_arg(scop: Scop, array: Array, writes: frozenset[str] | set[str],
               args: list[KernelArg]) -> list[KernelArg]:
    """The struct variable holding field array ``array`` as a kernel parameter (``const``
    where the kernel writes none of its fields), unless ``args`` has it already."""
    member = array.member
    assert member is not None
    if any(a.name == member.variable for a in args):
        return []
    own = storage_names(scop)
    const = "" if any(own[n] == member.variable for n in writes) else "const "
    return [KernelArg(member.variable, f"{const}{member.struct.spelling} *__restrict__",
                      "array", member.variable)]


def _cell(array: str, subscripts: tuple[Expr, ...], layout: Layout) -> str:
    """``A[linear offset]`` of the element with ``subscripts`` (``A[0]``: a scalar)."""
    if not subscripts:
        return f"{array}[0]"
    texts = [atom(s, wide=layout.wide) for s in subscripts]   # a ? b : c binds loosest
    return f"{array}[{linearise(texts, layout.extents, layout.wide)}]"


def _storage(name: str, index: tuple[Expr, ...], extents: tuple[int, ...] | None,
             wide: bool) -> str:
    """``r0[u0][u1]`` (registers: ``extents`` None) or ``s0[lin]`` (a shared tile)."""
    if extents is None:
        return name + "".join(f"[{c_expr(e, wide=wide)}]" for e in index)
    texts = [atom(e, wide=wide) for e in index]
    return f"{name}[{linearise(texts, tuple(str(n) for n in extents))}]"


@dataclass(frozen=True)
class KernelText:
    """The pieces of a kernel's C text: its parameters, the declarations each thread
    makes (views, private scalars, registers, shared tiles), the lines that name its
    block and thread ids, and one thread's loops (lines indented once)."""

    args: tuple[KernelArg, ...]
    declarations: tuple[str, ...]
    ids: tuple[str, ...]
    body: tuple[str, ...]


def kernel_source(placement: Placement, kernel: Kernel, arrays: dict[str, Layout]) -> str:
    """``extern "C" __global__ void K(...) { ids; loops of one thread }``, each array
    where ``placement`` put it."""
    # a tree reduction's or a contraction's own kernel (codegen/tree.py, tensor.py)
    tree, found = placement.trees.get(kernel.name), placement.tensor.get(kernel.name)
    if tree is not None or found is not None:
        args = kernel_args(placement.program, kernel, arrays, placement.kernel(kernel.name))
        bounds, body = (tree_bounds(tree), tree_kernel_body(placement, arrays, tree)) \
            if tree is not None else (launch_bounds(found),
                                      tensor_kernel_body(placement, arrays, found))
        return "\n".join([f'extern "C" __global__ void {bounds} {kernel.name}('
                          + ", ".join(a.declaration for a in args) + ")", "{",
                          *_after_previous(placement), *body, "}"])
    text = kernel_text(placement, kernel, arrays)
    body = block_loops(placement.program, kernel, text.body,
                       {m.axis: m.block_id for m in kernel.mapped},
                       index_type(placement.program.scop),
                       bool(placement.kernel(kernel.name).shared))
    return "\n".join([f'extern "C" __global__ void {kernel.name}('
                      + ", ".join(a.declaration for a in text.args) + ")", "{",
                      *_after_previous(placement), *text.declarations, *text.ids, *body, "}"])


def _after_previous(placement: Placement) -> list[str]:
    """The first statement of a kernel launched as a dependent launch
    (``--dependent-launches``): it waits until the launch before it has finished and
    its writes are visible.  Nothing before it reads device memory, so the kernel
    computes what it computes when launched after the one before it has ended."""
    return [f"{INDENT}POLYCU_AFTER_PREVIOUS();"] if placement.dependent else []


# r = t_x + B_x (t_y + B_y t_z): a thread's place among the B_x B_y B_z of its block.
def _linear_thread(kernel: Kernel) -> tuple[int, str]:
    """The threads of a block of ``kernel`` and the C text of a thread's linear index."""
    index, threads = "", 1
    for member in sorted(kernel.mapped, key=lambda m: AXES.index(m.axis), reverse=True):
        index = f"{member.thread_id} + {member.block} * ({index})" if index else member.thread_id
        threads *= member.block
    return threads, index


@dataclass(frozen=True)
class _Carried:
    """A kernel's carried values (memory/carried.py) as text: the register of a read
    reference; for a writer, its carries' registers; the declarations."""

    reads: dict[str, str]
    writers: dict[str, list[tuple[Carry, tuple[str, ...]]]]
    declarations: list[str]

    def kept(self, stmt: Statement, args: tuple[Expr, ...], arrays: dict[str, Layout],
             scop: Scop) -> list[str]:
        """After a writer ``stmt``: its registers shift, the first reloads the cell just
        stored (nvcc forwards the store)."""
        lines = []
        for carry, registers in self.writers.get(stmt.name, []):
            (write,) = [a for a in stmt.accesses if a.array == carry.array and a.is_write]
            lines += [f"{registers[k]} = {registers[k - 1]};"
                      for k in range(carry.depth - 1, 0, -1)]
            lines.append(f"{registers[0]} = "
                         f"{reference_text(stmt, args, write.node, arrays, scop)};")
        return lines


def _carried(program: GpuProgram, memory: KernelPlacement) -> _Carried:
    """The text of ``memory``'s carried values, in registers numbered after the
    kernel's other registers."""
    reads: dict[str, str] = {}
    writers: dict[str, list[tuple[Carry, tuple[str, ...]]]] = {}
    declarations = []
    first = len(memory.registers)
    for j, carry in enumerate(memory.carried):
        names = tuple(program.names.register_id(first + 2 * j + m) for m in range(carry.depth))
        for writer in carry.writers:
            writers.setdefault(writer, []).append((carry, names))
        reads.update({ref: names[h] for ref, h in carry.reads})
        element = program.scop.array(carry.array).element_type
        declarations.append(f"{INDENT}{element} " + ", ".join(f"{n} = 0" for n in names) + ";")
    return _Carried(reads, writers, declarations)


def kernel_text(placement: Placement, kernel: Kernel, arrays: dict[str, Layout],
                renamed: Mapping[str, str] | None = None) -> KernelText:
    """The pieces of ``kernel``'s text (``KernelText``), each array where ``placement``
    put it; a reference whose ref ``renamed`` maps to a name reads or writes that
    name's cell instead of the array's (``resident.py``'s edge rows)."""
    program = placement.program
    scop = program.scop
    itype = index_type(scop)
    wide = itype != "int"
    memory = placement.kernel(kernel.name)
    args = kernel_args(program, kernel, arrays, memory)
    placed_in = {c.array: c.kind for c in memory.choices}
    views = frozenset(a for a, kind in placed_in.items() if kind in (TEXTURE_2D, SURFACE))
    statements = {s.name: s for s in scop.statements}
    registers = {p.array: program.names.register_id(k)
                 for k, p in enumerate(memory.registers)}
    promotions = {p.array: p for p in memory.registers}
    tiles = serving(memory.shared)
    copies = {name: (p, name == p.load) for p in memory.registers
              for name in (p.load, p.store)}
    loads = {t.copy: t for t in memory.shared}
    zeros = {t.zero: t for t in memory.shared if t.zeros is not None}
    carried = _carried(program, memory)

    # A register's index is its lane (LANE_INDEX): the lane loops' iterators, which
    # nvcc unrolls; a tile's copies run in the same dimensions (all loads in flight).
    # The point loop of a full strip too (its bounds are constants: memory.strips).
    points = (memory.strips[0] + POINT,) if memory.strips is not None else ()
    unrolled = frozenset(program.names.iterator + str(d)
                         for d in (*memory.lane_dimensions, *points))

    # memory/asynchronous.py: the thread's cp.async copies complete before each barrier
    waits = any(t.asynchronous for t in memory.shared)
    ast = placement.asts[kernel.name] if placement.asts is not None else \
        placed_kernel_ast(program, kernel, memory)
    # a thread's reads copied ahead in strips (staging.py), into its own part of the
    # buffers: the static shared memory the tiles leave, named after the tiles'
    tiled = sum(t.elements * element_bytes(scop.array(t.array).element_type)
                for t in memory.shared)
    stage = staged(ast, statements, memory.staged, lambda a: scop.array(a).element_type,
                   lambda stmt, args, node: reference_text(stmt, args, node, arrays, scop),
                   program.names.iterator,
                   lambda k: program.names.shared_id(len(memory.shared) + k),
                   Lanes(*_linear_thread(kernel), MAX_SHARED_MEMORY - tiled))

    def expand(node: User) -> list[str]:
        if node.name in BARRIERS:
            return ["POLYCU_COPY_WAIT();", "__syncthreads();"] if waits else \
                ["__syncthreads();"]
        if node.name.startswith(LANES):
            return []
        if node.name in copies:
            promotion, load = copies[node.name]
            n = len(promotion.lanes)
            cell = _cell(promotion.array, node.args[promotion.depth + n:],
                         arrays[promotion.array])
            register = _storage(registers[promotion.array],
                                node.ref(LANE_INDEX) if n else (), None, wide)
            return [f"{register} = {cell};" if load else f"{cell} = {register};"]
        if node.name in loads:
            tile = loads[node.name]
            cell = _cell(tile.array, node.args[memory.tile_depth:], arrays[tile.array])
            value = f"{tile.scale} * {cell}" if tile.scale else cell
            storage = _storage(tile.storage, node.ref(COPY_INDEX), tile.extents, wide)
            if tile.asynchronous:
                return [f"POLYCU_COPY_ASYNC({storage}, {cell});"]
            return [f"{storage} = {value};"]
        if node.name in stage.lines:
            return [stage.lines[node.name]]
        if node.name in zeros:
            tile = zeros[node.name]
            return [f"{_storage(tile.storage, node.ref(COPY_INDEX), tile.extents, wide)} = 0;"]
        stmt = statements[node.name]
        promoted = dict(stage.reads.get(id(node), {}))
        for access in stmt.accesses:
            if access.ref in carried.reads:
                promoted[id(access.node)] = carried.reads[access.ref]
        for position, access in enumerate(stmt.accesses):
            if access.ref in tiles:
                tile = tiles[access.ref]
                # a scaled tile holds the product c * A[e] the statement reads
                read = product_of(stmt, access) if tile.scale else access.node
                promoted[id(read)] = _storage(tile.storage, node.ref(position),
                                              tile.extents, wide)
            elif access.array in registers and promotions[access.array].holds(access.ref):
                index = node.ref(LANE_INDEX) if promotions[access.array].lanes else ()
                promoted[id(access.node)] = _storage(registers[access.array], index, None,
                                                     wide)
        for access in stmt.accesses:
            if renamed and access.ref in renamed and id(access.node) not in promoted:
                text = reference_text(stmt, node.args, access.node, arrays, scop)
                promoted[id(access.node)] = renamed[access.ref] + text[len(access.array):]
        return [statement_text(stmt, node.args, arrays, stmt.name in kernel.atomic,
                               kernel.private, scop, promoted, views),
                *carried.kept(stmt, node.args, arrays, scop)]

    lines = []
    for array in scop.arrays:
        if placed_in.get(array.name) in OBJECT_KINDS:
            lines.append(INDENT + kernel_view(placed_in[array.name], array.name,
                                              array.element_type, scop))
        if array.name in kernel.private:
            lines.append(f"{INDENT}{array.element_type} {array.name};")
        if array.name in registers:
            shape = "".join(f"[{n}]" for n in promotions[array.name].lanes)
            # padded lanes read registers no copy loads: give them a value
            zero = " = {}" if memory.padded and promotions[array.name].lanes else ""
            lines.append(f"{INDENT}{array.element_type} {registers[array.name]}{shape}{zero};")
        for tile in memory.shared:
            if tile.array == array.name:
                lines.append(f"{INDENT}POLYCU_SHARED({array.element_type}, {tile.storage}, "
                             f"{tile.elements});")
    lines += [f"{INDENT}POLYCU_SHARED({element}, {name}, {stage.elements});"
              for element, name in stage.buffers]
    lines += carried.declarations
    looped = kernel.looped(scop)      # their block ids are loops' (grid.block_loops)
    ids = tuple(f"{INDENT}const {itype} {m.thread_id} = threadIdx.{m.axis};"
                if m.axis in looped else
                f"{INDENT}const {itype} {m.block_id} = blockIdx.{m.axis}, "
                f"{m.thread_id} = threadIdx.{m.axis};"
                for m in sorted(kernel.mapped, key=lambda m: m.member))
    body = print_node(stage.ast, expand, host=False, itype=itype, unrolled=unrolled)
    return KernelText(args, tuple(lines), ids, tuple(body))
