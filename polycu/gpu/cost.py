"""The estimated cost of a GPU program: what the ranking of schedules compares.

In:  a ``GpuProgram`` (the mapping's kernels: instances, host prefix, mapped members).
Out: ``Metrics``: per kernel, its launches, threads, coalescing and instances, and
     an estimated cost in nanoseconds (lower is better).

The ranking measures the program the mapping builds, never a second guess of it:
the kernels, their parallel members and host loops are the mapping's own (so
privatised scalars, atomics and split bands count exactly as they will run).

Coalescing.  Two threads adjacent in ``x`` run instances ``i`` and ``i'`` of a
statement equal in the kernel's order (``Kernel.order``: host prefix, band, the
schedule below) except the member mapped to ``x``, which differs by one.  An access
``A`` is coalesced when every such pair touches ``A(i') - A(i)`` in
``{ (0, .., 0, d) : -1 <= d <= 1 }``: the same element (a broadcast) or the next one
in the last, contiguous, dimension.

Cost (estimated nanoseconds) with every parameter set to ``N`` (or a value the
context allows):
  sum over kernels K and their statements S of
      instances(K, S) * INSTANCE / min(threads(K), P) * access(S)
  + LAUNCH * sum over kernels K of launches(K)
where instances(K, S) counts the instances of S that K runs (the box of S's
domain, times the fraction K runs when an index-set split gives pieces of S to
several kernels, counted exactly with every parameter at SHARE_SIZE),
threads(K) is the number of distinct values of K's mapped members per
launch (1 for a single-thread kernel), P = 270336 resident threads (132 SMs x 2048,
an H100), INSTANCE = 20 ns the latency-bound time of one instance on one thread,
access(S) the mean over S's accesses to the largest arrays of 1 (coalesced) or
UNCOALESCED = 4 (a warp touching 32 sectors instead of 8), doubled for atomic
updates, launches(K) the number of host-loop iterations around K and
LAUNCH = 4 us the cost of one launch with its synchronisation.

Recurrences.  In a kernel of at most LATENCY_THREADS threads (one warp an SM) a
statement that reads a value its own thread stored in another cell in the same
launch (``KernelCost.recurrent``: adi's p[i][j] from p[i][j - 1]) waits for its
chain of operations, not for memory: access(S) = 1 whatever the coalescing.  An
accumulation into one cell is not a recurrence here (nussinov's fused wavefront
runs 4.6x slower than its split one, H200 LARGE, docs/results/staging.md).

Tensor cores (``tensor_discounted``).  A kernel that the memory phase will run on
the FP64 tensor cores (a contraction, ``memory/contraction.py``: the ranking is told
which by the driver) costs its estimate above, launches aside, divided by
TENSOR_SPEEDUP: on an H100 the mma kernels ran 1.1-2.1x faster than the register
and shared tiles of the same kernels with m8n8k4 (docs/results/memory.md, run s10),
and sm_90's m16n8k8 gained 1.35-1.46x more (run s18).  So symm's two triangular
sums, each a kernel of its own, win over the fused kernel that no tensor core runs
(H200, LARGE: 0.174 ms against 0.667 ms).

One block (``single_block_cost``).  A SCoP whose kernels launch from host loops may
instead run whole as one launch of one block of BLOCK_THREADS threads, each former
launch a phase that the block's threads share, with a __syncthreads() after it:
  LAUNCH + sum over kernels K, statements S of
      instances(K, S) * max(INSTANCE / min(threads(K), BLOCK_THREADS) * access(S),
                            SM_INSTANCE)
  + BARRIER * sum over kernels K of launches(K)
where SM_INSTANCE = 0.25 ns is one SM's time per instance when all its threads have
work (one SM, not 132) and BARRIER = 200 ns a barrier of the whole block.  The
program runs in one block when that estimate times SINGLE_BLOCK_MARGIN is below the
estimate with launches: programs of many small launches (time steps of small
stencils, the steps of a triangular solve), never one whose launches fill the GPU.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..deps import Dependences
from ..model import Access, Scop, Statement, maps_of, sets_of
from .kernel import GpuProgram, Kernel

N = 1024
RESIDENT_THREADS = 132 * 2048
#: At most one warp an SM: a kernel whose threads wait out latency, not bandwidth.
LATENCY_THREADS = RESIDENT_THREADS // 64
UNCOALESCED = 4.0
ATOMIC = 2.0
LAUNCH = 4000.0
INSTANCE = 20.0
SHARE_SIZE = 8
BLOCK_THREADS = 1024
BARRIER = 200.0
SM_INSTANCE = 0.25
SINGLE_BLOCK_MARGIN = 1.5
TENSOR_SPEEDUP = 2.0


@dataclass(frozen=True)
class KernelCost:
    """The measures of one kernel of the mapped program."""

    name: str
    statements: tuple[str, ...]
    depth: int                 # mapped members (0: runs on one thread)
    host_loops: int            # host-loop band members around it
    launches: float            # estimated number of launches
    parallel: float            # estimated threads (distinct values of mapped members)
    coalesced: float           # fraction of accesses to the largest arrays coalesced
    x_member: int | None       # band member mapped to threadIdx.x
    instances: tuple[float, ...] = ()   # per statement: instances run by this kernel
    atomic: frozenset[str] = frozenset()  # statements whose updates are atomic
    recurrent: frozenset[str] = frozenset()  # statements reading the thread's own stores


@dataclass(frozen=True)
class Metrics:
    """Summary of a schedule for ranking and for the table."""

    kernels: tuple[KernelCost, ...]
    cost: float
    parallel_depth: int        # min mapped members over kernels with loops (the weakest)
    coalesced: bool            # every parallel kernel coalesces its largest arrays
    host_loops: int            # deepest host-loop nest around a kernel
    single_block: bool = False  # the whole program runs as one launch of one block
    launch_cost: float = 0.0   # the estimate with one launch per kernel and host point

    @property
    def n_kernels(self) -> int:
        return len(self.kernels)


def representative_params(scop: Scop, size: int = N) -> isl.Set:
    """A single parameter point: every parameter ``size`` where the context allows."""
    point = scop.context
    for k in range(point.dim(isl.dim_type.param)):
        fixed = point.fix_val(isl.dim_type.param, k, size)
        if not fixed.is_empty():
            point = fixed
    if point.is_empty():
        return point
    return isl.Set.from_point(point.sample_point())


def box_size(set_: isl.Set) -> float:
    """Product of the extents of a bounded set's dimensions (an overestimate of its size)."""
    if set_.is_empty():
        return 0.0
    size = 1.0
    for k in range(set_.dim(isl.dim_type.set)):
        lo, hi = set_.dim_min_val(k), set_.dim_max_val(k)
        if lo.is_int() and hi.is_int():
            size *= max(1, hi.to_python() - lo.to_python() + 1)
        else:
            size *= N
    return size


