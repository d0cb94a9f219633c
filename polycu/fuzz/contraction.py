"""Random contractions: the loop nests polycu runs on the FP64 tensor cores.

In:  the random state of one attempt (``structure.Structure``).
Out: ``Contractions.contraction_nest()``: the SCoP's loop tree

    for i: for j: { [W[i][j] op= init;]  for k: W[i][j] += [s *] X[..] * Y[..]; }

The recogniser (``memory/contraction.py``) and the kernel (``codegen/tensor.py``)
depend on the operands' layouts (X[i][k] or X[k][i], Y[k][j] or Y[j][k]), the
bounds of i, j and k (offsets, parameters, a triangle), the extents' parity (the
16-byte copies' alignment), whether there is an init and a scale; each is drawn
here.  One nest in four is a near miss that must not be recognised (a float
operand, a shifted subscript, the scale last) and still be translated correctly;
``k`` from ``i`` was one until session 37, when triangular sums joined the tensor
cores.  ``generate`` makes one seed in eight from ``FIRST_SEED`` on such a nest,
decided by a random state of its own: the other seeds' programs, and every seed's
before it (the campaigns and CI seeds of docs/fuzz.md), are unchanged.  From
``AFTER_FROM`` on, a random state of its own adds to some nests a statement after
the sums (``W[i][j] = s * W[i][j]``, trmm's form), which is no init.
"""
from __future__ import annotations

import random

from .program import Expr, Node
from .structure import Structure

#: The share of seeds whose program is a contraction nest, from the first seed of
#: the first campaign that had them (session 17) on.
SHARE = 1 / 8
FIRST_SEED = 5_400_000
#: The first seed whose nests may have a statement after the sums (session 37: such
#: a statement was taken for the init, and the scale lost).
AFTER_FROM = 5_620_000
AFTER_SHARE = 0.3


def is_contraction_seed(seed: int) -> bool:
    """Whether ``seed``'s program is a contraction nest (its own random state)."""
    return seed >= FIRST_SEED and \
        random.Random(f"polycu-fuzz-contraction:{seed}").random() < SHARE


class Contractions(Structure):
    """Draws contraction nests (see the module doc)."""

    def _for(self, var: str, lb: Expr, cond_op: str, bound: Expr) -> Node:
        return {"k": "for", "var": var, "type": self.pick({"int": 8, "long": 1, "unsigned": 1}),
                "lb": lb, "cond": ["cmp", cond_op, ["var", var], bound], "step": 1,
                "inc": self.rng.randint(0, 2), "body": []}

    def _bounds(self, var: str, outer: str | None = None) -> Node:
        """``var`` from 0, 1 or 2 to a parameter (plus or minus a little), or to
        ``outer`` (a triangle)."""
        lb = ["num", "int", self.pick({0: 6, 1: 2, 2: 1})]
        if outer is not None:
            return self._for(var, lb, "<=", ["var", outer])
        return self._for(var, lb, self.rng.choice(["<", "<="]),
                         self.add_const(self.param_expr(), self.small(-1, 1)))

    def contraction_nest(self) -> list[Node]:
        miss = self.pick({None: 12, "float": 1, "shift": 1, "k-on-i": 1, "scale-last": 1})
        w, x, y = (self.new_array("float" if miss == "float" and n == 1 else "double", 2)
                   for n in range(3))
        i = self._bounds("i")
        j = self._bounds("j", "i" if self.chance(0.2) else None)
        k = self._bounds("k")
        if miss == "k-on-i":
            k["lb"] = ["var", "i"]
        v = {name: ["var", name] for name in "ijk"}
        xs = [v["i"], v["k"]] if self.chance(0.7) else [v["k"], v["i"]]
        ys = [v["k"], v["j"]] if self.chance(0.7) else [v["j"], v["k"]]
        if miss == "shift":
            xs[1] = self.add_const(xs[1], 1)
        cell = ["ref", w["name"], [v["i"], v["j"]]]
        product: Expr = ["bin", "*", ["ref", x["name"], xs], ["ref", y["name"], ys]]
        if self.chance(0.7):
            scale = ["var", self.new_scalar("arg", "double")["name"]]
            product = ["bin", "*", product, scale] if miss == "scale-last" else \
                ["bin", "*", ["bin", "*", scale, ["ref", x["name"], xs]],
                 ["ref", y["name"], ys]]
        update = {"k": "stmt", "lhs": cell, "op": "+=", "rhs": product}
        if self.chance(0.3):
            update = {"k": "stmt", "lhs": cell, "op": "=",
                      "rhs": ["bin", "+", cell, product]}
        k["body"] = [update]
        j["body"] = [k]
        if self.chance(0.6):
            init = self.pick({"scale": 3, "zero": 1, "add": 1})
            rhs = {"scale": ["var", self.new_scalar("arg", "double")["name"]],
                   "zero": ["num", "double", 0.0], "add": ["num", "double", 1.25]}[init]
            op = {"scale": "*=", "zero": "=", "add": "+="}[init]
            j["body"] = [{"k": "stmt", "lhs": cell, "op": op, "rhs": rhs}, k]
        after = random.Random(f"polycu-fuzz-contraction-after:{self.seed}")
        if self.seed >= AFTER_FROM and after.random() < AFTER_SHARE:
            scale = ["var", self.new_scalar("arg", "double")["name"]]
            rhs = ["bin", "*", scale, cell] if after.random() < 0.5 else \
                ["bin", "+", cell, ["num", "double", 0.75]]
            j["body"] = j["body"] + [{"k": "stmt", "lhs": cell, "op": "=", "rhs": rhs}]
        i["body"] = [j]
        return [i]
