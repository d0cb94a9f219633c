"""Exact dependence analysis of a Scop.

In:  a ``Scop`` (domains, access relations, original schedule).
Out: ``Dependences``: union maps ``S[i] -> T[j]`` meaning instance ``T[j]`` must run
after ``S[i]``.

* flow (read after write), value-based: for each read, the last write of the same
  element before it (isl's dataflow analysis, ``compute_flow``);
* anti (write after read): for each write, the reads of its element since the
  previous must-write (kills end the search, so transitively every earlier read
  is still ordered);
* output (write after write): for each write, the previous writes of the element
  back to the last must-write;
* reduction: the subset of those dependences that link two instances of one
  reduction statement ``X[f] = X[f] op e`` (associative ``op``); later phases may
  relax them when they lower the reduction explicitly.
* live-in reads (no source inside the SCoP) and live-out writes (no later write
  of the same element inside the SCoP);
* per privatisation candidate X (a scalar dead after the SCoP): the same analysis
  restricted to X's accesses, so that the mapping can tell the dependences that
  only exist because every thread would share one cell X (anti and output on X)
  from the values X really carries (flow on X).

Every analysis goes through ``dataflow``: isl's ``compute_flow`` and, where isl
fails on an input (it does on some strided domains with floor-divided or modulo
subscripts: "affine expression involves some of the domain dimensions"), the same
definition computed with lexicographic maxima (``dataflow_by_lexmax``), exact too.
If that fails as well the SCoP gets a located diagnostic, never a traceback.
"""
from __future__ import annotations

import faulthandler
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping

import islpy as isl

from .diagnostics import error
from .model import Scop, maps_of, sets_of, statement_names


@dataclass(frozen=True, eq=False)
class ArrayDependences:
    """The dependences carried by one array X alone (its accesses, nothing else; a
    scalar is a 0-d array).

    ``flow`` links each read of X to the writes it may take its value from,
    ``uninitialised`` holds the reads of X that may take their value from before
    the SCoP, and ``false`` (anti and output on X) the order that only a shared
    cell X needs: with one private copy of X per thread it has no meaning across
    threads.
    """

    flow: isl.UnionMap
    uninitialised: isl.UnionSet
    false: isl.UnionMap


@dataclass(frozen=True, eq=False)
class Dependences:
    """The dependences of one Scop; every field but ``scalars`` is an ``isl.UnionMap``;
    ``scalars`` maps each privatisation candidate to its own dependences and
    ``shared_false`` holds the anti and output dependences of every other array."""

    flow: isl.UnionMap
    anti: isl.UnionMap
    output: isl.UnionMap
    reduction: isl.UnionMap
    live_in: isl.UnionMap
    live_out: isl.UnionMap
    scalars: Mapping[str, ArrayDependences] = field(default_factory=dict)
    shared_false: isl.UnionMap | None = None

    # A pair s -> t may be ordered by several arrays at once, so V minus false_X is
    # not the validity with X private; per array the dependences are independent:
    #   V(P) = flow ∪ false(arrays other than the candidates) ∪ ⋃_{X candidate ∉ P} false_X.
    def validity_with_private(self, private: Iterable[str]) -> isl.UnionMap:
        """The validity when each thread has its own copy of the ``private`` scalars
        (candidates of ``scalars``): their anti and output dependences are gone."""
        private = set(private)
        if not private:
            return self.validity
        assert self.shared_false is not None and private <= set(self.scalars)
        result = self.flow.union(self.shared_false)
        for name, scalar in self.scalars.items():
            if name not in private:
                result = result.union(scalar.false)
        return result.coalesce()

    @cached_property
    def validity(self) -> isl.UnionMap:
        """Every dependence a legal schedule must respect (computed once: every phase
        asks for it)."""
        return self.flow.union(self.anti).union(self.output).coalesce()

    @property
    def validity_without_reductions(self) -> isl.UnionMap:
        """What must hold when reductions are lowered explicitly (atomics or trees)."""
        return self.validity.subtract(self.reduction).coalesce()

    def reductions_of(self, statements: Iterable[str]) -> isl.UnionMap:
        """The reduction dependences ``S[i] -> S[j]`` of the named statements."""
        result = isl.UnionMap.empty(self.reduction.get_space())
        for name in sorted(statements):
            result = result.union(self.reduction.intersect_domain(
                isl.UnionSet.from_set(_universe_of(self.reduction, name))))
        return result.coalesce()

    # Lowering the updates of reduction statements S atomically frees the order among
    # their instances, but every other dependence must then hold with the whole chain,
    # not only with its first or last instance (value-based dependences rely on the
    # chain's order for transitivity).  With R the reduction dependences of S, R+ their
    # transitive closure (an over-approximation is still safe) and V' = V - R:
    #   relaxed(S) = V'  ∪  V' ∘ R+ (into the chain)  ∪  R+ ∘ V' (out of the chain).
    def relaxed(self, statements: Iterable[str]) -> isl.UnionMap:
        """What must still hold (distance 0 on a parallel member) when the named
        reductions are lowered with atomic updates."""
        reduction = self.reductions_of(statements)
        if reduction.is_empty():
            return self.validity
        rest = self.validity.subtract(reduction)
        closure, _exact = reduction.transitive_closure()
        return rest.union(rest.apply_range(closure)).union(closure.apply_range(rest)).coalesce()

    def live_in_arrays(self) -> set[str]:
        return _range_names(self.live_in)

    def live_out_arrays(self) -> set[str]:
        return _range_names(self.live_out)


