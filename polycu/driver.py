"""The pipeline, phase by phase (PPCG's ``ppcg.c``).

    C file ─ frontend.load ─> Scop ─ deps ─> Dependences
        ─ schedule.generate, schedule.prove ─> Schedules (each with its model)
        ─ gpu.rank (each mapped by gpu.mapping, measured by gpu.cost) ─> Candidates
        ─ gpu.where: the best one on the GPU, or the original code on the CPU
        ─ memory.place ─> Placement ─ codegen.generate ─> .cu, OUT_host.c, description

Each phase is a function from immutable values to immutable values in its own
package; this module calls them in order, turns the command-line ``Options`` into
the few values each phase takes, and owns the fall-back policy: the candidates are
tried best first until isl generates the code of one within ``MAX_OPERATIONS``
operations a step, down to the original order in one thread, which has no limit.

Longer than 450 lines because every phase's options meet here (the candidates and
their fall-back, the sizes of kernels fed on chip, --memory, --tuned, --run-on),
each a few lines that read the options and hand the phase its values.
"""
from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Sequence

import islpy as isl

from .codegen import Generated, generate
from .codegen.ast import host_ast, with_asts, with_kernel_asts
from .codegen.nodes import Block, For, If, Node
from .codegen.coverage import WrongAst
from .deps import Dependences, compute_dependences, isl_message
from .diagnostics import Location, PolycuError, Reporter, error
from .frontend.delinearise import row_notes
from .frontend.load import load_file
from .gpu.kernel import AXES, GpuProgram
from .gpu.mapping import map_sequential
from .gpu.rank import Candidate, format_ranking, map_schedule, rank, relaid_model
from .gpu.rank import candidates as ranked_candidates
from .gpu.cost import kernel_costs
from .gpu.sizes import DEFAULT_TILE, Sizes, parse_sizes
from .gpu.where import CPU, CpuScop, decide, point_of, problem_sizes
from .memory import (REGISTER, SHARED, Placement, format_placement, place,
                     reads_on_chip, too_many_lanes, uneven_lanes)
from .memory.kinds import CONSTANT, EVERY, PATHS, analyse_size
from .memory.contraction import contraction, with_tensor_cores
from .gpu.ordered import ordered_trees
from .gpu.tree import tree_reductions
from .memory.placement import ANY
from .memory.resident import BAND_SIZES, resident_grid
from .memory.shared import latency_bound
from .model import Scop
from .options import Options
from .fitted import estimate as fitted_estimate
from .tuned import cache_path as tune_cache_path, lookup as tuned_entry, read as read_tuned
from .schedule import (ALGORITHMS, MAX_OPERATIONS, BudgetExceeded, Schedule, Strategy,
                       check_legality, load, load_schedule, original, save_schedule,
                       scop_file)

#: isl's scheduler options that the --isl-schedule-* flags set (schedule_<name>).
ISL_SCHEDULE_OPTIONS = ("outer_coincidence", "maximize_band_depth", "maximize_coincidence",
                        "serialize_sccs", "whole_component", "treat_coalescing",
                        "separate_components", "carry_self_first", "max_coefficient",
                        "max_constant_term")

