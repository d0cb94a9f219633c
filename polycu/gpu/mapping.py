"""Mapping a schedule tree onto the GPU: kernels, blocks, threads and host loops.

In:  a ``Scop``, its ``Dependences`` and a schedule tree (``Schedule.tree`` with the
     reduction statements ``relaxed`` for parallelism).
Out: a ``GpuProgram``.

Walking down from the root (PPCG's rule), the first band whose leading members are
parallel becomes a kernel; its first ``d <= 3`` parallel members are mapped to
blocks and threads, the innermost of them to ``x``.  Band members met before that
run on the host (a launch per iteration); a band whose first member is not parallel
is split so that only that member goes to the host.  A subtree with no parallelism
at all becomes one kernel run by a single thread, so data stays on the device.

Parallelism is proven here, not trusted from flags: members ``m_0..m_{d-1}`` of a band
are parallel iff every dependence ``s -> t`` with both ends reaching the band and
equal host prefix ``P(s) = P(t)`` has ``m_k(s) = m_k(t)`` for all ``k < d``.  The
self-dependences of a '+' reduction statement named in ``relaxed`` may be ignored;
the statement's update is then lowered with ``atomicAdd`` in that kernel.

Scalar privatisation: a scalar X dead after the SCoP becomes a local variable of
each thread in a kernel (instances ``D``, prefix ``P``, mapped members ``M``) when
every read ``t`` of X in ``D`` takes its value from a write ``s`` of X with ``s`` in
``D``, ``P(s) = P(t)`` and ``M(s) = M(t)``, never from before the SCoP: values of X
then never cross threads or launches, and the anti and output dependences on X
(one shared cell's order) drop out of the zero-distance test.  X is private in
every kernel that touches it or in none; the mapping is redone without the
scalars some kernel cannot privatise.
"""
from __future__ import annotations

import re

import islpy as isl

from ..deps import ArrayDependences, Dependences
from ..diagnostics import error
from ..model import Scop, sets_of, statement_names
from .cost import representative_params
from .kernel import AXES, GpuProgram, Kernel, MappedMember, Names
from .sizes import Sizes

MAX_MAPPED = 3
MAX_THREADS = 1024
#: Empty blocks a grid may start with so that its kernel has no case split (at
#: representative sizes; CUDA's limit in y and z).
MAX_EARLY_BLOCKS = 65535
#: Default threads per block along x, y, z for 1-, 2- and 3-dimensional mappings.
DEFAULT_BLOCK = {1: (32,), 2: (32, 8), 3: (32, 4, 2)}
#: Element types that atomicAdd supports on sm_60 and later.
ATOMIC_TYPES = frozenset({"double", "float", "int", "unsigned int", "unsigned"})

_T = isl.schedule_node_type


def choose_names(scop: Scop) -> Names:
    """Prefixes for h/b/t/c/r/s identifiers that no name of the SCoP can be confused with."""
    used = set(scop.parameters) | {a.name for a in scop.arrays}
    for stmt in scop.statements:
        used |= set(re.findall(r"[A-Za-z_]\w*", stmt.text))
    for prefix in ("", "_", "pc_", "polycu_"):
        names = Names(f"{prefix}h", f"{prefix}b", f"{prefix}t", f"{prefix}c", f"{prefix}r",
                      f"{prefix}s")
        pattern = re.compile(rf"^{re.escape(prefix)}[hbtcrs]\d+$")
        if not any(pattern.match(u) for u in used):
            return names
    raise AssertionError("no free identifier prefix")  # unreachable in practice


def _members(node: isl.ScheduleNode, count: int) -> isl.UnionMap:
    """S[i] -> [m_0 .. m_{count-1}]: the leading members of a band, on its domain."""
    partial = node.band_get_partial_schedule()
    n = partial.dim(isl.dim_type.set)
    partial = partial.drop_dims(isl.dim_type.set, count, n - count)
    return isl.UnionMap.from_multi_union_pw_aff(partial).intersect_domain(node.get_domain())


def _instances(node: isl.ScheduleNode) -> isl.UnionSet:
    """The instances the subtree at ``node`` executes (isl's domain of a filter node is
    what reaches it, before its own filter)."""
    domain = node.get_domain()
    if node.get_type() == _T.filter:
        domain = domain.intersect(node.filter_get_filter())
    return domain


