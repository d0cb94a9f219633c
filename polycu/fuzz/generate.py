"""Random affine C programs for differential testing (issue 10).

In:  a seed.
Out: one complete C99 program (``generate(seed).text``): a ``kernel`` function whose
``#pragma scop`` region is a random loop nest, and a ``main`` that fills every array
deterministically, calls the kernel and prints every array and written scalar with
full precision, so that two builds of it can be compared line by line.

A program is a JSON-friendly value (``Program``: parameters, arrays, scalars, the
loop tree) so that the minimiser can delete and simplify parts of it and emit it
again.  ``finalise`` interprets the tree with the chosen parameter values under C's
rules (integer types, conversions, truncating ``/`` and ``%``) and rejects programs
with undefined behaviour: signed overflow, division by zero, too much work; it
records the range of every subscript, then shifts subscripts so that none is
negative and sizes every array to hold them (plus padding), so that emitted
programs are free of out-of-bounds accesses by construction.

Expressions are lists (``["bin", "+", a, b]``), statements and loops dicts; see
``emit_expr`` for the forms.
"""
from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from typing import Any, Iterator

INT_TYPES = ("int", "unsigned", "long")
FLOAT_TYPES = ("float", "double")
_BITS = {"int": 32, "unsigned": 32, "long": 64}
_SIGNED = {"int": True, "unsigned": False, "long": True}
#: printf format and cast of each element type
PRINT = {"double": ("%.17g", "double"), "float": ("%.9g", "double"),
         "int": ("%lld", "long long"), "long": ("%lld", "long long"),
         "unsigned": ("%llu", "unsigned long long")}

#: big constants for loop counters beyond 2^31 (no memory needed: the loop
#: subtracts them again before indexing)
BIG_OFFSETS = {"long": (3000000000, 2147483648, 5000000000), "unsigned": (3000000000, 2147483650)}

MAX_STEPS = 60000        # loop iterations plus statement instances per program
MAX_EXTENT = 160         # elements of one array dimension
MAX_ELEMENTS = 30000     # elements of one array

FLOAT_CALLS1 = ("sqrt", "fabs", "sin", "cos", "exp", "floor", "ceil", "tanh", "cbrt", "log1p")
FLOAT_CALLS2 = ("pow", "fmin", "fmax", "fmod", "atan2", "hypot")


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


# -- C arithmetic -------------------------------------------------------------------