#: Sizes of a kernel fed from registers and shared tiles alone: 64x32 tiles run by
#: 16x16 threads, 4x2 lanes each (gemm LARGE on an H100: 0.31 ms against 0.44 ms
#: with the default 32x32 tiles run by 32x8 threads; docs/results/memory.md).  With
#: global reads in the loop the default's full-row warps keep them coalesced (syrk
#: with A in global memory took 2-4x longer with these sizes).
SQUARE = {"tile": (64, 32), "block": (16, 16)}
#: The same for a kernel with three parallel members (doitgen's product, once its
#: sum is expanded): one value of the outermost per block, whose default 32x32x32
#: tiles run by 2x4x32 threads would ask for 16x8 lanes (more than MAX_LANES).
SQUARE_3D = {"tile": (1, 64, 32), "block": (16, 16, 1)}
#: ... and where it is not fed on chip with them: eight values of the outermost
#: member a thread, 32x4 threads on the inner two.  The default 32x32x32 tiles give
#: heat-3d's 118^3 points 64 blocks of 128 lanes a thread, half the SMs idle (LARGE
#: on an H100: 6.94 ms against 31.7 ms; 1-2 outermost values a thread 8.4-8.8 ms;
#: docs/results/memory.md, run s13).
COLUMNS_3D = {"tile": (8, 4, 32), "block": (32, 4, 1)}
#: Sizes of a 2-D kernel whose default register tile is refused because its lanes
#: along the outer member run different iterations (trmm's k > i): one lane on that
#: member, two on the inner one (trmm LARGE on an H100: 0.513 ms against 1.077 ms
#: with the default sizes, 0.606 ms with four lanes; docs/results/memory.md).
ROWS = {"tile": (16, 64), "block": (32, 16)}
#: Contractions on tensor cores (memory/contraction.py): 48 x 64 tiles, 6 warps of
#: 16 x 32 cells (measured on an H100 at LARGE against 32x32 to 128x128 tiles,
#: docs/results/memory.md); the lanes of the block (32, 6) go unused.
TENSOR = {"tile": (48, 64), "block": (32, 6)}
#: Sizes of a 1-D kernel whose launches have at most one warp per SM
#: (``latency_bound``) and whose threads each run a loop of at least
#: ``SPREAD_STEPS`` steps: blocks of 4 threads, so that every SM runs some of the
#: threads and a warp's loads and stores touch 4 rows, not 32.  LARGE on an
#: H200: adi's sweeps (one thread a row of a 1000-step recurrence) 430.6 ms with
#: blocks of 32, 370.7 with 16, 345.0 with 8, 338.7 with 4; then, against 32, adi
#: 1.28x, deriche 1.18x, nussinov 1.15x, the others within 1%, and floyd-warshall's
#: 153 steps a thread 0.986x (docs/results/spread_blocks.md).
SPREAD = {"tile": (4,), "block": (4,)}
SPREAD_STEPS = 256
#: isl operations for the code of one placed kernel (its tiles, lanes and strips)
#: that will not run on tensor cores.  Triangular kernels need more than a schedule
#: step's ``MAX_OPERATIONS``: symm's (ROWS sizes) and syr2k's took 5-8 million and
#: kept global memory below that.  A contraction keeps the smaller budget: its code
#: is the tensor cores' when that placed code fails (2mm's compile would double).
PLACED_OPERATIONS = 3 * MAX_OPERATIONS


def strategy_of(options: Options) -> Strategy:
    """Which schedules to try, from --reschedule, --fusion, --isl-schedule-* and the like."""
    isl_options = {f"schedule_{name}": int(getattr(options, f"isl_schedule_{name}"))
                   for name in ISL_SCHEDULE_OPTIONS
                   if getattr(options, f"isl_schedule_{name}") is not None}
    if options.isl_schedule_algorithm is not None:
        isl_options["schedule_algorithm"] = ALGORITHMS[options.isl_schedule_algorithm]
    return Strategy(options.reschedule, options.fusion, options.index_set_split,
                    options.expand_scalars, options.relax_reductions, options.relayout,
                    options.schedule_max_operations, isl_options)


def sizes_of(options: Options) -> Sizes:
    """Tile and block sizes from --tile-size and PPCG's --sizes."""
    if options.tile_size < 1:
        raise error(f"--tile-size must be a positive integer, not {options.tile_size}",
                    Location("--tile-size"))
    # --memory explores where arrays live kernel by kernel: the kernels stay kernels
    single_block = options.single_block and not options.memory
    return Sizes(options.tile_size, parse_sizes(options.sizes), single_block)


