"""The pipeline, phase by phase: C file -> SCoPs -> dependences -> schedules -> GPU
program -> memory placement -> CUDA.

Each phase is a function from immutable values to immutable values in its own
module; this driver only calls them in order (PPCG's ``ppcg.c``) and owns the
fall-back policy: the schedules are tried in order of preference until isl maps
one and generates its code within the operation budget.
"""
from __future__ import annotations

from pathlib import Path

import islpy as isl

from .codegen import Generated, generate
from .codegen.ast import MAX_OPERATIONS, with_asts
from .deps import compute_dependences, isl_message
from .diagnostics import Location, Reporter, error
from .frontend.load import load_file
from .gpu.kernel import GpuProgram
from .gpu.mapping import (Sizes, flagged_parallelism, map_sequential, map_to_gpu,
                          mapped_parallelism)
from .model import Scop
from .options import Options
from .schedule import (ORIGINAL, BudgetExceeded, operation_budget, parse_sizes, preferences,
                       save_schedule, scop_file)


def sizes_from(options: Options) -> Sizes:
    """Tile and block sizes from --tile-size and PPCG's --sizes."""
    if options.tile_size < 1:
        raise error(f"--tile-size must be a positive integer, not {options.tile_size}",
                    Location("--tile-size"))
    return Sizes(options.tile_size, parse_sizes(options.sizes))


def program_of(scop: Scop, options: Options, reporter: Reporter | None = None, *,
               index: int = 0) -> GpuProgram:
    """Dependences, schedule, mapping and ASTs of one SCoP (the ``index``-th of its file).

    The schedules are tried in order of preference (``schedule.preferences``): the
    first that isl maps and generates code for within ``ast.MAX_OPERATIONS``
    operations a step is taken, each one dropped on the way with a note; the last,
    the original order in one thread, has no limit.  A relaxed schedule whose flags
    counted on reductions the mapping cannot make atomic soundly (a statement
    ordered with the middle of a reduction chain) gives way to the next one too.
    The chosen schedule may belong to the SCoP with scalars expanded (its ``scop``
    and ``deps``): the program is then generated from that model."""
    reporter = reporter or Reporter()
    deps = compute_dependences(scop)
    sizes = sizes_from(options)
    ctx = scop.domain().get_ctx()
    for schedule in preferences(scop, deps, options, reporter, index=index):
        last = schedule.name == ORIGINAL
        limit = 0 if last else MAX_OPERATIONS
        try:
            with operation_budget(ctx, limit):
                if last:
                    program = map_sequential(scop, deps, schedule.tree)
                else:
                    program = map_to_gpu(schedule.scop or scop, schedule.deps or deps,
                                         schedule.tree, relaxed=schedule.relaxed, sizes=sizes)
            if schedule.relaxed and \
                    mapped_parallelism(program) < flagged_parallelism(schedule.tree):
                continue  # its atomics would not be sound: the next schedule is taken
            program = with_asts(program, limit)
        except BudgetExceeded:
            reporter.note(f"generating code for schedule '{schedule.name}' of SCoP "
                          f"'{scop.name}' exceeds {MAX_OPERATIONS} isl operations in one "
                          "step; trying the next schedule", scop.location)
            continue
        except isl.Error as exc:
            if last:
                raise error(f"isl cannot generate code for SCoP '{scop.name}' "
                            f"({isl_message(exc)})", scop.location) from None
            reporter.note(f"isl fails on the code of schedule '{schedule.name}' of SCoP "
                          f"'{scop.name}' ({isl_message(exc)}); trying the next schedule",
                          scop.location)
            continue
        if options.save_schedule:
            save_schedule(schedule, scop_file(options.save_schedule, index))
        return program
    raise AssertionError("the preferences end with the original order, mapped or an error")


def compile_file(path: str, options: Options | None = None,
                 reporter: Reporter | None = None) -> Generated:
    """The whole pipeline on one C file (``polycu file.c``)."""
    options = options or Options()
    scops = load_file(path, defines=options.define, includes=options.include_dir,
                      undefines=options.undefine, auto=options.auto_scop, ctx=options.ctx)
    resolved = Path(path).resolve()
    for scop in scops:
        if Path(scop.source).resolve() != resolved:
            raise error(f"the SCoP is in '{scop.source}', not in the file being compiled; "
                        "it cannot be replaced by host code", scop.location)
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise error(f"cannot read the input: {exc.strerror}", Location(path)) from None
    programs = [program_of(scop, options, reporter, index=k) for k, scop in enumerate(scops)]
    return generate(path, text, programs)
