"""The kernel description (contract 4): what the runtimes need to run a SCoP's kernels.

In:  a ``GpuProgram`` and the texts printed by ``cuda.py``/``host.py``.
Out: a JSON-serialisable dict per SCoP: arrays (type, extents, element count, intent,
copies), the device source (prologue + kernels, compilable alone, kernels
``extern "C"``), the host function source, the kernels (source, ordered arguments
with their roles, block sizes, grid expressions) and the host control tree as data:

    {"for": var, "lb": E, "ub": E (inclusive), "step": int, "body": [...]}
    {"if": E, "then": [...], "else": [...]}
    {"launch": kernel, "bind": {h: E}, "grid": [E, E, E], "block": [x, y, z],
     "args": [names]}

where every expression ``E`` is ``{"c": C text, "py": Python text}``; Python texts use
``//``, ``%``, ``min`` and ``max`` over the parameters, host iterators and ``h``.
"""
from __future__ import annotations

from typing import Any

from ..gpu.kernel import GpuProgram, Kernel
from .ast import Block, Expr, For, If, Node, User, grid_exprs, host_ast
from .cuda import Layout, c_expr, kernel_args
from .host import Transfer, host_function_name
from .pyexpr import py_expr

VERSION = 1

def both(e: Expr) -> dict[str, str]:
    return {"c": c_expr(e, host=True), "py": py_expr(e)}


def control_tree(node: Node, program: GpuProgram,
                 arrays: dict[str, Layout]) -> list[dict[str, Any]]:
    """The host AST as data (see the module docstring)."""
    if isinstance(node, Block):
        return [item for child in node.children
                for item in control_tree(child, program, arrays)]
    if isinstance(node, For):
        return [{"for": node.var, "lb": both(node.init), "ub": both(node.upper),
                 "step": node.step, "body": control_tree(node.body, program, arrays)}]
    if isinstance(node, If):
        item: dict[str, Any] = {"if": both(node.cond),
                                "then": control_tree(node.then, program, arrays)}
        if node.else_ is not None:
            item["else"] = control_tree(node.else_, program, arrays)
        return [item]
    assert isinstance(node, User)
    kernel = program.kernel(node.name)
    return [{"launch": kernel.name,
             "bind": {h: both(v) for h, v in zip(kernel.host_ids, node.args)},
             "grid": [both(g) for g in grid_exprs(program, kernel)],
             "block": list(kernel.block_dims()),
             "args": [a.name for a in kernel_args(program, kernel, arrays)]}]


def kernel_entry(program: GpuProgram, kernel: Kernel, source: str,
                 arrays: dict[str, Layout]) -> dict[str, Any]:
    return {
        "name": kernel.name,
        "source": source,
        "args": [{"name": a.name, "type": a.ctype, "role": a.role, "array": a.array}
                 for a in kernel_args(program, kernel, arrays)],
        "block": list(kernel.block_dims()),
        "grid": [both(g) for g in grid_exprs(program, kernel)],
        "barriers": kernel.uses_barriers,
        "statements": list(kernel.statements),
        "atomic": sorted(kernel.atomic),
        "mapped": [{"member": m.member, "axis": m.axis, "tile": m.tile, "block": m.block}
                   for m in kernel.mapped],
    }


def describe(program: GpuProgram, arrays: dict[str, Layout], moves: tuple[Transfer, ...],
             device_source: str, host_source: str,
             kernel_sources: dict[str, str]) -> dict[str, Any]:
    """The description of one SCoP."""
    scop = program.scop
    live_out = program.deps.live_out_arrays()
    by_name = {t.array.name: t for t in moves}
    array_entries = []
    for array in scop.arrays:
        move = by_name.get(array.name)
        array_entries.append({
            "name": array.name, "element_type": array.element_type,
            "extents": list(array.extents), "count": ({"c": move.count, "py": move.count_py}
                                                 if move else {"c": "1", "py": "1"}),
            "intent": move.intent if move else "in",
            "copy_in": bool(move and move.copy_in), "copy_out": bool(move and move.copy_out),
            "live_in": array.name in program.deps.live_in_arrays(),
            "live_out": array.name in live_out,
            "by_value": arrays[array.name].by_value, "local": array.local,
            "private": array.name in program.private,
            "device": move.device if move else None,
        })
    return {
        "name": scop.name, "function": scop.function, "region": list(scop.region),
        "host_function": host_function_name(scop), "parameters": list(scop.parameters),
        "arrays": array_entries,
        "device_source": device_source, "host_source": host_source,
        "host": control_tree(host_ast(program), program, arrays),
        "kernels": [kernel_entry(program, k, kernel_sources[k.name], arrays)
                    for k in program.kernels],
    }