def candidates(scop: Scop, deps: Dependences, options: Options | None = None,
               reporter: Reporter | None = None) -> list[Candidate]:
    """The ranked candidates of ``scop``: proven legal, mapped and measured, best first."""
    options = options or Options()
    tensor = tensor_kernels if options.tensor_cores and options.shared_memory else None
    return ranked_candidates(scop, deps, strategy_of(options), sizes_of(options), reporter,
                             fitted_estimate(options), tensor)


def tensor_kernels(program: GpuProgram) -> frozenset[str]:
    """The kernels of ``program`` that the memory phase will run on tensor cores."""
    return frozenset(k.name for k in program.kernels if contraction(program, k, {}))


def preferences(scop: Scop, deps: Dependences, options: Options | None = None,
                reporter: Reporter | None = None, *, index: int = 0) -> Iterator[Candidate]:
    """The candidates to compile, best first: the loaded one (``--load-schedule``) or
    the ranked ones.  ``index`` is the SCoP's position in its file: SCoP k > 0 loads
    from ``scop_file(FILE, k)``."""
    options = options or Options()
    reporter = reporter or Reporter()
    if options.load_schedule:
        loaded = _loaded(scop, deps, scop_file(options.load_schedule, index), options,
                         reporter)
        check_legality(loaded.scop, loaded.deps, loaded)
        yield from rank([loaded], sizes_of(options), reporter)
        return
    ranked = candidates(scop, deps, options, reporter)
    if options.schedule:
        ranked = named(scop, ranked, options.schedule)
    if not ranked:
        reporter.note(f"isl fails on every candidate schedule of SCoP '{scop.name}'; "
                      "it keeps its original order, in one GPU thread", scop.location)
    yield from ranked


def _loaded(scop: Scop, deps: Dependences, path: str, options: Options,
            reporter: Reporter) -> Schedule:
    """The schedule saved in ``path``, on the SCoP's model, its expansion's or, for a
    saved ``relayout(...)`` candidate, the model the ranking relays out (the same
    options rank the same way, so it is the same model)."""
    try:
        return load(scop, deps, path, options.expand_scalars)
    except PolycuError:
        if not options.relayout:
            raise
        ranked = candidates(scop, deps, options.replace(relayout=False), Reporter(
            stream=io.StringIO()))
        relaid = relaid_model(ranked[0], reporter) if ranked else None
        if relaid is None:
            raise
        return load_schedule(relaid.scop, relaid.deps, path)


def named(scop: Scop, ranked: list[Candidate], name: str) -> list[Candidate]:
    """The candidate called ``name`` (--schedule): a merged candidate 'a=b' answers
    to either name; no match is an error listing the names there are."""
    found = [c for c in ranked if name in c.schedule.name.split("=")]
    if not found:
        there = ", ".join(c.schedule.name for c in ranked) or "none"
        raise error(f"SCoP '{scop.name}' has no schedule candidate '{name}' (its "
                    f"candidates: {there})", Location("--schedule"))
    return found[:1]


def choose(scop: Scop, deps: Dependences, options: Options | None = None,
           reporter: Reporter | None = None, *, index: int = 0) -> Schedule:
    """The schedule to compile, proven legal: the loaded one, else the best candidate
    (the original order when isl fails on every candidate).  With
    ``--save-schedule`` it is written out."""
    options = options or Options()
    best = next(preferences(scop, deps, options, reporter, index=index), None)
    chosen = best.schedule if best is not None else original(scop, deps)
    _save(chosen, options, index)
    return chosen


def program_of(scop: Scop, options: Options | None = None, reporter: Reporter | None = None,
               *, index: int = 0) -> GpuProgram:
    """Dependences, schedule, mapping and ASTs of one SCoP (the ``index``-th of its file).

    The candidates are tried best first: the first whose ASTs isl builds within
    ``MAX_OPERATIONS`` operations a step is taken, each one dropped on the way
    with a note; the last resort, the original order in one thread, has no limit.
    The program belongs to the model of its schedule (the SCoP with scalars
    expanded, for an ``expand(...)`` candidate)."""
    return _program(scop, options, reporter, index)[0]