def _universe_of(umap: isl.UnionMap, name: str) -> isl.Set:
    """``{ name[...] }`` in the space ``umap`` uses for statement ``name`` (empty if none)."""
    found = [s for s in sets_of(umap.domain()) if s.get_tuple_name() == name]
    if not found:
        return isl.Set(f"{{ {name}[] : false }}")
    return isl.Set.universe(found[0].get_space())


def _range_names(umap: isl.UnionMap) -> set[str]:
    return set(statement_names(umap.range()))


def is_quota(exc: Exception, ctx: isl.Context) -> bool:
    """Whether isl stopped because the context's operation budget ran out (the
    budget's owner handles that; any other isl error is a failure of the call).

    isl's message does not always say so (a parser that hits the limit reports a
    syntax error, islpy a ``TypeError`` when a printer returns nothing), but once
    the budget is spent every allocation fails: one tiny allocation tells."""
    if "maximal number of operations" in str(exc):
        return True
    if not ctx.get_max_operations():
        return False
    try:
        isl.Space.set_alloc(ctx, 0, 0)
    except isl.Error:
        return True
    return False


def flat_schedule(schedule: isl.Schedule | isl.UnionMap) -> isl.UnionMap:
    """``T``: every instance to its time, all statements in one time space (ranges of
    different widths padded with zeros, which keeps distinct instances apart since
    sibling subtrees differ at their sequence position)."""
    umap = schedule.get_map() if isinstance(schedule, isl.Schedule) else schedule
    maps = maps_of(umap)
    width = max((m.dim(isl.dim_type.out) for m in maps), default=0)
    result = isl.UnionMap.empty(umap.get_space())
    for m in maps:
        n = m.dim(isl.dim_type.out)
        m = m.reset_tuple_id(isl.dim_type.out).add_dims(isl.dim_type.out, width - n)
        for k in range(n, width):
            m = m.fix_val(isl.dim_type.out, k, 0)
        result = result.union(isl.UnionMap.from_map(m))
    return result


# The original execution order: { s -> t : T(s) <lex T(t) }.
def program_order(scop: Scop) -> isl.UnionMap:
    """Every pair of instances the original program runs in this order."""
    time = flat_schedule(scop.schedule_map())
    return time.lex_lt_union_map(time)


