"""The legality proof: every dependence is carried forward by the schedule.

In:  a schedule (``Schedule``, ``isl.Schedule`` or a union map ``S[i] -> [t]``),
     the SCoP and its ``Dependences``.
Out: nothing when the schedule is legal; otherwise ``IllegalSchedule``, a located
     diagnostic naming the dependence kind, the source and sink statements and one
     instance pair that the schedule runs in the wrong order.

Mathematics.  With the schedule ``T`` (a function on every instance of the domain,
all statements mapped into one time space), a dependence ``s -> t`` is respected iff
``T(s) <_lex T(t)``.  For each dependence relation ``R`` between statements ``A`` and
``B`` the set of violations is ``R  intersect  { s -> t : T_A(s) >=_lex T_B(t) }``;
the schedule is legal iff it is empty for every relation of the validity
dependences (flow, anti, output; reduction dependences are among them, so even a
relaxed schedule is proven sequentially correct: relaxation only affects which
members the mapping may run in parallel with atomic updates).  Equality counts as a
violation: two dependent instances at the same time point are unordered.
"""
from __future__ import annotations

import islpy as isl

from ..deps import Dependences, flat_schedule
from ..diagnostics import Diagnostic, Location, PolycuError
from ..model import Scop, maps_of, sets_of
from .value import Schedule

KINDS = ("flow", "anti", "output")


class IllegalSchedule(PolycuError):
    """A schedule violates a dependence (or does not schedule every instance once)."""

    def __init__(self, diagnostics, kind: str = "", source: str = "", sink: str = "",
                 example: str = ""):
        super().__init__(diagnostics)
        self.kind = kind
        self.source = source
        self.sink = sink
        self.example = example


def schedule_relation(schedule: Schedule | isl.Schedule | isl.UnionMap,
                      domain: isl.UnionSet) -> isl.UnionMap:
    """``T`` restricted to ``domain``, every range padded with zeros into one time space."""
    if isinstance(schedule, Schedule):
        schedule = schedule.tree
    umap = schedule.get_map() if isinstance(schedule, isl.Schedule) else schedule
    return flat_schedule(umap.intersect_domain(domain))


def _on_space(umap: isl.UnionMap, space: isl.Space) -> isl.Map:
    """The part of ``umap`` whose domain lies in the set space ``space``."""
    return umap.intersect_domain(isl.UnionSet.from_set(isl.Set.universe(space))) \
        .extract_map(_map_space(umap, space))


def _map_space(umap: isl.UnionMap, domain_space: isl.Space) -> isl.Space:
    """The space of ``umap``'s map on the statement ``domain_space`` (whatever the
    order of the parameters, which may differ between the two)."""
    for m in maps_of(umap):
        if m.get_space().domain().has_equal_tuples(domain_space):
            return m.get_space()
    raise AssertionError("no schedule for a statement of the dependences")


def _coords(point_set: isl.Set) -> list[int]:
    """The coordinates of the single point of ``point_set``."""
    point = point_set.sample_point()
    return [point.get_coordinate_val(isl.dim_type.set, k).to_python()
            for k in range(point_set.dim(isl.dim_type.set))]


def _instance_text(point_set: isl.Set) -> str:
    return f"{point_set.get_tuple_name()}[{', '.join(map(str, _coords(point_set)))}]"


def _location(scop: Scop, statement: str) -> Location | None:
    try:
        return scop.statement(statement).location or scop.location
    except KeyError:
        return scop.location


def _check_coverage(scop: Scop, relation: isl.UnionMap, label: str) -> None:
    """Every instance of the domain must be scheduled, and at exactly one time."""
    domain = scop.domain()
    missing = domain.subtract(relation.domain())
    if not missing.is_empty():
        first = sets_of(missing)[0]
        name = first.get_tuple_name()
        raise IllegalSchedule(Diagnostic(
            "error", f"schedule '{label}' does not schedule every instance of statement "
            f"{name} (unscheduled: {first})", _location(scop, name)))
    if not relation.is_single_valued():
        raise IllegalSchedule(Diagnostic(
            "error", f"schedule '{label}' gives some statement instance more than one time",
            scop.location))


# check_legality: for every dependence relation R of kind flow/anti/output between
# A and B, R  intersect  (T_A . (>=_lex) . T_B^-1) must be empty.
def check_legality(scop: Scop, deps: Dependences,
                   schedule: Schedule | isl.Schedule | isl.UnionMap, *, label: str = "") -> None:
    """Prove ``schedule`` respects every dependence, or raise ``IllegalSchedule``."""
    if not label:
        label = schedule.name if isinstance(schedule, Schedule) else "given"
    time = schedule_relation(schedule, scop.domain())
    _check_coverage(scop, time, label)
    for kind in KINDS:
        for dep in maps_of(getattr(deps, kind)):
            src_time = _on_space(time, dep.get_space().domain())
            dst_time = _on_space(time, dep.get_space().range())
            pairs = dep.apply_domain(src_time).apply_range(dst_time)
            if pairs.intersect(isl.Map.lex_ge(pairs.get_space().domain())).is_empty():
                continue
            order = src_time.lex_ge_map(dst_time)
            bad = dep.intersect(order)
            assert not bad.is_empty()
            raise _violation(scop, kind, bad, src_time, dst_time, label)


def _violation(scop: Scop, kind: str, bad: isl.Map, src_time: isl.Map, dst_time: isl.Map,
               label: str) -> IllegalSchedule:
    """The diagnostic for one sampled violating pair (parameters fixed by the sample)."""
    point = bad.wrap().sample_point()
    pair = isl.Set.from_point(point).unwrap()
    space = pair.get_space()
    params = ", ".join(f"{space.get_dim_name(isl.dim_type.param, k)}="
                       f"{point.get_coordinate_val(isl.dim_type.param, k).to_python()}"
                       for k in range(space.dim(isl.dim_type.param)))
    source, sink = pair.domain(), pair.range()
    example = f"{_instance_text(source)} -> {_instance_text(sink)}"
    t_src = tuple(_coords(source.apply(src_time)))
    t_dst = tuple(_coords(sink.apply(dst_time)))
    when = f" (with {params})" if params else ""
    src_name, dst_name = source.get_tuple_name(), sink.get_tuple_name()
    message = (f"schedule '{label}' violates the {kind} dependence {src_name} -> {dst_name}: "
               f"{example}{when} must run in this order, but the schedule runs the source at "
               f"time {t_src} and the sink at time {t_dst}")
    diags = [Diagnostic("error", message, _location(scop, dst_name))]
    if src_name != dst_name:
        diags.append(Diagnostic("note", f"source statement {src_name} is here",
                                _location(scop, src_name)))
    return IllegalSchedule(diags, kind=kind, source=src_name, sink=dst_name, example=example)


def is_legal(scop: Scop, deps: Dependences,
             schedule: Schedule | isl.Schedule | isl.UnionMap) -> bool:
    """``check_legality`` as a predicate (for exploration loops)."""
    try:
        check_legality(scop, deps, schedule)
    except IllegalSchedule:
        return False
    return True