def _prefix(node: isl.ScheduleNode) -> isl.UnionMap:
    return node.get_prefix_schedule_union_map().intersect_domain(_instances(node))


# Dependences live at a node: s -> t with both ends reaching the node and P(s) = P(t).
def _live(deps: isl.UnionMap, node: isl.ScheduleNode, prefix: isl.UnionMap) -> isl.UnionMap:
    domain = node.get_domain()
    live = deps.intersect_domain(domain).intersect_range(domain)
    if node.get_schedule_depth() > 0:
        live = live.intersect(prefix.apply_range(prefix.reverse()))
    return live


# Zero distance: every (s -> t) in live has M(s) = M(t).
def _zero_distance(live: isl.UnionMap, members: isl.UnionMap) -> bool:
    if live.is_empty():
        return True
    deltas = sets_of(live.apply_domain(members).apply_range(members).deltas())
    return all(d.is_subset(_origin(d.get_space())) for d in deltas)


def _leading_parallel(live: isl.UnionMap, node: isl.ScheduleNode, limit: int) -> int:
    """The largest d <= limit such that members 0..d-1 have zero distance on ``live``."""
    count = 0
    while count < limit and _zero_distance(live, _members(node, count + 1)):
        count += 1
    return count


# X may be private to each thread iff no read of X in D lacks a source in the SCoP and
# every flow s -> t on X into D has s in D, P(s) = P(t) and M(s) = M(t).
def _privatisable(scalar: ArrayDependences, domain: isl.UnionSet, prefix: isl.UnionMap,
                  members: isl.UnionMap | None) -> bool:
    """Whether every value of the scalar read by instances ``domain`` is written by the
    same launch (``prefix``) and the same iteration of the mapped ``members``."""
    if not scalar.uninitialised.intersect(domain).is_empty():
        return False
    flow = scalar.flow.intersect_range(domain)
    if not flow.subtract_domain(domain).is_empty():
        return False
    return _equal_images(flow, prefix) and (members is None or _equal_images(flow, members))


# f(s) = f(t) for every (s -> t) in pairs  <=>  { f(s) -> f(t) } is in the identity
# (f a function: the prefix or the band members).  Cheaper than intersecting the
# pairs with f . f^-1, which relates every two instances of one prefix.
def _equal_images(pairs: isl.UnionMap, f: isl.UnionMap) -> bool:
    images = pairs.apply_domain(f).apply_range(f)
    return images.is_subset(images.domain().union(images.range()).identity())


def _origin(space: isl.Space) -> isl.Set:
    n = space.dim(isl.dim_type.set)
    zero = isl.Set.universe(space)
    for k in range(n):
        zero = zero.fix_val(isl.dim_type.set, k, isl.Val(0))
    return zero


