"""Random affine C programs for differential testing (issue 10): the entry.

In:  a seed.
Out: ``generate(seed)``: the first attempt (``Generator``) whose program
finalisation accepts (``finalise.finalise``: free of undefined behaviour, small
enough), as a ``Finalised`` with its C text.  The same seed always gives the same
text.

``names.respelled`` then gives one program in four names that isl, C++ or CUDA
reserve; from seed 5,400,000 on, one seed in eight is a contraction nest
(``contraction``) instead; from seed 5,610,000 on, every integer type and the
bitwise operators join the programs (``integers``), from seed 5,622,000 on
conditions on data (``guards``).  ``Generator`` adds to the skeleton of
``structure.Structure`` the values (literals, array references, integer and
floating expressions, math calls), the statements (assignments and compound
assignments to arrays and scalars, guarded ones, ``let`` temporaries), the blocks
and loop nests, and the polycu options.
"""
from __future__ import annotations

import copy

from .contraction import Contractions, is_contraction_seed
from .finalise import finalise
from .guards import DataGuards
from .integers import Integers
from .names import respelled
from .program import (FLOAT_TYPES, INT_TYPES, NEW_INT_TYPES, Expr, Finalised, Invalid, Node,
                      Program, is_integer)

FLOAT_CALLS1 = ("sqrt", "fabs", "sin", "cos", "exp", "floor", "ceil", "tanh", "cbrt", "log1p")
FLOAT_CALLS2 = ("pow", "fmin", "fmax", "fmod", "atan2", "hypot")