def _program(scop: Scop, options: Options | None, reporter: Reporter | None,
             index: int) -> tuple[GpuProgram, Schedule | None]:
    """``program_of``'s program and the candidate schedule it maps (None for the
    last resort)."""
    options = options or Options()
    reporter = reporter or Reporter()
    deps = compute_dependences(scop)
    for candidate in preferences(scop, deps, options, reporter, index=index):
        program = _with_asts(candidate.program, candidate.schedule.name, MAX_OPERATIONS,
                             reporter)
        if program is not None:
            _save(candidate.schedule, options, index)
            return program, candidate.schedule
    fallback = original(scop, deps)
    try:
        program = with_asts(map_sequential(scop, deps, fallback.tree))
    except isl.Error as exc:
        raise error(f"isl cannot generate code for SCoP '{scop.name}' "
                    f"({isl_message(exc)})", scop.location) from None
    except WrongAst as exc:
        raise error(f"isl's code for SCoP '{scop.name}' {_wrong(exc)} even in its "
                    "original order (an isl bug, caught by polycu's check)",
                    scop.location) from None
    _save(fallback, options, index)
    return program, None


def _with_asts(program: GpuProgram, name: str, limit: int,
               reporter: Reporter) -> GpuProgram | None:
    """``program`` with its ASTs, or None (with a note) when isl fails or needs more
    than ``limit`` operations for one of them."""
    scop = program.scop
    try:
        return with_asts(program, limit)
    except BudgetExceeded:
        reporter.note(f"generating code for schedule '{name}' of SCoP '{scop.name}' "
                      f"exceeds {limit} isl operations in one step; trying the next "
                      "schedule", scop.location)
    except isl.Error as exc:
        reporter.note(f"isl fails on the code of schedule '{name}' of SCoP '{scop.name}' "
                      f"({isl_message(exc)}); trying the next schedule", scop.location)
    except WrongAst as exc:
        reporter.note(f"isl's code for schedule '{name}' of SCoP '{scop.name}' "
                      f"{_wrong(exc)} (an isl bug, caught by polycu's check); trying the "
                      "next schedule", scop.location)
    return None


def _wrong(exc: WrongAst) -> str:
    """What a wrong AST does, in words."""
    said = (["misses statement instances"] if not exc.missing.is_empty() else []) + \
        (["runs statement instances twice"] if not exc.repeated.is_empty() else [])
    return " and ".join(said)


def _save(schedule: Schedule, options: Options, index: int) -> None:
    if options.save_schedule:
        save_schedule(schedule, scop_file(options.save_schedule, index))


def memory_overrides(items: Sequence[str]) -> dict[int, dict[str, str]]:
    """--memory K:ARRAY=KIND items as ``memory.place``'s overrides."""
    result: dict[int, dict[str, str]] = {}
    for item in items:
        match = re.fullmatch(r"\s*(\d+|\*)\s*:\s*([A-Za-z_]\w*|\*)\s*=\s*([\w-]+)\s*", item)
        kinds = (*PATHS, REGISTER, SHARED)
        if match is None or match.group(3) not in kinds or \
                (match.group(2) == EVERY and match.group(3) not in PATHS):
            raise error(f"--memory wants K:ARRAY=KIND (K a kernel number or '*', KIND "
                        f"{', '.join(kinds[:-1])} or {kinds[-1]}; ARRAY '*' for every "
                        f"array where KIND is legal, with KIND not register or shared), "
                        f"not {item!r}", Location("--memory"))
        kernel = ANY if match.group(1) == "*" else int(match.group(1))
        result.setdefault(kernel, {})[match.group(2)] = match.group(3)
    return result