class _Mapper:
    """Walks the tree, splitting bands and collecting kernels and the host schedule."""

    def __init__(self, scop: Scop, deps: Dependences, relaxed: frozenset[str], sizes: Sizes,
                 names: Names, private: frozenset[str]):
        self.scop = scop
        self.validity = deps.validity
        self.deps = deps
        self.scalars = {name: deps.scalars[name] for name in sorted(private)}
        self.sizes = sizes
        self.names = names
        self.kernels: list[Kernel] = []
        # Only '+' reductions on atomicAdd types may be relaxed.
        self.atomic_ok = frozenset(
            s.name for s in scop.statements
            if s.name in relaxed and s.reduction == "+"
            and scop.array(s.reduction_array).element_type in ATOMIC_TYPES)
        self.reductions = {name: deps.reductions_of([name]) for name in self.atomic_ok}
        self.relaxed_validity = deps.relaxed(self.atomic_ok)
        self.known: dict[tuple[int, str, str], tuple[int, frozenset[str]]] = {}

    # -- parallelism ----------------------------------------------------------
    def parallel(self, node: isl.ScheduleNode) -> tuple[int, frozenset[str]]:
        """How many leading members of band ``node`` are parallel, and the statements
        whose updates need atomics for that (none if parallel without relaxation).

        The walk asks again for the same band (``has_parallelism`` looks ahead of
        ``visit``); a band is known by its depth, members and instances, which fix
        its answer within one tree."""
        key = (node.get_schedule_depth(), str(node.band_get_partial_schedule()),
               str(node.get_domain()))
        if key not in self.known:
            self.known[key] = self._parallel(node)
        return self.known[key]

    def _parallel(self, node: isl.ScheduleNode) -> tuple[int, frozenset[str]]:
        n = min(node.band_n_member(), MAX_MAPPED)
        prefix = _prefix(node)
        count = self.leading_parallel_private(node, prefix, n)
        if count or not self.atomic_ok:
            return count, frozenset()
        count = _leading_parallel(_live(self.relaxed_validity, node, prefix), node, n)
        if not count:
            return 0, frozenset()
        members = _members(node, count)
        atomic = frozenset(name for name, reduction in self.reductions.items()
                           if not _zero_distance(_live(reduction, node, prefix), members))
        return count, atomic

    def private(self, domain: isl.UnionSet, prefix: isl.UnionMap,
                members: isl.UnionMap | None) -> frozenset[str]:
        """The candidate scalars that instances ``domain`` may keep private per thread."""
        return frozenset(name for name, scalar in self.scalars.items()
                         if _privatisable(scalar, domain, prefix, members))

    # The largest d <= limit such that members 0..d-1 have zero distance on the live
    # validity without the false dependences of the scalars privatisable with those d.
    def leading_parallel_private(self, node: isl.ScheduleNode, prefix: isl.UnionMap,
                                 limit: int) -> int:
        """How many leading members of band ``node`` are parallel once the scalars
        that allow it are private to each thread."""
        domain = _instances(node)
        live: dict[frozenset[str], isl.UnionMap] = {}
        count = 0
        while count < limit:
            members = _members(node, count + 1)
            private = self.private(domain, prefix, members)
            if private not in live:
                live[private] = _live(self.deps.validity_with_private(private), node, prefix)
            if not _zero_distance(live[private], members):
                break
            count += 1
        return count

    def has_parallelism(self, node: isl.ScheduleNode) -> bool:
        kind = node.get_type()
        if _instances(node).is_empty():
            return False
        if kind == _T.band:
            if self.parallel(node)[0]:
                return True
            if node.band_n_member() > 1:
                return self.has_parallelism(node.band_split(1).child(0))
        return any(self.has_parallelism(node.child(i)) for i in range(node.n_children()))

    # -- the walk -------------------------------------------------------------
    def visit(self, node: isl.ScheduleNode) -> tuple[isl.ScheduleNode, isl.Schedule | None]:
        """Process the subtree at ``node``: (node in the new tree, host schedule piece)."""
        kind = node.get_type()
        if kind != _T.domain and _instances(node).is_empty():
            return node, None
        if kind == _T.band:
            count, atomic = self.parallel(node)
            if count:
                return node, self.kernel([node], count, atomic)
            if not self.has_parallelism(node):
                return node, self.kernel([node], 0, frozenset())
            if node.band_n_member() > 1:
                node = node.band_split(1)
            depth = node.get_schedule_depth()
            child, piece = self.visit(node.child(0))
            node = child.parent()
            return node, self.host_loop(piece, depth)
        if kind in (_T.sequence, _T.set):
            if not self.has_parallelism(node):
                return node, self.kernel([node], 0, frozenset())
            # Consecutive children without parallelism share one single-thread kernel.
            pieces: list[isl.Schedule] = []
            run: list[isl.ScheduleNode] = []
            for i in range(node.n_children()):
                child = node.child(i)
                if _instances(child).is_empty():
                    continue
                if not self.has_parallelism(child):
                    run.append(child)
                    continue
                if run:
                    pieces.append(self.kernel(run, 0, frozenset()))
                    run = []
                child, piece = self.visit(child)
                node = child.parent()
                if piece is not None:
                    pieces.append(piece)
            if run:
                pieces.append(self.kernel(run, 0, frozenset()))
            result = None
            for piece in pieces:
                result = piece if result is None else result.sequence(piece)
            return node, result
        if kind == _T.leaf:
            return node, self.kernel([node], 0, frozenset())
        if node.n_children() == 1:
            child, piece = self.visit(node.child(0))
            return child.parent(), piece
        raise AssertionError(f"unexpected schedule node {kind}")

    def host_loop(self, piece: isl.Schedule | None, depth: int) -> isl.Schedule | None:
        """A host band over the launches below: K[h] -> [h_depth] for every kernel K."""
        if piece is None:
            return None
        umap = isl.UnionMap.empty(piece.get_domain().get_space())
        for s in sets_of(piece.get_domain()):
            n = s.dim(isl.dim_type.set)
            dims = ", ".join(f"v{k}" for k in range(n))
            m = isl.Map(f"{{ {s.get_tuple_name()}[{dims}] -> [v{depth}] }}")
            umap = umap.union(isl.UnionMap.from_map(m))
        mupa = isl.MultiUnionPwAff.from_union_map(umap.intersect_domain(piece.get_domain()))
        return piece.insert_partial_schedule(mupa)

    def kernel(self, nodes: list[isl.ScheduleNode], count: int,
               atomic: frozenset[str]) -> isl.Schedule:
        """A kernel running the instances of ``nodes`` (siblings, or one band whose
        ``count`` leading members are mapped); its launches as a host schedule piece."""
        index = len(self.kernels)
        domain = _instances(nodes[0])
        prefix = _prefix(nodes[0])
        for node in nodes[1:]:
            domain = domain.union(_instances(node))
            prefix = prefix.union(_prefix(node))
        domain = domain.intersect_params(self.scop.context)
        host_ids = tuple(self.names.host_id(k) for k in range(nodes[0].get_schedule_depth()))
        band = order = None
        mapped: tuple[MappedMember, ...] = ()
        if count:
            band = _members(nodes[0], nodes[0].band_n_member())
            order = nodes[0].get_subtree_schedule_union_map()
            if nodes[0].get_schedule_depth() > 0:
                order = nodes[0].get_prefix_schedule_union_map().flat_range_product(order)
            draft = Kernel(f"{self.scop.name}_kernel{index}", index, domain, prefix, host_ids,
                           band, ())
            mapped = self.map_members(draft, count)
        stmts = statement_names(domain)
        reads = {a.array for s in self.scop.statements if s.name in stmts for a in s.reads}
        writes = {a.array for s in self.scop.statements if s.name in stmts for a in s.writes}
        # An atomic update needs the shared cell: its array is never private.
        shared = {s.reduction_array for s in self.scop.statements if s.name in atomic}
        private = self.private(domain, prefix, _members(nodes[0], count) if count else None)
        private = (private & (reads | writes)) - shared
        tiles = self.sizes.lookup(index, "tile") or ()
        strip = tiles[count] if count and len(tiles) > count else None
        k = Kernel(f"{self.scop.name}_kernel{index}", index, domain, prefix, host_ids, band,
                   mapped, atomic, stmts, frozenset(reads), frozenset(writes), private, order,
                   strip)
        self.kernels.append(k)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(k.launches))

    def map_members(self, draft: Kernel, count: int) -> tuple[MappedMember, ...]:
        """Tile/block sizes and axes of the ``count`` mapped members (innermost on x)."""
        tiles = self.sizes.lookup(draft.index, "tile") or ()
        blocks = self.sizes.lookup(draft.index, "block") or DEFAULT_BLOCK[count]
        ranges = isl.Set.from_union_set(draft.band.intersect_domain(
            draft.at_host_point()).range())
        overall = isl.Set.from_union_set(draft.band.intersect_domain(draft.domain).range())
        launched = draft.host_context(self.scop.context)
        mapped = []
        for k in range(count):
            axis_pos = count - 1 - k                       # innermost member -> x
            tile = tiles[k] if k < len(tiles) else self.sizes.tile_size
            block = blocks[axis_pos] if axis_pos < len(blocks) else 1
            block = max(1, min(block, tile))    # driver.clamped_blocks says so
            mapped.append(MappedMember(
                k, AXES[axis_pos], tile, block,
                _at_launch(_simple_lower_bound(ranges.dim_min(k), overall.dim_min(k)
                                               .gist_params(self.scop.context).coalesce(),
                                               tile, representative_params(self.scop)),
                           launched),
                _at_launch(ranges.dim_max(k), launched), self.names.block_id(k),
                self.names.thread_id(k)))
        threads = 1
        for m in mapped:
            threads *= m.block
        if threads > MAX_THREADS:
            raise error(f"--sizes: kernel {draft.index} would have blocks of {threads} "
                        f"threads; CUDA allows at most {MAX_THREADS}", self.scop.location)
        return tuple(mapped)


