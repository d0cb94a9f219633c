"""Snapshots: reads of values from before the SCoP served by a copy taken at its start.

In:  the SCoP (possibly with temporaries expanded already: expand.py).
Out: ``Snapshot``s: for an array X, the reads that move to a new local array
     ``X_inN`` and the statement ``X_inN[c] = X[c]`` that runs before the SCoP.

trmm computes ``B[i][j] += A[k][i] * B[k][j]`` for ``k > i``: row ``i`` reads rows
``k`` before the SCoP rewrites them (at ``i = k``).  Those reads take values from
before the SCoP, yet their anti dependences order every row after the rows above
it, so only ``j`` is parallel (1200 threads, each running half a million FMAs:
75 ms at LARGE on an H100).  Read from a snapshot, the rows no longer wait for
each other.

Mathematics.  A read ``R: S[i] -> X[f(i)]`` qualifies when X is written in the SCoP,
no instance of R has a source in it (``dataflow(R)`` is empty: every value read is
X's value at the start), no write shares R's C node (a compound update reads and
writes one node), S is not a reduction on X nor a data-dependent loop writing X
(which may read back its own values: ``Statement.loop``), and some anti dependence of R joins instances that differ in a
loop position they both have (else the snapshot only costs a copy).  The copy
statement ``C[c]: X_in[c] = X[c]`` runs once per element of ``⋃ R(D_S)`` before
everything else.  expand.py proves the result: each moved read instance must
take its value from exactly the copy of its element, and the copy from before
the SCoP.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_generator

from ..deps import dataflow, universes
from ..model import READ, WRITE, Access, Array, Scop, Statement, equal_prefix, maps_of
from .copyout import Copy


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The reads of ``array`` (their ``Access.ref``) to serve from a copy."""

    array: Array
    refs: frozenset[str]


# Some pair s -> t of the anti dependences with x_s[0..n) != x_t[0..n), n the
# smaller depth of the two: the read orders iterations of a loop position.
def _orders_iterations(anti: isl.UnionMap) -> bool:
    return any(not m.is_subset(equal_prefix(m, min(m.dim(isl.dim_type.in_),
                                                    m.dim(isl.dim_type.out))))
               for m in maps_of(anti))


def _qualifies(scop: Scop, statement: Statement, read: Access) -> bool:
    """Whether ``read`` takes only values from before the SCoP and its anti
    dependences order iterations (module docstring)."""
    if any(w.node is read.node for w in statement.writes) \
            or statement.reduction_array == read.array:
        return False
    if statement.loop and any(w.array == read.array for w in statement.writes):
        return False        # the loop may read back its own values, which no source shows
    sink = isl.UnionMap.from_map(read.relation.intersect_domain(statement.domain))
    schedule = scop.schedule.intersect_domain(scop.domain())
    # only the read's array meets it: the other arrays' writes left out of isl's input
    only = universes(scop, [read.array])
    must = scop.must_writes().intersect_range(only)
    may = scop.may_writes().intersect_range(only)
    if not dataflow(sink, schedule, must=must, may=may).may.is_empty():
        return False
    anti = dataflow(may, schedule, may=sink, kill=must).may
    return _orders_iterations(anti)


def snapshots(scop: Scop) -> list[Snapshot]:
    """The arrays with reads that a snapshot would free (module docstring)."""
    written = {a.array for s in scop.statements for a in s.writes}
    found: dict[str, set[str]] = {}
    for statement in scop.statements:
        for read in statement.reads:
            if read.array in written and not scop.array(read.array).is_scalar \
                    and _qualifies(scop, statement, read):
                found.setdefault(read.array, set()).add(read.ref)
    return [Snapshot(scop.array(name), frozenset(refs)) for name, refs in sorted(found.items())]


def footprint(scop: Scop, snapshot: Snapshot) -> isl.Set:
    """``⋃ R(D_S)``: the elements the moved reads read."""
    result = None
    for statement in scop.statements:
        for read in statement.reads:
            if read.ref in snapshot.refs:
                part = read.relation.intersect_domain(statement.domain).range()
                result = part if result is None else result.union(part)
    assert result is not None
    return result.intersect_params(scop.context).coalesce()


def copy_in(scop: Scop, snapshot: Snapshot, temporary: Array, name: str,
            iterators: list[str]) -> Copy:
    """Statement ``name``: ``temporary[c] = X[c]`` for every element the moved reads
    read, scheduled before the SCoP (a band over the elements)."""
    array = snapshot.array
    domain = footprint(scop, snapshot).set_tuple_name(name)
    for k, iterator in enumerate(iterators):
        domain = domain.set_dim_name(isl.dim_type.set, k, iterator)
    space = domain.get_space()
    params = f"[{', '.join(space.get_var_names(isl.dim_type.param))}] -> "
    tuple_ = f"{name}[{', '.join(iterators)}]"
    cells = ", ".join(iterators)
    read = isl.Map(f"{params}{{ {tuple_} -> {array.name}[{cells}] }}")
    write = isl.Map(f"{params}{{ {tuple_} -> {temporary.name}[{cells}] }}")
    source, target = c_ast.ID(array.name), c_ast.ID(temporary.name)
    for iterator in iterators:
        source, target = c_ast.ArrayRef(source, c_ast.ID(iterator)), \
            c_ast.ArrayRef(target, c_ast.ID(iterator))
    body = c_ast.Assignment("=", target, source)
    accesses = (Access(array.name, READ, read, f"{name}.0", array.location, source),
                Access(temporary.name, WRITE, write, f"{name}.1", array.location, target))
    statement = Statement(name, domain, tuple(iterators), body, accesses,
                          c_generator.CGenerator().visit(body), array.location,
                          iterator_types=("long",) * len(iterators))
    band = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(
        isl.Map(f"{params}{{ {tuple_} -> [{cells}] }}")))
    schedule = isl.Schedule.from_domain(isl.UnionSet.from_set(domain))
    schedule = schedule.get_root().child(0).insert_partial_schedule(band).get_schedule()
    return Copy(statement, schedule)