def common_type(a: str, b: str) -> str:
    """C's usual arithmetic conversions on LP64 for the types generated here."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    if a == b:
        return a
    if "long" in (a, b):
        return "long"          # long holds every unsigned int
    return "unsigned"


def convert(value: int | None, to: str) -> int | None:
    """``value`` converted to type ``to`` (integers wrap, as gcc does)."""
    if to in FLOAT_TYPES:
        return None
    if value is None:
        raise AssertionError("floating value converted to an integer type")
    bits = _BITS[to]
    value %= 1 << bits
    if _SIGNED[to] and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _checked(value: int, type_: str, what: str) -> int:
    if _SIGNED[type_]:
        bits = _BITS[type_]
        if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
            raise Invalid(f"signed overflow in {what}: {value} does not fit {type_}")
        return value
    return value % (1 << _BITS[type_])


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def arith(op: str, ta: str, a: int | None, tb: str, b: int | None) -> tuple[str, int | None]:
    t = common_type(ta, tb)
    if t in FLOAT_TYPES:
        return t, None
    a, b = convert(a, t), convert(b, t)
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            raise Invalid("division by zero")
        q = c_div(a, b)
        if op == "/":
            r = q
        else:
            _checked(q, t, "%")
            r = a - q * b
    else:
        raise AssertionError(op)
    return t, _checked(r, t, op)


def compare(op: str, ta: str, a: int | None, tb: str, b: int | None) -> int:
    t = common_type(ta, tb)
    if t in FLOAT_TYPES:
        raise AssertionError("floating comparison in control")
    a, b = convert(a, t), convert(b, t)
    return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                "!=": a != b}[op])


# -- initial values -------------------------------------------------------------------

def init_value(spec: dict, type_: str, index: tuple[int, ...]) -> int | None:
    """The value ``main`` stores at logical ``index`` (None for floating types):
    ``h = (sum a_d x_d + K) % M`` in C, then scaled (see ``emit_init``)."""
    if type_ in FLOAT_TYPES:
        return None
    h = spec["k"]
    for a, x in zip(spec["a"], index):
        h += a * x
    h = h - c_div(h, spec["m"]) * spec["m"]
    v = convert(h, type_)
    scale = int(spec["scale"])
    return convert(v * scale, type_) if type_ == "unsigned" else _checked(v * scale, type_, "init")


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
                self.env[var] = (t, _checked(v + node["step"], t, f"{var} += {node['step']}"))
            if saved is None:
                del self.env[var]
            else:
                self.env[var] = saved
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
            et, e = self.eval(node["rhs"])
            rt, r = arith(op[0], t, self.load(where), et, e)
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
        if kind == "neg":
            t, a = self.eval(e[1])
            if t in FLOAT_TYPES:
                return t, None
            return t, _checked(-a, t, "unary minus")
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
            if fn in ("abs", "labs"):
                t = "int" if fn == "abs" else "long"
                v = convert(args[0][1], t)
                return t, _checked(abs(v), t, fn)
            return ("float" if fn.endswith("f") and fn not in ("fabs",) else "double"), None
        raise AssertionError(kind)


# -- physical form: big offsets, subscript shifts ------------------------------------------

def _walk_expr(e: Expr, fn) -> Expr:
    """Bottom-up rewrite of an expression (``fn`` sees rebuilt children)."""
    kind = e[0]
    if kind in ("num", "var"):
        return fn(list(e))
    if kind == "ref":
        return fn(["ref", e[1], [_walk_expr(i, fn) for i in e[2]]])
    if kind == "bin" or kind == "cmp":
        return fn([kind, e[1], _walk_expr(e[2], fn), _walk_expr(e[3], fn)])
    if kind in ("neg", "not"):
        return fn([kind, _walk_expr(e[1], fn)])
    if kind == "cast":
        return fn(["cast", e[1], _walk_expr(e[2], fn)])
    if kind in ("and", "or", "min", "max"):
        return fn([kind, _walk_expr(e[1], fn), _walk_expr(e[2], fn)])
    if kind == "cond":
        return fn(["cond", _walk_expr(e[1], fn), _walk_expr(e[2], fn), _walk_expr(e[3], fn)])
    if kind == "call":
        return fn(["call", e[1], [_walk_expr(a, fn) for a in e[2]]])
    raise AssertionError(kind)


def map_exprs(nodes: list[Node], fn) -> list[Node]:
    """Every expression of a node list rewritten by ``fn`` (applied to whole expressions)."""
    out = []
    for node in nodes:
        node = dict(node)
        kind = node["k"]
        if kind == "for":
            node["lb"], node["cond"] = fn(node["lb"]), fn(node["cond"])
            node["body"] = map_exprs(node["body"], fn)
        elif kind == "if":
            node["cond"] = fn(node["cond"])
            node["then"] = map_exprs(node["then"], fn)
            if node.get("else"):
                node["else"] = map_exprs(node["else"], fn)
        elif kind == "let":
            node["init"] = fn(node["init"])
        elif kind == "stmt":
            node["lhs"] = fn(node["lhs"])
            if node.get("rhs") is not None:
                node["rhs"] = fn(node["rhs"])
        out.append(node)
    return out


def physical(nodes: list[Node]) -> list[Node]:
    """Loops with a big ``offset`` K count from ``lb + K``; each use of the iterator
    reads ``(i - K)``, and a condition ``i < e`` becomes ``i < e + K``."""
    out = []
    for node in nodes:
        node = dict(node)
        if node["k"] == "for":
            body = physical(node["body"])
            k = node.get("offset", 0)
            if k:
                var, t = node["var"], node["type"]
                big = ["num", t, k]

                def use(e: Expr, var=var, big=big) -> Expr:
                    return ["bin", "-", ["var", var], big] if e == ["var", var] else e

                def cond(e: Expr, var=var, big=big) -> Expr:
                    if e[0] == "cmp" and e[2] == ["var", var]:
                        return ["cmp", e[1], ["var", var], ["bin", "+", _walk_expr(e[3], use), big]]
                    if e[0] in ("and", "or"):
                        return [e[0], cond(e[1]), cond(e[2])]
                    return _walk_expr(e, use)

                node["cond"] = cond(node["cond"])
                node["lb"] = ["bin", "+", node["lb"], big]
                body = map_exprs(body, lambda e, use=use: _walk_expr(e, use))
            node["body"] = body
        elif node["k"] == "if":
            node["then"] = physical(node["then"])
            if node.get("else"):
                node["else"] = physical(node["else"])
        out.append(node)
    return out


def shifted(nodes: list[Node], shifts: dict[str, list[int]]) -> list[Node]:
    def fix(e: Expr) -> Expr:
        if e[0] == "ref" and any(shifts.get(e[1], ())):
            e = ["ref", e[1], [i if s == 0 else _plus(i, s) for i, s in zip(e[2], shifts[e[1]])]]
        return e
    return map_exprs(nodes, lambda e: _walk_expr(e, fix))


def _plus(e: Expr, c: int) -> Expr:
    """``e + c`` folding into a trailing constant."""
    if e[0] == "num" and e[1] == "int":
        return ["num", "int", e[2] + c]
    if e[0] == "bin" and e[1] in "+-" and e[3][0] == "num" and e[3][1] == "int":
        k = (e[3][2] if e[1] == "+" else -e[3][2]) + c
        if k == 0:
            return e[2]
        return ["bin", "+" if k > 0 else "-", e[2], ["num", "int", abs(k)]]
    return ["bin", "+" if c > 0 else "-", e, ["num", "int", abs(c)]]


# -- finalisation ---------------------------------------------------------------------

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
                    forms.append(_plus(["var", p["name"]], size - p["value"])
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
    map_exprs(program.body, lambda e: _walk_expr(e, see))
    return names


# -- emission -------------------------------------------------------------------------

def emit_num(type_: str, value: Any) -> str:
    if type_ in FLOAT_TYPES:
        text = repr(float(value))
        if "inf" in text or "nan" in text:
            raise AssertionError(text)
        if "e" not in text and "." not in text:
            text += ".0"
        text += "f" if type_ == "float" else ""
    else:
        text = str(abs(value)) + {"int": "", "unsigned": "u", "long": "L"}[type_]
        if value < 0:
            text = "-" + text
    return f"({text})" if text.startswith("-") else text


def emit_expr(e: Expr, top: bool = False) -> str:
    kind = e[0]
    if kind == "num":
        return emit_num(e[1], e[2])
    if kind == "var":
        return e[1]
    if kind == "ref":
        return e[1] + "".join(f"[{emit_expr(i, True)}]" for i in e[2])
    if kind in ("bin", "cmp"):
        text = f"{emit_expr(e[2])} {e[1]} {emit_expr(e[3])}"
        return text if top else f"({text})"
    if kind == "neg":
        return f"(-{emit_expr(e[1])})"
    if kind == "not":
        return f"(!{emit_expr(e[1])})"
    if kind in ("and", "or"):
        text = f"{emit_expr(e[1])} {'&&' if kind == 'and' else '||'} {emit_expr(e[2])}"
        return text if top else f"({text})"
    if kind == "cast":
        return f"(({e[1]}) {emit_expr(e[2])})"
    if kind == "cond":
        text = f"{emit_expr(e[1])} ? {emit_expr(e[2])} : {emit_expr(e[3])}"
        return text if top else f"({text})"
    if kind in ("min", "max"):
        return f"{kind.upper()}({emit_expr(e[1], True)}, {emit_expr(e[2], True)})"
    if kind == "call":
        return f"{e[1]}({', '.join(emit_expr(a, True) for a in e[2])})"
    raise AssertionError(kind)


def _increment(node: Node) -> str:
    v, s, style = node["var"], node["step"], node.get("inc", 0)
    if s == 1:
        return (f"{v}++", f"++{v}", f"{v} += 1")[style % 3]
    if s == -1:
        return (f"{v}--", f"--{v}", f"{v} -= 1")[style % 3]
    if s > 0:
        return (f"{v} += {s}", f"{v} = {v} + {s}")[style % 2]
    return (f"{v} -= {-s}", f"{v} = {v} - {-s}")[style % 2]


def emit_nodes(nodes: list[Node], indent: int, declared: dict[str, str], lines: list[str]) -> None:
    pad = "  " * indent
    for node in nodes:
        kind = node["k"]
        if kind == "for":
            var, t = node["var"], node["type"]
            decl = f"{t} " if declared.get(var) != t else ""
            lines.append(f"{pad}for ({decl}{var} = {emit_expr(node['lb'], True)}; "
                         f"{emit_expr(node['cond'], True)}; {_increment(node)})")
            _emit_block(node["body"], indent, declared, lines)
        elif kind == "if":
            lines.append(f"{pad}if ({emit_expr(node['cond'], True)})")
            _emit_block(node["then"], indent, declared, lines)
            if node.get("else"):
                lines.append(f"{pad}else")
                _emit_block(node["else"], indent, declared, lines)
        elif kind == "let":
            lines.append(f"{pad}{node['type']} {node['name']} = {emit_expr(node['init'], True)};")
        elif kind == "stmt":
            lhs = emit_expr(node["lhs"], True)
            if node["op"] in ("++", "--"):
                lines.append(f"{pad}{lhs}{node['op']};")
            else:
                lines.append(f"{pad}{lhs} {node['op']} {emit_expr(node['rhs'], True)};")
        else:
            raise AssertionError(kind)


def _emit_block(nodes: list[Node], indent: int, declared: dict[str, str], lines: list[str]) -> None:
    pad = "  " * indent
    simple = len(nodes) == 1 and nodes[0]["k"] in ("stmt", "for") and not (
        nodes[0]["k"] == "for" and len(lines) % 3 == 0)
    if simple:
        emit_nodes(nodes, indent + 1, declared, lines)
    else:
        lines.append(pad + "{")
        emit_nodes(nodes, indent + 1, declared, lines)
        lines.append(pad + "}")


def _iterators(nodes: list[Node], out: dict[str, set[str]]) -> dict[str, set[str]]:
    for node in nodes:
        if node["k"] == "for":
            out.setdefault(node["var"], set()).add(node["type"])
            _iterators(node["body"], out)
        elif node["k"] == "if":
            _iterators(node["then"], out)
            _iterators(node.get("else") or [], out)
    return out


def _array_decl(a: dict, dims: list[str]) -> str:
    return f"{a['type']} {a['name']}" + "".join(f"[{d}]" for d in dims)


def emit_init(a: dict, target: str, logical: list[str]) -> str:
    """The C expression ``main`` stores into an element (``init_value``'s formula)."""
    spec = a["init"]
    terms = [f"{spec['k']}"] + [f"{c} * {x}" for c, x in zip(spec["a"], logical) if c]
    h = f"(({' + '.join(terms)}) % {spec['m']})"
    t, scale = a["type"], spec["scale"]
    if t == "double":
        return f"{target} = (double) {h} * {emit_num('double', scale)};"
    if t == "float":
        return f"{target} = (float) {h} * {emit_num('float', scale)};"
    return f"{target} = ({t}) {h} * {emit_num(t, int(scale))};"


def emit_program(fin: Finalised) -> str:
    prog = fin.program
    body = shifted(physical(prog.body), fin.shifts)
    lines = [f"/* polycu-fuzz seed={prog.seed} options=\"{' '.join(prog.options)}\" */",
             "#include <stdio.h>", "#include <math.h>", "#include <stdlib.h>", "",
             "#define MIN(a, b) ((a) < (b) ? (a) : (b))",
             "#define MAX(a, b) ((a) > (b) ? (a) : (b))", ""]
    globals_ = [a for a in prog.arrays if a["kind"] == "global"]
    for a in globals_:
        lines.append(f"static {_array_decl(a, [str(x) for x in fin.extents[a['name']]])};")
    for s in prog.scalars:
        if s["kind"] == "global":
            lines.append(f"static {s['type']} {s['name']};")
    if globals_ or any(s["kind"] == "global" for s in prog.scalars):
        lines.append("")
    args = [f"{p['type']} {p['name']}" for p in prog.params]
    args += [f"{s['type']} {s['name']}" for s in prog.scalars if s["kind"] == "arg"]
    for a in prog.arrays:
        name = a["name"]
        if a["kind"] == "fixed":
            args.append(_array_decl(a, [str(x) for x in fin.extents[name]]))
        elif a["kind"] == "vla":
            args.append(_array_decl(a, [emit_expr(x, True) for x in fin.vla_extents[name]]))
        elif a["kind"] == "pointer":
            args.append(f"{a['type']} *{name}")
    lines.append(f"void kernel({', '.join(args)})")
    lines.append("{")
    declared: dict[str, str] = {}
    if prog.decl_iters:
        by_type: dict[str, list[str]] = {}
        for var, types in sorted(_iterators(body, {}).items()):
            if len(types) == 1:
                (t,) = types
                declared[var] = t
                by_type.setdefault(t, []).append(var)
        for t, names in by_type.items():
            lines.append(f"  {t} {', '.join(names)};")
    for s in prog.scalars:
        if s["kind"] == "local":
            lines.append(f"  {s['type']} {s['name']} = {emit_num(s['type'], s['init'])};")
    lines.append("#pragma scop")
    emit_nodes(body, 1, declared, lines)
    lines.append("#pragma endscop")
    lines.append("}")
    lines.append("")
    lines.append("int main(void)")
    lines.append("{")
    for a in prog.arrays:
        if a["kind"] != "global":
            lines.append(f"  static {_array_decl(a, [str(x) for x in fin.extents[a['name']]])};")
    for a in prog.arrays:
        name, ext, shift = a["name"], fin.extents[a["name"]], fin.shifts[a["name"]]
        idx = [f"i{d}" for d in range(a["ndim"])]
        loops = "".join(f"for (int {i} = 0; {i} < {n}; {i}++) " for i, n in zip(idx, ext))
        logical = [i if s == 0 else f"({i} - {s})" for i, s in zip(idx, shift)]
        target = name + "".join(f"[{i}]" for i in idx)
        lines.append(f"  {loops}{emit_init(a, target, logical)}")
    for s in prog.scalars:
        if s["kind"] == "global":
            lines.append(f"  {s['name']} = {emit_num(s['type'], s['init'])};")
    call = [emit_num(p["type"], p["value"]) if p["value"] >= 0 else str(p["value"])
            for p in prog.params]
    call += [emit_num(s["type"], s["init"]) for s in prog.scalars if s["kind"] == "arg"]
    call += [a["name"] for a in prog.arrays if a["kind"] != "global"]
    lines.append(f"  kernel({', '.join(call)});")
    for a in prog.arrays:
        name, ext = a["name"], fin.extents[a["name"]]
        fmt, cast = PRINT[a["type"]]
        idx = [f"i{d}" for d in range(a["ndim"])]
        loops = "".join(f"for (int {i} = 0; {i} < {n}; {i}++) " for i, n in zip(idx, ext))
        target = name + "".join(f"[{i}]" for i in idx)
        lines.append(f'  printf("@ {name} {a["type"]}\\n");')
        lines.append(f'  {loops}printf("{fmt}\\n", ({cast}) {target});')
    for s in prog.scalars:
        if s["kind"] == "global":
            fmt, cast = PRINT[s["type"]]
            lines.append(f'  printf("@ {s["name"]} {s["type"]}\\n");')
            lines.append(f'  printf("{fmt}\\n", ({cast}) {s["name"]});')
    lines.append("  return 0;")
    lines.append("}")
    lines.append(f"/* polycu-fuzz-program {prog.to_json()} */")
    return "\n".join(lines) + "\n"


def program_of_text(text: str) -> Program | None:
    """The program structure embedded in an emitted file (None if there is none)."""
    marker = "/* polycu-fuzz-program "
    start = text.rfind(marker)
    if start < 0:
        return None
    end = text.find(" */", start)
    return Program.from_json(text[start + len(marker):end])


def options_of_text(text: str) -> list[str]:
    """The polycu options recorded in a file's first line (``options="..."``)."""
    first = text.split("\n", 1)[0]
    key = 'options="'
    if "polycu-fuzz" not in first or key not in first:
        return []
    value = first[first.index(key) + len(key):]
    return value[:value.index('"')].split()


# -- random generation ----------------------------------------------------------------

class Generator:
    """One random attempt; ``generate`` retries with other attempts when the
    interpretation finds undefined behaviour."""

    def __init__(self, seed: int, attempt: int):
        self.seed = seed
        self.rng = random.Random(f"polycu-fuzz:{seed}:{attempt}")
        self.params: list[dict] = []
        self.arrays: list[dict] = []
        self.scalars: list[dict] = []
        self.names = iter("ABCDEFGHJKLMNOPQRSUVWXYZ")
        self.iter_names = ["i", "j", "k", "l", "m2", "n2"]
        self.lets = 0

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
                          "time": 3 if len(scope) > len(spatial) else 0})
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
        time = [s for s in scope if s["time"]][0]
        return ["bin", "%", ["var", time["name"]], ["num", "int", 2]]

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

    # values
    def literal(self, t: str) -> Expr:
        if t in FLOAT_TYPES:
            v = self.rng.choice([0.5, 2.0, 1.25, -3.0, 0.1, 1e-3, 7.0, 1e5])
            return ["num", t, float(f"{v:.6g}")]
        if t == "unsigned":
            return ["num", t, self.rng.choice([1, 2, 3, 7, 4000000000])]
        if t == "long":
            return ["num", t, self.rng.choice([1, 2, 5, -3, 3000000000])]
        return ["num", t, self.rng.choice([1, 2, 3, 5, -1, -4])]

    def array_ref(self, t: str, scope: list[dict], ctx: dict) -> Expr:
        want_int = t in INT_TYPES
        ok = [a for a in self.arrays if (a["type"] in INT_TYPES) == want_int or not want_int]
        if ctx.get("lhs") is not None and ctx["lhs"][0] == "ref" and self.chance(0.3):
            # a neighbour of the element written: in-place updates, stencils
            lhs = ctx["lhs"]
            array = next(a for a in self.arrays if a["name"] == lhs[1])
            if (array["type"] in INT_TYPES) == want_int or not want_int:
                return ["ref", lhs[1], [self.add_const(copy.deepcopy(i), self.small(-1, 1))
                                        for i in lhs[2]]]
        if ok and (len(self.arrays) >= 6 or self.chance(0.6)):
            array = self.rng.choice(ok)
        else:
            array = self.new_array(self.rng.choice(INT_TYPES) if want_int else None)
        return ["ref", array["name"], self.subscripts(array, scope)]

    def value(self, t: str, scope: list[dict], ctx: dict, budget: int) -> Expr:
        """An expression of type (compatible with) ``t``: integers only from integers."""
        if budget <= 0 or self.chance(0.3):
            return self.leaf(t, scope, ctx)
        is_int = t in INT_TYPES
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
            arg = self.value("long" if t == "long" else "int", scope, ctx, budget - 1)
            if self.chance(0.9):
                arg = ["cast", "long" if t == "long" else "int", arg]
            return ["call", "labs" if t == "long" else "abs", [arg]]
        if form == "minmax":
            return [self.rng.choice(["min", "max"]), sub(), sub()]
        if form == "cond":
            return ["cond", self.condition(scope, 1), sub(), sub()]
        if form == "cast":
            if is_int:
                other = self.rng.choice(INT_TYPES)
                return ["cast", t, self.value(other, scope, ctx, budget - 1)]
            other = self.rng.choice(FLOAT_TYPES + INT_TYPES)
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
            arg = self.value(self.rng.choice(INT_TYPES), scope, ctx, 0)
            if fn == "exp":
                arg = ["neg", ["call", "abs", [["cast", "int", arg]]]] if arg[0] != "num" else arg
            args = [arg] + ([["num", "int", 2]] if fn == "pow" else [])
            return ["call", fn + f, args]
        # fdiv: divided by a value that cannot be zero
        return ["bin", "/", sub(), ["bin", "+", ["num", t, 1.0], ["call", "fabs" + f, [sub()]]]]

    def leaf(self, t: str, scope: list[dict], ctx: dict) -> Expr:
        is_int = t in INT_TYPES
        forms = {"ref": 10, "lit": 3, "iter": 2, "param": 1, "scalar": 1}
        temps = [x for x in ctx.get("temps", ())
                 if (x["type"] in INT_TYPES) == is_int or not is_int]
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
                    and ((s["type"] in INT_TYPES) == is_int or not is_int)]
            if pool and self.chance(0.6):
                return ["var", self.rng.choice(pool)["name"]]
            if self.chance(0.5):
                s = self.new_scalar("arg", self.rng.choice(INT_TYPES if is_int else FLOAT_TYPES))
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
        is_int = t in INT_TYPES
        ops = {"=": 55, "+=": 20, "-=": 5, "*=": 4, "/=": 4, "++": 3, "--": 2}
        if is_int:
            ops["%="] = 3
        op = self.pick(ops)
        sub_ctx = dict(ctx, lhs=lhs)
        if op in ("++", "--"):
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
                modulus = ["num", t if t != "unsigned" else "int",
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
                loop = self.loop(scope)
                inner = scope + [{"name": loop["var"], "type": loop["type"], "time": False}]
                loop["body"] = self.block(inner, depth - 1, share, depth > 1 and self.chance(0.75))
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
                            "noresched": 4})
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
        return Program(self.seed, self.params, self.arrays, self.scalars, body, options,
                       self.chance(0.6))


