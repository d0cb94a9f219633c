"""C's rules on the generated programs' integers, and the interpreter that runs them.

In:  a ``Program`` in physical form (``tree.physical``) with its parameter values.
Out: ``Machine``: the program run with C's integer semantics (``cint``: types,
integer promotions, the usual arithmetic conversions, wrapping unsigned values,
gcc's modular conversion to signed types, truncating ``/`` and ``%``, bitwise
operators and shifts) and the lowest and highest subscript of every array
dimension; ``Invalid`` on undefined behaviour (signed overflow, division by zero,
a shift out of range or of a negative value) or too much work.
``init_value`` is the value ``main`` stores in an array element, as the emitted
C computes it.

Floating values are not computed (None): only integers decide control flow and
subscripts, and only they can overflow.
"""
from __future__ import annotations

import itertools
from typing import Any

from .cint import (arith, c_div, checked, common_type, compare, complement, convert,
                   negate)
from .program import FLOAT_TYPES, Expr, Finalised, Invalid, Node, Program, is_integer
from .tree import physical

__all__ = ["Machine", "init_value", "scalar_init", "common_type", "convert", "MAX_STEPS",
           "predicted_integers"]

MAX_STEPS = 60000        # loop iterations plus statement instances per program


# -- initial values -------------------------------------------------------------------

def init_value(spec: dict, type_: str, index: tuple[int, ...]) -> int | None:
    """The value ``main`` stores at logical ``index`` (None for floating types):
    ``h = (sum a_d x_d + K) % M`` in C, then scaled (see ``emit_init``); with a
    ``base`` (the integer types of ``integers.NEW_INT_TYPES``), ``(T) ((unsigned
    long long) h * scale + base)``: wrapping unsigned arithmetic, then gcc's
    modular conversion, so that the values reach the type's extremes."""
    if type_ in FLOAT_TYPES:
        return None
    h = spec["k"]
    for a, x in zip(spec["a"], index):
        h += a * x
    h = h - c_div(h, spec["m"]) * spec["m"]
    if "base" in spec:
        return convert(h * int(spec["scale"]) + int(spec["base"]), type_)
    v = convert(h, type_)
    scale = int(spec["scale"])
    return convert(v * scale, type_) if type_ == "unsigned" else checked(v * scale, type_, "init")


def scalar_init(spec: dict) -> int | None:
    return None if spec["type"] in FLOAT_TYPES else int(spec["init"])


# -- interpretation -------------------------------------------------------------------

