"""One cooperative launch for a whole SCoP, its arrays resident in shared memory.

In:  a ``Placement`` whose ``resident`` plan (``memory.resident.ResidentGrid``) says
     which rows of which arrays each block owns and who runs each kernel, its kernels'
     texts (``kernel.kernel_text``) and its host AST.
Out: the kernel ``NAME_resident`` and the host program's one launch of it
     (``POLYCU_LAUNCH_RESIDENT``), with the C both need (``DEVICE_HELPERS``, ``MACROS``).

The host loops run in every thread of every block (their bounds depend on parameters
and outer host iterators only).  Launch ``K[h]`` becomes a phase, ended by
``__syncthreads()``, the copy of the written arrays' edge rows to device memory and
either a grid-wide barrier or, on chip with ``plan.neighbours``, a wait for the two
neighbouring bands only: block ``p`` publishes ``flags[p] = n`` (release) once its
edge rows of phase ``n`` are in device memory and waits (acquire) until
``flags[p - 1]`` and ``flags[p + 1]`` reach ``n``.  Band ``p`` (rows ``[p R, p R + R)``)
is run by block ``p mod G`` of the ``G`` blocks; an aligned kernel's virtual blocks of
the band's rows are shared by that block's threads as in ``single_block.py``; a kernel
fixed at row ``c`` runs whole in the block of ``c``'s band; a free kernel's threads are
spread over the grid.

Each resident array ``X`` is seen by the phases through a ``polycu_band<T>`` named
``X``: cell ``c`` of the band is the block's shared copy, any other cell device memory.
The host gives the kernel its bands' shared memory only when the device holds all
``bands`` blocks with it at once (``G = bands``, one band a block); otherwise the band
is empty, every access goes to device memory, and the grid barriers keep the phases
in order as the launches did: the same kernel is right either way, and
``polycu_dynamic_bytes()`` tells it which way it runs.
"""
from __future__ import annotations

from typing import Any, Callable

import islpy as isl

from ..gpu.cost import BLOCK_THREADS
from ..gpu.kernel import GpuProgram, Kernel, launch_context
from ..memory import Placement
from ..memory.resident import ALIGNED, FREE, ResidentGrid
from .ast import expr_of, host_ast
from .nodes import User
from .cuda import INDENT, Layout, c_expr, index_type, print_node
from .kernel import kernel_text
from .halo import edge_names, edge_pointers, halo_fill, staged_halos, band_view
from .single_block import block_kernel_args, virtual_threads

#: The device code's helpers: the grid barrier, the block's dynamic shared memory and
#: its size, and the view of a resident array (the emulation defines the first three
#: in ``polycu_emu.h``).
DEVICE_HELPERS = r"""/* One cooperative launch, arrays resident in shared memory (codegen/resident.py). */
#ifndef POLYCU_EMULATE
#include <cooperative_groups.h>
#define POLYCU_GRID_SYNC() cooperative_groups::this_grid().sync()
#define POLYCU_DYNAMIC_SHARED(name) extern __shared__ __align__(16) unsigned char name[]
static __device__ __forceinline__ unsigned polycu_dynamic_bytes()
{
  unsigned n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
/* Phase n of block b is over: every thread's writes (ordered by the barrier, made
   visible to the device by the fence) happen before flags[b] = n is seen. */
static __device__ __forceinline__ void polycu_band_signal(unsigned *flags, unsigned n)
{
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flags + blockIdx.x), "r"(n)
                 : "memory");
  }
}
/* Wait until both neighbouring blocks have ended phase n; what they wrote before
   then is visible to every thread of the block after it.  Thread 0 polls the block
   above and thread 32 (another warp) the one below, at once: one flag's latency, not
   two (jacobi-2d at LARGE, H100: 4.47 against 4.60 ms, docs/results/resident_grid.md). */
static __device__ __forceinline__ void polycu_band_wait(const unsigned *flags, unsigned n)
{
  const bool above = threadIdx.x == 0 && blockIdx.x > 0;
  if (above || (threadIdx.x == 32 && blockIdx.x + 1 < gridDim.x)) {
    const unsigned *flag = flags + blockIdx.x + (above ? -1 : 1);
    unsigned seen;
    do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    while (seen < n);
  }
  __syncthreads();
}
/* A thread's walk down its rows (virtual_threads' walk), unrolled so that nvcc keeps
   a value read in one row in a register for the next rows' reads. */
#define POLYCU_UNROLL_ROWS _Pragma("unroll 4")
/* The block's threads, as launched (a constant: its groups' sizes are too). */
#define POLYCU_RESIDENT_THREADS """ + str(BLOCK_THREADS) + r"""
#else
#define POLYCU_UNROLL_ROWS
#define POLYCU_RESIDENT_THREADS ((int)blockDim.x)
#endif
/* Cell c of an array: the block's shared copy of cells [first, first + cells), device
   memory elsewhere. */
template <class T> struct polycu_band {
  T *slab, *global;
  long long first, cells;
  __device__ __forceinline__ T &operator[](long long c) const
  {
    return static_cast<unsigned long long>(c - first) < static_cast<unsigned long long>(cells)
               ? slab[c - first] : global[c];
  }
};"""