def generate(seed: int, attempts: int = 200) -> Finalised:
    """The program of ``seed``: the first attempt whose interpretation is free of
    undefined behaviour and small enough."""
    last: Exception | None = None
    for attempt in range(attempts):
        program = Generator(seed, attempt).program()
        try:
            return finalise(program)
        except Invalid as exc:
            last = exc
    raise RuntimeError(f"seed {seed}: no valid program in {attempts} attempts ({last})")


def features(fin: Finalised) -> set[str]:
    """Names of the constructs a program uses (for coverage tests and summaries)."""
    out: set[str] = set()
    prog = fin.program
    out.update(f"array:{a['kind']}" for a in prog.arrays)
    out.update(f"type:{a['type']}" for a in prog.arrays)
    out.update(f"ndim:{a['ndim']}" for a in prog.arrays)
    out.update(f"scalar:{s['kind']}" for s in prog.scalars)
    out.update(f"param:{p['type']}" for p in prog.params)
    if any(p["value"] == 0 for p in prog.params):
        out.add("param:zero")

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
        elif node["k"] == "if":
            out.add("guard:else" if node.get("else") else "guard")
        elif node["k"] == "let":
            out.add("let")
        elif node["k"] == "stmt":
            count += 1
            out.add(f"op:{node['op']}")
    out.add(f"stmts:{count}")

    def see(e: Expr) -> Expr:
        if e[0] in ("min", "max", "cond", "cast", "neg"):
            out.add(f"expr:{e[0]}")
        elif e[0] in ("bin", "cmp"):
            out.add(f"expr:{e[1]}")
        elif e[0] == "call":
            out.add(f"call:{e[1]}")
        return e
    map_exprs(prog.body, lambda e: _walk_expr(e, see))
    for opt in prog.options:
        if opt.startswith("--"):
            out.add(f"option:{opt}")
    return out


def _nodes(nodes: list[Node]) -> Iterator[Node]:
    for n in nodes:
        yield n
        if n["k"] == "for":
            yield from _nodes(n["body"])
        elif n["k"] == "if":
            yield from _nodes(n["then"])
            yield from _nodes(n.get("else") or [])
