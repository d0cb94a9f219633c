"""The C text of a finalised program, and the program read back from such a text.

In:  a ``Finalised`` program.
Out: one complete C99 program: a ``kernel`` function whose ``#pragma scop`` region
is the loop tree (physical form, shifted subscripts) followed by the printing of the
loop counters declared before it (each with a value of its own, so that a counter
whose loops never run shows it), and a ``main`` that fills
every array deterministically (``interpret.init_value``'s formula), calls the
kernel and prints every array and written scalar with full precision (``@ NAME
TYPE`` blocks), so that two builds of it can be compared line by line.  The first
line records the polycu options, the last the program itself as JSON
(``options_of_text``, ``program_of_text`` read them back).  ``dialect.dialect``
then spells some programs' types through typedefs and their literals as
enumeration constants.
"""
from __future__ import annotations

import random

from typing import Any

from .cint import BITS, SIGNED
from .dialect import dialect
from .flat import aliases, flattened, holder_lines, holders, strides
from .program import FLOAT_TYPES, INTEGER_TYPES, Expr, Finalised, Node, Program
from .tree import physical, shifted, wrapped

#: printf format and cast of each element type: every integer type's values print
#: exactly through long long or unsigned long long
PRINT = {"double": ("%.17g", "double"), "float": ("%.9g", "double"),
         **{t: ("%lld", "long long") if SIGNED[t] else ("%llu", "unsigned long long")
            for t in INTEGER_TYPES}}
#: suffixes of integer constants; the narrow types have none (their constants are
#: casts of int ones)
SUFFIX = {"int": "", "unsigned": "u", "long": "L", "long long": "LL", "unsigned long": "UL",
          "unsigned long long": "ULL"}


def emit_num(type_: str, value: Any) -> str:
    if type_ in FLOAT_TYPES:
        text = repr(float(value))
        if "inf" in text or "nan" in text:
            raise AssertionError(text)
        if "e" not in text and "." not in text:
            text += ".0"
        text += "f" if type_ == "float" else ""
    elif BITS[type_] < 32:
        return f"(({type_}) {emit_num('int', value)})"
    elif SIGNED[type_] and value == -(1 << (BITS[type_] - 1)):
        # the least value has no literal: its magnitude does not fit the type
        return f"(-{(1 << (BITS[type_] - 1)) - 1}{SUFFIX[type_]} - 1)"
    else:
        text = str(abs(value)) + SUFFIX[type_]
        if value < 0:
            text = "-" + text
    return f"({text})" if text.startswith("-") else text


def emit_expr(e: Expr, top: bool = False) -> str:
    """The C text of an expression.  Infix forms (arithmetic, comparisons, ``&&``,
    ``||``, ``?:``) are parenthesised unless ``top`` (a whole subscript, bound,
    condition, argument or right-hand side)."""
    kind = e[0]
    if kind == "num":
        return emit_num(e[1], e[2])
    if kind == "var":
        return e[1]
    if kind == "ref":
        return e[1] + "".join(f"[{emit_expr(i, True)}]" for i in e[2])
    if kind == "deref":                 # *(A + o): the element at offset o (flat.py)
        return f"(*({e[1]} + {emit_expr(e[2])}))"
    if kind == "ptrsub":                # (A + o)[s]
        return f"({e[1]} + {emit_expr(e[2])})[{emit_expr(e[3], True)}]"
    if kind == "neg":
        return f"(-{emit_expr(e[1])})"
    if kind == "not":
        return f"(!{emit_expr(e[1])})"
    if kind == "compl":
        return f"(~{emit_expr(e[1])})"
    if kind == "cast":
        return f"(({e[1]}) {emit_expr(e[2])})"
    if kind in ("min", "max"):
        return f"{kind.upper()}({emit_expr(e[1], True)}, {emit_expr(e[2], True)})"
    if kind == "call":
        return f"{e[1]}({', '.join(emit_expr(a, True) for a in e[2])})"
    if kind in ("bin", "cmp"):
        text = f"{emit_expr(e[2])} {e[1]} {emit_expr(e[3])}"
    elif kind in ("and", "or"):
        text = f"{emit_expr(e[1])} {'&&' if kind == 'and' else '||'} {emit_expr(e[2])}"
    elif kind == "cond":
        text = f"{emit_expr(e[1])} ? {emit_expr(e[2])} : {emit_expr(e[3])}"
    else:
        raise AssertionError(kind)
    return text if top else f"({text})"


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


def _before(type_: str, name: str) -> str:
    """A counter's value before the SCoP, which it keeps where none of its loops is
    reached: negative, and distinct for each name."""
    value = -17 - sum(map(ord, name))
    return emit_num(type_, value + (1 << 32) if type_ == "unsigned" else value)


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
    if "base" in spec:
        return (f"{target} = ({t}) ((unsigned long long) {h} * {int(scale)}ULL + "
                f"{int(spec['base'])}ULL);")
    return f"{target} = ({t}) {h} * {emit_num(t, int(scale))};"


def _every_element(a: dict, extents: list[int]) -> tuple[list[str], str, str]:
    """``main``'s indices of an array (``i0``, ``i1``, ...), the loops over all its
    elements (``for (int i0 = 0; i0 < 12; i0++) ...``) and the element they reach."""
    idx = [f"i{d}" for d in range(a["ndim"])]
    loops = "".join(f"for (int {i} = 0; {i} < {n}; {i}++) " for i, n in zip(idx, extents))
    return idx, loops, a["name"] + "".join(f"[{i}]" for i in idx)