#: The host's launch: the grid and shared memory the device allows, then a cooperative
#: launch (the emulation's is in ``polycu_emu.h``).
MACROS = r"""/* A resident launch (codegen/resident.py): `bands` blocks with `bytes` of shared
   memory each where the device holds them all at once, else as many blocks as it
   holds without it; the kernel sees which from its dynamic shared memory. */
template <typename... Params>
struct polycu_resident {
  void (*kernel)(Params...);
  int bands;
  dim3 block;
  size_t bytes;
  cudaStream_t stream;
  void operator()(Params... values) const
  {
    void *pointers[sizeof...(Params) + 1] = {&values..., nullptr};
    int device = 0, sms = 1, most = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int threads = block.x * block.y * block.z;
    size_t shared = bytes;
    if (cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)bytes) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, (const void *)kernel, threads,
                                                      bytes) != cudaSuccess ||
        (long long)most * sms < bands) {
      (void)cudaGetLastError();
      shared = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, (const void *)kernel, threads, 0);
    }
    int grid = shared ? bands : (most * sms < bands ? most * sms : bands);
    /* POLYCU_CHECK_LAUNCH reads its status */
    (void)cudaLaunchCooperativeKernel((const void *)kernel, dim3(grid > 0 ? grid : 1), block,
                                      pointers, shared, stream);
  }
};
template <typename... Params>
static polycu_resident<Params...> polycu_launch_resident(void (*kernel)(Params...), int bands,
                                                         dim3 block, size_t bytes)
{
  return polycu_resident<Params...>{kernel, bands, block, bytes, 0};
}
#define POLYCU_LAUNCH_RESIDENT(kernel, bands, block, bytes, ...) \
  polycu_launch_resident(kernel, (bands), (block), (bytes))(__VA_ARGS__)
"""


def resident_kernel_name(program: GpuProgram) -> str:
    """The one kernel of a program run as one cooperative launch."""
    return f"{program.scop.name}_resident"