def _single_set(uset: isl.UnionSet) -> isl.Set | None:
    sets = sets_of(uset)
    if not sets:
        return None
    result = sets[0]
    for s in sets[1:]:
        result = result.union(s)
    return result


def _image_size(domain: isl.UnionSet, umap: isl.UnionMap, params: isl.Set) -> float:
    image = _single_set(domain.apply(umap))
    if image is None:
        return 0.0
    return box_size(image.intersect_params(params))


def count_points(set_: isl.Set) -> int:
    """The number of integer points of a bounded set (small sets only)."""
    count = 0

    def one(_point: isl.Point) -> None:
        nonlocal count
        count += 1

    set_.foreach_point(one)
    return count


def step_map(space_dims: int, position: int) -> isl.Map:
    """``{ t -> t' : t'_x = t_x + 1, t'_k = t_k otherwise }`` on ``space_dims`` dimensions."""
    names = [f"t{k}" for k in range(space_dims)]
    target = [f"t{k} + 1" if k == position else f"t{k}" for k in range(space_dims)]
    return isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(target)}] }}")


def stride_ok(deltas: isl.UnionSet) -> bool:
    """Every difference is (0, .., 0, d) with |d| <= 1."""
    ok = True

    def check(s: isl.Set) -> None:
        nonlocal ok
        rank = s.dim(isl.dim_type.set)
        if rank == 0:
            return
        names = [f"d{k}" for k in range(rank)]
        zeros = " and ".join([f"d{k} = 0" for k in range(rank - 1)] + [f"-1 <= d{rank - 1} <= 1"])
        good = isl.Set(f"{{ [{', '.join(names)}] : {zeros} }}")
        if not s.reset_tuple_id().is_subset(good.align_params(s.get_space())):
            ok = False

    deltas.foreach_set(check)
    return ok


