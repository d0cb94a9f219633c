"""Data-dependent conditions and loops in the random programs (session 39).

In:  the random state of one attempt (``structure.Structure``) and, from seed
``GUARDS_FROM`` on, a random state of its own.
Out: ``DataGuards``, a base of ``generate.Generator``.  ``data_guard`` puts a
statement under an ``if`` whose condition reads array elements or scalars
(``{"k": "if", "data": True, ...}``): ``if (A[i][j] > 0.5) B[i] = ...; else ...``,
the running extreme ``if (A[i] > m) m = A[i];``, integer conditions (``if (X[i] <
Y[j] + 3u) X[i] = ...``, C's conversions deciding), and either joined with an
affine guard (``i > 0 && A[i - 1] < s``).  From ``LOOPS_FROM`` on, ``data_loop``
makes an innermost loop one whose condition reads integer data: a bound (``for (q1
= 0; q1 < X[i] % 5; q1++)``) or a search (``for (q1 = 0; q1 < n && X[i][q1] != 3;
q1++)``).  polycu models each as one statement per instance of the affine loops
around it, whose writes are may-writes (docs/supported-c.md, "Data-dependent
conditions" and "Data-dependent loops"); until session 39 no generated program had
one.

The interpreter (``interpret.Machine``) decides an integer condition exactly and
runs what C runs (a loop on data included); it cannot decide a floating one (it
computes no floating values), so it runs both branches, which is exact for the
integers only if neither branch writes one: a statement under a floating condition
writes a floating array or scalar.  Each branch holds one statement, so no branch
reads what the same instance wrote before (which polycu rejects).  The draws that
decide come from ``self.grng``; the statements and expressions come from the first
stream, so the seeds before ``GUARDS_FROM`` keep their programs.
"""
from __future__ import annotations

import random

from .program import FLOAT_TYPES, Expr, Node, is_integer
from .structure import Structure

#: The first seed whose programs draw data-dependent conditions.
GUARDS_FROM = 5_622_000
#: statements of a loop body that go under a data-dependent condition
GUARD_SHARE = 0.2
#: The first seed whose programs also draw loops on data (the campaigns of 5,622,000
#: to 5,622,999 ran without them).
LOOPS_FROM = 5_623_000
#: loops inside loops whose condition reads integer data
LOOP_SHARE = 0.15
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


class DataGuards(Structure):
    """Statements under conditions on data (see the module doc)."""

    def __init__(self, seed: int, attempt: int):
        super().__init__(seed, attempt)
        self.grng: random.Random | None = None
        self.data_loops = 0
        if seed >= GUARDS_FROM:
            self.grng = random.Random(f"polycu-fuzz-guards:{seed}:{attempt}")

    def _type_of(self, lhs: Expr) -> str:
        pool = self.arrays if lhs[0] == "ref" else self.scalars
        return next(x["type"] for x in pool if x["name"] == lhs[1])

    def data_guard(self, stmt: Node, scope: list[dict], ctx: dict) -> Node | None:
        """``stmt`` under a data-dependent condition, or None (most statements, every
        statement of an older seed, and those outside loops)."""
        if self.grng is None or not scope or self.grng.random() >= GUARD_SHARE:
            return None
        floating = not is_integer(self._type_of(stmt["lhs"]))
        if floating and stmt["lhs"][0] == "var" and self.grng.random() < 0.3:
            # the running extreme: the condition reads what its statement may write
            ref = self.array_ref("double", scope, ctx)
            op = self.grng.choice((">", "<", ">=", "<="))
            return {"k": "if", "data": True, "cond": ["cmp", op, ref, stmt["lhs"]],
                    "then": [{"k": "stmt", "lhs": stmt["lhs"], "op": "=", "rhs": ref}],
                    "else": None}
        integer = not floating or self.grng.random() < 0.3
        cond = self._condition(scope, ctx, integer)
        els = None
        if self.grng.random() < 0.4:
            other = self.statement(scope, ctx)
            if integer or not is_integer(self._type_of(other["lhs"])):
                els = [other]
        return {"k": "if", "data": True, "cond": cond, "then": [stmt], "else": els}

    def data_loop(self, scope: list[dict], ctx: dict) -> Node | None:
        """A loop (its body still to fill, with statements only) whose condition reads
        integer data, or None (most loops, every loop of an older seed)."""
        if self.seed < LOOPS_FROM or not scope or self.grng.random() >= LOOP_SHARE:
            return None
        node = self.loop(scope)
        # a counter of its own: polycu rejects a name that affine loops count with too
        self.data_loops += 1
        node["var"] = f"q{self.data_loops}"
        v, t = ["var", node["var"]], self.int_type()
        if self.grng.random() < 0.5:
            bound = ["bin", "%", self.array_ref(t, scope, ctx),
                     ["num", "int", self.grng.choice((3, 5, 7))]]
            if self.grng.random() < 0.3:
                bound = ["bin", "+", bound, ["var", self.grng.choice(scope)["name"]]]
            cond = ["cmp", self.grng.choice(("<", "<=")), v, bound]
        else:
            inner = scope + [{"name": node["var"], "type": "int", "time": False}]
            found = ["cmp", self.grng.choice(("!=", "<", ">")), self.array_ref(t, inner, ctx),
                     self.literal(t)]
            cond = ["and", ["cmp", "<", v, self.param_expr()], found]
        node.pop("offset", None)
        node.update(type="int", lb=["num", "int", self.grng.choice((0, 0, 1))], cond=cond,
                    step=1, data=True)
        return node

    def _condition(self, scope: list[dict], ctx: dict, integer: bool) -> Expr:
        """A comparison that reads an array element, of integers (``integer``) or of
        floating values, now and then negated or joined with an affine guard."""
        if integer:
            t = self.int_type()
            left = self.array_ref(t, scope, ctx)
            right = self.value(t, scope, ctx, self.grng.choice((0, 1)))
        else:
            t = self.grng.choice(FLOAT_TYPES)
            left = self.array_ref(t, scope, ctx)
            right = self.literal(t) if self.grng.random() < 0.5 else \
                self.value(t, scope, ctx, self.grng.choice((0, 1)))
        cmp = ["cmp", self.grng.choice(COMPARISONS), left, right]
        form = self.grng.choice(("cmp", "cmp", "cmp", "and", "or", "not"))
        if form == "and":
            return ["and", self.condition(scope, 1), cmp]
        if form == "or":
            return ["or", cmp, self.condition(scope, 1)]
        if form == "not":
            return ["not", cmp]
        return cmp