def resident_kernel_source(placement: Placement, arrays: dict[str, Layout]) -> str:
    """``extern "C" __global__ void NAME_resident(...)``: the host program, each launch
    a phase of the grid (the module's docstring)."""
    program, plan = placement.program, placement.resident
    assert plan is not None
    itype = index_type(program.scop)
    rows = plan.rows

    def phase(node: User) -> list[str]:
        kernel = program.kernel(node.name)

        def code_of(renamed: dict[str, str] | None = None) -> list[str]:
            text = kernel_text(placement, kernel, arrays, renamed)
            return [*text.declarations, *text.body]

        code = code_of()
        owner = plan.owners[kernel.name]
        lines = ["{", *(f"{INDENT}const {itype} {h} = {c_expr(e, wide=itype != 'int')};"
                        for h, e in zip(kernel.host_ids, node.args))]
        if not kernel.mapped:
            run = ["if (blockIdx.x == 0 && threadIdx.x == 0) {", *code, "}"]
        elif owner == FREE:
            run = virtual_threads(program, kernel, itype, code,
                                  first="blockIdx.x * blockDim.x + threadIdx.x",
                                  step="gridDim.x * blockDim.x")
        elif owner == ALIGNED:
            run = [f"for (long long polycu_p = blockIdx.x; polycu_p < {plan.bands}; "
                   "polycu_p += gridDim.x) {",
                   *(INDENT + line for line in _band_rows(program, plan, kernel, itype, code)),
                   "}"]
        else:
            run = [f"if ({int(owner) // rows} % gridDim.x == blockIdx.x) {{",
                   *(INDENT + line for line in virtual_threads(program, kernel, itype, code)),
                   "}"]
        copies = [line for array in plan.arrays
                  if array.name in kernel.writes and array.halo > 0
                  for line in _edges(array.name, array.halo * array.row_cells)]
        if owner == ALIGNED:
            run = ["if (polycu_on_chip) {", *_indent(_edges_first(
                       program, plan, kernel, itype, code_of, copies, flags)),
                   "} else {", *_indent([*run, "__syncthreads();", *copies,
                                         "POLYCU_GRID_SYNC();"]), "}"]
        else:
            run += ["__syncthreads();", *copies, *_phase_end(plan.neighbours, flags)]
        return lines + _indent(run) + ["}"]

    args = block_kernel_args(program, arrays)
    flags = f"polycu_flags_{resident_kernel_name(program)}"
    lines = [f"static __device__ unsigned {flags}[{plan.bands}];"] if plan.neighbours else []
    lines += [f'extern "C" __global__ void __launch_bounds__({BLOCK_THREADS}) '
              f'{resident_kernel_name(program)}(' + ", ".join(a.declaration for a in args) + ")",
              "{", f"{INDENT}POLYCU_DYNAMIC_SHARED(polycu_dynamic);",
              f"{INDENT}const bool polycu_on_chip = polycu_dynamic_bytes() >= {plan.bytes}u;",
              f"{INDENT}const long long polycu_row = (long long)blockIdx.x * {rows};"]
    for array, offset in zip(plan.arrays, plan.offsets()):
        name, cells = array.name, f"{rows * array.row_cells}"
        last = f"({array.rows} - polycu_row) * {array.row_cells}"
        lines += [f"{INDENT}const polycu_band<{array.element}> {band_view(name)} = {{"
                  f"reinterpret_cast<{array.element} *>(polycu_dynamic + {offset}), {name}, "
                  f"polycu_row * {array.row_cells}, !polycu_on_chip || polycu_row >= "
                  f"{array.rows} ? 0 : {last} < {cells} ? {last} : {cells}}};",
                  *_copy(f"{band_view(name)}.slab[polycu_c]",
                         f"{name}[{band_view(name)}.first + polycu_c]", f"{band_view(name)}.cells")]
    body = print_node(host_ast(program), phase, host=False, itype=itype)
    if plan.neighbours:       # no block waits for a flag before every block cleared its own
        lines += [f"{INDENT}unsigned polycu_phase = 0;",
                  f"{INDENT}if (threadIdx.x == 0) {flags}[blockIdx.x] = 0u;",
                  f"{INDENT}POLYCU_GRID_SYNC();"]
    else:
        lines.append(f"{INDENT}__syncthreads();")
    lines += [f"{INDENT}{{",
              *(f"{INDENT * 2}const auto &{a.name} = {band_view(a.name)};" for a in plan.arrays),
              *(INDENT + line for line in body), f"{INDENT}}}"]
    for array in plan.arrays:
        view = band_view(array.name)
        lines += _copy(f"{array.name}[{view}.first + polycu_c]", f"{view}.slab[polycu_c]",
                       f"{view}.cells")
    lines.append("}")
    return "\n".join(lines)


#: The block's threads in the kernel's text: the launch's, the emulation's fewer.
THREADS = "POLYCU_RESIDENT_THREADS"
#: The shortest segment of rows a thread walks (``_band_rows``).
WALK_ROWS = 4