# The bounds are only evaluated at launches h in L_K: gist them there.  Their pieces'
# domains otherwise repeat the projection that defines L_K (existential variables)
# in every guard and in the kernel's context: a skewed 3-D wavefront then took isl's
# AST generator over two minutes instead of seconds.  The domain stays L_K when L_K
# needs no existential variable.
def _at_launch(bound: isl.PwAff, launched: isl.Set) -> isl.PwAff:
    """``bound`` simplified where the kernel is launched (equal there)."""
    simple = bound.gist_params(launched).coalesce()
    if not any(part.dim(isl.dim_type.div) for part in launched.get_basic_sets()):
        simple = simple.intersect_params(launched).coalesce()
    return simple


# A piecewise minimum lo(h) would put its case split into every guard of the kernel;
# then the block grid starts at the constant min over all h instead, or at the min
# over the whole kernel lo(p) <= lo(h, p) when that is one affine piece (blocks below
# lo(h) find no work), unless that start leaves more than MAX_EARLY_BLOCKS empty
# blocks at representative parameter values (gpu.cost): the constant min over an
# unsigned n's range once started a y grid 2^26 blocks early, past CUDA's 65535
# (fuzz seed 2100325).
def _simple_lower_bound(lower: isl.PwAff, overall: isl.PwAff, tile: int,
                        point: isl.Set) -> isl.PwAff:
    """A lower bound of ``lower`` (the member's minimum at each launch) without case
    splits where that leaves few empty blocks; ``overall`` is its minimum over all
    launches, ``point`` the representative parameter values."""
    if lower.n_piece() <= 1:
        return lower
    least = lower.min_val()
    candidates = []
    if least.is_int():
        candidates.append(lower.sub(lower).add_constant_val(least).coalesce())
    if overall.n_piece() == 1:
        candidates.append(overall.align_params(lower.get_space()))
    for candidate in candidates:
        early = lower.sub(candidate)
        most = early.intersect_params(point.align_params(early.get_space())).max_val()
        if not most.is_int() or most.to_python() <= MAX_EARLY_BLOCKS * tile:
            return candidate
    return lower


