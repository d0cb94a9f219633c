"""Features of a placed GPU program, and the fitted model's estimate of its time.

In:  a ``Placement`` (the kernels, their sizes, shared tiles, register tiles and
     the path of every array) and a parameter point (the sizes it runs at).
Out: ``Features``: one number per term of the fitted model (``FEATURES``);
     ``predict``: the model's seconds for given constants.

``gpu.cost`` ranks schedules before memory is placed, blind to tile and block
sizes; this model sees what the placement decided (bytes moved per kind of
memory, lanes, threads per block, occupancy, barriers), so it can order the
tuner's configurations, which differ in exactly those.  Its constants are fitted
to measured times (``tune/fit.py``, ``polycu device --fit``); every feature is a
count whose constant is a time per unit, so the model stays linear in them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import islpy as isl

from ..gpu.cost import (BLOCK_THREADS, KernelCost, count_points, kernel_costs, step_map,
                        stride_ok)
from ..gpu.kernel import GpuProgram, Kernel
from ..model import Access, Scop, Statement, maps_of
from .kinds import element_bytes
from .placement import KernelPlacement, Placement, passed_by_value
from .shared import serving

#: The terms of the model, in the order of ``Features.values``.
FEATURES = ("launch", "work", "dram", "sectors", "shared", "barrier", "wave", "atomic")
#: An H100: multiprocessors, and per multiprocessor resident threads, blocks,
#: registers and shared memory (bytes); the limits of occupancy.
SMS, SM_THREADS, SM_BLOCKS, SM_REGISTERS, SM_SHARED = 132, 2048, 32, 65536, 228 * 1024
#: Registers a thread needs besides its register tile (indices, addresses, loop
#: counters), and the width of a sector of device memory (bytes).
BASE_REGISTERS, SECTOR = 32, 32


@dataclass(frozen=True)
class Features:
    """The model's terms of one configuration (``FEATURES`` order)."""

    values: tuple[float, ...]

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.values))


def params_point(scop: Scop, values: Mapping[str, int]) -> isl.Set:
    """The parameter point with ``values`` (a SCoP parameter missing from them is
    any value the context allows); an empty set when the context excludes them."""
    point = scop.context
    for name, value in values.items():
        k = point.find_dim_by_name(isl.dim_type.param, name)
        if k >= 0:
            point = point.fix_val(isl.dim_type.param, k, value)
    if point.is_empty():
        return point
    return isl.Set.from_point(point.sample_point())


# With, per kernel K of the program (at the parameter point), its launches L_K,
# instances I_K (of all launches), points P_K (distinct values of the mapped members
# per launch), lanes U_K (points per thread: tile over block along each member),
# threads per block B_K, blocks G_K = ceil(P_K / (U_K B_K)), resident blocks per
# multiprocessor R_K (the least of the limits on blocks, threads, registers, shared
# memory), waves W_K = ceil(G_K / (SMS R_K)), and S_K the strips a block loads its
# shared tiles for:
#   launch  = sum_K L_K                 (1: the program runs in one block)
#   work    = sum_K I_K / min(P_K / U_K, SMS R_K B_K)     instances per busy thread
#   dram    = sum_K bytes of the coalesced accesses kept in device memory
#             + L_K G_K S_K (tile bytes) + (elements of register tiles, twice if written)
#   sectors = sum_K SECTOR (accesses kept in device memory that do not coalesce)
#   shared  = sum_K (bytes read from shared tiles) SMS / min(G_K, SMS)
#   barrier = sum_K L_K W_K S_K         (+ a phase each launch: single block)
#   wave    = sum_K L_K W_K
#   atomic  = sum_K atomic updates
# and the estimate  t = sum_f c_f f  with every c_f >= 0 (seconds per unit).
def features(placement: Placement, params: isl.Set) -> Features:
    """The model's terms of ``placement`` at the parameter point ``params``."""
    program = placement.program
    costs = kernel_costs(program, params)
    totals = dict.fromkeys(FEATURES, 0.0)
    for kernel, cost in zip(program.kernels, costs):
        for name, value in _kernel(program, kernel, cost, placement.kernel(kernel.name),
                                   params).items():
            totals[name] += value
    if program.single_block:
        totals["barrier"] += sum(c.launches for c in costs)   # a barrier after each phase
        totals["launch"] = 1.0
    return Features(tuple(totals[name] for name in FEATURES))


def predict(constants: Mapping[str, float], found: Features) -> float:
    """The model's seconds: ``sum_f c_f f`` (a term without a constant counts 0)."""
    return sum(constants.get(name, 0.0) * value
               for name, value in zip(FEATURES, found.values))