class Generator(Contractions, Integers, DataGuards):
    """One random attempt; ``generate`` retries with other attempts when the
    interpretation finds undefined behaviour."""

    # values
    def literal(self, t: str) -> Expr:
        if t in FLOAT_TYPES:
            v = self.rng.choice([0.5, 2.0, 1.25, -3.0, 0.1, 1e-3, 7.0, 1e5])
            return ["num", t, float(f"{v:.6g}")]
        if t in NEW_INT_TYPES:
            return self.int_literal(t)
        if t == "unsigned":
            return ["num", t, self.rng.choice([1, 2, 3, 7, 4000000000])]
        if t == "long":
            return ["num", t, self.rng.choice([1, 2, 5, -3, 3000000000])]
        return ["num", t, self.rng.choice([1, 2, 3, 5, -1, -4])]

    def array_ref(self, t: str, scope: list[dict], ctx: dict) -> Expr:
        want_int = is_integer(t)
        ok = [a for a in self.arrays if is_integer(a["type"]) == want_int or not want_int]
        if ctx.get("lhs") is not None and ctx["lhs"][0] == "ref" and self.chance(0.3):
            # a neighbour of the element written: in-place updates, stencils
            lhs = ctx["lhs"]
            array = next(a for a in self.arrays if a["name"] == lhs[1])
            if is_integer(array["type"]) == want_int or not want_int:
                return ["ref", lhs[1], [self.add_const(copy.deepcopy(i), self.small(-1, 1))
                                        for i in lhs[2]]]
        if ok and (len(self.arrays) >= 6 or self.chance(0.6)):
            array = self.rng.choice(ok)
        else:
            array = self.new_array(self.int_type() if want_int else None)
        return ["ref", array["name"], self.subscripts(array, scope)]

    def value(self, t: str, scope: list[dict], ctx: dict, budget: int) -> Expr:
        """An expression of type (compatible with) ``t``: integers only from integers."""
        if budget <= 0 or self.chance(0.3):
            return self.leaf(t, scope, ctx)
        is_int = is_integer(t)
        if self.bitwise_here(is_int):
            return self.bit_form(t, scope, lambda: self.value(t, scope, ctx, budget - 1))
        forms = {"bin": 10, "mul": 4, "neg": 1, "divc": 2, "cond": 1, "cast": 1}
        if is_int:
            forms.update({"modc": 3, "abs": 1, "minmax": 1})
        else:
            forms.update({"call1": 3, "call2": 1, "callint": 1, "fdiv": 1})
        form = self.pick(forms)
        sub = lambda: self.value(t, scope, ctx, budget - 1)  # noqa: E731
        if form == "bin":
            return ["bin", self.rng.choice("+-"), sub(), sub()]
        if form == "mul":
            if is_int:
                return ["bin", "*", sub(), ["num", "int", self.rng.choice([2, 3, -2])]]
            return ["bin", "*", sub(), sub()]
        if form == "neg":
            return ["neg", sub()]
        if form == "divc":
            c = self.rng.choice([2, 3, -3, 7])
            numerator = sub()
            divisor = ["num", "int", c] if is_int or self.chance(0.3) else ["num", t, float(c)]
            return ["bin", "/", numerator, divisor]
        if form == "modc":
            return ["bin", "%", sub(), ["num", "int", self.rng.choice([3, 5, 1000, -7])]]
        if form == "abs":
            at = t if t in ("long", "long long") else "int"
            arg = self.value(at, scope, ctx, budget - 1)
            if self.chance(0.9):
                arg = ["cast", at, arg]
            return ["call", {"int": "abs", "long": "labs", "long long": "llabs"}[at], [arg]]
        if form == "minmax":
            return [self.rng.choice(["min", "max"]), sub(), sub()]
        if form == "cond":
            return ["cond", self.condition(scope, 1), sub(), sub()]
        if form == "cast":
            if is_int:
                other = self.int_type()
                return ["cast", t, self.value(other, scope, ctx, budget - 1)]
            other = self.widened(self.rng.choice(FLOAT_TYPES + INT_TYPES))
            return ["cast", t, self.value(other, scope, ctx, budget - 1)]
        f = "f" if t == "float" and self.chance(0.7) else ""
        if form == "call1":
            fn = self.rng.choice(FLOAT_CALLS1)
            arg = sub()
            if fn in ("sqrt", "log1p") and self.chance(0.7):
                arg = ["call", "fabs" + f if fn == "sqrt" else "fabs" + f, [arg]]
            return ["call", fn + f, [arg]]
        if form == "call2":
            fn = self.rng.choice(FLOAT_CALLS2)
            if fn == "pow":
                return ["call", "pow" + f, [sub(), ["num", t, self.rng.choice([2.0, 0.5, 3.0])]]]
            return ["call", fn + f, [sub(), sub()]]
        if form == "callint":
            # math calls with integer arguments
            fn = self.rng.choice(["sqrt", "fabs", "exp", "sin", "pow", "cos"])
            arg = self.value(self.int_type(), scope, ctx, 0)
            if fn == "exp":
                arg = ["neg", ["call", "abs", [["cast", "int", arg]]]] if arg[0] != "num" else arg
            args = [arg] + ([["num", "int", 2]] if fn == "pow" else [])
            return ["call", fn + f, args]
        # fdiv: divided by a value that cannot be zero
        return ["bin", "/", sub(), ["bin", "+", ["num", t, 1.0], ["call", "fabs" + f, [sub()]]]]

    def leaf(self, t: str, scope: list[dict], ctx: dict) -> Expr:
        is_int = is_integer(t)
        forms = {"ref": 10, "lit": 3, "iter": 2, "param": 1, "scalar": 1}
        temps = [x for x in ctx.get("temps", ())
                 if is_integer(x["type"]) == is_int or not is_int]
        if temps:
            forms["temp"] = 5
        form = self.pick(forms)
        if form == "ref":
            return self.array_ref(t, scope, ctx)
        if form == "lit":
            return self.literal(t if self.chance(0.8) else ("int" if is_int else "double"))
        if form == "iter" and scope:
            it = self.rng.choice(scope)
            v = ["var", it["name"]]
            return ["cast", t, v] if self.chance(0.4) else v
        if form == "param" and self.params:
            return ["var", self.rng.choice(self.params)["name"]]
        if form == "temp":
            return ["var", self.rng.choice(temps)["name"]]
        if form == "scalar":
            pool = [s for s in self.scalars if s["kind"] in ("arg", "local", "global")
                    and (is_integer(s["type"]) == is_int or not is_int)]
            if pool and self.chance(0.6):
                return ["var", self.rng.choice(pool)["name"]]
            if self.chance(0.5):
                s = self.new_scalar("arg", self.int_type() if is_int else
                                    self.rng.choice(FLOAT_TYPES))
                return ["var", s["name"]]
        return self.literal(t)

    # statements
    def statement(self, scope: list[dict], ctx: dict) -> Node:
        where = self.pick({"array": 85, "local": 8, "global": 5})
        if where == "array":
            ok = [a for a in self.arrays]
            array = self.rng.choice(ok) if ok and self.chance(0.4) else self.new_array()
            lhs = ["ref", array["name"], self.subscripts(array, scope, lhs=True)]
            t = array["type"]
        else:
            pool = [s for s in self.scalars if s["kind"] == where]
            s = self.rng.choice(pool) if pool and self.chance(0.5) else self.new_scalar(where)
            lhs, t = ["var", s["name"]], s["type"]
        is_int = is_integer(t)
        ops = {"=": 55, "+=": 20, "-=": 5, "*=": 4, "/=": 4, "++": 3, "--": 2}
        if is_int:
            ops["%="] = 3
        op = self.pick(ops)
        sub_ctx = dict(ctx, lhs=lhs)
        bitwise = self.bit_assignment(t) if is_int else None
        if bitwise:
            op = bitwise
            rhs = self.bit_rhs(op, t, scope, lambda: self.value(t, scope, sub_ctx, 1))
        elif op in ("++", "--"):
            rhs = None
        elif op in ("/=", "%="):
            rhs = ["num", "int", self.rng.choice([2, 3, 7, -3])] if is_int else \
                self.rng.choice([["num", t, 2.0],
                                 ["bin", "+", ["num", t, 1.5],
                                  ["call", "fabs", [self.value(t, scope, sub_ctx, 1)]]]])
        elif op == "*=" and is_int:
            rhs = ["num", "int", self.rng.choice([2, -1, 3])]
        else:
            rhs = self.value(t, scope, sub_ctx, self.pick({0: 2, 1: 3, 2: 3, 3: 2}))
            if is_int and self.chance(0.5):
                modulus = ["num", self.literal_type(t),
                           self.rng.choice([1000, 97, 10007])]
                rhs = ["bin", "%", rhs, modulus]
        return {"k": "stmt", "lhs": lhs, "op": op, "rhs": rhs}

    def block(self, scope: list[dict], depth: int, stmts: int, must_loop: bool) -> list[Node]:
        nodes: list[Node] = []
        ctx: dict = {"temps": []}
        remaining = stmts
        while remaining > 0:
            if depth > 0 and (must_loop or self.chance(0.4 if scope else 0.9)):
                share = remaining if self.chance(0.6) else self.rng.randint(1, remaining)
                data = self.data_loop(scope, ctx)
                loop = data or self.loop(scope)
                inner = scope + [{"name": loop["var"], "type": loop["type"], "time": False}]
                loop["body"] = self.block(inner, 0, share, False) if data else \
                    self.block(inner, depth - 1, share, depth > 1 and self.chance(0.75))
                node = loop
                if self.chance(0.08) and scope:
                    node = {"k": "if", "cond": self.condition(scope), "then": [loop], "else": None}
                nodes.append(node)
                remaining -= share
                must_loop = False
                continue
            if remaining >= 2 and self.chance(0.12):
                t = self.element_type()
                self.lets += 1
                name = f"t{self.lets}"
                let = {"k": "let", "type": t, "name": name,
                       "init": self.value(t, scope, ctx, 2)}
                nodes.append(let)
                ctx["temps"] = ctx["temps"] + [{"name": name, "type": t}]
                remaining -= 1
                continue
            stmt = self.statement(scope, ctx)
            guarded = self.data_guard(stmt, scope, ctx)
            if guarded:
                nodes.append(guarded)
                remaining -= 1
                continue
            if scope and self.chance(0.2):
                els = [self.statement(scope, ctx)] if remaining >= 2 and self.chance(0.4) else None
                if els:
                    remaining -= 1
                stmt = {"k": "if", "cond": self.condition(scope), "then": [stmt], "else": els}
            nodes.append(stmt)
            if stmt["k"] == "stmt" and stmt["lhs"][0] == "var":
                # a scalar written here is read by later statements of the block
                # (privatisation, scalar expansion)
                written = next(x for x in self.scalars if x["name"] == stmt["lhs"][1])
                ctx["temps"] = ctx["temps"] + [{"name": written["name"], "type": written["type"]}]
            remaining -= 1
        return nodes

    def program(self) -> Program:
        self.make_params()
        if is_contraction_seed(self.seed):
            return Program(self.seed, self.params, self.arrays, self.scalars,
                           self.contraction_nest(), [], self.chance(0.6))
        depth = self.pick({1: 3, 2: 4, 3: 3, 4: 1})
        stmts = self.pick({1: 3, 2: 4, 3: 3, 4: 2})
        if depth >= 2 and self.chance(0.25):
            tsteps = {"name": "tsteps", "type": "int", "value": self.rng.randint(0, 4)}
            self.params.append(tsteps)
            loop = self.loop([], time=True)
            loop["cond"] = ["cmp", "<", ["var", "t"], ["var", "tsteps"]]
            loop["body"] = self.block([{"name": "t", "type": "int", "time": True}], depth - 1,
                                      stmts, True)
            body = [loop]
        else:
            body = self.block([], depth, stmts, True)
        options = []
        choice = self.pick({"none": 40, "tile": 40, "fusion": 8, "nosplit": 4, "noexpand": 4,
                            "noresched": 4, "trees": 8})
        if choice == "tile":
            options = ["--tile-size", str(self.rng.choice([2, 3, 4, 5, 8]))]
        elif choice == "fusion":
            options = ["--fusion", self.rng.choice(["min", "max", "smart"])]
        elif choice == "nosplit":
            options = ["--no-index-set-split"]
        elif choice == "noexpand":
            options = ["--no-expand-scalars"]
        elif choice == "noresched":
            options = ["--no-reschedule"]
        elif choice == "trees":
            options = ["--parallel-reductions"]
        return Program(self.seed, self.params, self.arrays, self.scalars, body, options,
                       self.chance(0.6))


def generate(seed: int, attempts: int = 200) -> Finalised:
    """The program of ``seed``: the first attempt whose interpretation is free of
    undefined behaviour and small enough."""
    last: Exception | None = None
    for attempt in range(attempts):
        program = respelled(Generator(seed, attempt).program(), attempt)
        try:
            return finalise(program)
        except Invalid as exc:
            last = exc
    raise RuntimeError(f"seed {seed}: no valid program in {attempts} attempts ({last})")