def unmatched_overrides(program: GpuProgram, overrides: dict[int, dict[str, str]]
                        ) -> list[str]:
    """What of --memory names no kernel or no array of the kernels it names in this
    SCoP (said, not fatal: a file may have several SCoPs)."""
    kernels = {k.index: k for k in program.kernels}
    said = []
    for index, arrays in sorted(overrides.items()):
        if index != ANY and index not in kernels:
            said.append(f"{index}:{','.join(sorted(arrays))}: {program.scop.name} has no "
                        f"kernel {index} (kernels 0 to {len(kernels) - 1}); ignored here")
            continue
        chosen = kernels.values() if index == ANY else [kernels[index]]
        used = {a for k in chosen for a in k.reads | k.writes}
        for array in sorted(set(arrays) - used - {EVERY}):
            where = "no kernel" if index == ANY else f"kernel {index}"
            said.append(f"{'*' if index == ANY else index}:{array}={arrays[array]}: "
                        f"{where} of {program.scop.name} touches '{array}'; ignored here")
    return said


def target_of(scop: Scop, options: Options | None = None, reporter: Reporter | None = None,
              *, index: int = 0, constant_taken: int = 0) -> Placement | CpuScop:
    """Where one SCoP runs (``--run-on``, ``gpu.where``): its GPU program placed in
    memory, or the SCoP left to the CPU as its original code."""
    found = _program(scop, options or Options(), reporter or Reporter(), index)
    where = decide(found[0], (options or Options()).run_on)
    if where.side == CPU:
        return CpuScop(scop, where)
    placement = placement_of(scop, options, reporter, index=index,
                             constant_taken=constant_taken, found=found)
    return replace(placement, late_faults=where.late_faults) if where.late_faults \
        else placement


def placement_of(scop: Scop, options: Options | None = None, reporter: Reporter | None = None,
                 *, index: int = 0, constant_taken: int = 0,
                 found: tuple[GpuProgram, Schedule | None] | None = None) -> Placement:
    """The GPU program of one SCoP (``found`` by ``_program``, when known) with its
    arrays placed in memory.

    Unless --sizes or --tile-size chose the sizes, kernels whose statements then read
    only registers and shared tiles, and kernels of three parallel members whose
    default register tile is too large, are mapped again with ``SQUARE``
    (``SQUARE_3D``) sizes and keep them where the statements then read only
    registers and shared tiles (3-D kernels take ``COLUMNS_3D`` where not); 2-D
    kernels whose lanes would run different iterations are mapped again with ``ROWS``
    and keep them where they then get a register tile."""
    options = options or Options()
    reporter = reporter or Reporter()
    overrides = memory_overrides(options.memory)
    program, schedule = found or _program(scop, options, reporter, index)
    for item in unmatched_overrides(program, overrides):
        reporter.note(f"--memory {item}", scop.location)
    for said in clamped_blocks(program, sizes_of(options)):
        reporter.warn(said, scop.location)
    placement = _placed(program, options, overrides, reporter, constant_taken)
    if schedule is None or options.sizes or options.tile_size != DEFAULT_TILE \
            or program.single_block:
        return placement
    if options.resident_grid:
        kept = _resident(schedule, program, options, overrides, constant_taken)
        if kept is not None:
            return kept
    remap = {}
    spread = _spread(program)
    for k in program.kernels:
        placed = placement.kernel(k.name)
        if k.name in placement.tensor:
            remap[k.index] = TENSOR
        elif reads_on_chip(scop, k, placed) or (len(k.mapped) == 3 and too_many_lanes(k)):
            remap[k.index] = SQUARE_3D if len(k.mapped) == 3 else SQUARE
        elif len(k.mapped) == 2 and uneven_lanes(program, k):
            remap[k.index] = ROWS
        elif k.name in spread:
            remap[k.index] = SPREAD
    for _ in range(3):      # again without the kernels the new sizes do not help
        if not remap:
            return placement
        other = _remapped(schedule, remap, options, overrides, program, constant_taken)
        if other is None:
            return placement
        kept: dict[int, dict[str, tuple[int, ...]]] = {}
        for i, sizes in remap.items():
            if _pays(other, i, sizes):
                kept[i] = sizes
            elif sizes is SQUARE_3D:        # not fed on chip: COLUMNS_3D instead
                kept[i] = COLUMNS_3D
        if kept == remap:
            return other
        remap = kept
    return placement


