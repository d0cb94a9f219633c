"""Finalisation: a generated program made free of undefined behaviour and out-of-bounds
accesses by construction.

In:  a ``Program``.
Out: a ``Finalised`` program with its text, or ``Invalid``: the SCoP is run with
the program's parameter values (``interpret.Machine``), which rejects undefined
behaviour and records the range of every subscript; subscripts are then shifted so
that none is negative and every array is sized to hold them (plus padding), with
variable-length arrays' extents written in terms of the parameters where one fits.
"""
from __future__ import annotations

import random

from .emit import emit_program
from .interpret import Machine
from .program import Expr, Finalised, Invalid, Program
from .tree import map_exprs, physical, plus_const, walk_expr

MAX_EXTENT = 160         # elements of one array dimension
MAX_ELEMENTS = 30000     # elements of one array


def finalise(program: Program) -> Finalised:
    """Run the program's SCoP with its parameters (``Invalid`` on undefined behaviour),
    then shift subscripts and size arrays so that every access is in bounds."""
    used = used_names(program)
    program = Program(program.seed, [p for p in program.params if p["name"] in used],
                      [a for a in program.arrays if a["name"] in used],
                      [s for s in program.scalars if s["name"] in used],
                      program.body, list(program.options), program.decl_iters)
    machine = Machine(program)
    machine.run(physical(program.body))
    rng = random.Random(f"extents:{program.seed}")
    shifts, extents, vla = {}, {}, {}
    int_params = [p for p in program.params if p["type"] == "int" and p["value"] >= 0]
    for a in program.arrays:
        name = a["name"]
        shift, ext = [], []
        for d in range(a["ndim"]):
            lo, hi = machine.lo[name][d], machine.hi[name][d]
            if lo is None:
                lo = hi = 0
            s = -lo if lo < 0 else 0
            size = hi + s + 1 + a.get("pad", [0] * a["ndim"])[d]
            if size > MAX_EXTENT:
                raise Invalid(f"{name} needs {size} elements in dimension {d}")
            shift.append(s)
            ext.append(size)
        total = 1
        for x in ext:
            total *= x
        if total > MAX_ELEMENTS:
            raise Invalid(f"{name} needs {total} elements")
        shifts[name], extents[name] = shift, ext
        if a["kind"] == "vla":
            forms = []
            for size in ext:
                if int_params and rng.random() < 0.8:
                    p = rng.choice(int_params)
                    forms.append(plus_const(["var", p["name"]], size - p["value"])
                                 if size != p["value"] else ["var", p["name"]])
                else:
                    forms.append(["num", "int", size])
            vla[name] = forms
    fin = Finalised(program, shifts, extents, vla, machine.steps)
    fin.text = emit_program(fin)
    return fin


def used_names(program: Program) -> set[str]:
    """Names that the SCoP reads or writes (VLA extents come later)."""
    names: set[str] = set()

    def see(e: Expr) -> Expr:
        if e[0] in ("var", "ref"):
            names.add(e[1])
        return e
    map_exprs(program.body, lambda e: walk_expr(e, see))
    return names