@dataclass(frozen=True, eq=False)
class Flow:
    """What a dataflow analysis returns: ``may`` and ``must`` dependences
    (source -> sink instances) and the sink accesses ``no_source`` (instance ->
    element) that may read a value from before the SCoP."""

    may: isl.UnionMap
    must: isl.UnionMap
    no_source: isl.UnionMap


def dataflow(sink: isl.UnionMap, schedule: isl.Schedule, *, must: isl.UnionMap | None = None,
             may: isl.UnionMap | None = None, kill: isl.UnionMap | None = None) -> Flow:
    """isl's dataflow analysis (``compute_flow``) of the ``sink`` accesses, or, when
    isl fails on the input, the same result computed by ``dataflow_by_lexmax``."""
    info = isl.UnionAccessInfo.from_sink(sink)
    if must is not None:
        info = info.set_must_source(must)
    if may is not None:
        info = info.set_may_source(may)
    if kill is not None:
        info = info.set_kill(kill)
    info = info.set_schedule(schedule)
    if kill is not None:                # isl has crashed on kills: in a child (below)
        flow = _compute_flow(info, sink.get_ctx())
    else:
        try:
            result = info.compute_flow()
        except isl.Error as exc:
            if is_quota(exc, sink.get_ctx()):
                raise
            result = None
        flow = None if result is None else Flow(result.get_may_dependence(),
                                                result.get_must_dependence(),
                                                result.get_may_no_source())
    if flow is None:
        return dataflow_by_lexmax(sink, flat_schedule(schedule), must=must, may=may, kill=kill)
    return flow


#: A child's exit statuses: the flow written, an isl error, the budget spent.
_WRITTEN, _FAILED, _SPENT = 0, 3, 5