def clamped_blocks(program: GpuProgram, sizes: Sizes) -> list[str]:
    """What --sizes asked of the compiled program's blocks that the mapping could not
    give: a block is at most its tile along each member (a thread runs at least one
    point of its tile), so a larger one was cut down to the tile."""
    said = []
    for kernel in program.kernels:
        given = sizes.lookup(kernel.index, "block")
        for member in kernel.mapped:
            axis = AXES.index(member.axis)
            if given and axis < len(given) and given[axis] != member.block:
                said.append(f"--sizes: kernel {kernel.index} runs blocks of {member.block} "
                            f"threads along {member.axis}, not {given[axis]}: its tile has "
                            f"{member.tile} points along that member (a thread runs at "
                            "least one)")
    return said


# A launch of T <= LATENCY_THREADS threads (latency_bound) of which each runs
# I / (L T) >= SPREAD_STEPS statement instances (I of the kernel over its L launches,
# at the problem's sizes) waits a latency a step on SMs that have one warp or none.
def _spread(program: GpuProgram) -> frozenset[str]:
    """The 1-D kernels to map with ``SPREAD``: few threads, each with a long loop."""
    few = [k for k in program.kernels if len(k.mapped) == 1 and latency_bound(program, k)]
    if not few:
        return frozenset()
    point = point_of(program.scop, problem_sizes(program.scop))
    costs = {c.name: c for c in kernel_costs(program, point)}
    return frozenset(k.name for k in few
                     if sum(costs[k.name].instances) / costs[k.name].launches
                     / costs[k.name].parallel >= SPREAD_STEPS)


def _pays(placement: Placement, index: int, sizes: dict[str, tuple[int, ...]]) -> bool:
    """Whether kernel ``index``, mapped with ``sizes``, is fed on chip (``SQUARE``,
    ``SQUARE_3D``) or has a register tile (``ROWS``); ``COLUMNS_3D``, the 3-D kernels'
    last resort, and ``SPREAD`` always pay."""
    if sizes is COLUMNS_3D or sizes is SPREAD:
        return True
    (kernel,) = [k for k in placement.program.kernels if k.index == index]
    placed = placement.kernel(kernel.name)
    if sizes is TENSOR:
        return kernel.name in placement.tensor
    if sizes is ROWS:
        return bool(placed.registers) and any(n > 1 for n in placed.lanes)
    return reads_on_chip(placement.program.scop, kernel, placed)


def _remapped(schedule: Schedule, remap: dict[int, dict[str, tuple[int, ...]]],
              options: Options, overrides: dict[int, dict[str, str]], program: GpuProgram,
              constant_taken: int) -> Placement | None:
    """The placement of ``schedule`` mapped with the sizes of ``remap`` for its kernels
    (None when that mapping fails or has other kernels)."""
    quiet = Reporter(stream=io.StringIO())
    sizes = Sizes(DEFAULT_TILE, remap)
    other = _with_asts(map_schedule(schedule, sizes), schedule.name, MAX_OPERATIONS, quiet)
    if other is None or [k.name for k in other.kernels] != [k.name for k in program.kernels]:
        return None
    placed = _placed(other, options, overrides, quiet, constant_taken)
    return None if quiet.diagnostics else placed


