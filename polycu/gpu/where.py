"""Where a SCoP runs: the GPU program built for it, or its original code on the CPU
(issue 14, "small problems stay small").

In:  the ``GpuProgram`` chosen for a SCoP (the ranking's best candidate, in one block
     where the ranking said so) and whether the user forces a side (``--run-on``).
Out: ``Where``: the sizes the decision is made at, the GPU estimate (kernels,
     transfers, allocations), the CPU estimate of the original loop nest on one
     core, and the verdict with the sentence that says why.

The goal is the fastest program, not everything on the GPU: a SCoP whose work is
small or inherently sequential (PolyBench's durbin and trisolv, every kernel at
MINI) costs more in launches, allocations and copies than the CPU needs for the
whole loop nest.  Only clear losers leave the GPU: the SCoP runs on the CPU when
its GPU estimate exceeds ``MARGIN`` times the CPU's.

Sizes.  Each parameter, in order, takes the largest value that keeps every access
inside its array's extents (PolyBench's arrays have the dataset's constant extents,
so ``n`` becomes the dataset's N); a parameter no extent bounds (a time-step count,
the extent of a variable-length array) takes ``cost.N``, the ranking's own value.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..frontend.ctype import parse_type
from ..model import Array, Scop, Statement, sets_of
from .cost import (N, box_size, kernel_costs, launch_cost, single_block_cost, step_map,
                   stride_ok)
from .kernel import GpuProgram

AUTO, GPU, CPU = "auto", "gpu", "cpu"
#: --run-on's values.
SIDES = (AUTO, GPU, CPU)

#: The SCoP runs on the CPU when its GPU estimate is above MARGIN times the CPU's.
MARGIN = 2.0
#: The original code on one core (gcc -O3): CPU_INSTANCE ns per statement
#: instance, plus CPU_STRIDE ns per access of the instance that the next iteration
#: of the innermost loop moves by more than one element (a column walk misses the
#: cache line).  Fitted (least squares of the log ratio) to the CPU seconds of the 30
#: PolyBench kernels at LARGE (docs/results/programs.md: the original, gcc -O3, one
#: thread), the instances counted by ``instances`` at the dataset's sizes: the
#: estimate is within a factor of 2 of the measured time for 23 of them (the rest:
#: seidel-2d 0.12, covariance 0.36, 2mm 0.49 too low; nussinov 2.1, durbin 2.2,
#: syrk 2.4, doitgen 3.2 too high); one constant alone (1.9 ns) gets 14.
CPU_INSTANCE, CPU_STRIDE = 1.15, 1.4
#: Host-device copies, ns a byte (docs/results/transfers.md, H100, before the staged
#: copies of codegen/staged.py): a copy in moved about 6.7 GB/s (0.15 ns a byte), a
#: copy out 12.5 GB/s pageable (0.08) and 54 GB/s for an array of LARGE_COPY bytes
#: or more that was copied in and page-locked for it (0.019).  Staged, an array of
#: 8 MB or more now moves at about 19 GB/s in and 23 GB/s out inside a program (an
#: H200's host, session 30); the decision keeps the dearer copy-in as its margin:
#: priced at the staged rate, trisolv at LARGE goes to the GPU (estimates 3.06 ms
#: against 2.31 on the CPU, within MARGIN), where its program took 4.64 ms against
#: the CPU's 3.17.  Each copy waits at least COPY ns.
COPY_IN, PAGEABLE_OUT, LARGE_OUT, COPY = 0.15, 0.08, 0.019, 10_000.0
LARGE_COPY = 16 << 20
#: ns of one device buffer's cudaMalloc and cudaFree.
ALLOCATION = 10_000.0
#: From this kernel estimate (ns) on, the host faults in the pages of the arrays it
#: copies in and out while the GPU runs (codegen/prefault.py, "late").  Measured on
#: an H200 at LARGE (session 43, docs/results/transfers.md), programs by their
#: estimate: adi (413 ms) 1.094x, floyd-warshall (7 s; 65 ms measured) 1.065x, ludcmp
#: (122 ms) 1.054x, seidel-2d (41 ms) 1.040x, nussinov and gramschmidt 0.998x and
#: 0.993x; below, mixed (lu 25 ms 0.92x in noisy runs, jacobi-2d 8 ms 1.02x, fdtd-2d
#: 0.985x) and losses at 0.1-0.25 ms (gemm 0.92x, gemver 0.87x, correlation 0.96x).
LATE_FAULTS = 30e6
#: Statement instances counted exactly (isl enumerates them); a larger domain is
#: its box times the fraction of the box it fills at sizes scaled down to this.
EXACT = 1_000_000


@dataclass(frozen=True)
class Where:
    """The decision for one SCoP and the estimates (ns) it was made from."""

    side: str                  # GPU or CPU
    sizes: dict[str, int]      # the parameter values estimated at
    kernels: float             # the GPU program's kernels (the ranking's estimate)
    transfers: float           # copies in and out, allocations
    cpu: float                 # the original code on one core
    forced: bool = False       # --run-on gpu or cpu chose the side

    @property
    def gpu(self) -> float:
        return self.kernels + self.transfers

    @property
    def late_faults(self) -> bool:
        """Whether the kernels run long enough to hide the copies' page faults."""
        return self.side == GPU and self.kernels >= LATE_FAULTS

    def sentence(self) -> str:
        """'runs on the CPU: GPU estimate X ms (kernels Y, transfers Z) > 2 x CPU
        estimate W ms', or the reverse, with the sizes."""
        sizes = ", ".join(f"{p}={v}" for p, v in self.sizes.items())
        gpu = (f"GPU estimate {_ms(self.gpu)} (kernels {_ms(self.kernels)}, transfers and "
               f"allocations {_ms(self.transfers)})")
        cpu = f"{MARGIN:g} x CPU estimate {_ms(self.cpu)}"
        above = self.gpu > MARGIN * self.cpu
        said = f"{gpu} {'>' if above else '<='} {cpu}" + (f" at {sizes}" if sizes else "")
        if self.forced:
            return f"runs on the {self.side.upper()} (--run-on {self.side}; {said})"
        return f"runs on the {self.side.upper()}: {said}"


