"""The random skeleton of a program: declarations, subscripts, guards and loops.

In:  a seed and an attempt number (one ``random.Random`` stream per attempt).
Out: ``Structure``, the base of ``generate.Generator``: its random choices
(``pick``, ``chance``), parameters, arrays and scalars, affine subscripts
(``index_expr``, ``subscripts``), guards (``condition``) and loops (``loop``: up or
down, strided, bounded by parameters and outer iterators, some counting from a big
offset).  The order of the random draws is the program: changing it changes the
program of every seed.
"""
from __future__ import annotations

import random
from typing import Any

from .program import FLOAT_TYPES, Expr, Node

#: From this seed on (session 17), one seed in ``1 / DATA_SHARE`` draws data
#: subscripts (``A[i][idx[j]]``, ``H[idx[i] % 5]``) among its subscript forms; the
#: seeds before keep their programs (a form of weight 0 draws nothing).
DATA_FROM = 5_400_000
DATA_SHARE = 1 / 6
#: big constants for loop counters beyond 2^31 (no memory needed: the loop
#: subtracts them again before indexing)
BIG_OFFSETS = {"long": (3000000000, 2147483648, 5000000000), "unsigned": (3000000000, 2147483650)}


class Structure:
    """The random state of one attempt and the skeleton it draws; ``generate.Generator``
    adds the values and statements."""

    def __init__(self, seed: int, attempt: int):
        self.seed = seed
        self.rng = random.Random(f"polycu-fuzz:{seed}:{attempt}")
        self.params: list[dict] = []
        self.arrays: list[dict] = []
        self.scalars: list[dict] = []
        self.names = iter("ABCDEFGHJKLMNOPQRSUVWXYZ")
        self.iter_names = ["i", "j", "k", "l", "m2", "n2"]
        self.lets = 0
        # from DATA_FROM on, one seed in six also reads subscripts from integer arrays
        self.data_subscripts = seed >= DATA_FROM and \
            random.Random(f"polycu-fuzz-data:{seed}").random() < DATA_SHARE

    # choices
    def pick(self, weighted: dict[Any, float]) -> Any:
        keys = list(weighted)
        return self.rng.choices(keys, [weighted[k] for k in keys])[0]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # declarations
    def make_params(self) -> None:
        count = self.pick({1: 3, 2: 4, 3: 2})
        for name in ("n", "m", "p")[:count]:
            t = self.pick({"int": 85, "long": 10, "unsigned": 5})
            value = self.pick({0: 4, 1: 6, 2: 8, "small": 66, "big": 10, "neg": 2})
            if value == "small":
                value = self.rng.randint(3, 12)
            elif value == "big":
                value = self.rng.randint(13, 40)
            elif value == "neg":
                value = -self.rng.randint(1, 3) if t != "unsigned" else 0
            self.params.append({"name": name, "type": t, "value": value})

    def new_array(self, type_: str | None = None, ndim: int | None = None) -> dict:
        name = next(self.names)
        if type_ is None:
            type_ = self.element_type()
        if ndim is None:
            ndim = self.pick({1: 4, 2: 4, 3: 2})
        kind = self.pick({"fixed": 40, "vla": 30, "global": 20, "pointer": 10 if ndim == 1 else 0})
        if type_ in FLOAT_TYPES:
            scale = self.rng.choice([1.0, 0.25, 0.001, 1000.0, 0.3333333333333333, 2.5e-8,
                                     1.5e7, -0.75])
            if type_ == "float":
                scale = float(f"{scale:.6g}")
        elif type_ == "int":
            scale = self.pick({1: 8, 3: 1, 1000: 1})
        elif type_ == "unsigned":
            scale = self.pick({1: 6, 1000: 2, 100000000: 2})
        else:
            scale = self.pick({1: 6, 1000: 2, 100000000: 2})
        init = {"k": self.rng.randint(-20, 20),
                "a": [self.rng.choice([1, 3, 7, 13, -5]) for _ in range(ndim)],
                "m": self.rng.choice([7, 23, 41, 61]), "scale": scale}
        array = {"name": name, "type": type_, "ndim": ndim, "kind": kind, "init": init,
                 "pad": [self.pick({0: 6, 1: 2, 3: 1}) for _ in range(ndim)]}
        self.arrays.append(array)
        return array

    def element_type(self) -> str:
        return self.pick({"double": 40, "float": 20, "int": 20, "unsigned": 10, "long": 10})

    def new_scalar(self, kind: str, type_: str | None = None) -> dict:
        type_ = type_ or self.element_type()
        prefix = {"arg": "alpha", "global": "acc", "local": "s"}[kind]
        name = f"{prefix}{sum(s['kind'] == kind for s in self.scalars)}"
        if type_ in FLOAT_TYPES:
            init = self.rng.choice([0.0, 1.5, -2.25, 0.1, 3.0, 1e-3])
        else:
            init = self.rng.randint(-5, 9) if type_ != "unsigned" else self.rng.randint(0, 9)
        scalar = {"name": name, "type": type_, "kind": kind, "init": init}
        self.scalars.append(scalar)
        return scalar

    # affine parts
    def param_expr(self) -> Expr:
        if self.params and self.chance(0.85):
            p = self.rng.choice(self.params)
            return ["var", p["name"]]
        return ["num", "int", self.rng.randint(1, 6)]

    def small(self, lo: int = -2, hi: int = 2) -> int:
        return self.rng.randint(lo, hi)

    def add_const(self, e: Expr, c: int) -> Expr:
        return e if c == 0 else ["bin", "+" if c > 0 else "-", e, ["num", "int", abs(c)]]

    def index_expr(self, scope: list[dict], prefer: dict | None = None) -> Expr:
        """A subscript: mostly an iterator plus a constant, sometimes skewed,
        reversed, scaled, divided, a remainder, a min/max or a constant."""
        spatial = [s for s in scope if not s["time"]] or scope
        if not spatial:
            return ["num", "int", self.rng.randint(0, 3)]
        it = prefer or self.rng.choice(spatial)
        v = ["var", it["name"]]
        unsigned = it["type"] == "unsigned"
        form = self.pick({"plus": 50, "skew": 8, "scaled": 5, "reverse": 0 if unsigned else 7,
                          "const": 4, "div": 5, "mod": 5, "minmax": 3, "param": 2, "cast": 2,
                          "time": 3 if len(scope) > len(spatial) else 0,
                          "data": 25 if self.data_subscripts else 0})
        if form == "plus":
            return self.add_const(v, self.small(0 if unsigned else -2, 2))
        if form == "skew":
            other = self.rng.choice(spatial)
            return self.add_const(["bin", self.rng.choice("+-") if not unsigned else "+", v,
                                   ["var", other["name"]]], self.small(0, 2))
        if form == "scaled":
            scaled = ["bin", "*", ["num", "int", self.rng.choice([2, 3])], v]
            return self.add_const(scaled, self.small(0, 1))
        if form == "reverse":
            return self.add_const(["bin", "-", self.param_expr(), v], self.small(-1, 1))
        if form == "const":
            return ["num", "int", self.rng.randint(0, 3)]
        if form == "div":
            numerator = self.add_const(v, self.small(0, 2))
            return ["bin", "/", numerator, ["num", "int", self.rng.choice([2, 3, 4])]]
        if form == "mod":
            rem = ["bin", "%", v, ["num", "int", self.rng.choice([2, 3, 5])]]
            return self.add_const(rem, self.small(0, 2))
        if form == "minmax":
            if self.chance(0.5):
                return ["min", v, self.add_const(self.param_expr(), -1)]
            return ["max", self.add_const(v, -1), ["num", "int", 0]]
        if form == "param":
            return self.add_const(self.param_expr(), self.small(-1, 0))
        if form == "cast":
            return ["cast", self.rng.choice(["int", "long"]), self.add_const(v, self.small(0, 1))]
        if form == "data":
            # an element of a one-dimensional integer array: a gather or a scatter
            pool = [a for a in self.arrays if a.get("index")]
            index = self.rng.choice(pool) if pool and self.chance(0.6) else self.index_array()
            data = ["ref", index["name"], [self.add_const(v, self.small(0, 1))]]
            if self.chance(0.3):
                return ["bin", "%", data, ["num", "int", self.rng.choice([3, 5, 8])]]
            return self.add_const(data, self.small(0, 2))
        time = [s for s in scope if s["time"]][0]
        return ["bin", "%", ["var", time["name"]], ["num", "int", 2]]

    def index_array(self) -> dict:
        """A new one-dimensional integer array of small values, read as a subscript
        (its values, like every subscript's, are shifted and bounded by finalise)."""
        array = self.new_array(self.pick({"int": 6, "long": 1, "unsigned": 1}), 1)
        array["init"]["scale"] = 1
        array["index"] = True
        return array

    def subscripts(self, array: dict, scope: list[dict], lhs: bool = False) -> list[Expr]:
        spatial = [s for s in scope if not s["time"]]
        if lhs and spatial:
            # mostly distinct, inner iterators on the left-hand side: injective writes
            chosen = list(reversed(spatial))[:array["ndim"]]
            self.rng.shuffle(chosen)
            out = []
            for d in range(array["ndim"]):
                if d < len(chosen) and self.chance(0.85):
                    it = chosen[d]
                    c = self.small(0, 1) if it["type"] == "unsigned" else self.small(-1, 1)
                    out.append(self.add_const(["var", it["name"]], c))
                else:
                    out.append(self.index_expr(scope))
            return out
        return [self.index_expr(scope) for _ in range(array["ndim"])]

    def condition(self, scope: list[dict], depth: int = 0) -> Expr:
        """An affine guard on iterators and parameters."""
        spatial = [s for s in scope if not s["time"]] or scope
        def operand() -> Expr:
            if spatial and self.chance(0.8):
                it = self.rng.choice(spatial)
                v = ["var", it["name"]]
                f = self.pick({"it": 5, "plus": 2, "mod": 2, "div": 1})
                if f == "plus" and len(spatial) > 1:
                    other = self.rng.choice(spatial)
                    return ["bin", "+", v, ["var", other["name"]]]
                if f == "mod":
                    return ["bin", "%", v, ["num", "int", self.rng.choice([2, 3])]]
                if f == "div":
                    return ["bin", "/", v, ["num", "int", 2]]
                return v
            return self.param_expr()
        form = self.pick({"cmp": 6, "and": 2, "or": 1, "not": 1}) if depth == 0 else "cmp"
        if form == "and" or form == "or":
            return [form, self.condition(scope, 1), self.condition(scope, 1)]
        if form == "not":
            return ["not", self.condition(scope, 1)]
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        left = operand()
        if left[0] == "bin" and left[1] == "%":
            op = self.rng.choice(["==", "!="])
            return ["cmp", op, left, ["num", "int", self.rng.randint(0, 1)]]
        right = operand() if self.chance(0.6) else ["num", "int", self.rng.randint(0, 4)]
        return ["cmp", op, left, self.add_const(right, self.small(-1, 1))]

    # loops
    def loop(self, scope: list[dict], time: bool = False) -> Node:
        used = {s["name"] for s in scope}
        var = "t" if time else next(n for n in self.iter_names if n not in used)
        if time:
            t, direction, step = "int", 1, 1
        else:
            t = self.pick({"int": 80, "long": 12, "unsigned": 8})
            direction = -1 if t != "unsigned" and self.chance(0.25) else 1
            step = direction * self.pick({1: 70, 2: 20, 3: 10})
        outer = [s for s in scope if not s["time"]]
        o = ["var", self.rng.choice(outer)["name"]] if outer and self.chance(0.6) else None
        v = ["var", var]
        P = self.param_expr()
        if time:
            lb, cond = ["num", "int", 0], ["cmp", "<", v, P]
        elif direction > 0:
            lbs = {"zero": 10, "one": 3, "const": 2, "param": 1}
            if o:
                lbs.update({"o": 5, "o+1": 3, "max": 2, "2o": 1})
            form = self.pick(lbs)
            lb = {"zero": ["num", "int", 0], "one": ["num", "int", 1],
                  "const": ["num", "int", self.rng.randint(2, 3)],
                  "param": self.add_const(P, -self.rng.randint(2, 4))}.get(form)
            if lb is None:
                lb = {"o": o, "o+1": ["bin", "+", o, ["num", "int", 1]],
                      "max": ["max", ["num", "int", 0],
                              ["bin", "-", o, ["num", "int", self.rng.randint(1, 2)]]],
                      "2o": ["bin", "*", ["num", "int", 2], o]}[form]
            ubs = {"p": 10, "p+c": 4, "const": 2, "and": 2, "p-i": 0}
            if o:
                ubs.update({"o": 4, "o+c": 3, "min": 3, "sum": 2})
            form = self.pick(ubs)
            op = self.rng.choice(["<", "<="])
            bound = {"p": P, "p+c": self.add_const(P, self.small(-1, 2)),
                     "const": ["num", "int", self.rng.randint(1, 6)], "and": P}.get(form)
            if bound is None:
                bound = {"o": o, "o+c": self.add_const(o, self.rng.randint(1, 3)),
                         "min": ["min", P, self.add_const(o, self.rng.randint(1, 3))],
                         "sum": ["bin", "-", P, o]}[form]
            cond = ["cmp", op, v, bound]
            if form == "and":
                other = self.add_const(self.param_expr(), self.small(0, 2))
                cond = ["and", cond, ["cmp", "<", v, other]]
            elif self.chance(0.1):
                cond = ["cmp", {"<": ">", "<=": ">="}[op], bound, v]
        else:
            starts = {"p-1": 8, "p": 2, "const": 2}
            if o:
                starts.update({"o": 4, "min": 3, "o+1": 2})
            form = self.pick(starts)
            lb = {"p-1": self.add_const(P, -1), "p": P,
                  "const": ["num", "int", self.rng.randint(2, 6)]}.get(form)
            if lb is None:
                lb = {"o": o, "o+1": ["bin", "+", o, ["num", "int", 1]],
                      "min": ["min", self.add_const(P, -1),
                              self.add_const(o, self.rng.randint(1, 3))]}[form]
            ends = {"zero": 8, "one": 3}
            if o:
                ends.update({"o": 3, "max": 2})
            form = self.pick(ends)
            if form == "zero":
                cond = self.pick({0: 1, 1: 1})
                cond = (["cmp", ">=", v, ["num", "int", 0]] if cond
                        else ["cmp", ">", v, ["num", "int", -1]])
            elif form == "one":
                cond = ["cmp", ">=", v, ["num", "int", 1]]
            elif form == "o":
                cond = ["cmp", self.rng.choice([">", ">="]), v, o]
            else:
                low = ["max", ["num", "int", 0], ["bin", "-", o, ["num", "int", 2]]]
                cond = ["cmp", ">=", v, low]
        node = {"k": "for", "var": var, "type": t, "lb": lb, "cond": cond, "step": step,
                "inc": self.rng.randint(0, 2), "body": []}
        if not time and t in BIG_OFFSETS and self.chance(0.3):
            node["offset"] = self.rng.choice(BIG_OFFSETS[t])
        return node