class Machine:
    """Runs a (physical) SCoP body with C semantics on integers; records subscripts."""

    def __init__(self, program: Program):
        self.program = program
        self.env: dict[str, tuple[str, int | None]] = {}
        for p in program.params:
            self.env[p["name"]] = (p["type"], convert(p["value"], p["type"]))
        for s in program.scalars:
            self.env[s["name"]] = (s["type"], scalar_init(s))
        self.arrays = {a["name"]: a for a in program.arrays}
        self.values: dict[str, dict[tuple, int]] = {a["name"]: {} for a in program.arrays}
        self.lo = {a["name"]: [None] * a["ndim"] for a in program.arrays}
        self.hi = {a["name"]: [None] * a["ndim"] for a in program.arrays}
        self.steps = 0

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Invalid(f"more than {MAX_STEPS} loop iterations and statement instances")

    def run(self, nodes: list[Node]) -> None:
        for node in nodes:
            self.execute(node)

    def execute(self, node: Node) -> None:
        kind = node["k"]
        if kind == "for":
            var, t = node["var"], node["type"]
            saved = self.env.get(var)
            tl, lb = self.eval(node["lb"])
            self.env[var] = (t, convert(lb, t))
            while True:
                self.tick()
                if not self.truth(node["cond"]):
                    break
                self.run(node["body"])
                tv, v = self.env[var]
                self.env[var] = (t, checked(v + node["step"], t, f"{var} += {node['step']}"))
            if saved is None:
                del self.env[var]
            else:
                self.env[var] = saved
        elif kind == "if" and node.get("data"):
            # a condition on data (``guards.py``): C's branch where the integers
            # decide it, else both (whose statements write no integer); the subscripts
            # of a branch not taken are recorded too, since polycu's model reads and
            # may write every reference of the statement at every instance
            taken = self.maybe(node["cond"])
            for branch, runs in ((node["then"], taken != 0), (node.get("else"), taken != 1)):
                if branch and runs:
                    if taken is None and any(not self.floating(n) for n in branch):
                        raise AssertionError("an integer written under a floating condition")
                    self.run(branch)
                elif branch:
                    self.observe(branch)
        elif kind == "if":
            if self.truth(node["cond"]):
                self.run(node["then"])
            elif node.get("else"):
                self.run(node["else"])
        elif kind == "let":
            t, v = self.eval(node["init"])
            self.tick()
            self.env[node["name"]] = (node["type"], convert(v, node["type"]))
        elif kind == "stmt":
            self.tick()
            self.assign(node)
        else:
            raise AssertionError(kind)

    def truth(self, cond: Expr) -> bool:
        t, v = self.eval(cond)
        if v is None:
            raise AssertionError("floating condition")
        return v != 0

    def maybe(self, cond: Expr) -> int | None:
        """A condition's truth (1 or 0), None where it hangs on a floating value; every
        operand is evaluated (its subscripts recorded, its undefined behaviour found)."""
        kind = cond[0]
        if kind == "not":
            a = self.maybe(cond[1])
            return None if a is None else 1 - a
        if kind in ("and", "or"):
            a, b = self.maybe(cond[1]), self.maybe(cond[2])
            absorbing = 0 if kind == "and" else 1
            if absorbing in (a, b):
                return absorbing
            return None if None in (a, b) else 1 - absorbing
        if kind == "cmp":
            (ta, a), (tb, b) = self.eval(cond[2]), self.eval(cond[3])
            if common_type(ta, tb) in FLOAT_TYPES:
                return None
            return compare(cond[1], ta, a, tb, b)
        t, v = self.eval(cond)
        return None if t in FLOAT_TYPES else int(v != 0)

    def observe(self, nodes: list[Node]) -> None:
        """Evaluate the statements' references without storing (a branch not taken)."""
        for node in nodes:
            self.lvalue(node["lhs"])
            if node.get("rhs") is not None:
                self.eval(node["rhs"])

    def floating(self, node: Node) -> bool:
        """Whether a statement writes a floating array or scalar."""
        return node["k"] == "stmt" and self.lvalue_type(node["lhs"]) in FLOAT_TYPES

    def lvalue_type(self, lhs: Expr) -> str:
        return self.env[lhs[1]][0] if lhs[0] == "var" else self.arrays[lhs[1]]["type"]

    def lvalue(self, lhs: Expr) -> tuple[str, Any]:
        if lhs[0] == "var":
            return self.env[lhs[1]][0], ("var", lhs[1])
        index = self.subscripts(lhs)
        return self.arrays[lhs[1]]["type"], ("ref", lhs[1], index)

    def load(self, where: Any) -> int | None:
        if where[0] == "var":
            return self.env[where[1]][1]
        _, name, index = where
        array = self.arrays[name]
        if array["type"] in FLOAT_TYPES:
            return None
        if index not in self.values[name]:
            self.values[name][index] = init_value(array["init"], array["type"], index)
        return self.values[name][index]

    def store(self, where: Any, type_: str, value: int | None) -> None:
        if where[0] == "var":
            self.env[where[1]] = (type_, value)
        elif type_ not in FLOAT_TYPES:
            self.values[where[1]][where[2]] = value

    def assign(self, node: Node) -> None:
        t, where = self.lvalue(node["lhs"])
        op = node["op"]
        if op in ("++", "--"):
            rt, r = arith(op[0], t, self.load(where), "int", 1)
        elif op == "=":
            rt, r = self.eval(node["rhs"])
        else:
            # E1 op= E2 is E1 = E1 op E2 (E1 once): computed in the promoted or
            # common type, then converted back to E1's type
            et, e = self.eval(node["rhs"])
            rt, r = arith(op[:-1], t, self.load(where), et, e)
        if t not in FLOAT_TYPES and rt in FLOAT_TYPES:
            raise AssertionError("floating value assigned to an integer")
        self.store(where, t, convert(r, t))

    def subscripts(self, ref: Expr) -> tuple[int, ...]:
        name = ref[1]
        index = []
        for d, e in enumerate(ref[2]):
            t, v = self.eval(e)
            if v is None:
                raise AssertionError("floating subscript")
            lo, hi = self.lo[name], self.hi[name]
            lo[d] = v if lo[d] is None else min(lo[d], v)
            hi[d] = v if hi[d] is None else max(hi[d], v)
            index.append(v)
        return tuple(index)

    def eval(self, e: Expr) -> tuple[str, int | None]:
        kind = e[0]
        if kind == "num":
            return e[1], (None if e[1] in FLOAT_TYPES else e[2])
        if kind == "var":
            return self.env[e[1]]
        if kind == "ref":
            index = self.subscripts(e)
            return self.arrays[e[1]]["type"], self.load(("ref", e[1], index))
        if kind == "bin":
            ta, a = self.eval(e[2])
            tb, b = self.eval(e[3])
            return arith(e[1], ta, a, tb, b)
        if kind in ("neg", "compl"):
            t, a = self.eval(e[1])
            if t in FLOAT_TYPES:
                if kind == "compl":
                    raise AssertionError("~ of a floating value")
                return t, None
            return negate(t, a) if kind == "neg" else complement(t, a)
        if kind == "cast":
            t, a = self.eval(e[2])
            if e[1] not in FLOAT_TYPES and t in FLOAT_TYPES:
                raise AssertionError("floating value cast to an integer")
            return e[1], convert(a, e[1])
        if kind in ("cmp", "and", "or", "not"):
            if kind == "not":
                return "int", int(not self.truth(e[1]))
            if kind == "cmp":
                ta, a = self.eval(e[2])
                tb, b = self.eval(e[3])
                return "int", compare(e[1], ta, a, tb, b)
            a, b = self.truth(e[1]), self.truth(e[2])
            return "int", int(a and b) if kind == "and" else int(a or b)
        if kind in ("cond", "min", "max"):
            # both arms are evaluated (stricter than C: their subscripts must be valid)
            if kind == "cond":
                c = self.truth(e[1])
                ta, a = self.eval(e[2])
                tb, b = self.eval(e[3])
            else:
                ta, a = self.eval(e[1])
                tb, b = self.eval(e[2])
            t = common_type(ta, tb)
            if t in FLOAT_TYPES:
                return t, None
            a, b = convert(a, t), convert(b, t)
            if kind == "min":
                c = a < b
            elif kind == "max":
                c = a > b
            return t, a if c else b
        if kind == "call":
            fn, args = e[1], [self.eval(a) for a in e[2]]
            if fn in ("abs", "labs", "llabs"):
                t = {"abs": "int", "labs": "long", "llabs": "long long"}[fn]
                v = convert(args[0][1], t)
                return t, checked(abs(v), t, fn)
            return ("float" if fn.endswith("f") and fn not in ("fabs",) else "double"), None
        raise AssertionError(kind)


def predicted_integers(fin: Finalised) -> dict[str, tuple[str, list[str]]]:
    """What ``main`` prints for every integer array and global integer scalar (``@ NAME
    TYPE`` and the values, as ``outputs.parse_output`` reads them), as the
    interpreter computes it: the tests hold it against gcc's build."""
    machine = Machine(fin.program)
    machine.run(physical(fin.program.body))
    out = {}
    for a in fin.program.arrays:
        if not is_integer(a["type"]):
            continue
        values = []
        for index in itertools.product(*(range(n) for n in fin.extents[a["name"]])):
            logical = tuple(i - s for i, s in zip(index, fin.shifts[a["name"]]))
            value = machine.values[a["name"]].get(logical)
            values.append(str(init_value(a["init"], a["type"], logical)
                              if value is None else value))
        out[a["name"]] = (a["type"], values)
    for s in fin.program.scalars:
        if s["kind"] == "global" and is_integer(s["type"]):
            out[s["name"]] = (s["type"], [str(machine.env[s["name"]][1])])
    return out
