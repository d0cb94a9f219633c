"""Schedules computed by isl's PLUTO-like scheduler, under one fusion strategy.

In:  the SCoP, its ``Dependences``, a fusion strategy, the reduction statements
     to relax and isl option overrides.
Out: an ``isl.Schedule`` over ``scop.domain()`` (flags still to be recomputed by
     ``mark_bands``).

Constraints handed to isl (PPCG's choices plus input reuse):
  validity    = flow + anti + output (all of them, reductions included);
  proximity   = flow + input (read-after-read of the same element, nearest read):
                isl minimises these distances, i.e. temporal reuse;
  coincidence = validity - reduction dependences of the relaxed statements:
                a member may only be marked parallel when these have distance 0.
Options: outer coincidence (the outermost band member must be parallel when
possible, what a GPU grid needs) and maximal band depth are on; fusion is chosen
with isl's ``serialize_sccs`` (min fusion: every strongly connected component of
the dependence graph in its own loop nest), ``whole_component`` (max fusion: one
band over the whole component when legal) or neither (smart: isl's clustering
fuses only where it keeps the outer band's coincidence).

isl's context is shared by the whole process, so options are restored after each
run; an operation budget (``set_max_operations``) bounds the work per SCoP.

isl fails with "unable to carry dependences" when a dependence with existential
variables (strides, ``%`` and ``/`` in subscripts) admits, once relaxed to the
rationals, a distance its integer points do not: ``{ S[i] -> S[i'] : i' = i + 2
(mod 6), 0 <= i <= 2 }`` holds only forward pairs, but its rational relaxation
contains ``i' = i``, which no schedule can carry.  Every dependence runs forward in
the original order, so intersecting the constraints with that order ``O = { s -> t
: T(s) <lex T(t) }`` leaves their integer points unchanged while stating ``i' > i``
explicitly; the scheduler is retried once on ``C ∩ O``.

isl's scheduler also ran for minutes, under the operation budget, on SCoPs whose
domains or dependences hold huge constants (``n <= 2147483648``: an ``int``
iterator starting at ``unsigned n - 1``; ``i = 2147483647``: a dependence at the
end of an iterator's range; fuzz seeds 3400052, 3400172): its LPs carry them.
Such constraints are then dropped by computing the schedule on the
constraints restricted to a representative context ``R = C ∩ { p <= 2^16 }`` and
gisted by it; the tree is kept where its domain contains the SCoP's, restricted to
it, and like every candidate proven legal on the full dependences afterwards.

isl bounds the schedule's coefficients (``schedule_max_coefficient``) only in the
LPs of its bands, not in the LP of the step that carries the dependences no band
could: an ``unsigned`` loop's wrap modulo 2^32 led it to ``S[i, j, k] ->
[13204693752377389598923991723 i - 4294967296 j + k, i, j]`` (fuzz seed 3400210),
whose values overflow 64-bit arithmetic in the generated code, and whose mapping
ran isl for minutes on the launch sets (``dim_max``, ``min_val``, ``gist_params``:
few operations, each slow on such numbers, so the operation budget never stops
them).  A schedule beyond the bound is refused like a failure of isl
(``Unbounded``): the candidate is dropped with a note.

The representative context removes the huge constants that come from the
parameters' ranges, not those an iterator's own bounds hold (``k`` from ``j +
2147483651`` on: an ``unsigned`` counter offset by 2^31).  Where the schedule it
gives does not cover the domain, isl schedules the full constraints, which took
over five minutes for the index-set split of fuzz seed 4400087 while its unsplit
candidates took 0.05 s; an optional candidate such as a split then gives up
(``Unrepresentative``), dropped with a note like a failure of isl.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Mapping

import islpy as isl

from ..deps import Dependences, dataflow, is_quota, program_order
from ..model import Scop, maps_of, sets_of
from .bands import coincidence_dependences
from .value import is_band, walk

FUSION: dict[str, dict[str, int]] = {
    "max": {"schedule_whole_component": 1, "schedule_serialize_sccs": 0},
    "smart": {"schedule_whole_component": 0, "schedule_serialize_sccs": 0},
    "min": {"schedule_whole_component": 0, "schedule_serialize_sccs": 1},
}

#: Largest schedule coefficient isl may choose (isl's own default: none).  Without a
#: bound, dependences that exist only for impossible parameter values (a long
#: iterator wrapping past 2^63 - 1 when the bound is an int) led isl to
#: i + (2^63 - 1) * t, whose loop bounds overflow 64-bit arithmetic in the generated
#: code (fuzzer seed 2500034; tests/data/fuzz_found).  Affine schedules of real
#: loop nests (skews, shifts) use far smaller coefficients.
MAX_COEFFICIENT = 1024

# The isl options polycu sets, with their values for GPU scheduling; each one can
# be overridden from the command line as --isl-schedule-<name> (PPCG's spelling).
GPU_DEFAULTS: dict[str, int] = {
    "schedule_outer_coincidence": 1,
    "schedule_maximize_band_depth": 1,
    "schedule_maximize_coincidence": 0,
    "schedule_treat_coalescing": 1,
    "schedule_separate_components": 0,
    "schedule_carry_self_first": 1,
    "schedule_max_coefficient": MAX_COEFFICIENT,
    "schedule_max_constant_term": -1,
    "schedule_algorithm": 0,
}

ALGORITHMS = {"isl": 0, "feautrier": 1}


class BudgetExceeded(Exception):
    """isl ran out of its operation budget (``--schedule-max-operations``)."""


class Unbounded(isl.Error):
    """isl's schedule has a coefficient beyond ``schedule_max_coefficient`` (module
    docstring): an ``isl.Error`` so that the candidate is dropped as when isl fails."""


class Unrepresentative(isl.Error):
    """An optional candidate's constraints hold huge constants that a representative
    context does not remove (module docstring): dropped as when isl fails."""


@contextmanager
def isl_options(ctx: isl.Context, values: Mapping[str, int]) -> Iterator[None]:
    """Set isl context options for the duration of a block, then restore them."""
    saved = {name: getattr(ctx, f"get_{name}")() for name in values}
    try:
        for name, value in values.items():
            getattr(ctx, f"set_{name}")(value)
        yield
    finally:
        for name, value in saved.items():
            getattr(ctx, f"set_{name}")(value)


#: isl operations allowed for each step of generating one schedule's code: its
#: mapping, each kernel's AST, the host AST and grid sizes (the command-line option
#: would be --isl-max-operations; 0 = no limit).  PolyBench's kernels need at most
#: 1,024,000 per step (seidel-2d's wavefront kernel; found by doubling from 1000),
#: so the limit leaves a factor 4; isl's time per operation grows with the size of
#: the sets (a tiled 3-D wavefront: 1M operations in 5 s, 4M in 50 s).  Beyond it the
#: schedule is dropped for the next one (the driver), like Polly's
#: compute-out.
MAX_OPERATIONS = 4_000_000


@contextmanager
def operation_budget(ctx: isl.Context, max_operations: int) -> Iterator[None]:
    """Count isl operations from zero; raise ``BudgetExceeded`` when the cap is hit
    (whatever error the operation that hit it raised).

    ``max_operations <= 0`` means no cap.
    """
    saved = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(max(0, max_operations))
    try:
        yield
    except Exception as exc:  # islpy may surface a spent budget as another error
        if is_quota(exc, ctx):
            raise BudgetExceeded(str(exc)) from None
        raise
    finally:
        ctx.set_max_operations(saved)
        ctx.reset_operations()


def input_dependences(scop: Scop) -> isl.UnionMap:
    """Read-after-read of one element: each read linked to the nearest earlier read."""
    reads = scop.reads()
    schedule = scop.schedule.intersect_domain(scop.domain())
    return dataflow(reads, schedule, must=reads).must.coalesce()


def constraints(scop: Scop, deps: Dependences, relaxed: frozenset[str],
                proximity_input: bool = True) -> isl.ScheduleConstraints:
    """The schedule constraints described in the module docstring."""
    proximity = deps.flow
    if proximity_input:
        proximity = proximity.union(input_dependences(scop))
    return (isl.ScheduleConstraints.on_domain(scop.domain())
            .set_context(scop.context)
            .set_validity(deps.validity)
            .set_proximity(proximity.coalesce())
            .set_coincidence(coincidence_dependences(deps, relaxed)))


def isl_schedule(scop: Scop, deps: Dependences, fusion: str, *,
                 relaxed: frozenset[str] = frozenset(),
                 overrides: Mapping[str, int] | None = None,
                 sc: isl.ScheduleConstraints | None = None,
                 order: isl.UnionMap | None = None, optional: bool = False) -> isl.Schedule:
    """isl's schedule under the fusion strategy ``fusion`` ('max', 'smart' or 'min').

    ``overrides`` (isl option name -> value) win over both the GPU defaults and
    the fusion strategy, like PPCG's --isl-schedule-* options; ``sc`` are the
    constraints when already built (they do not depend on the strategy) and
    ``order`` the original execution order of their statements (by default the
    SCoP's).  When isl fails, it is retried on the constraints restricted to the
    original order (module docstring); a second failure raises ``isl.Error``.
    ``optional`` (a candidate the others do without, such as a split) gives up on
    huge constants that a representative context does not remove (``_computed``).
    """
    values = dict(GPU_DEFAULTS)
    values.update(FUSION[fusion])
    values.update(overrides or {})
    ctx = scop.domain().get_ctx()
    if sc is None:
        sc = constraints(scop, deps, relaxed)
    with isl_options(ctx, values):
        try:
            tree = _computed(sc, scop, optional)
        except isl.Error as exc:
            if is_quota(exc, ctx) or isinstance(exc, Unrepresentative):
                raise
            tree = _computed(forward(sc, program_order(scop) if order is None else order), scop,
                             optional)
    return bounded(tree, values["schedule_max_coefficient"])


def _computed(sc: isl.ScheduleConstraints, scop: Scop, optional: bool) -> isl.Schedule:
    """isl's schedule of ``sc``, under a representative context where ``huge_bounds``;
    an ``optional`` candidate gives up (``Unrepresentative``) where that schedule
    does not cover ``sc``'s domain rather than schedule the huge constraints."""
    if huge_bounds(sc, scop):
        found = representative(sc, scop).compute_schedule()
        if sc.get_domain().is_subset(found.get_domain()):
            return found.intersect_domain(sc.get_domain())
        if optional:
            raise Unrepresentative("huge constants in the scheduling constraints, beyond "
                                   "a representative context")
    return sc.compute_schedule()


# |c| <= bound for every coefficient c of a parameter, an iterator or a floor term in
# every piece of every band member (bound < 0: isl's "no bound").
def bounded(tree: isl.Schedule, bound: int) -> isl.Schedule:
    """``tree``, or ``Unbounded`` raised when isl's step that carries dependences gave
    it a coefficient beyond the ``bound`` isl was asked for (module docstring)."""
    if bound < 0:
        return tree
    kinds = (isl.dim_type.param, isl.dim_type.in_, isl.dim_type.div)
    limit = isl.Val.int_from_si(tree.get_ctx(), bound)
    for node in walk(tree):
        if not is_band(node):
            continue
        members = node.band_get_partial_schedule()
        for k in range(members.dim(isl.dim_type.set)):
            pieces: list[isl.PwAff] = []
            members.get_union_pw_aff(k).foreach_pw_aff(pieces.append)
            for aff in (aff for piece in pieces for _, aff in piece.get_pieces()):
                for kind in kinds:
                    for d in range(aff.dim(kind)):
                        c = aff.get_coefficient_val(kind, d)   # may be rational
                        if c.abs().gt(limit):
                            raise Unbounded(f"schedule coefficient {c} beyond "
                                            f"schedule_max_coefficient {bound}")
    return tree


#: Constants of the scheduling constraints from which isl's scheduler is run under a
#: representative context; the parameters' bound there.
HUGE = 1 << 20
REPRESENTATIVE = 1 << 16


def huge_bounds(sc: isl.ScheduleConstraints, scop: Scop) -> bool:
    """Whether a constraint of ``sc``'s domain or relations has a constant of at least
    ``HUGE`` (a parameter's type range, an iterator at the end of its own)."""
    if not scop.parameters:
        return False
    pieces = [*sets_of(sc.get_domain()), *maps_of(sc.get_validity()),
              *maps_of(sc.get_proximity()), *maps_of(sc.get_coincidence())]
    for piece in pieces:
        basics = piece.get_basic_sets() if isinstance(piece, isl.Set) else piece.get_basic_maps()
        if any(abs(c.get_constant_val().to_python()) >= HUGE
               for basic in basics for c in basic.get_constraints()):
            return True
    return False


# R = C ∩ { p <= REPRESENTATIVE }; each set X of the constraints becomes gist(X ∩ R, R),
# from which isl drops the constraints R implies (the huge bounds).
def representative(sc: isl.ScheduleConstraints, scop: Scop) -> isl.ScheduleConstraints:
    """``sc`` restricted to a representative context and simplified by it."""
    bound = " and ".join(f"{p} <= {REPRESENTATIVE}" for p in scop.parameters)
    names = ", ".join(scop.parameters)
    small = scop.context.intersect(
        isl.Set(f"[{names}] -> {{ : {bound} }}").align_params(scop.context.get_space()))

    def simple(relation: isl.UnionMap | isl.UnionSet) -> isl.UnionMap | isl.UnionSet:
        return relation.intersect_params(small).gist_params(small)
    return (isl.ScheduleConstraints.on_domain(simple(sc.get_domain())).set_context(small)
            .set_validity(simple(sc.get_validity()))
            .set_proximity(simple(sc.get_proximity()))
            .set_coincidence(simple(sc.get_coincidence())))


# C ∩ O for the validity, coincidence and proximity relations of C (polycu sets no
# conditional validity).
def forward(sc: isl.ScheduleConstraints, order: isl.UnionMap) -> isl.ScheduleConstraints:
    """The same constraints with the original order ``order`` made explicit."""
    return (sc.set_validity(sc.get_validity().intersect(order))
            .set_coincidence(sc.get_coincidence().intersect(order))
            .set_proximity(sc.get_proximity().intersect(order)))