def _resident(schedule: Schedule, program: GpuProgram, options: Options,
              overrides: dict[int, dict[str, str]], constant_taken: int) -> Placement | None:
    """``program`` as one cooperative launch, a band of rows of every array it writes
    resident in each block's shared memory (``memory/resident.py``): its kernels mapped
    again with one row a block along their first member.  None where its kernels do
    not launch from host loops or the plan does not hold."""
    if not _in_loop(host_ast(program)) or any(k.looped(program.scop) for k in program.kernels):
        return None
    quiet = Reporter(stream=io.StringIO())
    remap = {k.index: BAND_SIZES[len(k.mapped)] for k in program.kernels if k.mapped}
    other = _with_asts(map_schedule(schedule, Sizes(DEFAULT_TILE, remap)), schedule.name,
                       MAX_OPERATIONS, quiet)
    if other is None or [k.name for k in other.kernels] != [k.name for k in program.kernels]:
        return None
    plan = resident_grid(other, options.resident_blocks)
    if plan is None or any(k.looped(other.scop) for k in other.kernels):
        return None
    placed = _placed(replace(other, resident=True), options, overrides, quiet, constant_taken)
    # auto: the flags, faster on every plan measured (docs/results/resident_grid.md, 51)
    plan = replace(plan, neighbours=options.resident_sync != "grid")
    return None if quiet.diagnostics else replace(placed, resident=plan)


def _in_loop(node: Node) -> bool:
    """Whether a host AST launches from a loop."""
    if isinstance(node, For):
        return not node.degenerate or _in_loop(node.body)
    if isinstance(node, If):
        return _in_loop(node.then) or (node.else_ is not None and _in_loop(node.else_))
    return isinstance(node, Block) and any(_in_loop(c) for c in node.children)


def _placed(program: GpuProgram, options: Options, overrides: dict[int, dict[str, str]],
            reporter: Reporter, constant_taken: int = 0) -> Placement:
    """``program`` placed, with the kernels whose placed code isl cannot build within
    the budget kept in global memory (``constant_taken``: bytes of constant memory
    the file's earlier SCoPs use)."""
    plain: frozenset[str] = frozenset()
    forced = _forced(program, overrides)
    # the sums of a row over many threads (their terms in shared memory), added in
    # C's order (--ordered-reductions) or in a tree (--parallel-reductions), but
    # where --memory chose
    found = {} if not options.shared_memory else tree_reductions(program) \
        if options.parallel_reductions else ordered_trees(program) \
        if options.ordered_reductions else {}
    trees = {name: tree for name, tree in found.items() if name not in forced}
    while True:
        # one block runs every phase: no block of a phase has shared memory of its own
        shared = options.shared_memory and not (program.single_block or program.resident)
        placement = place(program, options.private_memory, shared,
                          options.max_shared_memory, plain, overrides, MAX_OPERATIONS,
                          constant_taken, frozenset(trees), options.async_copies,
                          options.min_staged_bytes, options.carried_values)
        placement = replace(placement, trees=trees, concurrent=options.concurrent_kernels,
                            dependent=options.dependent_launches)
        tensor = options.tensor_cores and shared
        larger = {k.name: PLACED_OPERATIONS for k in program.kernels
                  if not (tensor and contraction(program, k, {}))}
        placement, failed = with_kernel_asts(placement, MAX_OPERATIONS, larger)
        if not failed - plain:
            # the tensor-core kernels stage their operands in shared memory, and
            # keep none where --memory placed it
            if tensor:
                placement = with_tensor_cores(placement, forced | frozenset(trees))
            return placement
        for name in sorted(failed - plain):
            reporter.note(
                f"kernel {name}: its placed code could not be built (over the isl "
                "budget, with isl's code running an instance not exactly once, with a "
                "placed reference isl cannot write, with barriers not every thread "
                "passes, or with an error inside isl); it keeps global memory",
                program.scop.location)
        plain |= failed


def _forced(program: GpuProgram, overrides: dict[int, dict[str, str]]) -> frozenset[str]:
    """The kernels whose arrays --memory places (``memory_overrides``)."""
    return frozenset(k.name for k in program.kernels
                     if any(a == EVERY or a in k.reads | k.writes
                            for i in (k.index, ANY) for a in overrides.get(i, {})))