def _kernel(program: GpuProgram, kernel: Kernel, cost: KernelCost, placed: KernelPlacement,
            params: isl.Set) -> dict[str, float]:
    """One kernel's share of every term (the comment above ``features``)."""
    scop = program.scop
    instances = dict(zip(cost.statements, cost.instances))
    # a thread runs every B-th point of its block's tile along each member, whether
    # or not a register tile holds its lanes
    lanes = math.prod(max(1, m.tile // m.block) for m in kernel.mapped)
    block = math.prod(kernel.block_dims()) if kernel.mapped else 1
    if program.single_block:
        block = BLOCK_THREADS
    threads = max(1.0, cost.parallel / lanes) if kernel.mapped else 1.0
    blocks = max(1.0, math.ceil(threads / block))
    resident = _resident_blocks(scop, placed, block)
    waves = math.ceil(blocks / (SMS * resident))
    busy = min(threads, SMS * resident * block)
    served, promoted = serving(placed.shared), {p.array: p for p in placed.registers}
    dram = sectors = shared = 0.0
    steps = 1.0
    for stmt in scop.statements:
        if stmt.name not in instances:
            continue
        count = instances[stmt.name]
        for access in stmt.accesses:
            array = scop.array(access.array)
            size = element_bytes(array)
            if access.array in kernel.private or passed_by_value(scop, array) \
                    or (access.array in promoted and promoted[access.array].holds(access.ref)):
                continue
            if access.ref in served:
                shared += count * size
            elif kernel.mapped and not _coalesces(kernel, stmt, access, params):
                sectors += count * SECTOR
            else:
                dram += count * size
    for tile in placed.shared:
        per_block = _per_block(tile.footprint.domain(), kernel, params)
        steps = max(steps, per_block)
        dram += cost.launches * blocks * per_block * math.prod(tile.size) * \
            element_bytes(scop.array(tile.array))
    for promotion in placed.registers:
        touched = _touched(scop, kernel, promotion.array, params)
        dram += touched * element_bytes(scop.array(promotion.array)) * \
            (2 if promotion.written else 1)
    launches = cost.launches
    return {"launch": launches, "work": sum(cost.instances) / busy, "dram": dram,
            "sectors": sectors, "shared": shared * SMS / min(blocks, SMS),
            "barrier": launches * waves * steps if placed.shared else 0.0,
            "wave": launches * waves,
            "atomic": sum(instances[s] for s in cost.atomic if s in instances)}


def _resident_blocks(scop: Scop, placed: KernelPlacement, block: int) -> int:
    """Blocks of ``block`` threads a multiprocessor holds at once: the least of its
    limits on blocks, threads, registers (a register tile of ``lanes`` elements of
    each promoted array, 4 bytes a register) and shared memory."""
    registers = BASE_REGISTERS + sum(
        math.prod(p.lanes or (1,)) * max(1, element_bytes(scop.array(p.array)) // 4)
        for p in placed.registers)
    tiles = sum(t.elements * element_bytes(scop.array(t.array)) for t in placed.shared)
    limits = [SM_BLOCKS, SM_THREADS // block, SM_REGISTERS // (registers * block)]
    if tiles:
        limits.append(SM_SHARED // tiles)
    return max(1, min(limits))


def _per_block(prefixes: isl.Set, kernel: Kernel, params: isl.Set) -> float:
    """The strips a block loads a tile for: the tile's prefixes (over the SCoP's
    parameters, the block's indices and the host's) in block 0 at ``params``, the
    host values any."""
    fixed = prefixes.align_params(params.get_space()).intersect_params(
        params.align_params(prefixes.get_space()))
    for m in kernel.mapped:
        k = fixed.find_dim_by_name(isl.dim_type.param, m.block_id)
        if k >= 0:
            fixed = fixed.fix_val(isl.dim_type.param, k, 0)
    for name in kernel.host_ids:
        k = fixed.find_dim_by_name(isl.dim_type.param, name)
        if k >= 0:
            fixed = fixed.project_out(isl.dim_type.param, k, 1)
    return float(max(1, _points(fixed)))


def _points(set_: isl.Set) -> int:
    """The integer points of a bounded set; its box when it has too many to count."""
    box = 1
    for k in range(set_.dim(isl.dim_type.set)):
        lo, hi = set_.dim_min_val(k), set_.dim_max_val(k)
        if not (lo.is_int() and hi.is_int()):
            return 1
        box *= max(1, hi.to_python() - lo.to_python() + 1)
    if set_.is_empty():
        return 0
    return box if box > 10_000 else count_points(set_)


def _touched(scop: Scop, kernel: Kernel, name: str, params: isl.Set) -> float:
    """The elements of array ``name`` that the kernel's statements touch (the box of
    the image of their instances at ``params``)."""
    total = 0.0
    for stmt in scop.statements:
        if stmt.name not in kernel.statements:
            continue
        domain = kernel.domain.intersect(isl.UnionSet.from_set(stmt.domain))
        for access in stmt.accesses:
            if access.array != name:
                continue
            image = domain.apply(isl.UnionMap.from_map(access.relation))
            found: list[isl.Set] = []
            image.foreach_set(found.append)
            total = max(total, sum(float(_points(s.intersect_params(
                params.align_params(s.get_space())))) for s in found))
    return total


def _coalesces(kernel: Kernel, stmt: Statement, access: Access, params: isl.Set) -> bool:
    """Whether threads adjacent in x touch the same or the next element of ``access``
    (``gpu.cost``'s criterion, for one access)."""
    assert kernel.order is not None
    schedule = maps_of(kernel.order.intersect_domain(isl.UnionSet.from_set(stmt.domain)))
    if not schedule:
        return True
    (time,) = schedule
    position = len(kernel.host_ids) + len(kernel.mapped) - 1
    step = step_map(time.dim(isl.dim_type.out), position)
    pairs = isl.UnionMap.from_map(time.apply_range(step.align_params(time.get_space()))
                                  .apply_range(time.reverse())
                                  .intersect_params(params.align_params(time.get_space())))
    relation = isl.UnionMap.from_map(access.relation)
    return stride_ok(pairs.apply_domain(relation).apply_range(relation).deltas())