def _indent(lines: list[str]) -> list[str]:
    return [INDENT + line for line in lines]


# On chip, an aligned kernel's phase n in block p: the band's edge rows (the only
# instances that read a neighbour's rows) apart from its inner rows (on the shared
# copies), each edge row's references resolved when generated (``halo.py``).  With the
# grid barrier and staged halo rows, their copy starts the phase, the inner rows run
# while it lands, then the edge rows; unstaged, the edge rows come first.  With flags,
# the edge rows first, then their copies to device memory and flags[p] = n, so that
# the neighbours catch up while the inner rows run, and the wait for flags[p - 1] and
# flags[p + 1] to reach n ends the phase.  That wait protects what _phase_end's does:
# a neighbour publishes phase n's edge rows only after its own edge instances of
# phase n, the only ones that read this band's copies, have run.
def _edges_first(program: GpuProgram, plan: ResidentGrid, kernel: Kernel, itype: str,
                 code_of: Callable[[dict[str, str] | None], list[str]], copies: list[str],
                 flags: str) -> list[str]:
    """The phase of an aligned kernel on chip (one band a block: ``polycu_r`` is the
    block's), the edge rows apart from the inner ones."""
    halo = max(a.halo for a in plan.arrays)
    cases = [code_of(edge_names(plan, kernel.name, k, halo)) for k in range(2 * halo)]
    code = cases[-1]
    for k in reversed(range(2 * halo - 1)):      # k, the edge row: warp-uniform
        code = [f"{INDENT}if (polycu_k == {k}) {{", *_indent(cases[k]), f"{INDENT}}} else {{",
                *_indent(code), f"{INDENT}}}"]
    resident = {a.name for a in plan.arrays}
    refs = {access.ref: access.array for stmt in program.scop.statements
            if stmt.name in kernel.statements for access in stmt.accesses
            if access.array in resident}
    edges = ["{", *_indent([*edge_pointers(plan, kernel.name, refs),
                            *_band_rows(program, plan, kernel, itype, code, "edges")]), "}"]
    inner = ["{", *_indent(_band_rows(program, plan, kernel, itype, code_of(None), "inner")),
             "}"]
    staged = bool(staged_halos(plan, kernel.name))
    fill = halo_fill(plan, kernel.name) if staged else []
    landed = ["POLYCU_COPY_WAIT();", "__syncthreads();"] if staged else []
    start = ["const long long polycu_r = polycu_row;", *fill]
    if not plan.neighbours:
        order = [*inner, *landed, *edges] if staged else [*edges, *inner]
        return [*start, *order, "__syncthreads();", *copies, "POLYCU_GRID_SYNC();"]
    return [*start, *landed, *edges, "__syncthreads();", *copies,
            f"polycu_band_signal({flags}, ++polycu_phase);", *inner,
            f"polycu_band_wait({flags}, polycu_phase);"]


