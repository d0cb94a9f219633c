"""The constructs a generated program uses: for coverage tests and run summaries.

In:  a ``Finalised`` program.
Out: a set of names such as ``array:vla``, ``type:unsigned``, ``depth:3``,
``step:down``, ``loop:big-offset``, ``op:%=``, ``expr:min``, ``call:sqrt``,
``option:--tile-size``, ``names:reserved``, ``dialect:typedef``, ``dialect:enum``,
``dialect:automatic``, ``subscript:wrap``, ``array:flat``, ``subscript:pointer``, ``array:alias`` and ``array:struct``
(``flat.py``),
``subscript:data``, ``shape:contraction``;
from seed 5,610,000 on (``integers.py``) ``type:short``, ``type:unsigned long``, ...
(arrays, scalars and temporaries), ``expr:<<``, ``expr:&``, ``expr:~``, ``op:<<=``, and
the groups ``op:shift`` and ``op:bitwise`` (in an expression or an assignment),
``int:narrow`` (a value promoted to int) and ``int:64-mixed`` (``unsigned long`` or
``unsigned long long`` met with a signed 64-bit operand: the usual arithmetic
conversions that C's ranks decide).
"""
from __future__ import annotations

import re
from typing import Iterator

from .names import RESERVED_NAMES
from .program import Expr, Finalised, Node
from .tree import map_exprs, walk_expr


def features(fin: Finalised) -> set[str]:
    """Names of the constructs a program uses (for coverage tests and summaries)."""
    out: set[str] = set()
    prog = fin.program
    out.update(f"array:{a['kind']}" for a in prog.arrays)
    out.update(f"type:{a['type']}" for a in prog.arrays)
    out.update(f"type:{s['type']}" for s in prog.scalars)
    out.update(f"ndim:{a['ndim']}" for a in prog.arrays)
    out.update(f"scalar:{s['kind']}" for s in prog.scalars)
    out.update(f"param:{p['type']}" for p in prog.params)
    if any(x["name"] in RESERVED_NAMES for x in prog.params + prog.arrays + prog.scalars):
        out.add("names:reserved")
    if "\ntypedef double real;" in fin.text:
        out.add("dialect:typedef")
    if "\nenum { K_" in fin.text:
        out.add("dialect:enum")
    if "#pragma scop" not in fin.text:
        out.add("dialect:automatic")
    if " - 3u) + 3u" in fin.text:
        out.add("subscript:wrap")
    if re.search(r" ld1_\w+[,)]", fin.text):             # a stride parameter
        out.add("array:flat")
    flat = "|".join(sorted(set(re.findall(r" ld1_(\w+)[,)]", fin.text))))
    if flat and re.search(rf"\((?:\*\()?(?:{flat}) \+ ", fin.text):       # *(A + o), (A + o)[s]
        out.add("subscript:pointer")
    if flat and re.search(rf"\n  \w+ \*(?:{flat})_at = ", fin.text):   # T *A_at = A + c;
        out.add("array:alias")
    if flat and re.search(rf"\n  mat_(?:{flat}) \w+_m = ", fin.text):     # in a structure
        out.add("array:struct")
    if any(p["value"] == 0 for p in prog.params):
        out.add("param:zero")
    if any(n["k"] == "stmt" and _contraction(n) for n in _nodes(prog.body)):
        out.add("shape:contraction")
    if any(a.get("index") for a in prog.arrays):
        out.add("subscript:data")

    def depth(nodes: list[Node]) -> int:
        best = 0
        for n in nodes:
            if n["k"] == "for":
                best = max(best, 1 + depth(n["body"]))
            elif n["k"] == "if":
                best = max(best, depth(n["then"]), depth(n.get("else") or []))
        return best
    out.add(f"depth:{depth(prog.body)}")
    count = 0
    for node in _nodes(prog.body):
        if node["k"] == "for":
            out.add(f"iter:{node['type']}")
            out.add("step:down" if node["step"] < 0 else "step:up")
            if abs(node["step"]) > 1:
                out.add("step:non-unit")
            if node.get("offset"):
                out.add("loop:big-offset")
            if node["var"] == "t":
                out.add("loop:time")
            if node.get("data"):
                out.add("loop:data")
        elif node["k"] == "if":
            out.add("guard:else" if node.get("else") else "guard")
            if node.get("data"):
                out.add("guard:data")
        elif node["k"] == "let":
            out.add("let")
            out.add(f"type:{node['type']}")
        elif node["k"] == "stmt":
            count += 1
            out.add(f"op:{node['op']}")
            out.update(_groups(node["op"].rstrip("=")))
    out.add(f"stmts:{count}")

    def see(e: Expr) -> Expr:
        if e[0] in ("min", "max", "cond", "cast", "neg"):
            out.add(f"expr:{e[0]}")
        elif e[0] == "compl":
            out.update({"expr:~", "op:bitwise"})
        elif e[0] in ("bin", "cmp"):
            out.add(f"expr:{e[1]}")
            out.update(_groups(e[1]) if e[0] == "bin" else ())
        elif e[0] == "call":
            out.add(f"call:{e[1]}")
        return e
    map_exprs(prog.body, lambda e: walk_expr(e, see))
    types = {x["type"] for x in prog.arrays + prog.scalars} | \
        {n["type"] for n in _nodes(prog.body) if n["k"] == "let"}
    if types & {"signed char", "unsigned char", "short", "unsigned short"}:
        out.add("int:narrow")
    if types & {"unsigned long", "unsigned long long"} and types & {"long", "long long"}:
        out.add("int:64-mixed")
    for opt in prog.options:
        if opt.startswith("--"):
            out.add(f"option:{opt}")
    return out


def _groups(op: str) -> set[str]:
    """``op:shift`` and ``op:bitwise``: the operators of session 37, however written."""
    if op in ("<<", ">>"):
        return {"op:shift"}
    if op in ("&", "|", "^"):
        return {"op:bitwise"}
    return set()


def _nodes(nodes: list[Node]) -> Iterator[Node]:
    for n in nodes:
        yield n
        if n["k"] == "for":
            yield from _nodes(n["body"])
        elif n["k"] == "if":
            yield from _nodes(n["then"])
            yield from _nodes(n.get("else") or [])


def _contraction(stmt: Node) -> bool:
    """W[.][.] += [s *] X[.][.] * Y[.][.] (or W = W + ...): a contraction's update."""
    def ref2(e: Expr) -> bool:
        return e[0] == "ref" and len(e[2]) == 2
    rhs = stmt["rhs"]
    if stmt["op"] == "=" and rhs is not None and rhs[0] == "bin" and rhs[1] == "+" \
            and rhs[2] == stmt["lhs"]:
        rhs = rhs[3]
    elif stmt["op"] != "+=":
        return False
    if rhs is None or rhs[0] != "bin" or rhs[1] != "*" or not ref2(stmt["lhs"]):
        return False
    left, right = rhs[2], rhs[3]
    if left[0] == "bin" and left[1] == "*":
        left = left[3]
    return ref2(left) and ref2(right)