# isl's compute_flow has crashed the process (a segmentation fault, fuzz seed
# 5606725: a kill and a may source of one array, the sink without an upper bound on
# a parameter the source bounds).  With a kill it runs in a forked child, which
# writes the three relations as text; a child that dies or fails is a failure like
# an isl error.  (A child adds 10-30 ms: the analyses without a kill stay here.)
def _compute_flow(info: isl.UnionAccessInfo, ctx: isl.Context) -> Flow | None:
    """isl's flow of ``info`` computed in a child process (None where isl fails or
    crashes there); an isl error when the child spent the context's budget."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: never returns
        faulthandler.disable()                      # its crash is expected, and handled
        os.close(readable)
        status, text = _FAILED, ""
        try:
            result = info.compute_flow()
            text = "\0".join(str(m) for m in (result.get_may_dependence(),
                                               result.get_must_dependence(),
                                               result.get_may_no_source()))
            status = _WRITTEN
        except isl.Error as exc:
            status = _SPENT if is_quota(exc, ctx) else _FAILED
        finally:
            with os.fdopen(writable, "w") as out:
                out.write(text)
            os._exit(status)
    os.close(writable)
    with os.fdopen(readable) as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _SPENT:
        raise isl.Error("compute_flow: maximal number of operations exceeded (in a child)")
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == _WRITTEN):
        return None
    may, must, none = (isl.UnionMap.read_from_str(ctx, part) for part in text.split("\0"))
    return Flow(may, must, none)


# With T the (injective) schedule and, for a set X of accesses (instance -> element),
#   B_X = { [k -> c] -> s : (s -> c) in X, T(s) <lex T(k) }   (X's accesses to c before k),
# the last must source or kill of each sink access [k -> c] is l = lexmax_T B_{M ∪ L};
#   must = { l -> k : l in B_M, no may source of c strictly between l and k },
#   may  = { s -> k : s in B_{M ∪ Y}, T(s) >=lex T(l) when l exists },
#   no_source = { k -> c in K : B_{M ∪ L}(k, c) is empty }
# (isl's definitions: a kill ends the search without being a source).
def dataflow_by_lexmax(sink: isl.UnionMap, time: isl.UnionMap, *,
                       must: isl.UnionMap | None = None, may: isl.UnionMap | None = None,
                       kill: isl.UnionMap | None = None) -> Flow:
    """The dataflow analysis from its definition (above), for inputs isl's
    ``compute_flow`` fails on; ``time`` is ``flat_schedule`` of the schedule."""
    empty = isl.UnionMap.empty(sink.get_space())
    must, may, kill = (must or empty), (may or empty), (kill or empty)
    earlier = sink.domain_map().apply_range(time.lex_gt_union_map(time))

    def before(sources: isl.UnionMap) -> isl.UnionMap:
        return sink.range_map().apply_range(sources.reverse()).intersect(earlier)

    ends = before(must.union(kill))
    sources = before(must.union(may))
    last = ends.apply_range(time).lexmax()
    ranges = sets_of(time.range())
    if ranges:
        space = ranges[0].get_space()
        not_earlier = last.apply_range(isl.UnionMap.from_map(isl.Map.lex_le(space)))
        later = last.apply_range(isl.UnionMap.from_map(isl.Map.lex_lt(space)))
    else:
        not_earlier = later = empty
    unsettled = sources.subtract_domain(ends.domain())
    may_rel = sources.intersect(not_earlier.apply_range(time.reverse())).union(unsettled)
    must_rel = last.apply_range(time.reverse()).intersect(before(must)).subtract_domain(
        sources.intersect(later.apply_range(time.reverse())).domain())

    def source_to_sink(rel: isl.UnionMap) -> isl.UnionMap:
        return rel.apply_domain(sink.domain_map()).reverse().coalesce()

    return Flow(source_to_sink(may_rel), source_to_sink(must_rel),
                sink.subtract(ends.domain().unwrap()).coalesce())


def universes(scop: Scop, names: Iterable[str]) -> isl.UnionSet:
    """``{ X[a_0, ..] }`` (every element) of each named array, in the SCoP's parameter
    space; a scalar's is ``{ X[] }``."""
    result = isl.UnionSet.empty(scop.context.get_space())
    for name in names:
        indices = ", ".join(f"a{k}" for k in range(scop.array(name).rank))
        result = result.union(isl.UnionSet.from_set(
            isl.Set(f"{{ {name}[{indices}] }}").align_params(scop.context.get_space())))
    return result


# Anti and output dependences (see the module docstring) among the given accesses.
def _false(reads: isl.UnionMap, must: isl.UnionMap, writes: isl.UnionMap,
           schedule: isl.Schedule) -> isl.UnionMap:
    anti = dataflow(writes, schedule, may=reads, kill=must).may
    output = dataflow(writes, schedule, must=must, may=writes).may
    return anti.union(output).coalesce()


# For an array X with accesses restricted to X (R_X reads, W_X must writes, M_X all
# writes): flow_X = dataflow(R_X; W_X, M_X), uninitialised_X = reads with no source,
# false_X = anti_X ∪ output_X computed exactly like the full ones.  Accesses to other
# arrays never meet X's, so these are exactly the parts of the full dependences due to X.
def array_dependences(scop: Scop, name: str) -> ArrayDependences:
    """The dependences that array (or scalar) ``name`` alone carries."""
    only = universes(scop, [name])
    reads = scop.reads().intersect_range(only)
    must = scop.must_writes().intersect_range(only)
    writes = scop.may_writes().intersect_range(only)
    schedule = scop.schedule.intersect_domain(scop.domain())
    flow_result = dataflow(reads, schedule, must=must, may=writes)
    return ArrayDependences(flow_result.may.coalesce(),
                            flow_result.no_source.domain().coalesce(),
                            _false(reads, must, writes, schedule))


#: isl operations the dependences of one SCoP may take when no caller set a budget:
#: PolyBench's most costly (deriche) takes under half a second; a fuzzed program
#: whose subscript divides by 3 (fuzz seed 2800070) ran for minutes.
DEPENDENCE_OPERATIONS = 50_000_000


