"""Names that isl, C++ or CUDA reserve, given to a generated program's variables.

In:  a ``Program`` and the seed and attempt it came from.
Out: the same program, for one seed in four, with about half of its parameters,
arrays, scalars, loop counters and temporaries named by words that C leaves free
and another language of the pipeline reserves (``new``, ``class``, ``max``,
``Floor``, ``threadIdx``, ...; ``frontend/spelling.py`` renames them), else the
program itself.

A name is only a name: the program computes the same values under any names, so
the renaming is drawn from a random state of its own and leaves the rest of the
program (drawn before) as it was.  The time loop's ``t`` keeps its name (the
summaries count time loops by it).  Words that name a C library function the
generator calls (``floor``, ``ceil``, ``fmin``) are left out: a variable of that
name would hide the function in C itself.
"""
from __future__ import annotations

import random

from .program import Expr, Node, Program
from .tree import walk_expr

#: C identifiers that isl (any case), C++ or CUDA reserve.
RESERVED_NAMES = ("new", "class", "this", "template", "delete", "operator", "private",
                  "namespace", "virtual", "bool", "true", "and", "not", "max", "min", "Max",
                  "Floor", "mod", "rat", "exists", "domain", "range", "infty", "threadIdx",
                  "blockIdx", "blockDim", "warpSize", "dim3", "int2", "atomicAdd")


def respelled(program: Program, attempt: int) -> Program:
    """``program`` with some of its names replaced by reserved words (one seed in
    four), or ``program`` itself."""
    rng = random.Random(f"polycu-fuzz-names:{program.seed}:{attempt}")
    if rng.random() >= 0.25:
        return program
    names = [p["name"] for p in program.params] + [a["name"] for a in program.arrays] + \
        [s["name"] for s in program.scalars] + sorted(_declared(program.body) - {"t"})
    free = [w for w in RESERVED_NAMES if w not in names]
    rng.shuffle(free)
    new = {name: free.pop() for name in names if free and rng.random() < 0.5}
    if not new:
        return program

    def name(e: Expr) -> Expr:
        if e[0] in ("var", "ref"):
            return [e[0], new.get(e[1], e[1]), *e[2:]]
        return e

    return Program(program.seed,
                   [dict(p, name=new.get(p["name"], p["name"])) for p in program.params],
                   [dict(a, name=new.get(a["name"], a["name"])) for a in program.arrays],
                   [dict(s, name=new.get(s["name"], s["name"])) for s in program.scalars],
                   _renamed(program.body, new, name), list(program.options),
                   program.decl_iters)


def _declared(nodes: list[Node]) -> set[str]:
    """The loop counters and temporaries the nodes declare."""
    out: set[str] = set()
    for node in nodes:
        if node["k"] == "for":
            out.add(node["var"])
            out |= _declared(node["body"])
        elif node["k"] == "if":
            out |= _declared(node["then"]) | _declared(node.get("else") or [])
        elif node["k"] == "let":
            out.add(node["name"])
    return out


def _renamed(nodes: list[Node], new: dict[str, str], name) -> list[Node]:
    """The nodes with every name of ``new`` replaced, declarations and uses."""
    out = []
    for node in nodes:
        node = dict(node)
        kind = node["k"]
        if kind == "for":
            node["var"] = new.get(node["var"], node["var"])
            node["lb"] = walk_expr(node["lb"], name)
            node["cond"] = walk_expr(node["cond"], name)
            node["body"] = _renamed(node["body"], new, name)
        elif kind == "if":
            node["cond"] = walk_expr(node["cond"], name)
            node["then"] = _renamed(node["then"], new, name)
            if node.get("else"):
                node["else"] = _renamed(node["else"], new, name)
        elif kind == "let":
            node["name"] = new.get(node["name"], node["name"])
            node["init"] = walk_expr(node["init"], name)
        elif kind == "stmt":
            node["lhs"] = walk_expr(node["lhs"], name)
            if node.get("rhs") is not None:
                node["rhs"] = walk_expr(node["rhs"], name)
        out.append(node)
    return out
