"""The placement value and the placement phase.

A kernel ``K`` touches the arrays ``R_K ∪ W_K`` (read, written) less the scalars each
of its threads keeps private (``Kernel.private``: local variables, not memory).
``place`` gives each of them one ``Choice``; ``format_placement`` says them in
words (``--dump-memory``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import islpy as isl
from pycparser import c_generator

from ..gpu.kernel import GpuProgram, Kernel
from ..model import Array, Scop, maps_of
from ..deps import is_quota, isl_message
from ..schedule import BudgetExceeded, operation_budget
from .lanes import LaneOrder, full_lanes, full_tiles, lane_count, lane_order, uniform_lanes
from .registers import Promotion, promotions, with_copies
from .padding import Padding, padding
from .scaling import scaled
from .shared import SharedOrder, SharedTile, copy_lanes, serving, tiles, with_zeros
from .strips import apart
from . import kinds
from .asynchronous import L1_BYTES, marked
from .carried import Carry, carried_in

GLOBAL, PARAMETER, REGISTER, SHARED = kinds.GLOBAL, kinds.PARAMETER, kinds.REGISTER, kinds.SHARED
#: The kinds of memory code generation can print: device memory (plain, through the
#: read-only path, a texture, a surface or constant memory: kinds.py), a kernel
#: parameter (a scalar passed by value, in the launch's constant parameter space),
#: registers of each thread (in device memory between the thread's uses) and a tile
#: in shared memory (in device memory between the block's copies).
KINDS = (*kinds.PATHS, PARAMETER, REGISTER, SHARED)
_GENERATOR = c_generator.CGenerator()
#: Shared memory a block may use without CUDA's opt-in attribute (bytes).
MAX_SHARED_MEMORY = 48 * 1024
#: The most lanes (outputs per thread) of a register tile.  Each lane holds one
#: register per promoted array: gemm with 8x8 lanes ran at 0.58-0.67 ms against
#: 0.34 ms with 4x2 (190 registers leave too few warps; docs/results/memory.md), and
#: a 3-D block of 32x32x32 tiles run by 2x4x32 threads would ask for 128.
MAX_LANES = 16


@dataclass(frozen=True)
class Choice:
    """Where one array lives in one kernel, and why."""

    array: str
    kind: str
    reason: str


@dataclass(frozen=True, eq=False)
class KernelPlacement:
    """The choices of one kernel, one per array it touches, in the SCoP's array order;
    the arrays kept in registers and in shared tiles, with the thread's order
    including their copies (None when there are none: the kernel's own order).
    ``instances`` is the order of the statement instances alone (its last
    ``len(lanes)`` dimensions are the lanes); ``tile_depth`` the prefix of it at
    which the shared tiles are loaded; ``full`` the parameters (with b, h) of the
    blocks whose lanes all fall inside the members' ranges (None: no lanes)."""

    kernel: str
    choices: tuple[Choice, ...]
    registers: tuple[Promotion, ...] = ()
    order: isl.UnionMap | None = None
    shared: tuple[SharedTile, ...] = ()
    instances: isl.UnionMap | None = None
    lanes: tuple[int, ...] = ()
    tile_depth: int = 0
    full: isl.Set | None = None
    padded: frozenset[str] = frozenset()   # statements run on every lane (padding.py)
    strips: tuple[int, isl.UnionMap] | None = None   # strips.py: (c's dimension, M_f)
    staged: frozenset[str] = frozenset()   # read in strips by each thread (asynchronous.py)
    carried: tuple[Carry, ...] = ()        # values a thread's recurrence reads back (carried.py)

    @property
    def lane_dimensions(self) -> range:
        """The positions of the lanes in ``order``'s time (its last ones)."""
        if self.order is None or not self.lanes:
            return range(0)
        width = maps_of(self.order)[0].dim(isl.dim_type.out)
        return range(width - len(self.lanes), width)

    @property
    def barriers(self) -> bool:
        """Whether the kernel's threads synchronise (it has shared tiles)."""
        return bool(self.shared)

    def of(self, array: str) -> Choice:
        for choice in self.choices:
            if choice.array == array:
                return choice
        raise KeyError(f"kernel {self.kernel} does not touch array {array}")


@dataclass(frozen=True, eq=False)
class Placement:
    """A GPU program with every array of every kernel placed, the kernels' ASTs, their
    contractions, how the host launches them and a resident grid's plan (resident.py)."""

    program: GpuProgram
    kernels: tuple[KernelPlacement, ...]
    asts: Any = None
    tensor: dict[str, Any] = field(default_factory=dict)   # contraction.py, by kernel
    trees: dict[str, Any] = field(default_factory=dict)    # gpu/tree.py, by kernel
    concurrent: bool = False
    dependent: bool = False
    resident: Any = None
    # The host faults in the pages of arrays copied in and out while the GPU runs
    # (codegen/prefault.py): the kernels were estimated long enough (gpu.where).
    late_faults: bool = False

    def kernel(self, name: str) -> KernelPlacement:
        for placed in self.kernels:
            if placed.kernel == name:
                return placed
        raise KeyError(name)


#: --memory's overrides: {kernel index or ANY: {array: kind}}.
ANY = -1
Overrides = dict[int, dict[str, str]]


def place(program: GpuProgram, private_memory: bool = True, shared_memory: bool = True,
          max_shared_memory: int = MAX_SHARED_MEMORY, plain: frozenset[str] = frozenset(),
          overrides: Overrides | None = None, max_operations: int = 0,
          constant_taken: int = 0, trees: frozenset[str] = frozenset(),
          async_copies: bool = True, stage_bytes: int = L1_BYTES,
          carry: bool = True) -> Placement:
    """Every array of every kernel where it lives: with ``shared_memory``
    (--no-shared-memory turns it off) a shared tile where the block reads it across
    a loop (shared.py); with ``private_memory`` registers where one thread reuses
    elements of it (registers.py, each thread's register tile: lanes.py); a
    parameter for a scalar the SCoP only reads; global memory otherwise.  The
    kernels named in ``plain`` keep their own order and global memory (the driver's
    fall-back when a placed kernel's code cannot be built).  ``overrides`` (--memory)
    keep an array in global memory, out of shared memory (``register``), or give it
    a shared tile where one is legal even if the cost model says no (``shared``).
    A kernel whose analysis takes more than ``max_operations`` isl operations (0:
    no limit) keeps its own order and global memory.  ``constant_taken`` bytes of
    constant memory are used by the file's earlier SCoPs.  ``trees`` sum in a tree
    (gpu/tree.py), arrays in device memory; ``async_copies``, ``stage_bytes``: asynchronous.py;
    ``carry``: carried.py."""
    overrides = overrides or {}
    ctx = program.scop.context.get_ctx()
    kernels = []
    constants = kinds.Constants(constant_taken)
    for k in program.kernels:
        chosen = {**overrides.get(ANY, {}), **overrides.get(k.index, {})}
        if k.name in trees:
            kernels.append(_plain(program, k, max_shared_memory, chosen,
                                  "sums in a tree, its threads reading device memory",
                                  "the kernel"))
            continue
        try:
            with operation_budget(ctx, max_operations):
                placed = _paths(program, k, _kernel(
                    program, k, private_memory and k.name not in plain,
                    shared_memory and k.name not in plain, max_shared_memory, chosen,
                    async_copies), chosen, constants)
                placed = replace(placed, **marked(program, k, placed.shared,
                    placed.choices, stage_bytes)) if async_copies else placed
                kernels.append(carried_in(program, k, placed) if carry else placed)
        except BudgetExceeded:
            kernels.append(_plain(program, k, max_shared_memory, chosen,
                                  "ran out of its isl budget"))
        except isl.Error as exc:   # isl fails on some analyses (fuzz seed 2000154)
            if is_quota(exc, ctx):
                raise
            kernels.append(_plain(program, k, max_shared_memory, chosen,
                                  f"failed in isl ({isl_message(exc)})"))
    return Placement(program, tuple(kernels))


def _paths(program: GpuProgram, kernel: Kernel, placed: KernelPlacement,
           chosen: dict[str, str], constants: kinds.Constants) -> KernelPlacement:
    """``placed`` with each array it keeps in device memory on the path the calibrated
    model picks (kinds.py): plain, read-only, texture, surface or constant."""
    choices = []
    for choice in placed.choices:
        if choice.kind == GLOBAL:
            kind, why = kinds.choose(program, kernel, program.scop.array(choice.array),
                                     chosen.get(choice.array), constants,
                                     chosen.get(kinds.EVERY))
            choice = Choice(choice.array, kind, f"{choice.reason}; {why}")
        choices.append(choice)
    return replace(placed, choices=tuple(choices))


def _plain(program: GpuProgram, kernel: Kernel, max_shared_memory: int,
           chosen: dict[str, str], what: str,
           who: str = "the analysis of registers and shared tiles") -> KernelPlacement:
    """``kernel`` in its own order with global memory, because ``who`` ``what``."""
    placed = _kernel(program, kernel, False, False, max_shared_memory, chosen)
    scop = program.scop
    return replace(placed, choices=tuple(
        replace(c, kind=kinds.default_kind(kernel, scop.array(c.array)),
                reason=f"{c.reason.split(';')[0]}; {who} {what}") if c.kind == GLOBAL
        else c for c in placed.choices))


# Whether the FMA loop is fed from the chip: every read of a statement of K is of a
# register, of a shared tile or of a scalar passed by value, and each thread runs a
# 2-D register tile.  Then no warp reads global memory in the loop, and square
# blocks, whose warps read half rows, lose no coalescing (driver.SQUARE).
def reads_on_chip(scop: Scop, kernel: Kernel, placed: KernelPlacement) -> bool:
    """Whether ``kernel``'s statements read only registers, shared tiles and by-value
    scalars, in threads with 2-D register tiles (the comment above)."""
    if len(placed.lanes) < 2 or any(n > 1 for n in placed.lanes[:-2]) \
            or not placed.registers:
        return False
    served = serving(placed.shared)
    promoted = {p.array: p for p in placed.registers}
    return all(a.ref in served or (a.array in promoted and promoted[a.array].holds(a.ref))
               or a.array in kernel.private
               or passed_by_value(scop, scop.array(a.array))
               for s in scop.statements if s.name in kernel.statements
               for a in s.accesses if a.is_read)


def too_many_lanes(kernel: Kernel) -> bool:
    """Whether the kernel's register tile would have more than ``MAX_LANES`` lanes
    (then it gets neither registers nor shared tiles)."""
    return math.prod(lane_count(m) for m in kernel.mapped) > MAX_LANES


def uneven_lanes(program: GpuProgram, kernel: Kernel) -> bool:
    """Whether the kernel's register tile is refused because its lanes would run
    different iterations (``uniform_lanes``)."""
    if too_many_lanes(kernel):
        return False
    lanes = lane_order(program, kernel)
    return lanes is not None and not uniform_lanes(lanes)


# A scalar no statement of the SCoP writes keeps one value in every kernel: it
# travels by value, in the parameters of each launch (a field stays in its struct).
def passed_by_value(scop: Scop, array: Array) -> bool:
    """Whether ``array`` is a scalar (not a field or struct) that the SCoP only reads."""
    return array.is_scalar and not (array.member or array.struct) and not any(
        a.array == array.name for s in scop.statements for a in s.writes)


def _kernel(program: GpuProgram, kernel: Kernel, private_memory: bool, shared_memory: bool,
            max_shared_memory: int, overrides: dict[str, str],
            latency: bool = False) -> KernelPlacement:
    used = (kernel.reads | kernel.writes) - kernel.private
    in_memory = frozenset(name for name in used
                          if not passed_by_value(program.scop, program.scop.array(name)))
    kept = frozenset(a for a, kind in overrides.items() if kind in kinds.PATHS) | frozenset(
        n for n in in_memory if program.scop.array(n).member)  # fields stay in their structs
    lanes = lane_order(program, kernel) if private_memory or shared_memory else None
    if lanes is not None and (too_many_lanes(kernel) or not uniform_lanes(lanes)):
        lanes = None
    shared: SharedOrder | None = None
    registers: tuple[Promotion, ...] = ()
    padded: Padding | None = None
    context = kernel.context(program.scop.context)
    if lanes is not None:
        shareable = in_memory - kept - {a for a, kind in overrides.items() if kind == REGISTER}
        forced = frozenset(a for a, kind in overrides.items() if kind == SHARED) - kept
        plan = partial(_plan, program, kernel, lanes, shareable, in_memory - kept,
                       private_memory, shared_memory, max_shared_memory, context, latency)
        shared, registers, padded = plan(forced)
        # A tile also where it lets more register-tiled statements run padded (gemm, H100:
        # 0.46 ms padded everywhere with A in a tile, 0.600 ms without; docs/results/memory.md).
        served = serving(shared.tiles) if shared else {}
        partly = frozenset(a.array for s in program.scop.statements
                           if s.name in kernel.statements for a in s.accesses
                           if a.is_read and a.ref not in served) & shareable
        if shared_memory and private_memory and partly - forced:
            other = plan(forced | partly)
            if (other[2].score if other[2] else (0, 0)) > (padded.score if padded else (0, 0)):
                shared, registers, padded = other
    promoted = {p.array: p for p in registers}
    choices = tuple(_choice(program, kernel, array, promoted, shared, private_memory,
                            shared_memory)
                    for array in program.scop.arrays if array.name in used)
    if lanes is None or (shared is None and not registers):
        return KernelPlacement(kernel.name, choices)   # the kernel's own order
    instances = shared.lanes if shared else lanes
    if padded is not None:
        instances = replace(instances, order=padded.apply(instances.order))
        if shared is not None:
            shared = replace(shared, order=padded.apply(shared.order), lanes=instances)
    order = with_copies(shared.order if shared else instances.order, registers)
    full = None
    if any(n > 1 for n in instances.lanes):
        timed = with_copies(instances.order, registers)
        order = order.union(full_lanes(timed, instances.lanes, kernel, context))
        full = full_tiles(kernel, context)
    for tile in shared.tiles if shared else ():
        for copies in (tile.copies, tile.zeros):
            if copies is not None:
                order = order.union(full_lanes(order.intersect_domain(copies),
                                               copy_lanes(kernel, tile.size), kernel, context))
    order, split = apart(order, shared, registers, kernel, context)
    return KernelPlacement(kernel.name, choices, registers, order, shared.tiles if shared else (),
                           instances.order, instances.lanes, shared.depth if shared else 0,
                           full, frozenset(padded.orders) if padded else frozenset(), split)


def _plan(program: GpuProgram, kernel: Kernel, lanes: LaneOrder, shareable: frozenset[str],
          candidates: frozenset[str], private_memory: bool, shared_memory: bool,
          max_shared_memory: int, context: isl.Set, latency: bool, forced: frozenset[str]
          ) -> tuple[SharedOrder | None, tuple[Promotion, ...], Padding | None]:
    """The shared tiles (``forced`` ones beyond the cost model's), the register tiles
    and the padded statements of one kernel, with the tiles the padded statements
    read filled with zeros outside their footprints."""
    shared = tiles(program, kernel, lanes, shareable, max_shared_memory, forced,
                   latency) if shared_memory else None
    tiled = frozenset(t.array for t in shared.tiles) if shared else frozenset()
    # Registers come with the lanes: measured on an H100, one register per thread
    # in the kernel's own order gained nothing over nvcc's (symm, correlation lost
    # 8-11%: docs/results/register_promotion.md), a register tile up to 1.7x.
    registers = promotions(program, kernel, candidates - tiled,
                           shared.lanes if shared else lanes) if private_memory else ()
    by_value = frozenset(a.name for a in program.scop.arrays
                         if passed_by_value(program.scop, a))
    if shared is not None:
        shared = scaled(shared, program.scop, kernel, by_value)
    padded = padding(program, kernel, shared.lanes if shared else lanes, registers, shared,
                     context, by_value)
    if padded is not None and shared is not None:
        filled = with_zeros(shared, padded.tiles, kernel, context)
        if filled is None:
            return shared, registers, None        # a zero fill could not be proven
        shared = filled
    return shared, registers, padded


def _serves(scop: Scop, kernel: Kernel, tile: SharedTile, tiles: int) -> str:
    """`` for A[j][k]`` (the references a tile holds), when an array has several."""
    if tiles < 2:
        return ""
    texts = sorted({_GENERATOR.visit(a.node) for s in scop.statements
                    if s.name in kernel.statements for a in s.accesses
                    if a.ref in tile.references})
    return " for " + ", ".join(texts)


def _choice(program: GpuProgram, kernel: Kernel, array: Array, promoted: dict[str, Promotion],
            shared: SharedOrder | None, private_memory: bool, shared_memory: bool) -> Choice:
    scop = program.scop
    if passed_by_value(scop, array):
        return Choice(array.name, PARAMETER, "a scalar the SCoP never writes: passed by value")
    role = "read and written" if {array.name} <= kernel.reads & kernel.writes else \
        "written" if array.name in kernel.writes else "read"
    held = [t for t in shared.tiles if t.array == array.name] if shared else []
    if held:
        said = []
        for tile in held:
            size = "x".join(str(n) for n in tile.size)
            why = f"each element is read by {tile.sharing} threads in {tile.warps} warp(s)"
            if tile.warps < 2 and tile.zeros is not None:
                why += ", and the tile lets the statements reading it run padded"
            if tile.scale:
                why += f"; it holds {tile.scale} * {array.name}[..], multiplied once in the copy"
            said.append(f"a {size} tile{_serves(scop, kernel, tile, len(held))} per block "
                        f"and step of schedule dimension {shared.depth - 1}, loaded once, "
                        f"coalesced: {why}")
        reads = sum(1 for s in scop.statements if s.name in kernel.statements
                    for a in s.accesses if a.array == array.name and a.is_read)
        if sum(len(t.references) for t in held) < reads:
            said.append("its other reads from global memory")
        return Choice(array.name, SHARED, f"{role}; " + "; ".join(said))
    if array.name in promoted:
        promotion = promoted[array.name]
        count = math.prod(promotion.lanes)
        why = f"{role}; {count} element(s) per thread for each value of the first " \
            f"{promotion.depth} schedule dimension(s), reused below them"
        if promotion.refs is not None:
            texts = sorted({_GENERATOR.visit(a.node) for s in scop.statements
                            if s.name in kernel.statements for a in s.accesses
                            if a.ref in promotion.refs})
            why += f", for {', '.join(texts)}; its other references in global memory " \
                "(proven never to touch those elements meanwhile)"
        return Choice(array.name, REGISTER, why)
    reasons = []
    if not private_memory:
        reasons.append("registers are off (--private-memory turns them on)")
    if program.resident:
        reasons.append("no shared tile beside the resident grid's bands")
    elif not shared_memory:
        reasons.append("shared memory is off")
    if too_many_lanes(kernel) and not reasons:
        lanes = "x".join(str(lane_count(m)) for m in kernel.mapped)
        reasons.append(f"each thread would run {lanes} lanes, more than a register tile "
                       f"of {MAX_LANES} holds")
    why = "; ".join(reasons) or "no reuse a register or a shared tile can hold"
    return Choice(array.name, GLOBAL, f"{role}; {why}")
