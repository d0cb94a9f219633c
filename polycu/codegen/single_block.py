"""One block for a whole SCoP: the host program's loops and launches as one kernel.

In:  the ``Placement`` of a ``GpuProgram`` that runs in one block (``single_block``:
     the ranking's choice, ``gpu.cost.single_block_cost``), its kernels' texts
     (``kernel.kernel_text``) and its host AST.
Out: the kernel ``NAME_block`` (its parameters and C text) and the host program's
     one launch of it, with one block of ``BLOCK_THREADS`` threads.

The host loops run in every thread of the block: their bounds depend on the
parameters and on outer host iterators only, so all threads take the same path.
Launch ``K[h]`` of kernel ``K``, with grid ``G(h)`` and blocks of ``B`` threads,
becomes a phase: its ``|G(h)| |B|`` threads are numbered ``v`` with thread x fastest,
then y, z, then block x, y, z (each id ``floor(v / E_<) mod E`` for ``E`` its extent
and ``E_<`` the product of the extents before it), thread ``r`` of the block runs
``v = r, r + R, r + 2R, ...``, each as ``K``'s code with those ids, and a
``__syncthreads()`` ends the phase.  The barrier orders the phases' memory accesses
as the end of a launch did; an array some phase writes is read plainly (the read-only
path and textures are not coherent with the block's own writes: ``memory.kinds``),
and no phase has shared tiles of its own.

The arrays the phases write whose extents are constants stay in shared memory for
the whole launch (``resident``, as many as fit in ``RESIDENT_BYTES``, first come):
copied in before the first phase and out after the last, the phases index the
shared copy under the array's own name (a reference to it).  The block is the
only one running, so the copy is the array, and the phases' barriers order its
accesses as they order device memory's; a store to device memory would evict the
cache line that the next phase's loads then fetch from L2 again.

``POLYCU_VIRTUAL(v, n)`` is ``v`` on a GPU; the CPU emulation runs the virtual
threads in reverse order (``n - 1 - v``), as it runs the blocks and threads of a
launch, so that a phase that is not parallel breaks there as it would on a GPU.
"""
from __future__ import annotations

import math
from typing import Any

from ..frontend.ctype import parse_type
from ..gpu.cost import BLOCK_THREADS
from ..gpu.kernel import AXES, GpuProgram, Kernel
from ..memory import Placement
from ..memory.kinds import element_bytes, extents
from .ast import grid_exprs, host_ast
from .nodes import User
from .cuda import INDENT, Layout, c_expr, index_type, print_node
from .kernel import KernelArg, kernel_text, struct_arg


def block_kernel_name(program: GpuProgram) -> str:
    """The one kernel of a program that runs in one block."""
    return f"{program.scop.name}_block"


def block_kernel_args(program: GpuProgram, arrays: dict[str, Layout]) -> tuple[KernelArg, ...]:
    """The parameters, the read-only scalars by value, then every array a phase uses
    (``const`` where no phase writes it)."""
    scop = program.scop
    itype = index_type(scop)
    used = frozenset().union(*((k.reads | k.writes) - k.private for k in program.kernels))
    written = frozenset().union(*(k.writes for k in program.kernels))
    args = [KernelArg(p, itype, "param") for p in scop.parameters]
    args += [KernelArg(a.name, a.element_type, "scalar", a.name) for a in scop.arrays
             if a.name in used and arrays[a.name].by_value]
    for array in scop.arrays:
        if array.name in used and array.member is not None:
            args += struct_arg(scop, array, written, args)
        elif array.name in used and not arrays[array.name].by_value:
            const = "" if array.name in written else "const "
            args.append(KernelArg(array.name, f"{const}{array.element_type} *__restrict__",
                                  "array", array.name))
    return tuple(args)


#: Bytes of static shared memory the arrays resident in the block may take.
RESIDENT_BYTES = 48 * 1024


# An array A is resident when some phase writes it, every extent of A is a constant
# (its cells: their product), no phase updates it atomically, and the resident
# arrays before it in the SCoP's order leave room for its bytes.
def resident(program: GpuProgram, arrays: dict[str, Layout]) -> dict[str, int]:
    """The arrays kept in shared memory for the launch, with their cells."""
    written = frozenset().union(*(k.writes for k in program.kernels))
    atomic = frozenset().union(*(k.reads | k.writes for k in program.kernels if k.atomic))
    found, room = {}, RESIDENT_BYTES
    for array in program.scop.arrays:
        ctype, shape = parse_type(array.element_type), extents(program.scop, array)
        if array.name not in written or array.name in atomic or arrays[array.name].by_value \
                or array.member is not None or ctype is None or ctype.bits not in (8, 16, 32, 64) \
                or shape is None:
            continue
        cells = math.prod(shape)
        if 0 < cells * element_bytes(array) <= room:
            found[array.name] = cells
            room -= cells * element_bytes(array)
    return found