@dataclass(frozen=True, eq=False)
class CpuScop:
    """A SCoP left to the CPU: the program keeps its original code (codegen splices
    no call in), for the reason ``where`` gives."""

    scop: Scop
    where: Where


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3g} ms"


def decide(program: GpuProgram, run_on: str = AUTO) -> Where:
    """Where the SCoP of ``program`` runs (``run_on``: AUTO, or the side forced)."""
    assert run_on in SIDES, run_on
    scop = program.scop
    sizes = problem_sizes(scop)
    point = point_of(scop, sizes)
    kernels = kernel_costs(program, point)
    one_block = single_block_cost(kernels) if program.single_block else None
    gpu = launch_cost(kernels) if one_block is None else one_block
    moved = transfer_cost(program, point)
    cpu = cpu_cost(scop, point)
    if run_on != AUTO:
        return Where(run_on, sizes, gpu, moved, cpu, forced=True)
    return Where(CPU if gpu + moved > MARGIN * cpu else GPU, sizes, gpu, moved, cpu)


# -- sizes ------------------------------------------------------------------------------

def out_of_bounds_parameters(scop: Scop) -> isl.Set:
    """Parameter values at which some access leaves its array's extents."""
    bad = isl.Set.empty(scop.context.get_space())
    for stmt in scop.statements:
        for access in stmt.accesses:
            array = scop.array(access.array)
            if array.extent_set is None or array.is_scalar:
                continue
            touched = access.relation.intersect_domain(stmt.domain).range()
            bad = bad.union(touched.subtract(array.extent_set).params())
    return bad.coalesce()


def problem_sizes(scop: Scop) -> dict[str, int]:
    """Each parameter at its largest value (in order, the earlier ones fixed) that
    keeps the accesses inside their arrays and satisfies the context; ``N`` where
    nothing bounds it (or where no value in bounds is left)."""
    good = scop.context.subtract(out_of_bounds_parameters(scop))
    positive = good
    for name in scop.parameters:
        k = good.find_dim_by_name(isl.dim_type.param, name)
        positive = positive.lower_bound_val(isl.dim_type.param, k, isl.Val.one(good.get_ctx()))
    good = good if positive.is_empty() else positive
    sizes = {}
    for name in scop.parameters:
        k = good.find_dim_by_name(isl.dim_type.param, name)
        values = good.move_dims(isl.dim_type.set, 0, isl.dim_type.param, k, 1)
        value = N
        if not values.is_empty() and values.is_bounded():
            value = values.lexmax().sample_point().get_coordinate_val(
                isl.dim_type.set, 0).to_python()
        fixed = good.fix_val(isl.dim_type.param, k, value)
        good = fixed if not fixed.is_empty() else good.fix_val(isl.dim_type.param, k, N)
        sizes[name] = int(value)
    return sizes


