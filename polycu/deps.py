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
  of the same element inside the SCoP).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import islpy as isl

from .model import Scop


@dataclass(frozen=True, eq=False)
class Dependences:
    """The dependences of one Scop; every field is an ``isl.UnionMap``."""

    flow: isl.UnionMap
    anti: isl.UnionMap
    output: isl.UnionMap
    reduction: isl.UnionMap
    live_in: isl.UnionMap
    live_out: isl.UnionMap

    @property
    def validity(self) -> isl.UnionMap:
        """Every dependence a legal schedule must respect."""
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
    found: list[isl.Set] = []
    umap.domain().foreach_set(lambda s: found.append(s) if s.get_tuple_name() == name else None)
    if not found:
        return isl.Set(f"{{ {name}[] : false }}")
    return isl.Set.universe(found[0].get_space())


def _range_names(umap: isl.UnionMap) -> set[str]:
    names: set[str] = set()
    umap.range().foreach_set(lambda s: names.add(s.get_tuple_name()))
    return names


def _flow(sink: isl.UnionMap, schedule: isl.Schedule, *, must: isl.UnionMap | None = None,
          may: isl.UnionMap | None = None, kill: isl.UnionMap | None = None) -> isl.UnionFlow:
    info = isl.UnionAccessInfo.from_sink(sink)
    if must is not None:
        info = info.set_must_source(must)
    if may is not None:
        info = info.set_may_source(may)
    if kill is not None:
        info = info.set_kill(kill)
    return info.set_schedule(schedule).compute_flow()


def compute_dependences(scop: Scop) -> Dependences:
    """Compute flow, anti, output and reduction dependences and live-in/out accesses."""
    reads = scop.reads()
    must = scop.must_writes()
    writes = scop.may_writes()
    schedule = scop.schedule.intersect_domain(scop.domain())

    flow_result = _flow(reads, schedule, must=must, may=writes)
    flow = flow_result.get_may_dependence().coalesce()
    live_in = flow_result.get_may_no_source().coalesce()

    anti = _flow(writes, schedule, may=reads, kill=must).get_may_dependence().coalesce()
    output = _flow(writes, schedule, must=must, may=writes).get_may_dependence().coalesce()

    # A write is live-out when no later write (must or may) of its element exists:
    # reverse the output dependence to find writes that are overwritten.
    overwritten = output.domain()
    live_out = writes.subtract_domain(overwritten)
    # Writes only may-overwritten keep their value sometimes: keep them live-out.
    must_over = _flow(must, schedule, must=must).get_must_dependence().domain()
    live_out = live_out.union(writes.intersect_domain(overwritten.subtract(must_over))).coalesce()

    reduction = isl.UnionMap.empty(flow.get_space())
    all_deps = flow.union(anti).union(output)
    for stmt in scop.statements:
        if stmt.reduction is None:
            continue
        space = stmt.domain.get_space()
        self_map = isl.Map.universe(space.map_from_domain_and_range(space))
        reduction = reduction.union(all_deps.intersect(isl.UnionMap.from_map(self_map)))
    return Dependences(flow=flow, anti=anti, output=output, reduction=reduction.coalesce(),
                       live_in=live_in, live_out=live_out)


def format_dependences(scop: Scop, deps: Dependences) -> str:
    """A readable dump (``polycu --dump-deps``), simplified under the SCoP's context."""
    lines = [f"dependences of {scop.name}"]
    for label in ("flow", "anti", "output", "reduction", "live_in", "live_out"):
        value = getattr(deps, label).gist_params(scop.context).coalesce()
        lines.append(f"  {label}: {value}")
    return "\n".join(lines)