def block_kernel_source(placement: Placement, arrays: dict[str, Layout]) -> str:
    """``extern "C" __global__ void NAME_block(...)``: the host program, each launch a
    phase of the block (the module's docstring)."""
    program = placement.program
    itype = index_type(program.scop)
    wide = itype != "int"
    kept = resident(program, arrays)

    def phase(node: User) -> list[str]:
        kernel = program.kernel(node.name)
        text = kernel_text(placement, kernel, arrays)
        lines = ["{", *(f"{INDENT}const {itype} {h} = {c_expr(e, wide=wide)};"
                        for h, e in zip(kernel.host_ids, node.args))]
        code = [*text.declarations, *text.body]
        if not kernel.mapped:
            lines += ["if (threadIdx.x == 0) {", *code, "}"]
        else:
            lines += [INDENT + line for line in virtual_threads(program, kernel, itype, code)]
        return lines + [f"{INDENT}__syncthreads();", "}"]

    args = block_kernel_args(program, arrays)
    lines = [f'extern "C" __global__ void __launch_bounds__({BLOCK_THREADS}) '
             f'{block_kernel_name(program)}(' + ", ".join(a.declaration for a in args) + ")",
             "{"]
    body = print_node(host_ast(program), phase, host=False, itype=itype)
    if kept:
        # the phases in a block of their own, where each resident array's name is
        # the shared copy (it hides the parameter, the device buffer)
        for name, cells in kept.items():
            element = program.scop.array(name).element_type
            lines += [f"{INDENT}POLYCU_SHARED({element}, {_shared(name)}, {cells});",
                      *_copy(_shared(name), name, cells)]
        lines += [f"{INDENT}__syncthreads();", f"{INDENT}{{",
                  *(f"{INDENT * 2}auto &{name} = {_shared(name)};" for name in kept),
                  *(INDENT + line for line in body), f"{INDENT}}}"]
        for name, cells in kept.items():
            lines += _copy(name, _shared(name), cells)
    else:
        lines += body
    lines.append("}")
    return "\n".join(lines)


def _shared(name: str) -> str:
    return f"polycu_resident_{name}"


def _copy(to: str, source: str, cells: int) -> list[str]:
    """Every cell of an array copied by the block's threads, a thread's cells a block
    apart (the phases' barriers order it after the last one's stores)."""
    return [f"{INDENT}for (int polycu_c = threadIdx.x; polycu_c < {cells}; "
            f"polycu_c += blockDim.x)",
            f"{INDENT * 2}{to}[polycu_c] = {source}[polycu_c];"]


# polycu_w = i_0 + e_0 (i_1 + e_1 (i_2 + ...)): id k is (polycu_w / (e_0 ... e_{k-1})) mod e_k,
# the last without the mod.
def _decode(ids: list[tuple[str, str]], itype: str, pad: str) -> list[str]:
    """The ids of virtual thread ``polycu_w``, each with its extent, first fastest."""
    lines, below = [], ""           # the division by the extents before this id
    for k, (name, extent) in enumerate(ids):
        value = f"polycu_w{below}"
        if k < len(ids) - 1:
            value = (f"({value})" if below else value) + f" % {extent}"
            below += f" / {extent}"
        lines.append(f"{pad}const {itype} {name} = ({itype})({value});")
    return lines


