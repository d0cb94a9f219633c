"""The representation of a generated program: JSON-friendly values.

In:  nothing (definitions only).
Out: ``Program`` (parameters, arrays, scalars, the SCoP's loop tree, polycu
options) and ``Finalised`` (a program made safe: subscript shifts, array extents,
the emitted text), the element types, and ``Invalid``, raised where a program
would have undefined behaviour.

Expressions are lists (``["bin", "+", a, b]``), statements and loops dicts; see
``emit.emit_expr`` for the forms.  Everything is plain JSON so that the minimiser
can delete and simplify parts of a program and emit it again, and so that an
emitted file carries its own program (``emit.program_of_text``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

#: the integer types of the first generator, in the order its random draws use them
INT_TYPES = ("int", "unsigned", "long")
#: the integer types drawn from seed 5,610,000 on (``integers.py``; LP64: ``long``
#: and ``unsigned long`` are 64 bits)
NEW_INT_TYPES = ("signed char", "unsigned char", "short", "unsigned short", "long long",
                 "unsigned long", "unsigned long long")
INTEGER_TYPES = INT_TYPES + NEW_INT_TYPES
FLOAT_TYPES = ("float", "double")


def is_integer(t: str) -> bool:
    """Whether ``t`` is one of the generated integer types (else a floating one)."""
    return t in INTEGER_TYPES


class Invalid(Exception):
    """The program would have undefined behaviour (or run too long)."""


Expr = list            # ["num", type, value] | ["var", name] | ["ref", name, [idx...]] | ...
Node = dict


@dataclass
class Program:
    """A generated program before finalisation.  ``body`` is the SCoP's node list."""

    seed: int
    params: list[dict]                  # {"name", "type", "value"}
    arrays: list[dict]                  # {"name", "type", "ndim", "kind", "init": [...]}
    scalars: list[dict]                 # {"name", "type", "kind": arg|global|local, "init"}
    body: list[Node]
    options: list[str] = field(default_factory=list)
    decl_iters: bool = True             # iterators declared at the start of the kernel

    def to_json(self) -> str:
        return json.dumps({"seed": self.seed, "params": self.params, "arrays": self.arrays,
                           "scalars": self.scalars, "body": self.body,
                           "options": self.options, "decl_iters": self.decl_iters},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Program":
        d = json.loads(text)
        return cls(d["seed"], d["params"], d["arrays"], d["scalars"], d["body"],
                   d.get("options", []), d.get("decl_iters", True))

    def copy(self) -> "Program":
        return Program.from_json(self.to_json())


@dataclass
class Finalised:
    """A program made safe: subscript shifts and extents per array, and the text."""

    program: Program
    shifts: dict[str, list[int]]
    extents: dict[str, list[int]]
    vla_extents: dict[str, list[Expr]]
    steps: int
    text: str = ""