def compute_dependences(scop: Scop) -> Dependences:
    """Compute flow, anti, output and reduction dependences and live-in/out accesses.

    An isl failure that even ``dataflow_by_lexmax`` cannot get round, or more than
    ``DEPENDENCE_OPERATIONS`` isl operations, is reported at the SCoP: without exact
    dependences nothing can be proven about it.  A budget the caller set stays in
    charge (its owner handles it).
    """
    ctx = scop.context.get_ctx()
    own = not ctx.get_max_operations()
    if own:
        ctx.reset_operations()
        ctx.set_max_operations(DEPENDENCE_OPERATIONS)
    try:
        return _dependences(scop)
    except Exception as exc:  # islpy may surface a spent budget as another error
        if is_quota(exc, ctx):
            if not own:
                raise
            raise error(f"isl cannot compute the dependences of SCoP '{scop.name}' within "
                        f"{DEPENDENCE_OPERATIONS} operations; it is left to the CPU",
                        scop.location) from None
        if not isinstance(exc, isl.Error):
            raise
        raise error(f"isl cannot compute the dependences of SCoP '{scop.name}' "
                    f"({isl_message(exc)}); it is left to the CPU", scop.location) from None
    finally:
        if own:
            ctx.set_max_operations(0)
            ctx.reset_operations()


def isl_message(exc: isl.Error) -> str:
    """isl's own words from an ``isl.Error`` (without the call and the source line)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    text = text.split(" failed: ", 1)[-1]
    return text.split(" in /", 1)[0].strip()


def _dependences(scop: Scop) -> Dependences:
    reads = scop.reads()
    must = scop.must_writes()
    writes = scop.may_writes()
    schedule = scop.schedule.intersect_domain(scop.domain())

    flow_result = dataflow(reads, schedule, must=must, may=writes)
    flow = flow_result.may.coalesce()
    live_in = flow_result.no_source.coalesce()

    anti = dataflow(writes, schedule, may=reads, kill=must).may.coalesce()
    output = dataflow(writes, schedule, must=must, may=writes).may.coalesce()

    # A write is live-out when no later write (must or may) of its element exists:
    # reverse the output dependence to find writes that are overwritten.
    overwritten = output.domain()
    live_out = writes.subtract_domain(overwritten)
    # Writes only may-overwritten keep their value sometimes: keep them live-out.
    must_over = dataflow(must, schedule, must=must).must.domain()
    live_out = live_out.union(writes.intersect_domain(overwritten.subtract(must_over))).coalesce()

    reduction = isl.UnionMap.empty(flow.get_space())
    all_deps = flow.union(anti).union(output)
    for stmt in scop.statements:
        if stmt.reduction is None:
            continue
        space = stmt.domain.get_space()
        self_map = isl.Map.universe(space.map_from_domain_and_range(space))
        reduction = reduction.union(all_deps.intersect(isl.UnionMap.from_map(self_map)))
    scalars = {a.name: array_dependences(scop, a.name) for a in scop.arrays
                if a.is_scalar and a.dead_after}
    shared_false = anti.union(output).coalesce()
    if scalars:
        candidates = universes(scop, scalars)
        shared_false = _false(reads.subtract_range(candidates), must.subtract_range(candidates),
                              writes.subtract_range(candidates), schedule)
    return Dependences(flow=flow, anti=anti, output=output, reduction=reduction.coalesce(),
                       live_in=live_in, live_out=live_out, scalars=scalars,
                       shared_false=shared_false)


def format_dependences(scop: Scop, deps: Dependences) -> str:
    """A readable dump (``polycu --dump-deps``), simplified under the SCoP's context."""
    lines = [f"dependences of {scop.name}"]
    for label in ("flow", "anti", "output", "reduction", "live_in", "live_out"):
        value = getattr(deps, label).gist_params(scop.context).coalesce()
        lines.append(f"  {label}: {value}")
    return "\n".join(lines)
