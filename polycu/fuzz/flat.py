"""Flat arrays: a matrix passed as a pointer and subscripted ``A[i * ld1_A + j]``.

In:  a ``Finalised`` program (its arrays' extents) and whether its subscripts wrap.
Out: ``strides``: for the arrays emitted flat, a stride parameter per inner dimension;
     ``flattened``: the loop nest with their references linearised.

Real C keeps matrices in flat buffers with a leading dimension, as BLAS does
(``lda``), and polycu reads them as rows (``frontend/delinearise.py``).  From seed
``FLAT_FROM`` on, one program in four (a random state of its own, so the rest of the
program is what it was) passes some of its arrays of two or three dimensions as
``T *A`` with a stride parameter ``ld1_A`` (``int`` or ``long``) per inner dimension,
whose value is the extent or a little more (padding columns nothing touches).  The
subscripts are written in one of the forms people write: ``(s0 * ld1 + s1) * ld2 +
s2``, ``s0 * ld1 * ld2 + s1 * ld2 + s2``, ``ld1 * s0 + s1``.  ``main`` declares the
padded array, passes ``(T *) A`` and prints every element, padding included.  The
interpreter runs the logical program, unchanged: the same elements at the same offsets.

From seed ``POINTER_FROM`` on, one flat reference in three is written through a
pointer (``frontend/pointers.py``) with a random state of its own: ``(*(A + o))`` or,
splitting its last sum, ``(A + s0 * ld1)[s1]``.  From ``ALIAS_FROM`` on, one flat
array in two also has a second name, ``T *A_at = A + c;`` declared before the SCoP
(``aliases``), and about half of its references use it (``A_at[o - c]``): modelled as
two arrays, the two names would hide the dependences between them.  From
``STRUCT_FROM`` on, one flat array in two without a second name is kept in a
structure with its strides, ``mat_A A_m = { ld1_A, A };`` (``holders``), and read as
``A_m.data[i * A_m.ld1 + j]`` or through ``mat_A *A_m_p = &A_m;`` as ``A_m_p->data``
(``frontend/struct_fields.py``).
"""
from __future__ import annotations

import random
import re

from .program import Expr, Finalised, Node
from .tree import map_exprs, walk_expr

FLAT_FROM = 5_624_000
#: Share of the programs from FLAT_FROM on that emit some arrays flat.
FLAT_SHARE = 0.25
POINTER_FROM = 5_631_000
ALIAS_FROM = 5_635_000
STRUCT_FROM = 5_638_000

#: A flat array's second name: (the name, its offset into the array).
Alias = tuple[str, int]

#: The name of a stride parameter (``ld1_A``: array A's dimension 1).
STRIDE = re.compile(r"ld\d+_\w+")

#: An inner dimension's stride: (parameter name, its type, its value).
Stride = tuple[str, str, int]


def strides(fin: Finalised, wrap: bool) -> dict[str, list[Stride]]:
    """The arrays ``fin`` emits flat and their strides (module docstring); none where
    subscripts wrap through unsigned values (a product that C computes modulo 2^32)."""
    prog = fin.program
    rng = random.Random(f"polycu-fuzz-flat:{prog.seed}")
    if prog.seed < FLAT_FROM or wrap or rng.random() >= FLAT_SHARE:
        return {}
    taken = {x["name"] for x in prog.params + prog.arrays + prog.scalars}
    result: dict[str, list[Stride]] = {}
    for a in prog.arrays:
        if a["kind"] not in ("fixed", "vla") or a["ndim"] < 2 or rng.random() < 0.3:
            continue
        found = []
        for d, extent in enumerate(fin.extents[a["name"]][1:], start=1):
            name = f"ld{d}_{a['name']}"
            if name in taken:
                break
            found.append((name, rng.choice(("int", "long")), extent + rng.choice((0, 0, 1, 3))))
        if len(found) == a["ndim"] - 1:
            result[a["name"]] = found
    return result


def aliases(flat: dict[str, list[Stride]], taken: set[str], seed: int) -> dict[str, Alias]:
    """The second names of the flat arrays (module docstring), by array."""
    if seed < ALIAS_FROM:
        return {}
    rng = random.Random(f"polycu-fuzz-pointer-alias:{seed}")
    found = {}
    for name in sorted(flat):
        alias = f"{name}_at"
        if rng.random() < 0.5 and alias not in taken:
            found[name] = (alias, rng.choice((0, 1, 3)))
    return found