# map_to_gpu: kernels at the outermost parallel bands (PPCG), host loops above them;
# the candidates for privatisation shrink until every kernel touching a candidate
# can keep it private (each round removes at least one, so it ends).
def map_to_gpu(scop: Scop, deps: Dependences, tree: isl.Schedule, *,
               relaxed: frozenset[str] = frozenset(), sizes: Sizes | None = None) -> GpuProgram:
    """The GPU program of ``scop`` executing ``tree``."""
    names = choose_names(scop)
    private = frozenset(deps.scalars)
    while True:
        mapper = _Mapper(scop, deps, frozenset(relaxed), sizes or Sizes(), names, private)
        root, host = mapper.visit(tree.get_root())
        refused = frozenset(name for k in mapper.kernels
                            for name in ((k.reads | k.writes) & private) - k.private)
        if not refused:
            break
        private -= refused
    if host is None:   # the SCoP executes nothing for any parameter value
        host = isl.Schedule.from_domain(isl.UnionSet.empty(scop.context.get_space()))
    return GpuProgram(scop, deps, root.get_schedule(), tuple(mapper.kernels), host, names)


def map_sequential(scop: Scop, deps: Dependences, tree: isl.Schedule) -> GpuProgram:
    """The GPU program running all of ``tree`` in one kernel on a single thread.

    The last resort when isl fails on the mapping or the code of every schedule
    with parallelism: no parallelism is looked for (no isl work but the kernel's
    instances), no scalar is privatised (each lives in device memory, still correct
    in one thread), and the data stays on the device as with any other kernel.
    """
    mapper = _Mapper(scop, deps, frozenset(), Sizes(), choose_names(scop), frozenset())
    host = mapper.kernel([tree.get_root().child(0)], 0, frozenset())
    return GpuProgram(scop, deps, tree, tuple(mapper.kernels), host, mapper.names)
