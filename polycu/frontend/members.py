"""Structure members in a SCoP: ``s.a[i]``, ``s.n``, ``b[i][j].c[k][l]``, ``p[i].re``, ``q->x[i]``.

In:  a reference whose base is a ``StructRef`` (pycparser), the symbol table and the
structure definitions of the translation unit (``symbols.Symbols.structs``).
Out: the field array of the model it accesses (``Member``, ``StructType``: its name,
element type and extents) and its subscripts, the variable's first, then the field's.

Each field of a struct variable is an array of its own in the model, indexed by the
variable's indices followed by the field's:

    b[i][j].c[k][l]  ->  b_c[i, j, k, l]        q->x[i]  ->  q_x[0, i]

Distinct fields occupy distinct bytes, so distinct field arrays never alias and the
dependences of each field are those of an ordinary array (exact).  Supported: fields
that are arithmetic scalars or arrays of them with constant extents, in a struct
variable, an array of structs or a pointer to structs (``p->f`` is ``p[0].f``).
Everything else raises ``Unsupported`` at the reference: unions, anonymous structure
types, bit-fields, pointer fields, nested structures, ``long double`` fields, and a
whole structure used as a value.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..model import Access, Field, Member, StructType
from .affine import AffineEnv, NotAffine, to_pwaff
from .ctype import LDOUBLE, parse_type
from .symbols import Symbol, decode_type
from .syntax import Unsupported, c_text, flatten_ref


@dataclass(frozen=True)
class MemberRef:
    """``V[o..].F[k..]`` or ``V->F[k..]`` taken apart: ``outer`` is ``[0]`` for ``->``."""

    variable: c_ast.ID
    outer: list[c_ast.Node]
    field: str
    inner: list[c_ast.Node]


def member_ref(node: c_ast.Node, where: c_ast.Node | None = None) -> MemberRef | None:
    """``node`` taken apart if it references a structure member (None otherwise);
    ``Unsupported`` for a member of a member or of something but a variable."""
    base, inner = flatten_ref(node)
    if not isinstance(base, c_ast.StructRef):
        return None
    variable, outer = flatten_ref(base.name)
    if isinstance(variable, c_ast.StructRef):
        raise Unsupported(node, f"nested structure member '{c_text(node)}' is not supported "
                          "in a SCoP (only fields of scalars or arrays of scalars)")
    if not isinstance(variable, c_ast.ID):
        raise Unsupported(node, f"'{c_text(node)}': structure member of an expression is not "
                          "supported in a SCoP")
    if base.type == "->":
        if outer:
            raise Unsupported(node, f"'{c_text(node)}': '->' on an array element (an array "
                              "of pointers) is not supported in a SCoP")
        outer = [c_ast.Constant("int", "0", coord=base.coord)]
    return MemberRef(variable, outer, base.field.name, inner)


def subscripts_of(node: c_ast.Node) -> list[c_ast.Node]:
    """All subscripts of the model's access made by reference ``node``, outermost
    first (a member's are the variable's, then the field's)."""
    ref = member_ref(node)
    if ref is None:
        return flatten_ref(node)[1]
    return ref.outer + ref.inner


class Members:
    """The field arrays of one SCoP: their model names, fresh against ``taken``."""

    def __init__(self, structs: dict[str, c_ast.Struct], typedefs: dict[str, str],
                 taken: set[str]):
        self.structs = structs
        self.typedefs = typedefs
        self.taken = taken
        self.names: dict[tuple[str, str], str] = {}
        self.members: dict[str, Member] = {}
        self.types: dict[str, StructType] = {}

    def struct(self, spelling: str, node: c_ast.Node) -> StructType:
        """The supported structure type of that spelling, or ``Unsupported`` at ``node``."""
        if spelling in self.types:
            return self.types[spelling]
        if spelling.startswith("union "):
            raise Unsupported(node, f"union member '{c_text(node)}' is not supported in a SCoP")
        definition = self.structs.get(spelling)
        if definition is None:
            raise Unsupported(node, f"'{c_text(node)}': the structure type '{spelling}' is not "
                              "defined in the file (or is anonymous: name it or use a typedef)")
        fields = tuple(self._field(spelling, decl, node) for decl in definition.decls or [])
        self.types[spelling] = StructType(spelling, fields)
        return self.types[spelling]

    def _field(self, spelling: str, decl: c_ast.Decl, node: c_ast.Node) -> Field:
        """One field, if supported (the whole structure travels, so every field counts)."""
        what = f"structure '{spelling}' has "
        if decl.bitsize is not None:
            raise Unsupported(node, what + f"the bit-field '{decl.name}': not supported in a SCoP")
        element, extents, pointer = decode_type(decl.type, self.typedefs)
        ctype = parse_type(element)
        if pointer:
            raise Unsupported(node, what + f"the pointer field '{decl.name}': a SCoP reads such "
                              "a structure's fields and the elements its pointers point to, "
                              "but assigns no field and does not use it whole")
        if ctype is None or ctype == LDOUBLE:
            kind = "a nested structure" if element.startswith(("struct", "union", "<")) \
                else f"type '{element}'"
            raise Unsupported(node, what + f"the field '{decl.name}' of {kind}: only fields "
                              "of arithmetic types (or arrays of them) are supported in a SCoP")
        sizes = []
        env = AffineEnv((), lambda name: False, typedefs=self.typedefs)
        for extent in extents:
            try:
                size = to_pwaff(extent, env) if extent is not None else None
            except NotAffine:
                size = None
            if size is None or not size.is_cst():
                raise Unsupported(node, what + f"the field '{decl.name}' without a constant "
                                  "extent: not supported in a SCoP")
            sizes.append(str(size.get_pieces()[0][1].get_constant_val().to_python()))
        return Field(decl.name, element, tuple(sizes))

    def access(self, ref: MemberRef, sym: Symbol, node: c_ast.Node) -> tuple[str, Member, Field]:
        """The model name, the member and the field of reference ``ref`` to ``sym``."""
        var = ref.variable.name
        if sym.pointer and sym.extents != (None,):
            raise Unsupported(node, f"'{c_text(node)}': a member through more than one pointer "
                              "is not supported in a SCoP")
        struct = self.struct(sym.element_type, node)
        field = struct.field(ref.field)
        if field is None:
            raise Unsupported(node, f"structure '{struct.spelling}' has no field '{ref.field}'")
        if len(ref.outer) != len(sym.extents) or len(ref.inner) != len(field.extents):
            raise Unsupported(node, f"'{c_text(node)}' uses {len(ref.outer)} of "
                              f"{len(sym.extents)} subscripts of '{var}' and "
                              f"{len(ref.inner)} of {len(field.extents)} of its field "
                              f"'{ref.field}': partial references are not supported")
        key = (var, ref.field)
        if key not in self.names:
            name = f"{var}_{ref.field}"
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.names[key] = name
            outer = tuple(None if e is None else c_text(e) for e in sym.extents)
            self.members[name] = Member(var, struct, outer, ref.field)
        name = self.names[key]
        return name, self.members[name], field

    def is_struct(self, sym: Symbol) -> bool:
        """Whether ``sym`` is a structure or union (or an array of, or pointer to, them)."""
        return sym.element_type.startswith(("struct ", "union ", "<anonymous")) or \
            sym.element_type in self.structs


def flatten_members(body: c_ast.Node, accesses: list[Access],
                    names: dict[str, Member]) -> tuple[c_ast.Node, list[Access]]:
    """``body`` with each member reference written as a reference to its field array
    (``b[i][j].c[k][l]`` -> ``b_c[i][j][k][l]``, ``s.n`` -> ``s_n``) and the accesses
    pointing at the new nodes: every later rewriting (expansion, snapshots) and the
    reduction finder then see ordinary array references, and the printers turn them
    back into members (``codegen.cuda.member_text``)."""
    new: dict[int, c_ast.Node] = {}
    for access in accesses:
        if access.array in names and id(access.node) not in new:
            node: c_ast.Node = c_ast.ID(access.array, coord=access.node.coord)
            for subscript in subscripts_of(access.node):
                node = c_ast.ArrayRef(node, subscript, coord=access.node.coord)
            new[id(access.node)] = node

    def swap(node: c_ast.Node) -> c_ast.Node:
        if id(node) in new:
            return new[id(node)]
        for slot in node.__slots__:
            value = getattr(node, slot, None)
            if isinstance(value, c_ast.Node):
                setattr(node, slot, swap(value))
            elif isinstance(value, list):
                setattr(node, slot, [swap(v) if isinstance(v, c_ast.Node) else v
                                     for v in value])
        return node

    body = swap(body)
    return body, [replace(a, node=new.get(id(a.node), a.node)) for a in accesses]