def emit_program(fin: Finalised, wrap: bool | None = None) -> str:
    """The C text of ``fin``; ``wrap``: its subscripts through wrapping unsigned
    values (``tree.wrapped``), by default for one seed in six (the seed alone
    decides, so that a program read back from its text is emitted the same)."""
    prog = fin.program
    body = shifted(physical(prog.body), fin.shifts)
    if wrap is None:
        wrap = random.Random(f"polycu-fuzz-wrap:{prog.seed}").random() < 1 / 6
    if wrap:
        body = wrapped(body)
    flat = strides(fin, wrap)
    taken = {x["name"] for x in prog.params + prog.arrays + prog.scalars}
    second = aliases(flat, taken, prog.seed)
    held = holders(flat, second, taken, prog.seed)
    body = flattened(body, flat, prog.seed, second, held)
    extents = {name: [e if d == 0 else flat[name][d - 1][2] for d, e in enumerate(ext)]
               if name in flat else ext for name, ext in fin.extents.items()}
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
    args += [f"{t} {ld}" for a in prog.arrays for ld, t, _ in flat.get(a["name"], ())]
    args += [f"{s['type']} {s['name']}" for s in prog.scalars if s["kind"] == "arg"]
    for a in prog.arrays:
        name = a["name"]
        if name in flat:
            args.append(f"{a['type']} *{name}")
        elif a["kind"] == "fixed":
            args.append(_array_decl(a, [str(x) for x in fin.extents[name]]))
        elif a["kind"] == "vla":
            args.append(_array_decl(a, [emit_expr(x, True) for x in fin.vla_extents[name]]))
        elif a["kind"] == "pointer":
            args.append(f"{a['type']} *{name}")
    structures = {a["name"]: holder_lines(a, flat[a["name"]], held[a["name"]])
                  for a in prog.arrays if a["name"] in held}
    lines += [typedef for typedef, _ in structures.values()]
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
            lines.append(f"  {t} {', '.join(f'{n} = {_before(t, n)}' for n in names)};")
    for s in prog.scalars:
        if s["kind"] == "local":
            lines.append(f"  {s['type']} {s['name']} = {emit_num(s['type'], s['init'])};")
    for a in prog.arrays:
        if a["name"] in second:
            alias, shift = second[a["name"]]
            lines.append(f"  {a['type']} *{alias} = {a['name']} + {shift};")
        lines += structures.get(a["name"], ("", []))[1]
    lines.append("#pragma scop")
    emit_nodes(body, 1, declared, lines)
    lines.append("#pragma endscop")
    for var, t in sorted(declared.items()):       # the SCoP leaves their final values
        lines.append(f'  printf("@ {var} {t}\\n");')
        lines.append(f'  printf("{PRINT[t][0]}\\n", ({PRINT[t][1]}) {var});')
    lines.append("}")
    lines.append("")
    lines.append("int main(void)")
    lines.append("{")
    for a in prog.arrays:
        if a["kind"] != "global":
            lines.append(f"  static {_array_decl(a, [str(x) for x in extents[a['name']]])};")
    for a in prog.arrays:
        idx, loops, target = _every_element(a, extents[a["name"]])
        logical = [i if s == 0 else f"({i} - {s})" for i, s in zip(idx, fin.shifts[a["name"]])]
        lines.append(f"  {loops}{emit_init(a, target, logical)}")
    for s in prog.scalars:
        if s["kind"] == "global":
            lines.append(f"  {s['name']} = {emit_num(s['type'], s['init'])};")
    call = [emit_num(p["type"], p["value"]) if p["value"] >= 0 else str(p["value"])
            for p in prog.params]
    call += [emit_num(t, v) for a in prog.arrays for _, t, v in flat.get(a["name"], ())]
    call += [emit_num(s["type"], s["init"]) for s in prog.scalars if s["kind"] == "arg"]
    call += [f"({a['type']} *) {a['name']}" if a["name"] in flat else a["name"]
             for a in prog.arrays if a["kind"] != "global"]
    lines.append(f"  kernel({', '.join(call)});")
    for a in prog.arrays:
        fmt, cast = PRINT[a["type"]]
        _, loops, target = _every_element(a, extents[a["name"]])
        lines.append(f'  printf("@ {a["name"]} {a["type"]}\\n");')
        lines.append(f'  {loops}printf("{fmt}\\n", ({cast}) {target});')
    for s in prog.scalars:
        if s["kind"] == "global":
            fmt, cast = PRINT[s["type"]]
            lines.append(f'  printf("@ {s["name"]} {s["type"]}\\n");')
            lines.append(f'  printf("{fmt}\\n", ({cast}) {s["name"]});')
    lines.append("  return 0;")
    lines.append("}")
    lines.append(f"/* polycu-fuzz-program {prog.to_json()} */")
    return dialect("\n".join(lines) + "\n", prog.seed)


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


def has_index_array(text: str) -> bool:
    """Whether the program embedded in ``text`` indexes an array with another array's
    values (an ``index`` array) or counts a loop with them (``guards.data_loop``), so
    that random inputs may send subscripts anywhere."""
    program = program_of_text(text)
    return program is not None and (any(a.get("index") for a in program.arrays)
                                    or _data_loop(program.body))


def _data_loop(nodes: list[Node]) -> bool:
    for node in nodes:
        inner = node["body"] if node["k"] == "for" else \
            node["then"] + (node.get("else") or []) if node["k"] == "if" else []
        if node.get("data") and node["k"] == "for" or _data_loop(inner):
            return True
    return False