def load_scops(path: str, options: Options) -> list[Scop]:
    """The SCoPs of a C file, as the options' -D/-I/-U, --auto-scop and --ctx say."""
    return load_file(path, defines=options.define, includes=options.include_dir,
                     undefines=options.undefine, auto=options.auto_scop, ctx=options.ctx)


def compile_file(path: str, options: Options | None = None,
                 reporter: Reporter | None = None) -> Generated:
    """The whole pipeline on one C file (``polycu file.c``)."""
    options = options or Options()
    return compile_scops(path, load_scops(path, options), options, reporter)


def compile_scops(path: str, scops: Sequence[Scop], options: Options | None = None,
                  reporter: Reporter | None = None) -> Generated:
    """The pipeline after the frontend: the SCoPs ``load_scops`` found in ``path``,
    compiled and spliced into its text."""
    options = options or Options()
    resolved = Path(path).resolve()
    for scop in scops:
        if Path(scop.source).resolve() != resolved:
            raise error(f"the SCoP is in '{scop.source}', not in the file being compiled; "
                        "it cannot be replaced by host code", scop.location)
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise error(f"cannot read the input: {exc.strerror}", Location(path)) from None
    placements: list[Placement | CpuScop] = []
    for scop in scops:
        for note, where in row_notes(scop):
            (reporter or Reporter()).note(note, where)
    configured = tuned_options(scops, options, reporter or Reporter())
    for k, (scop, (given, _)) in enumerate(zip(scops, configured)):
        taken = sum(_constant_bytes(p) for p in placements  # one module: one 64 KB
                    if isinstance(p, Placement))
        placements.append(target_of(scop, given, reporter, index=k, constant_taken=taken))
    return generate(path, text, placements, [said for _, said in configured if said])


def tuned_options(scops: Sequence[Scop], options: Options,
                  reporter: Reporter) -> list[tuple[Options, str]]:
    """Each SCoP's options and, with --tuned, the sentence saying which tuned
    configuration (``polycu.tuned.lookup``) they now include; a SCoP never tuned keeps
    ``options``, with a note."""
    if not options.tuned:
        return [(options, "") for _ in scops]
    entries = read_tuned(tune_cache_path(options.tune_cache))
    result = []
    for scop in scops:
        entry, said = tuned_entry(entries, scop, options.define)
        if entry is None:
            reporter.note(said, scop.location)
            result.append((options, ""))
        else:
            result.append((options.replace(**entry.changes), said))
    return result


def _constant_bytes(placement: Placement) -> int:
    """The bytes of constant memory the placement's arrays take (one copy each)."""
    scop = placement.program.scop
    held = {c.array for k in placement.kernels for c in k.choices if c.kind == CONSTANT}
    return sum(int(analyse_size(scop, scop.array(a))) for a in held)


def dump_schedule(scop: Scop, options: Options | None = None,
                  reporter: Reporter | None = None, *, index: int = 0) -> str:
    """``--dump-schedule``: where the SCoP runs and why (``gpu.where``), the ranked
    candidates, then the chosen tree (isl YAML)."""
    options = options or Options()
    deps = compute_dependences(scop)
    ranked = candidates(scop, deps, options, reporter)
    if options.load_schedule or options.save_schedule or not ranked:
        chosen = choose(scop, deps, options, reporter, index=index)
    else:
        chosen = ranked[0].schedule
    best = ranked[0].program if ranked and ranked[0].schedule is chosen else \
        _program(scop, options, reporter, index)[0]
    where = decide(best, options.run_on)
    return f"# SCoP {scop.name} {where.sentence()}\n" + format_ranking(scop, ranked, chosen)


def dump_memory(scop: Scop, options: Options | None = None,
                reporter: Reporter | None = None, *, index: int = 0) -> str:
    """``--dump-memory``: where each array of each kernel lives, and why."""
    return format_placement(placement_of(scop, options, reporter, index=index))
