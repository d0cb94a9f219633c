"""Code generation: GPU programs -> one .cu file and its kernel description.

In:  the ``GpuProgram`` of every SCoP of one source file.
Out: ``Generated``: the .cu text (prologue, kernels, and the ``extern "C"`` host
function of each SCoP), the host program (the original file verbatim, still C,
with each SCoP's lines replaced by a call of its host function) and the
JSON-serialisable description of contract 4.  nvcc compiles the .cu as C++; the
user's program stays C and goes to a C compiler (``nvcc OUT.cu OUT_host.c`` does
both: nvcc hands ``.c`` files to the host C compiler).

``compile_file`` runs the whole pipeline on a file: frontend, dependences, schedule
(``polycu.schedule.preferences``, first that maps), mapping, code generation.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import islpy as isl

from ..deps import compute_dependences, isl_message
from ..diagnostics import Location, Reporter, error
from ..frontend.load import load_file
from ..gpu.kernel import GpuProgram
from ..gpu.mapping import (Sizes, flagged_parallelism, map_sequential, map_to_gpu,
                           mapped_parallelism)
from ..model import Scop
from ..options import Options
from ..schedule import (ORIGINAL, BudgetExceeded, operation_budget, parse_sizes, preferences,
                        save_schedule, scop_file)
from . import host
from .ast import MAX_OPERATIONS, with_asts
from .cuda import kernel_source, layouts
from .description import VERSION, describe


@dataclass(frozen=True)
class Generated:
    """The generated .cu text, the host program (C) and the kernel description of one
    source file."""

    cuda: str
    host: str
    description: dict[str, Any]

    def description_json(self) -> str:
        return json.dumps(self.description, indent=1) + "\n"

    def write(self, cu: Path) -> Path:
        """Write the .cu to ``cu`` and the host program beside it; returns the latter."""
        host_file = host_path(cu)
        cu.write_text(self.cuda)
        host_file.write_text(self.host)
        return host_file


def host_path(cu: Path) -> Path:
    """Where the host program of ``OUT.cu`` goes: ``OUT_host.c`` beside it."""
    return cu.with_name(cu.stem + "_host.c")


def generate(source: str, text: str, programs: Sequence[GpuProgram]) -> Generated:
    """The .cu of ``text`` (the contents of file ``source``) with ``programs`` spliced in."""
    device_parts = [host.prologue(Path(source).name)]
    host_parts = [host.HOST_HELPERS]
    calls = []
    scops = []
    for program in programs:
        scop = program.scop
        arrays = layouts(scop)
        sources = {k.name: kernel_source(program, k, arrays) for k in program.kernels}
        host_source = host.host_function(program, arrays)
        device_parts += sources.values()
        host_parts.append(host_source)
        device_source = "\n\n".join([device_parts[0]] + list(sources.values())) + "\n"
        moves = host.transfers(program, arrays, host.device_prefix(scop))
        scops.append(describe(program, arrays, moves, device_source, host_source, sources))
        indent = host.indentation(text, scop.region)
        calls.append((scop.region, host.call_site(scop, arrays, indent)))
    cuda = "\n\n".join(device_parts + host_parts) + "\n"
    description = {"version": VERSION, "source": source, "scops": scops}
    return Generated(cuda, host.splice(text, calls), description)


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