def holders(flat: dict[str, list[Stride]], second: dict[str, Alias], taken: set[str],
            seed: int) -> dict[str, str]:
    """The flat arrays kept in a structure (module docstring): by array, what its
    references start with (``A_m.`` or ``A_m_p->``)."""
    if seed < STRUCT_FROM:
        return {}
    rng = random.Random(f"polycu-fuzz-struct:{seed}")
    found = {}
    for name in sorted(flat):
        names = {f"{name}_m", f"{name}_m_p", f"mat_{name}"}
        if name not in second and not names & taken and rng.random() < 0.5:
            found[name] = rng.choice((f"{name}_m.", f"{name}_m_p->"))
    return found


def holder_lines(array: dict, strides: list[Stride], access: str) -> tuple[str, list[str]]:
    """The type definition of a flat array's structure, and the declarations that put
    the array in one before the SCoP."""
    name, fields = array["name"], " ".join(f"{t} ld{d};" for d, (_, t, _) in
                                           enumerate(strides, start=1))
    typedef = f"typedef struct {{ {fields} {array['type']} *data; }} mat_{name};"
    values = ", ".join([ld for ld, _, _ in strides] + [name])
    lines = [f"  mat_{name} {name}_m = {{ {values} }};"]
    if access.endswith("->"):
        lines.append(f"  mat_{name} *{name}_m_p = &{name}_m;")
    return typedef, lines


def flattened(nodes: list[Node], flat: dict[str, list[Stride]], seed: int,
              second: dict[str, Alias] | None = None,
              held: dict[str, str] | None = None) -> list[Node]:
    """``nodes`` with each reference to a flat array linearised over its strides (some
    through the arrays' ``second`` names, or through the structures that hold them)."""
    held = held or {}
    rng = random.Random(f"polycu-fuzz-flat-forms:{seed}")
    pointers = random.Random(f"polycu-fuzz-pointer-forms:{seed}") if seed >= POINTER_FROM \
        else None
    renames = random.Random(f"polycu-fuzz-pointer-uses:{seed}")
    second = second or {}

    def fix(e: Expr) -> Expr:
        linear = linearised(e)
        if linear is not e and e[1] in second and renames.random() < 0.5:
            alias, shift = second[e[1]]
            offset = linear[2][0]
            linear = ["ref", alias, [["bin", "-", offset, ["num", "int", shift]]
                                     if shift else offset]]
        if pointers is None or linear is e or pointers.random() >= 1 / 3:
            return linear
        offset = linear[2][0]
        if offset[0] == "bin" and offset[1] == "+" and pointers.random() < 0.5:
            return ["ptrsub", linear[1], offset[2], offset[3]]
        return ["deref", linear[1], offset]

    def linearised(e: Expr) -> Expr:
        if e[0] != "ref" or e[1] not in flat:
            return e
        subs, lds = e[2], [["var", name] for name, _, _ in flat[e[1]]]
        base = e[1]
        if base in held:
            lds = [["var", f"{held[base]}ld{d}"] for d in range(1, len(lds) + 1)]
            base = f"{held[base]}data"
        form = rng.randrange(3)
        if form == 1:                   # s0 * ld1 * ld2 + s1 * ld2 + s2
            total = subs[-1]
            for k, s in enumerate(subs[:-1]):
                term = s
                for ld in lds[k:]:
                    term = ["bin", "*", term, ld]
                total = ["bin", "+", term, total]
            return ["ref", base, [total]]
        total = subs[0]                 # (s0 * ld1 + s1) * ld2 + s2, or ld1 * s0 + s1
        for s, ld in zip(subs[1:], lds):
            product = ["bin", "*", ld, total] if form == 2 else ["bin", "*", total, ld]
            total = ["bin", "+", product, s]
        return ["ref", base, [total]]
    return map_exprs(nodes, lambda e: walk_expr(e, fix))


def stride_values(text: str) -> dict[str, int]:
    """The values ``main`` passes for the stride parameters of an emitted program (the
    program's structure does not hold them: ``strides`` draws them at emission)."""
    signature = re.search(r"\nvoid kernel\(([^)]*)\)", text)
    call = re.search(r"\n  kernel\(([^;]*)\);", text)
    if signature is None or call is None:
        return {}
    names = [p.split()[-1] for p in signature.group(1).split(", ")]
    values = call.group(1).split(", ")
    return {name: int(value.rstrip("L")) for name, value in zip(names, values)
            if STRIDE.fullmatch(name)}

