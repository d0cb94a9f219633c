"""What a schedule tree offers a GPU: kernels, parallel depth, coalescing, host loops.

In:  a marked schedule tree (flags from ``mark_bands``) and the SCoP.
Out: ``Metrics`` and an estimated cost used to rank candidates.

The view of the mapping (PPCG's): walking down from the root, the first band whose
leading member is coincident becomes a *kernel*; its ``p`` leading coincident
members are the parallel ones, the first ``min(p, 3)`` map to blocks and threads
and the innermost of those to ``threadIdx.x``.  Bands met before a kernel, with
no leading coincident member, are *host loops* (a launch per iteration).  A leaf
reached without a kernel runs its statements sequentially (depth 0).

Coalescing.  Two threads adjacent in ``x`` run instances ``i`` and ``i'`` of a
statement with equal outer schedule, equal band members except ``x`` which
differs by one, and equal inner schedule.  An access ``A`` is coalesced when every
such pair touches ``A(i') - A(i)`` in ``{ (0, .., 0, d) : -1 <= d <= 1 }``: the same
element (a broadcast) or the next one in the last, contiguous, dimension.

Cost (estimated nanoseconds; lower is better) with every parameter set to ``N``
(or a value the context allows):
  sum over kernels K and their statements S of
      instances(K, S) * INSTANCE / min(threads(K), P) * access(S)
  + LAUNCH * sum over kernels K of launches(K)
where instances(K, S) counts the instances of S that K runs (the box of S's
domain, times the fraction K runs when an index-set split gives pieces of S to
several kernels, counted exactly with every parameter at SHARE_SIZE),
threads(K) is the number of distinct values of K's mapped members per
launch (1 for a sequential part), P = 270336 resident threads (132 SMs x 2048,
an H100), INSTANCE = 20 ns the latency-bound time of one instance on one thread,
access(S) the mean over S's accesses to the largest arrays of 1 (coalesced) or
UNCOALESCED = 4 (a warp touching 32 sectors instead of 8), doubled for relaxed
reductions (atomics), launches(K) the number of host-loop iterations around K
and LAUNCH = 4 us the cost of one launch with its synchronisation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from ..model import Scop, maps_of, sets_of, statement_names
from .bands import leading_coincident
from .value import Path, is_band, path_of

N = 1024
RESIDENT_THREADS = 132 * 2048
UNCOALESCED = 4.0
ATOMIC = 2.0
LAUNCH = 4000.0
INSTANCE = 20.0
MAX_MAPPED = 3
SHARE_SIZE = 8


@dataclass(frozen=True)
class Kernel:
    """One future kernel: the band at ``path`` (None for a sequential leaf)."""

    path: Path
    statements: tuple[str, ...]
    depth: int                 # leading coincident members (0: runs sequentially)
    host_loops: int            # host-loop band members around it
    launches: float            # estimated number of launches
    parallel: float            # estimated threads (distinct values of mapped members)
    coalesced: float           # fraction of accesses to the largest arrays coalesced
    x_member: int | None       # band member mapped to threadIdx.x
    instances: tuple[float, ...] = ()   # per statement: instances run by this kernel


@dataclass(frozen=True)
class Metrics:
    """Summary of a schedule for ranking and for the table."""

    kernels: tuple[Kernel, ...]
    cost: float
    parallel_depth: int        # min mapped depth over kernels with loops (the weakest one)
    coalesced: bool            # every parallel kernel coalesces its largest arrays
    host_loops: int            # deepest host-loop nest around a kernel
    notes: tuple[str, ...] = field(default=())

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


def _reaching(node: isl.ScheduleNode) -> isl.UnionSet:
    """The instances that reach below ``node`` (a filter node's filter applied)."""
    if node.get_type() == isl.schedule_node_type.domain:
        return node.domain_get_domain()
    domain = node.get_domain()
    if node.get_type() == isl.schedule_node_type.filter:
        domain = domain.intersect(node.filter_get_filter())
    return domain


def _count(set_: isl.Set) -> int:
    """The number of integer points of a bounded set (small sets only)."""
    count = 0

    def one(_point: isl.Point) -> None:
        nonlocal count
        count += 1

    set_.foreach_point(one)
    return count


def _has_parallel(node: isl.ScheduleNode) -> bool:
    """Whether some band in the subtree of ``node`` has a leading coincident member."""
    return not node.every_descendant(
        lambda n: not (is_band(n) and bool(n.band_member_get_coincident(0))))


def _step(space_dims: int, position: int) -> isl.Map:
    """``{ t -> t' : t'_x = t_x + 1, t'_k = t_k otherwise }`` on ``space_dims`` dimensions."""
    names = [f"t{k}" for k in range(space_dims)]
    target = [f"t{k} + 1" if k == position else f"t{k}" for k in range(space_dims)]
    return isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(target)}] }}")