class _Analyzer:
    """Measures the kernels of one GPU program at representative parameter values."""

    def __init__(self, scop: Scop, params: isl.Set | None = None,
                 deps: Dependences | None = None):
        self.scop = scop
        self.deps = deps
        self.params = representative_params(scop) if params is None else params
        self.instances = {s.name: box_size(s.domain.intersect_params(self.params))
                          for s in scop.statements}

    def kernel(self, kernel: Kernel) -> KernelCost:
        domain = kernel.domain.intersect_params(self.params)
        instances = tuple(self.instances[name] * self._share(kernel.domain, name)
                          for name in kernel.statements)
        launches = 1.0
        if kernel.host_ids:
            launches = max(1.0, _image_size(domain, kernel.prefix, self.params))
        parallel, coalesced, x_member = 1.0, 0.0, None
        depth = len(kernel.mapped)
        if depth:
            assert kernel.band is not None and kernel.order is not None
            members = isl.MultiUnionPwAff.from_union_map(kernel.band)
            members = members.drop_dims(isl.dim_type.set, depth,
                                        members.dim(isl.dim_type.set) - depth)
            threads = isl.UnionMap.from_multi_union_pw_aff(members)
            if kernel.host_ids:
                threads = kernel.prefix.flat_range_product(threads)
            parallel = max(1.0, _image_size(domain, threads, self.params) / launches)
            x_member = depth - 1
            coalesced = self._coalesced(kernel, len(kernel.host_ids) + x_member)
        return KernelCost(kernel.name, kernel.statements, depth, len(kernel.host_ids),
                          launches, parallel, coalesced, x_member, instances, kernel.atomic,
                          self._recurrent(kernel))

    # With F the flow dependences that are not reductions', between instances of the
    # same launch (equal host prefix P: P^-1 . P), and W the writes, the pairs that
    # move a value to another cell are F - W^-1 . W (F minus the pairs whose source
    # and sink store the same element: an accumulation into one cell).
    def _recurrent(self, kernel: Kernel) -> frozenset[str]:
        """The statements of ``kernel`` that read a value an instance of the same
        launch stored in another cell than the one they store (p[i][j] from
        p[i][j - 1]): a recurrence along the thread's loop, whose time is its chain
        of operations, not its memory traffic."""
        if self.deps is None:
            return frozenset()
        same_launch = kernel.prefix.apply_range(kernel.prefix.reverse())
        writes = self.scop.may_writes()
        same_cell = writes.apply_range(writes.reverse())
        flow = self.deps.flow.subtract(self.deps.reduction) \
            .intersect_domain(kernel.domain).intersect_range(kernel.domain) \
            .intersect(same_launch).subtract(same_cell)
        return frozenset(m.get_tuple_name(isl.dim_type.out) for m in maps_of(flow))

    def _share(self, domain: isl.UnionSet, name: str) -> float:
        """The fraction of statement ``name``'s instances in ``domain`` (1 unless an
        index-set split gave pieces of it to different kernels), counted exactly at
        the small parameter value ``SHARE_SIZE`` (``domain`` for every parameter
        value: fixed at the representative ones, a piece would count nothing)."""
        whole = self.scop.statement(name).domain
        part = _single_set(domain.intersect(isl.UnionSet.from_set(whole)))
        if part is None:
            return 0.0
        if part.intersect_params(self.params).is_equal(whole.intersect_params(self.params)):
            return 1.0
        params = representative_params(self.scop, SHARE_SIZE)
        total = count_points(whole.intersect_params(params))
        return count_points(part.intersect_params(params)) / total if total else 0.0

    def _coalesced(self, kernel: Kernel, position: int) -> float:
        """Fraction of accesses to the kernel's highest-rank arrays that coalesce in x."""
        assert kernel.order is not None
        accesses = [(s, a) for s in self.scop.statements if s.name in kernel.statements
                    for a in s.accesses]
        top = max((self.scop.array(a.array).rank for _, a in accesses), default=0)
        if top == 0:
            return 1.0
        considered = [deltas for _, access, deltas in
                      access_deltas(self.scop, kernel, position, self.params)
                      if self.scop.array(access.array).rank == top]
        if not considered:
            return 1.0
        return sum(1 for deltas in considered if stride_ok(deltas)) / len(considered)