# Band p's rows [r, r + R): on chip, rows [r + d, r + R - d) read only the block's own
# rows (every read is within d = max d_X rows of its instance's row), so their code
# indexes the shared copies directly; the rows within d of the band's edges, and every
# row off chip, go through the views.  The rows go to G groups of the block's threads
# in turn, each group's threads over a row's M virtual threads: G minimises
# ceil(R / G) ceil(M / (BLOCK_THREADS / G)), the steps of the slowest thread.
# ``part`` "edges": rows [r, r + d) and [r + R - d, r + R) only, through the views;
# "inner": rows [r + d, r + R - d) only, on the shared copies (on chip only), cut into
# S segments, each thread walking one segment's rows for one column (virtual_threads'
# walk), so that a value read in one row and again in the next stays in a register:
# a column's S segments take ceil(M S / T) passes of the T threads, each about
# ceil(I / S) + 1/2 rows' work (I inner rows, the half for the first row's extra
# reads); S minimises their product.  Segments shorter than WALK_ROWS rows keep the
# rows spread over groups of threads as the edge rows are (fdtd-2d's 2-row segments
# were slower than that on an H100, jacobi-2d's 4-row ones faster).  The shared copies' pointers are restrict: in
# this scope each array's band is accessed through its own pointer only, and no
# thread reads a value another thread writes in the same launch.
def _band_rows(program: GpuProgram, plan: ResidentGrid, kernel: Kernel, itype: str,
               code: list[str], part: str = "all") -> list[str]:
    """Band ``polycu_p``'s virtual blocks of an aligned kernel: its inner rows with the
    arrays' shared copies as plain pointers, its edge rows through the views."""
    rows, low = plan.rows, _first_row(program, kernel)
    if plan.shifts.get(kernel.name):        # the row of virtual block b: b + lo + s
        low = f"{low} + {plan.shifts[kernel.name]}"
    halo = max(a.halo for a in plan.arrays)
    grid = f"polycu_g{kernel.mapped[0].axis}"
    per_row = _row_threads(program, kernel)
    narrow = per_row is not None and per_row * rows < 2**31

    def groups(count: int) -> int:
        return min((1, 2, 4, 8, 16, 32), key=lambda g: (-(-count // g)) *
                   (-(-(per_row or 2**31) // (BLOCK_THREADS // g))))

    used = kernel.reads | kernel.writes
    bound = [f"{a.element} *{'__restrict__ ' if part == 'inner' else ''}const {a.name} = "
             f"{band_view(a.name)}.slab - {band_view(a.name)}.first;"
             for a in plan.arrays if a.name in used]
    if part == "edges":
        top = f"polycu_r - ({low})"
        row = f"polycu_k < {halo} ? {top} + polycu_k : {top} + {rows - 2 * halo} + polycu_k"
        return virtual_threads(program, kernel, itype, code, band=("0", str(2 * halo),
                               groups(2 * halo)), narrow=narrow, row=row,
                               threads=THREADS)
    if part == "inner":
        inner = rows - 2 * halo
        segments = min(range(1, inner + 1), key=lambda s: (
            -(-(per_row or 2**31) * s // BLOCK_THREADS)) * (-(-inner // s) + 0.5))
        walk = -(-inner // segments) >= WALK_ROWS
        band = (f"max(polycu_r + {halo} - ({low}), 0LL)",
                f"min(polycu_r + {rows - halo} - ({low}), (long long){grid})",
                segments if walk else groups(inner))
        return [*bound, *virtual_threads(program, kernel, itype, code, band=band,
                                         narrow=narrow, walk=walk, threads=THREADS)]
    row = f"polycu_b + ({low})"
    body = code
    if rows > 2 * halo:
        body = [f"{INDENT}if (polycu_on_chip && {row} >= polycu_r + {halo} && "
                f"{row} < polycu_r + {rows - halo}) {{", *_indent(_indent(bound)),
                *(INDENT + line for line in code), f"{INDENT}}} else {{",
                *(INDENT + line for line in code), f"{INDENT}}}"]
    band = (f"max(polycu_r - ({low}), 0LL)", f"min(polycu_r + {rows} - ({low}), "
            f"(long long){grid})", groups(rows))
    return [f"const long long polycu_r = polycu_p * {rows};",
            *virtual_threads(program, kernel, itype, body, band=band, narrow=narrow,
                             threads=THREADS)]


# The virtual threads of one row: along each mapped axis the block's threads and, but
# along the first member's, the most blocks any valid launch has (max of the grid over
# launch_context); None where isl cannot bound them.
def _row_threads(program: GpuProgram, kernel: Kernel) -> int | None:
    """The most virtual threads of one row of ``kernel``."""
    count = 1
    context = launch_context(program.scop)
    for member in kernel.mapped:
        count *= member.block
        if member is kernel.mapped[0]:
            continue
        grid = member.grid.intersect_params(
            kernel.host_context(context).align_params(member.grid.get_space()))
        try:
            most = grid.max_val()
        except isl.Error:
            return None
        if not most.is_int():
            return None
        count *= most.to_python()
    return count


def _first_row(program: GpuProgram, kernel: Kernel) -> str:
    """C text of the row of the kernel's virtual block 0 at its launch: ``lo`` of its
    first mapped member, whose tiles are one row (``floor(lo / 1)``)."""
    first = kernel.mapped[0]
    context = kernel.host_context(program.scop.context)
    return c_expr(expr_of(first.tile_offset, context), wide=True)


def _copy(to: str, source: str, cells: str) -> list[str]:
    """Every cell of a band copied by the block's threads."""
    return [f"{INDENT}for (long long polycu_c = threadIdx.x; polycu_c < {cells}; "
            f"polycu_c += blockDim.x)", f"{INDENT * 2}{to} = {source};"]


# A phase's end.  On chip with flags, block p waits only for bands p - 1 and p + 1:
# every read of another band's row is within d < R rows of the band (the plan's
# R > 2d), so it is an edge row of a neighbour, and a neighbour's flag at n means its
# edge rows of phase n are in device memory.  No block starts phase n + 2 before both
# its neighbours ended phase n + 1, so neighbours are never more than one phase apart:
# an edge row a block reads in phase n + 1 is not overwritten by its owner's copy of
# phase n + 2 (write after read), and the last phase's wait keeps the final copy of
# each band from landing under a neighbour that still reads the edge rows.  Off chip
# (several bands a block, every access in device memory) the grid barrier stays.
def _phase_end(neighbours: bool, flags: str) -> list[str]:
    """The synchronisation that ends a phase (after its edge rows' copies)."""
    if not neighbours:
        return ["POLYCU_GRID_SYNC();"]
    return ["if (polycu_on_chip) {", f"{INDENT}polycu_band_signal({flags}, ++polycu_phase);",
            f"{INDENT}polycu_band_wait({flags}, polycu_phase);", "} else {",
            f"{INDENT}POLYCU_GRID_SYNC();", "}"]


# The edges of a band of C cells, e cells each: with n = min(2e, C) cells copied,
# copy k in [0, n) is cell k where k < e, else cell k + C - n (the last n - e cells);
# when C < 2e that is every cell once.
def _edges(name: str, cells: int) -> list[str]:
    """The first and last ``cells`` cells of the block's band of ``name`` copied to device
    memory, where its neighbours read them after the barrier: only those cells are
    visited, not the whole band."""
    view = band_view(name)
    count = f"({view}.cells < {2 * cells} ? {view}.cells : {2 * cells}LL)"
    return [f"for (long long polycu_k = threadIdx.x; polycu_k < {count}; "
            f"polycu_k += blockDim.x) {{",
            f"{INDENT}const long long polycu_c = polycu_k < {cells} ? polycu_k : "
            f"polycu_k + {view}.cells - {count};",
            f"{INDENT}{view}.global[{view}.first + polycu_c] = {view}.slab[polycu_c];", "}"]


def resident_launch(program: GpuProgram, arrays: dict[str, Layout]) -> dict[str, Any]:
    """The host program's one launch (``host.control_tree``'s form)."""
    return {"launch": resident_kernel_name(program), "bind": {},
            "grid": [{"c": "1"}] * 3, "block": [BLOCK_THREADS, 1, 1],
            "args": [a.name for a in block_kernel_args(program, arrays)]}


def resident_kernel_entry(program: GpuProgram, arrays: dict[str, Layout],
                          plan: ResidentGrid) -> dict[str, Any]:
    """How the one kernel is launched (``host.launched``'s form): ``resident`` gives
    the bands and each one's bytes, from which the launch takes its grid."""
    return {"name": resident_kernel_name(program),
            "args": [{"name": a.name, "type": a.ctype, "role": a.role, "array": a.array}
                     for a in block_kernel_args(program, arrays)],
            "block": [BLOCK_THREADS, 1, 1], "grid": [{"c": "1"}] * 3, "barriers": True,
            "objects": [],
            "resident": {"bands": plan.bands, "bytes": plan.bytes, "about": plan.describe()}}