def _stride_ok(deltas: isl.UnionSet) -> bool:
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
    """Computes kernels and costs of one marked tree."""

    def __init__(self, scop: Scop, relaxed: frozenset[str]):
        self.scop = scop
        self.relaxed = relaxed
        self.params = representative_params(scop)
        self.instances = {s.name: box_size(s.domain.intersect_params(self.params))
                          for s in scop.statements}
        self.loop_depth = {s.name: s.domain.dim(isl.dim_type.set) for s in scop.statements}

    def kernels(self, tree: isl.Schedule) -> list[Kernel]:
        found: list[Kernel] = []
        self._walk(tree.get_root(), 0, found)
        return found

    def _walk(self, node: isl.ScheduleNode, host: int, found: list[Kernel]) -> None:
        if not _has_parallel(node):
            found.append(self._kernel(node, 0, host))
            return
        if is_band(node):
            n = node.band_n_member()
            depth = leading_coincident([bool(node.band_member_get_coincident(k))
                                        for k in range(n)])
            if depth:
                found.append(self._kernel(node, depth, host))
                return
            host += n
        group: list[isl.ScheduleNode] = []  # adjacent sequential children: one kernel
        for i in range(node.n_children()):
            child = node.child(i)
            if not _has_parallel(child):
                group.append(child)
                continue
            if group:
                found.append(self._kernel(group[0], 0, host, group))
                group = []
            self._walk(child, host, found)
        if group:
            found.append(self._kernel(group[0], 0, host, group))

    def _kernel(self, node: isl.ScheduleNode, depth: int, host: int,
                group: list[isl.ScheduleNode] | None = None) -> Kernel:
        domain = _reaching(node)
        for other in group or []:
            domain = domain.union(_reaching(other))
        domain = domain.intersect_params(self.params)
        statements = statement_names(domain)
        instances = tuple(self.instances[name] * self._share(domain, name)
                          for name in statements)
        launches = 1.0
        if node.get_schedule_depth() > 0 and host:
            launches = max(1.0, _image_size(domain, node.get_prefix_schedule_union_map(),
                                            self.params))
        mapped = min(depth, MAX_MAPPED)
        parallel, coalesced, x_member = 1.0, 0.0, None
        if mapped:
            partial = node.band_get_partial_schedule()
            members = partial.drop_dims(isl.dim_type.set, mapped,
                                        partial.dim(isl.dim_type.set) - mapped)
            threads = isl.UnionMap.from_multi_union_pw_aff(members)
            if node.get_schedule_depth() > 0:
                threads = node.get_prefix_schedule_union_map().flat_range_product(threads)
            parallel = max(1.0, _image_size(domain, threads, self.params) / launches)
            x_member = mapped - 1
            coalesced = self._coalesced(node, statements, x_member)
        return Kernel(path_of(node), statements, depth, host, launches, parallel, coalesced,
                      x_member, instances)

    def _share(self, domain: isl.UnionSet, name: str) -> float:
        """The fraction of statement ``name``'s instances in ``domain`` (1 unless an
        index-set split gave pieces of it to different kernels), counted exactly at
        the small parameter value ``SHARE_SIZE``."""
        whole = self.scop.statement(name).domain
        part = _single_set(domain.intersect(isl.UnionSet.from_set(whole)))
        if part is None:
            return 0.0
        part = part.intersect_params(self.params)
        if part.is_equal(whole.intersect_params(self.params)):
            return 1.0
        params = representative_params(self.scop, SHARE_SIZE)
        total = _count(whole.intersect_params(params))
        return _count(part.intersect_params(params)) / total if total else 0.0

    def _neighbours(self, node: isl.ScheduleNode) -> isl.UnionMap:
        """Full schedule (prefix, band, inner) of the statements below a band node."""
        subtree = node.get_subtree_schedule_union_map()
        if node.get_schedule_depth() == 0:
            return subtree
        return node.get_prefix_schedule_union_map().flat_range_product(subtree)

    def _coalesced(self, node: isl.ScheduleNode, statements: tuple[str, ...],
                   x_member: int) -> float:
        """Fraction of accesses to the kernel's highest-rank arrays that coalesce in x."""
        full = self._neighbours(node)
        position = node.get_schedule_depth() + x_member
        accesses = [(s, a) for s in self.scop.statements if s.name in statements
                    for a in s.accesses]
        top = max((self.scop.array(a.array).rank for _, a in accesses), default=0)
        considered = [(s, a) for s, a in accesses if self.scop.array(a.array).rank == top]
        if not considered or top == 0:
            return 1.0
        good = 0
        per_statement: dict[str, isl.UnionMap] = {}
        for stmt, access in considered:
            if stmt.name not in per_statement:
                sched = full.intersect_domain(isl.UnionSet.from_set(stmt.domain))
                sched_map = maps_of(sched)[0]
                step = _step(sched_map.dim(isl.dim_type.out), position)
                per_statement[stmt.name] = isl.UnionMap.from_map(
                    sched_map.apply_range(step.align_params(sched_map.get_space()))
                    .apply_range(sched_map.reverse()).intersect_params(self.params))
            pairs = per_statement[stmt.name]
            rel = isl.UnionMap.from_map(access.relation)
            deltas = pairs.apply_domain(rel).apply_range(rel).deltas()
            if _stride_ok(deltas):
                good += 1
        return good / len(considered)

    def cost(self, kernels: list[Kernel]) -> float:
        total = 0.0
        for kernel in kernels:
            threads = min(kernel.parallel, RESIDENT_THREADS) if kernel.depth else 1.0
            access = 1.0 + (UNCOALESCED - 1.0) * (1.0 - kernel.coalesced) if kernel.depth \
                else 1.0
            for name, instances in zip(kernel.statements, kernel.instances):
                factor = ATOMIC if name in self.relaxed else 1.0
                total += instances * INSTANCE / threads * access * factor
            total += LAUNCH * kernel.launches
        return total


def analyze(scop: Scop, tree: isl.Schedule, relaxed: frozenset[str] = frozenset()) -> Metrics:
    """Kernels, estimated cost and the table's summary of a marked tree."""
    analyzer = _Analyzer(scop, relaxed)
    kernels = analyzer.kernels(tree)
    parallel = [k for k in kernels if k.depth]
    looped = [k for k in kernels if any(analyzer.loop_depth[s] for s in k.statements)]
    depth = min((min(k.depth, MAX_MAPPED) for k in looped), default=0)
    coalesced = bool(parallel) and all(k.coalesced == 1.0 for k in parallel)
    host = max((k.host_loops for k in kernels), default=0)
    return Metrics(tuple(kernels), analyzer.cost(kernels), depth, coalesced, host)