# With O the kernel's order and X the step t -> t + e_x of its x member: the pairs
# of instances one thread apart, P = O^-1 . X . O, and, for a reference f, the
# differences of the elements they touch, deltas(f . P . f^-1).
def access_deltas(scop: Scop, kernel: Kernel, position: int, params: isl.Set
                  ) -> list[tuple[Statement, Access, isl.UnionSet]]:
    """For each reference of the kernel's statements, how its index changes from one
    thread to the next along x (time dimension ``position`` of the kernel's order),
    at the parameter values ``params``."""
    assert kernel.order is not None
    result = []
    for stmt in scop.statements:
        if stmt.name not in kernel.statements:
            continue
        sched = kernel.order.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        sched_map = maps_of(sched)[0]
        step = step_map(sched_map.dim(isl.dim_type.out), position)
        pairs = isl.UnionMap.from_map(
            sched_map.apply_range(step.align_params(sched_map.get_space()))
            .apply_range(sched_map.reverse()).intersect_params(params))
        for access in stmt.accesses:
            rel = isl.UnionMap.from_map(access.relation)
            result.append((stmt, access, pairs.apply_domain(rel).apply_range(rel).deltas()))
    return result


def _cost(kernels: list[KernelCost], threads_at_most: float = RESIDENT_THREADS,
          launch: float = LAUNCH, floor: float = 0.0) -> float:
    """The estimate of the module's docstring: each kernel on at most
    ``threads_at_most`` threads, ``launch`` ns a launch, at least ``floor`` ns an
    instance."""
    total = 0.0
    for kernel in kernels:
        threads = min(kernel.parallel, threads_at_most) if kernel.depth else 1.0
        access = 1.0 + (UNCOALESCED - 1.0) * (1.0 - kernel.coalesced) if kernel.depth \
            else 1.0
        chained = kernel.depth and kernel.parallel <= LATENCY_THREADS
        for name, instances in zip(kernel.statements, kernel.instances):
            factor = ATOMIC if name in kernel.atomic else 1.0
            spread = 1.0 if chained and name in kernel.recurrent else access
            total += instances * factor * max(INSTANCE / threads * spread, floor)
        total += launch * kernel.launches
    return total


def single_block_cost(kernels: list[KernelCost]) -> float | None:
    """The estimate when the program runs in one block (the module's docstring);
    None when it has no host loop (one launch per kernel: nothing to gain)."""
    if all(k.launches <= 1.0 for k in kernels):
        return None
    return LAUNCH + _cost(kernels, BLOCK_THREADS, BARRIER, SM_INSTANCE)


def launch_cost(kernels: list[KernelCost]) -> float:
    """The estimate with one launch per kernel and host point (the module's
    docstring), for a caller that measured the kernels itself (``kernel_costs``)."""
    return _cost(kernels)


def tensor_discounted(metrics: Metrics, tensor: frozenset[str]) -> float:
    """``metrics``' cost with the instances of the kernels named in ``tensor`` (those
    the tensor cores run) at 1 / TENSOR_SPEEDUP of their estimate (the module's
    docstring); a program in one block runs no tensor-core kernel."""
    if metrics.single_block:
        return metrics.cost
    fast = [k for k in metrics.kernels if k.name in tensor]
    return metrics.cost - _cost(fast, launch=0.0) * (1.0 - 1.0 / TENSOR_SPEEDUP)


def kernel_costs(program: GpuProgram, params: isl.Set | None = None) -> list[KernelCost]:
    """The measures of each kernel at the parameter point ``params`` (a set of one
    point; None: ``representative_params``), for models other than ``_cost``
    (``memory.features``: the fitted model, at the sizes a configuration was timed)."""
    analyzer = _Analyzer(program.scop, params)
    return [analyzer.kernel(k) for k in program.kernels]


def analyze(program: GpuProgram, single_block: bool = True) -> Metrics:
    """Kernels, estimated cost and the ranking table's summary of a GPU program; with
    ``single_block``, the cheaper of launches and one block (``single_block_cost``)."""
    scop = program.scop
    analyzer = _Analyzer(scop, deps=program.deps)
    kernels = [analyzer.kernel(k) for k in program.kernels]
    parallel = [k for k in kernels if k.depth]
    looped = [k for k in kernels
              if any(scop.statement(s).domain.dim(isl.dim_type.set) for s in k.statements)]
    depth = min((k.depth for k in looped), default=0)
    coalesced = bool(parallel) and all(k.coalesced == 1.0 for k in parallel)
    host = max((k.host_loops for k in kernels), default=0)
    launched = _cost(kernels)
    one_block = single_block_cost(kernels) if single_block else None
    if one_block is not None and one_block * SINGLE_BLOCK_MARGIN >= launched:
        one_block = None                        # launches are not worth replacing
    return Metrics(tuple(kernels), launched if one_block is None else one_block, depth,
                   coalesced, host, one_block is not None, launched)
