"""Splicing: the original file with each SCoP's lines replaced by a call of its host
function.

In:  the source text, each SCoP with its arrays' device layouts.
Out: the host program (still C, for a C compiler): at each SCoP, a block that
declares the .cu's host function, checks that the arrays have the element types and
extents the kernels were generated for, and calls it; where the kernels assume
something of the parameters (``assumptions.py``), the call runs only where the
.cu's ``NAME_gpu_assumes`` holds and the SCoP's own lines run elsewhere, as the
original program would (the versioning of Polly's run-time checks).  A SCoP left to
the CPU keeps its lines, compiled like the rest of the program, under a comment
with the estimates that placed it there.
"""
from __future__ import annotations

from ..gpu.where import CpuScop
from ..model import Scop, storages
from .cuda import INDENT, Layout
from .assumptions import assumes_function_name, assumption
from .host import host_function_name, signature
from .transfers import paren


def _shape_checks(scop: Scop, arrays: dict[str, Layout]) -> list[str]:
    """Runtime checks that the program's arrays have the element type and inner
    extents the kernels were generated for (folded away by the compiler when true)."""
    lines = []
    for array in storages(scop):
        if array.local:
            continue
        name, etype = scop.in_source(array.name), scop.in_source(array.element_type)
        rank = 1 if array.delinearised else array.rank    # as the program declares it
        element = name + "[0]" * rank
        conds = [f"sizeof({element}) != sizeof({etype})"]
        layout = arrays[array.name]
        for k in range(1, rank):
            outer = name + "[0]" * k
            conds.append(f"sizeof({outer}) / sizeof({element}) != (size_t)"
                         f"({scop.in_source(_product(layout.extents[k:]))})")
        lines.append(f"if ({' || '.join(conds)})")
        lines.append(f"{INDENT}polycu_shape_error(\"{name}\", __FILE__, __LINE__);")
    return lines


def _product(extents: tuple[str | None, ...]) -> str:
    return " * ".join(paren(e) for e in extents if e)


def call_site(scop: Scop, arrays: dict[str, Layout], text: str) -> list[str]:
    """What replaces the SCoP's lines: declarations of the .cu's functions it calls,
    shape checks and the call of the host function; under a condition on the
    parameters where the kernels assume one, with the SCoP's own lines (from
    ``text``) for the other values."""
    indent = indentation(text, scop.region)
    params = [scop.in_source(p) for p in scop.parameters]
    args = list(params)
    for array in storages(scop):
        if array.local:
            continue
        name = scop.in_source(array.name)
        ref = f"&{name}" if array.is_scalar else name
        args.append(f"({scop.in_source(array.element_type)} *){ref}")
    types = scop.in_source(", ".join(t for t, _ in signature(scop))) or "void"
    body = [f"extern void {host_function_name(scop)}({types});",
            "extern void polycu_shape_error(const char *, const char *, int);"]
    body += _shape_checks(scop, arrays) + [f"{host_function_name(scop)}({', '.join(args)});"]
    first, last = scop.region
    said = f"{indent}/* polycu: the SCoP of lines {first}-{last} runs on the GPU"
    if assumption(scop) is None:
        return [said + " */", f"{indent}{{"] + [f"{indent}{INDENT}{line}" for line in body] \
            + [f"{indent}}}"]
    count = len(scop.parameters)
    ptypes = scop.in_source(", ".join(t for t, _ in signature(scop)[:count])) or "void"
    test = f"{assumes_function_name(scop)}({', '.join(params)})"
    return [said + " where the parameters meet the kernels' assumptions, else as written */",
            f"{indent}{{", f"{indent}{INDENT}extern int {assumes_function_name(scop)}({ptypes});",
            f"{indent}{INDENT}if ({test}) {{",
            *[f"{indent}{INDENT * 2}{line}" for line in body],
            f"{indent}{INDENT}}} else {{", *text.split("\n")[first - 1:last],
            f"{indent}{INDENT}}}", f"{indent}}}"]


def cpu_site(text: str, placed: CpuScop) -> list[str]:
    """The SCoP's own lines, kept for the CPU, under a comment saying why."""
    first, last = placed.scop.region
    lines = text.split("\n")[first - 1:last]
    said = placed.where.sentence().replace("*/", "* /")
    return [f"{indentation(text, placed.scop.region)}/* polycu: the SCoP of lines "
            f"{first}-{last} {said} */", *lines]


def splice(text: str, calls: list[tuple[tuple[int, int], list[str]]]) -> str:
    """``text`` with each region (first, last line, 1-based) replaced by its lines."""
    lines = text.split("\n")
    for (first, last), replacement in sorted(calls, reverse=True):
        lines[first - 1:last] = replacement
    return "\n".join(lines)


def indentation(text: str, region: tuple[int, int]) -> str:
    """The smallest indentation of the region's code lines (pragmas excluded)."""
    lines = text.split("\n")[region[0] - 1:region[1]]
    code = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return min((ln[:len(ln) - len(ln.lstrip())] for ln in code), key=len, default="")