def point_of(scop: Scop, sizes: dict[str, int]) -> isl.Set:
    """The parameter point ``sizes`` in the space of ``scop``'s context."""
    point = isl.Set.universe(scop.context.get_space())
    for name, value in sizes.items():
        point = point.fix_val(isl.dim_type.param,
                              point.find_dim_by_name(isl.dim_type.param, name), value)
    return point


# -- the CPU ----------------------------------------------------------------------------

# cpu = sum over statements S of |domain(S) at the sizes|
#         * (CPU_INSTANCE + CPU_STRIDE * strided(S))
def cpu_cost(scop: Scop, point: isl.Set) -> float:
    """The original code's estimated ns on one core at the parameter point."""
    return sum(instances(s.domain, point) * (CPU_INSTANCE + CPU_STRIDE * strided(s))
               for s in scop.statements)


def strided(stmt: Statement) -> int:
    """The accesses of ``stmt`` that move by more than one element (or along an outer
    dimension) from one iteration of its innermost loop to the next."""
    depth = stmt.domain.dim(isl.dim_type.set)
    if not depth:
        return 0
    step = step_map(depth, depth - 1).set_tuple_name(isl.dim_type.in_, stmt.name) \
        .set_tuple_name(isl.dim_type.out, stmt.name).align_params(stmt.domain.get_space())
    step = isl.UnionMap.from_map(step.intersect_domain(stmt.domain).intersect_range(stmt.domain))
    count = 0
    for access in stmt.accesses:
        relation = isl.UnionMap.from_map(access.relation)
        deltas = step.apply_domain(relation).apply_range(relation).deltas()
        count += not stride_ok(deltas)
    return count


def instances(domain: isl.Set, point: isl.Set) -> float:
    """The number of points of ``domain`` at the parameter point: exact up to
    ``EXACT`` points in its box, else the box times the share of its box the
    domain fills with every parameter scaled down so that the box has about
    ``EXACT`` points (a triangle fills half of it, at any size)."""
    at = domain.intersect_params(point)
    box = box_size(at)
    if box <= EXACT:
        return float(at.count_val().to_python()) if box else 0.0
    dims = max(1, domain.dim(isl.dim_type.set))
    scale = (EXACT / box) ** (1.0 / dims)
    small = isl.Set.universe(point.get_space())
    for k in range(point.dim(isl.dim_type.param)):
        value = point.plain_get_val_if_fixed(isl.dim_type.param, k)
        small = small.fix_val(isl.dim_type.param, k,
                              max(1, int(value.to_python() * scale)))
    part = domain.intersect_params(small)
    part_box = box_size(part)
    if part_box == 0 or part_box > 4 * EXACT:
        return box
    return box * part.count_val().to_python() / part_box


# -- transfers ----------------------------------------------------------------------------

# transfers = sum over device buffers of ALLOCATION
#           + sum over copies in of COPY + bytes * COPY_IN
#           + sum over copies out of COPY + bytes * (PAGEABLE_OUT, or LARGE_OUT for an
#             array of LARGE_COPY bytes or more that was copied in)
def transfer_cost(program: GpuProgram, point: isl.Set) -> float:
    """The estimated ns of the host function's allocations and copies: arrays read
    before they are written go in, arrays written come out; privatised scalars and
    read-only ones (passed by value) have no buffer."""
    scop = program.scop
    live_in = program.deps.live_in_arrays()
    written = {s.get_tuple_name() for s in sets_of(scop.may_writes().range())}
    total = 0.0
    for array in scop.arrays:
        if array.local or array.name in program.private or \
                (array.is_scalar and array.name not in written):
            continue
        size = array_bytes(array, point)
        large = size >= LARGE_COPY and array.name in live_in
        total += ALLOCATION
        if array.name in live_in:
            total += COPY + size * COPY_IN
        if array.name in written:
            total += COPY + size * (LARGE_OUT if large else PAGEABLE_OUT)
    return total


def array_bytes(array: Array, point: isl.Set) -> float:
    """The array's bytes at the parameter point (the box of its extents)."""
    ctype = parse_type(array.element_type)
    element = 8 if ctype is None else 16 if ctype.bits == 80 else ctype.bits // 8
    if array.extent_set is None or array.is_scalar:
        return float(element)
    return element * box_size(array.extent_set.intersect_params(point))
