"""What the kernels assume of the parameters, and the host code that tests it.

In:  a ``Scop`` (its context) and the host program as data (``host.host_program``).
Out: the assumed condition (``assumption``: C text and isl set), the .cu's
``int NAME_gpu_assumes(P p..)`` that the spliced call site versions on
(``splice.call_site``: the SCoP's own lines run where it fails), and the lines that
stop the host function when it is called alone outside the assumption.
"""
from __future__ import annotations

from typing import Any, Mapping

import islpy as isl

from ..frontend.scop import parameter_ranges
from ..model import Scop
from .cuda import INDENT, c_expr
from .nodes import to_expr
from .overflow import exactly


def assumes_function_name(scop: Scop) -> str:
    """The .cu's function that says whether the parameters lie where the kernels are
    valid (``assumption``); the call site runs the SCoP's own code where they do not."""
    return f"{scop.name}_gpu_assumes"


def declare(ctype: str, name: str) -> str:
    """A parameter declaration: ``double *A``, ``long n``."""
    return f"{ctype}{name}" if ctype.endswith("*") else f"{ctype} {name}"


# The context C(p) holds the SCoP's assumptions (non-negative extents, conversions to
# signed types in range, --ctx); what the parameters' types do not already imply,
# gist(C, ranges of the types), is checked before anything runs.
def assumption(scop: Scop) -> dict[str, str] | None:
    """The condition on the parameters that the kernels assume and the host checks
    first (``{"c", "set"}``: the condition and the isl set it stands for); None
    when nothing is assumed."""
    known = parameter_ranges(scop)
    check = scop.context.gist(known)
    if check.plain_is_universe():
        return None
    build = isl.AstBuild.from_context(known)
    return {"c": c_expr(exactly(to_expr(build.expr_from_set(check)), scop), host=True),
            "set": str(check)}


def converted(host: Mapping[str, Any], itype: str) -> list[str]:
    """The parameters the host code computes with, in the index type."""
    return [f"const {itype} {p} = {name};"
            for p, (_, name) in zip(host["parameters"], host["signature"]) if name != p]


def assumes_function(host: Mapping[str, Any], itype: str) -> list[str]:
    """``int NAME_gpu_assumes(P p..)``: 1 where the parameters meet the SCoP's
    assumptions, computed as the host function computes them; none when nothing is
    assumed."""
    assume = host["assume"]
    if assume is None:
        return []
    count = len(host["parameters"])
    params = ", ".join(declare(t, n) for t, n in host["signature"][:count])
    return [f'extern "C" int {host["host_function"]}_assumes({params})', "{",
            *[INDENT + line for line in converted(host, itype)],
            f"{INDENT}return {assume['c']};", "}", ""]


def assumption_check(host: Mapping[str, Any]) -> list[str]:
    """Lines that stop the program when the parameters break the SCoP's assumptions
    (the kernels would compute something else).  The spliced program never gets here
    (it runs the SCoP's own code there, ``splice.call_site``); a caller of the host
    function alone does."""
    assume = host["assume"]
    if assume is None:
        return []
    values = ", ".join(f"{p} = %lld" for p in host["parameters"])
    args = "".join(f", (long long){p}" for p in host["parameters"])
    text = assume["set"].replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return [f"if (!({assume['c']})) {{",
            f'{INDENT}fprintf(stderr, "polycu: {host["name"]}: the parameters ({values}) are '
            f'outside the values the GPU code assumes ({text})\\n"{args});',
            f"{INDENT}exit(1);", "}"]
