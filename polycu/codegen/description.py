"""The kernel description (contract 4): what the runtimes need to run a SCoP's kernels.

In:  a ``GpuProgram`` and the texts printed by ``cuda.py``/``host.py``.
Out: a JSON-serialisable dict per SCoP: the host program of ``host.host_program``
(parameters, index type, the C signature, the assumption on the parameters, the
arrays with their element counts and copies, the host control tree, each kernel's
arguments and launch shape), which the host function in the .cu is printed from
and which the runtimes replay, plus the device source (prologue + kernels,
compilable alone, kernels ``extern "C"``), the host function source and, per
kernel, its source, statements, atomics and mapped band members.

The host program (``host.host_program``)::

    {"name", "host_function", "parameters": [...], "index_type": C type of host values,
     "signature": [[C type, name], ...], "assume": E with "set" (the isl set), or null,
     "arrays": [{"name", "element_type", "extents", "count": E, "intent", "copy_in",
                 "covered": E where the copy-in is skipped (the writes cover the
                 array) or null, "copy_out", "live_in", "live_out", "by_value",
                 "local", "private", "device": buffer name or null}],
     "late_faults": whether the host faults in the pages of the arrays copied in and
                    out while the GPU runs (gpu.where: long kernels; prefault.py),
     "host": [{"for": var, "lb": E, "ub": E (inclusive), "step": int, "body": [...],
               "degenerate": true (only when it runs once)},
              {"if": E, "then": [...], "else": [...]},
              {"concurrent": [node, ...]} (launches, each maybe under ifs without
               else, that run side by side: codegen/concurrent.py),
              {"launch": kernel, "bind": {h: E}, "grid": [E, E, E], "block": [x, y, z],
               "args": [names]}],
     "kernels": [{"name", "args": [{"name", "type", "role", "array"}], "block",
                  "grid": [E, E, E], "barriers", "dependent" (launched as a dependent
                  launch: --dependent-launches), "objects": [names], "buffers":
                  {"reads", "writes", "surfaces": [arrays]} (objects.buffer_use),
                  "single_block": true (only for the one kernel of a program that
                  runs in one block)}]}

Every entry says where the SCoP runs, ``"runs_on": "gpu"`` or ``"cpu"``.  A SCoP left
to the CPU (``gpu.where``) keeps its original code in the program, so its entry has
no host function, kernels or launches, only what decided it::

    {"name", "function", "region", "parameters", "runs_on": "cpu",
     "host_function": null, "kernels": [], "host": [], "objects": [],
     "where": {"why": the sentence, "sizes": {p: value}, "kernels_ns", "transfers_ns",
               "cpu_ns", "forced"}}

Every expression ``E`` is ``{"c": C text}`` over the parameters, host iterators and
``h``: the host function computes it and the runtimes evaluate the same text with C's
semantics (``runtime.cexpr``).
"""
from __future__ import annotations

from typing import Any

from ..gpu.kernel import GpuProgram, Kernel
from ..gpu.where import CPU, GPU, CpuScop
from ..memory import Placement
from .cuda import Layout
from .host import Transfer, host_program

VERSION = 1


def kernel_entry(kernel: Kernel, launch: dict[str, Any], source: str) -> dict[str, Any]:
    """A kernel: how it is launched (``host.launched``), its source and what it runs."""
    return {
        "name": launch["name"], "source": source, "args": launch["args"],
        "block": launch["block"], "grid": launch["grid"], "barriers": launch["barriers"],
        "dependent": launch["dependent"], "objects": launch["objects"], "buffers": launch["buffers"],
        "statements": list(kernel.statements),
        "atomic": sorted(kernel.atomic),
        "mapped": [{"member": m.member, "axis": m.axis, "tile": m.tile, "block": m.block}
                   for m in kernel.mapped],
    }


def describe(program: GpuProgram, arrays: dict[str, Layout], moves: tuple[Transfer, ...],
             device_source: str, host_source: str,
             kernel_sources: dict[str, str], barriers: frozenset[str] = frozenset(),
             placement: Placement | None = None) -> dict[str, Any]:
    """The description of one SCoP; ``host_source`` is the host function printed from
    the same host program (``host.host_function``); ``barriers``: the kernels that
    synchronise their threads."""
    scop = program.scop
    host = host_program(program, arrays, moves, barriers, placement)
    kernels = {k.name: k for k in program.kernels}
    return {
        "name": scop.name, "function": scop.function, "region": list(scop.region),
        "runs_on": GPU, "host_function": host["host_function"], "parameters": host["parameters"],
        "index_type": host["index_type"], "signature": host["signature"],
        "assume": host["assume"], "arrays": host["arrays"],
        "device_source": device_source, "host_source": host_source,
        "host": host["host"], "objects": host["objects"],
        "kernels": [kernel_entry(kernels[k["name"]], k, kernel_sources[k["name"]])
                    if k["name"] in kernels else _block_entry(program, k, kernel_sources)
                    for k in host["kernels"]],
    }


def cpu_entry(placed: CpuScop) -> dict[str, Any]:
    """The entry of a SCoP left to the CPU: nothing to run but its original code."""
    scop, where = placed.scop, placed.where
    return {"name": scop.name, "function": scop.function, "region": list(scop.region),
            "parameters": list(scop.parameters), "runs_on": CPU, "host_function": None,
            "kernels": [], "host": [], "objects": [],
            "where": {"why": where.sentence(), "sizes": dict(where.sizes),
                      "kernels_ns": where.kernels, "transfers_ns": where.transfers,
                      "cpu_ns": where.cpu, "forced": where.forced}}


def _block_entry(program: GpuProgram, launch: dict[str, Any], sources: dict[str, str]
                 ) -> dict[str, Any]:
    """The one kernel of a program that runs in one block: every statement, no mapped
    member (its threads share each phase: ``single_block.py``)."""
    return {**launch, "source": sources[launch["name"]],
            "statements": [s for k in program.kernels for s in k.statements],
            "atomic": sorted(frozenset().union(*(k.atomic for k in program.kernels))),
            "mapped": []}