def virtual_threads(program: GpuProgram, kernel: Kernel, itype: str, code: list[str], *,
                    first: str = "threadIdx.x", step: str = "blockDim.x",
                    band: tuple[str, str, int] | None = None, narrow: bool = False,
                    row: str | None = None, walk: bool = False,
                    threads: str = "blockDim.x") -> list[str]:
    """The loop of the threads (``first``, ``first + step``, ...) over the launch's
    threads, naming each one's block and thread ids as the kernel does, around ``code``
    (indented once).  ``band`` (low, high, groups): the blocks of the first mapped
    member's axis in [low, high) only, ``polycu_b``, one to each of ``groups`` groups of
    the block's threads in turn, each group's threads over that block's threads and
    the other axes' blocks (``resident.py``); ``row``: the band's index ``polycu_k``
    runs over [low, high) instead and names block ``polycu_b = row``, those outside the
    grid skipped; ``walk``: ``groups`` is the number of segments the rows [low, high)
    are cut into, and each thread takes one of the other ids' tuples and one segment and
    walks its rows in order, unrolled by ``POLYCU_UNROLL_ROWS`` (so that a value one row
    reads is still in a register for the next, ``resident.py``); ``narrow`` counts in 32
    bits, where the caller knows the threads fewer than 2^31; ``threads``: the block's
    threads (a constant where the caller knows it: its groups' sizes are then too)."""
    count = "int" if narrow else "long long"
    axes = kernel.by_axis()
    grids = dict(zip(AXES, grid_exprs(program, kernel)))
    used = [a for a in AXES if a in axes]
    lines = [f"const {count} polycu_g{a} = {c_expr(grids[a], wide=itype != 'int')};"
             for a in used]
    banded = kernel.mapped[0].axis if band is not None else None
    ids = [(axes[a].thread_id, str(axes[a].block)) for a in used] + \
        [(axes[a].block_id, f"polycu_g{a}") for a in used if a != banded]
    lines.append(f"const {count} polycu_n = {' * '.join(e for _, e in ids)};")
    pad = ""
    if band is not None and walk:
        low, high, segments = band
        lines += [f"const long long polycu_lo = {low}, polycu_hi = {high};",
                  f"const {count} polycu_len = polycu_hi > polycu_lo ? "
                  f"(polycu_hi - polycu_lo + {segments - 1}) / {segments} : 0;",
                  f"for ({count} polycu_t = threadIdx.x; polycu_t < polycu_n * {segments}; "
                  f"polycu_t += {threads}) {{",
                  f"{INDENT}const {count} polycu_s = polycu_t / polycu_n;",
                  f"{INDENT}const {count} polycu_w = POLYCU_VIRTUAL(polycu_t % polycu_n, polycu_n);",
                  *_decode(ids, itype, INDENT),
                  f"{INDENT}const {count} polycu_e = ({count})min(polycu_lo + (polycu_s + 1) * "
                  "polycu_len, polycu_hi);", f"{INDENT}POLYCU_UNROLL_ROWS",
                  f"{INDENT}for ({count} polycu_b = polycu_lo + polycu_s * polycu_len; "
                  "polycu_b < polycu_e; ++polycu_b) {",
                  f"{INDENT * 2}const {itype} {axes[banded].block_id} = ({itype})polycu_b;"]
        return lines + [INDENT + line for line in code] + [f"{INDENT}}}", "}"]
    if band is not None:
        low, high, groups = band
        index = "polycu_k" if row is not None else "polycu_b"
        lines += [f"const int polycu_l = {threads} / {groups};",
                  f"for ({count} {index} = {low} + threadIdx.x / polycu_l; {index} < {high}; "
                  f"{index} += {groups}) {{"]
        first, step, pad = "threadIdx.x % polycu_l", "polycu_l", INDENT
        if row is not None:
            lines += [f"{pad}const {count} polycu_b = {row};",
                      f"{pad}if (polycu_b < 0 || polycu_b >= polycu_g{banded}) continue;"]
        lines.append(f"{pad}const {itype} {axes[banded].block_id} = ({itype})polycu_b;")
    lines.append(f"{pad}for ({count} polycu_v = {first}; polycu_v < polycu_n; "
                 f"polycu_v += {step}) {{")
    inner = pad + INDENT
    lines.append(f"{inner}const {count} polycu_w = POLYCU_VIRTUAL(polycu_v, polycu_n);")
    lines += _decode(ids, itype, inner)
    lines += [pad + line for line in code] + [pad + "}"]
    return lines + (["}"] if band is not None else [])


def block_launch(program: GpuProgram, arrays: dict[str, Layout]) -> dict[str, Any]:
    """The host program's one launch (``host.control_tree``'s form)."""
    return {"launch": block_kernel_name(program), "bind": {},
            "grid": [{"c": "1"}] * 3, "block": [BLOCK_THREADS, 1, 1],
            "args": [a.name for a in block_kernel_args(program, arrays)]}


def block_kernel_entry(program: GpuProgram, arrays: dict[str, Layout]) -> dict[str, Any]:
    """How the one kernel is launched (``host.launched``'s form)."""
    return {"name": block_kernel_name(program),
            "args": [{"name": a.name, "type": a.ctype, "role": a.role, "array": a.array}
                     for a in block_kernel_args(program, arrays)],
            "block": [BLOCK_THREADS, 1, 1], "grid": [{"c": "1"}] * 3, "barriers": True,
            "objects": [], "single_block": True}
