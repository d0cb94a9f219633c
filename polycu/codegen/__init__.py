"""Code generation: GPU programs -> one .cu file and its kernel description.

In:  the ``Placement`` (a ``GpuProgram`` with its arrays placed) of every SCoP of one
     source file, or its ``CpuScop`` when it stays on the CPU (``gpu.where``).
Out: ``Generated``: the .cu text (prologue, kernels, and the ``extern "C"`` host
function of each SCoP), the host program (the original file verbatim, still C,
with each SCoP's lines replaced by a call of its host function) and the
JSON-serialisable description of contract 4.  nvcc compiles the .cu as C++; the
user's program stays C and goes to a C compiler (``nvcc OUT.cu OUT_host.c`` does
both: nvcc hands ``.c`` files to the host C compiler).

The pipeline that leads here is ``polycu.driver``.
"""
from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..diagnostics import error
from ..gpu.where import CpuScop
from ..memory import Placement
from ..model import Scop
from . import host
from .splice import call_site, cpu_site, splice
from .cuda import layouts
from .kernel import kernel_source
from .mma import TENSOR_HELPERS
from .single_block import block_kernel_name, block_kernel_source
from .resident import DEVICE_HELPERS as RESIDENT_HELPERS, resident_kernel_name, resident_kernel_source
from .transfers import struct_definitions
from .objects import DEVICE_HELPERS, HOST_HELPERS as OBJECT_HELPERS, constant_declarations, \
    reads_objects
from .description import VERSION, cpu_entry, describe


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


@contextmanager
def _printable(scop: Scop) -> Iterator[None]:
    """A literal beyond long long in a value of the generated code (``literals.literal``:
    a bound or subscript whose schedule coordinates lie beyond 2^63, fuzz seed
    5632027) as a located error; conditions compute such literals in 128 bits."""
    try:
        yield
    except OverflowError as exc:
        value = re.search(r"-?\d{19,}", str(exc))
        raise error(f"the code of SCoP '{scop.name}' would need the integer "
                    f"{value.group(0) if value else 'beyond long long'} in a loop bound or "
                    "subscript (its schedule reaches values near the ends of a 64-bit "
                    "parameter's range); bound the parameters with --ctx or give them "
                    "narrower types", scop.location) from None


def host_path(cu: Path) -> Path:
    """Where the host program of ``OUT.cu`` goes: ``OUT_host.c`` beside it."""
    return cu.with_name(cu.stem + "_host.c")


def generate(source: str, text: str, placements: Sequence[Placement | CpuScop],
             configuration: Sequence[str] = ()) -> Generated:
    """The .cu of ``text`` (the contents of file ``source``) with the programs of
    ``placements`` spliced in, their arrays where the placements put them (a SCoP
    left to the CPU keeps its original code, under a comment saying why);
    ``configuration`` (one sentence per tuned SCoP: the options it was compiled with)
    heads the file, so that the build can be reproduced."""
    device_parts = [host.prologue(Path(source).name)]
    host_parts = [host.HOST_HELPERS]
    calls = []
    scops = []
    for placement in placements:
        if isinstance(placement, CpuScop):
            scops.append(cpu_entry(placement))
            calls.append((placement.scop.region, cpu_site(text, placement)))
            continue
        program = placement.program
        scop = program.scop
        with _printable(scop):
            arrays = layouts(scop)
            if program.single_block:
                sources = {block_kernel_name(program): block_kernel_source(placement, arrays)}
            elif placement.resident is not None:
                sources = {resident_kernel_name(program):
                           resident_kernel_source(placement, arrays)}
            else:
                sources = {k.name: kernel_source(placement, k, arrays) for k in program.kernels}
            barriers = frozenset(k.kernel for k in placement.kernels if k.barriers) \
                | frozenset(placement.tensor) | frozenset(placement.trees)
            host_source = host.host_function(program, arrays, barriers, placement)
            helpers = [DEVICE_HELPERS.rstrip()] if reads_objects(placement) else []
            helpers += [TENSOR_HELPERS] if placement.tensor else []
            helpers += [RESIDENT_HELPERS] if placement.resident is not None else []
            declared = ["\n".join(constant_declarations(placement))] \
                if constant_declarations(placement) else []
            device_parts += [h for h in helpers if h not in device_parts]
            types = struct_definitions(scop)
            device_parts += [t for t in types if t not in device_parts] + declared \
                + list(sources.values())
            host_parts.append(host_source)
            device_source = "\n\n".join([device_parts[0]] + types + helpers + declared
                                        + list(sources.values())) + "\n"
            moves = host.transfers(program, arrays, host.device_prefix(scop))
            scops.append(describe(program, arrays, moves, device_source, host_source, sources,
                                 barriers, placement))
            calls.append((scop.region, call_site(scop, arrays, text)))
    if any(s["objects"] for s in scops):
        host_parts.insert(1, OBJECT_HELPERS)
    cuda = "\n\n".join(device_parts + host_parts) + "\n"
    if configuration:
        said = "\n".join("   " + line.replace("*/", "* /") for line in configuration)
        cuda = f"/* Compiled with tuned configurations (polycu --tuned):\n{said} */\n" + cuda
    description = {"version": VERSION, "source": source, "scops": scops}
    return Generated(cuda, splice(text, calls), description)
