"""C AST to polyhedral model: find the static control parts and build ``Scop`` values.

In:  a pycparser ``FileAST`` (with coordinates in the user's files).
Out: a list of ``Scop`` (one per ``#pragma scop`` region, or per maximal static
control part found automatically when the file has no pragma).

This is the top of the frontend's extraction and the only module that knows the
order of its steps: the symbol table (``symbols.py``), the regions of each
function (``regions.py``), the checks on the code around each region and its
dead scalars (``liveness.py``), the calls of the file's functions inlined into the
region's items (``inline.py``), the statements and schedule (``builder.py``);
then the ``Scop`` itself: its arrays, its parameters and their types, and the
context, i.e. the parameter values the model assumes (array extents are
non-negative, conversions stay in range, the user's ``--ctx``).
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Callable, Iterable, Sequence

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location, error
from ..model import Array, Scop, Statement
from .affine import CTX, AffineEnv, NotAffine, to_pwaff
from .builder import Builder, build, forms_scop
from .calls import Prototype, prototypes
from .delinearise import delinearise, inner_rows, with_outside_rows
from .final_values import add_final_values
from .ctype import INT, LLONG_MAX, Arith, parse_type, range_constraint
from .inline import Inliner
from .inline_body import provenance
from .pointers import pointer_subscripts
from .struct_fields import bind_fields
from .liveness import check_scopes, dead_after, iterators_read_after
from .regions import Region, auto_regions, pragma_regions, read_lines
from .symbols import Symbol, collect_symbols
from .syntax import Unsupported, c_text, free_names, statements_text


def extract_scops(ast: c_ast.FileAST, source: str, *, auto: bool | None = None,
                  context: str | None = None, text: str | None = None) -> list[Scop]:
    """All SCoPs of a translation unit.

    ``auto`` None: pragma regions if the file has any ``#pragma scop``, else maximal
    static control parts found automatically; True: always automatic; False: pragmas
    only.  ``context`` is extra isl constraints on the parameters (``--ctx``), e.g.
    ``"[n] -> { : n >= 16 }"``.  ``text`` is the original source (read from ``source``
    when not given); it locates the end of automatically found regions.
    """
    unit = collect_symbols(ast, source)
    typedefs = unit.typedefs
    lines = text.splitlines() if text is not None else read_lines(source)
    declared = prototypes(ast, typedefs)
    pragma = [r for f, _ in unit.functions for r in pragma_regions(f, source)]
    use_auto = auto if auto is not None else not pragma
    inliner = Inliner(ast, unit.globals, typedefs, declared, source)
    scops: list[Scop] = []
    for func, symbols in unit.functions:
        name = func.decl.name
        expand = partial(_expanded, inliner=inliner, function=func, symbols=symbols,
                         structs=unit.structs, typedefs=typedefs, source=source)
        if use_auto:
            builds = partial(_forms_scop, expand=expand, source=source, typedefs=typedefs,
                             functions=declared, structs=unit.structs)
            regions = auto_regions(func, source, lines, builds)
        else:
            regions = [r for r in pragma if r.function == name]
        for region in regions:
            check_scopes(region, source)
            globals_ = {n for n, sym in symbols.items() if unit.globals.get(n) is sym}
            read_after = iterators_read_after(region, source, globals_)
            dead = dead_after(region, symbols, set(unit.globals))
            scops.append(_build_scop(region, expand, source, len(scops), context, dead,
                                     typedefs, declared, unit.structs, read_after))
    return scops


#: The items of a region with the calls of the file's functions inlined and the
#: pointer forms read as subscripts, and the variables they see (``_expanded``).
Expand = Callable[[Sequence[c_ast.Node]], tuple[list[c_ast.Node], dict[str, Symbol]]]


def _expanded(items: Sequence[c_ast.Node], *, inliner: Inliner, function: c_ast.FuncDef,
              symbols: dict[str, Symbol], structs: dict[str, c_ast.Struct],
              typedefs: dict[str, str], source: str
              ) -> tuple[list[c_ast.Node], dict[str, Symbol]]:
    """A region's ``items`` of ``function``, calls inlined (``Inliner.inline``), the
    fields of structures with pointer fields bound to names (``bind_fields``), then
    references through pointers made subscripts (``pointer_subscripts``)."""
    inlined, seen = inliner.inline(items, function=function, symbols=symbols)
    bound, seen, fields = bind_fields(inlined, seen, structs, typedefs, source)
    return pointer_subscripts(bound, seen, typedefs, function, items, source, fields, structs)


def _forms_scop(items: list[c_ast.Node], expand: Expand, source: str,
                typedefs: dict[str, str], functions: dict[str, Prototype],
                structs: dict[str, c_ast.Struct]) -> bool:
    """Whether block items, their calls inlined, build into a SCoP with a statement."""
    try:
        inlined, symbols = delinearise(*expand(items), typedefs)
    except Unsupported:
        return False
    return forms_scop(inlined, symbols, source, typedefs, functions, structs)


def _build_scop(region: Region, expand: Expand, source: str, index: int,
                context: str | None, dead_scalars: frozenset[str],
                typedefs: dict[str, str], functions: dict[str, Prototype],
                structs: dict[str, c_ast.Struct], read_after: dict[str, Location]) -> Scop:
    """The Scop of one region (``index``: how many SCoPs the file had before it); the
    model is built from its items with the calls of the file's functions inlined, and
    ends with the final values of the loop counters in ``read_after``."""
    try:
        items, symbols = delinearise(*expand(region.items), typedefs)
        builder, schedule = build(items, symbols, source, typedefs, functions, structs)
        params = tuple(builder.params)
        assumed = _context(params, [isl.Set(range_constraint(p, builder.type_of(p)))
                                    for p in params] + builder.assumptions, None,
                           region.location)
        schedule = add_final_values(builder.loops, items, schedule, builder.statements,
                                    builder.accessed, read_after, assumed, source)
    except Unsupported as exc:
        raise error(exc.message + provenance(exc.node),
                    exc.location or region.location) from None
    if schedule is None:
        raise error("the SCoP contains no statement", region.location)
    described = [_array(builder, name, loc, dead_scalars)
                 for name, loc in builder.accessed.items()]
    arrays = with_outside_rows(builder.statements, [a for a, _ in described])
    params = tuple(builder.params)
    param_space = isl.Space.create_from_names(CTX, set=[], params=list(params))
    types = tuple(builder.type_of(p) for p in params)
    ctx = _context(params, [v for _, v in described] + _type_ranges(params, types)
                   + builder.assumptions + _pointer_rows(builder.statements, arrays)
                   + inner_rows(arrays),
                   context, region.location).align_params(param_space)
    # Within the types' ranges R, the pieces that conversions and wrap-arounds add for
    # impossible parameter values (an unsigned extent below 0, a long beyond 2^63)
    # drop out: the context is gist(C & R, R) & T (T: the ranges ``_type_ranges``
    # keeps), and no code prints their +-2^63 (fuzz seed 5620517: C++ reads
    # `p >= 9223372036854775808LL` as unsigned, true for a negative p).
    ranges = isl.Set.universe(ctx.get_space())
    for name, ctype in zip(params, types):
        ranges = ranges.intersect(isl.Set(range_constraint(name, ctype)))
    known = ctx.intersect(ranges)
    ctx = known.gist(ranges)
    for kept in _type_ranges(params, types):
        ctx = ctx.intersect(kept)
    ctx = ctx.coalesce()
    statements = tuple(_align_statement(_simplified(s, known), param_space)
                       for s in builder.statements)
    schedule = schedule.gist_domain_params(known.align_params(
        schedule.get_domain().get_space()))
    declarations = tuple((name, symbols[name].declaration)
                         for name in sorted(free_names(items))
                         if name in symbols and symbols[name].declaration)
    code = statements_text(items)
    bindings = tuple((name, symbols[name].bound) for name in sorted(
        set(params) | {a.name for a in arrays}) if name in symbols and symbols[name].bound)
    return Scop(name=f"{region.function}_scop{index}", function=region.function, source=source,
                region=region.lines, parameters=params, context=ctx, arrays=arrays,
                statements=statements, schedule=schedule, location=region.location,
                original_code=code, declarations=declarations, bindings=bindings,
                parameter_types=tuple(t.name for t in types))


# A pointer parameter's device copy starts at its element 0 (its rows are counted
# from the footprint's largest index), so the kernels assume that no instance
# indexes it below 0: { p : no access of A at p has i_0 < 0 }.  C allows a negative
# index into a pointer that points inside an array; the host function then stops
# with the assumption instead of copying the wrong rows.
def _pointer_rows(statements: Iterable[Statement], arrays: tuple[Array, ...]) -> list[isl.Set]:
    """Per array passed as a pointer, the parameters at which no access indexes its
    first dimension below 0."""
    result = []
    for array in arrays:
        if not array.extents or array.extents[0] is not None:
            continue
        below = isl.Set.empty(isl.Space.params_alloc(CTX, 0))
        for stmt in statements:
            for access in stmt.accesses:
                if access.array != array.name:
                    continue
                cells = stmt.domain.apply(access.relation.intersect_domain(stmt.domain))
                negative = cells.intersect(isl.Set(
                    f"{{ {array.name}[" + ", ".join(f"i{k}" for k in range(array.rank))
                    + "] : i0 < 0 }").align_params(cells.get_space()))
                below = below.align_params(negative.get_space()).union(
                    negative.params().align_params(below.get_space()))
        if not below.is_empty():
            result.append(below.complement().coalesce())
    return result


def parameter_ranges(scop: Scop) -> isl.Set:
    """``min_T <= p <= max_T`` for every integer parameter, those of 64-bit types too
    (which the context leaves out): with the context, the values the generated code
    can meet."""
    known = isl.Set.universe(scop.context.get_space())
    for p in scop.parameters:
        ctype = parse_type(scop.parameter_type(p))
        if ctype is not None and not ctype.floating:
            known = known.intersect(isl.Set(range_constraint(p, ctype)).align_params(
                known.get_space()))
    return known


def _type_ranges(params: tuple[str, ...], types: tuple[Arith, ...]) -> list[isl.Set]:
    """``min_T <= p <= max_T`` for every parameter whose type is not ``int`` (an ``int``
    parameter keeps the context free of +-2^31, as before types were modelled)."""
    return [isl.Set(range_constraint(name, ctype)) for name, ctype in zip(params, types)
            if ctype != INT and (ctype.minimum > -LLONG_MAX - 1 or ctype.maximum != LLONG_MAX)]


def _simplified(stmt: Statement, known: isl.Set) -> Statement:
    """The statement with its domain simplified by what is known of the parameters
    (the context and their types' ranges), when that makes it simpler."""
    within = stmt.domain.gist_params(known).coalesce()
    if within.n_basic_set() < stmt.domain.n_basic_set() or \
            within.n_basic_set() == stmt.domain.n_basic_set() and \
            len(str(within)) < len(str(stmt.domain)):
        return replace(stmt, domain=within)
    return stmt


def _align_statement(stmt: Statement, space: isl.Space) -> Statement:
    accesses = tuple(replace(a, relation=a.relation.align_params(space))
                     for a in stmt.accesses)
    return replace(stmt, domain=stmt.domain.align_params(space), accesses=accesses)


def _array(builder: Builder, name: str, loc: Location,
           dead_scalars: frozenset[str] = frozenset()) -> tuple[Array, isl.Set]:
    """The Array of a referenced name, and the parameter constraint that its extents
    are non-negative (a C99 VLA dimension never has a negative size); a local of the
    SCoP is dead after it, like the function's scalars named in ``dead_scalars``."""
    member = builder.members.members.get(name)
    local = name in builder.locals
    sym = builder.locals.get(name) or builder.symbols[member.variable if member else name]
    nodes = tuple(sym.extents)
    element = sym.element_type
    if member is not None:       # a field array: the variable's extents, then the field's
        found = member.struct.field(member.field)
        assert found is not None
        nodes += tuple(c_ast.Constant("int", e) for e in found.extents)
        element = found.element_type
    extents = tuple(None if e is None else c_text(e) for e in nodes)
    for stride in nodes[1:] if sym.delinearised else ():   # named by no affine expression
        builder.is_param(c_text(stride))
    extent_set: isl.Set | None = None
    dims = tuple(f"i{k}" for k in range(len(nodes)))
    env = AffineEnv(dims, builder.is_param, builder.type_of, builder.typedefs)
    valid = isl.Set("{ : }")
    if all(e is not None for e in nodes):
        try:
            extent_set = env.universe()
            for k, node in enumerate(nodes):
                size = to_pwaff(node, env)
                if size.is_cst() and size.lt_set(env.constant(0)).is_equal(env.universe()):
                    raise error(f"array '{name}' has a negative size '{c_text(node)}' in "
                                f"dimension {k + 1}", sym.location or loc)
                var = env.variable(dims[k])
                extent_set = extent_set.intersect(var.ge_set(env.constant(0))).intersect(
                    var.lt_set(size))
                valid = valid.intersect(size.ge_set(env.constant(0)).params())
            extent_set = extent_set.set_tuple_name(name)
        except NotAffine:
            extent_set = None
    dead = local or (name in dead_scalars and not extents and member is None)
    return Array(name, element, extents, extent_set, sym.location or loc, local,
                 dead, member, delinearised=sym.delinearised), valid


def _context(params: tuple[str, ...], valid: list[isl.Set], user: str | None,
             location: Location) -> isl.Set:
    """Parameter values the SCoP assumes: the ranges of the parameters' types,
    non-negative array extents, conversions to signed types in range, and the user's
    ``--ctx`` constraints."""
    ctx = isl.Set(f"[{', '.join(params)}] -> {{ : }}")
    for constraint in valid:
        ctx = ctx.intersect(constraint)
    if user:
        try:
            extra = isl.Set(user)
        except isl.Error:
            raise error(f"--ctx '{user}' is not an isl parameter set", location) from None
        ctx = ctx.intersect(extra.params())
    if ctx.is_empty():
        raise error("no parameter value satisfies the SCoP's assumptions (array extents "
                    "are non-negative" + (f", --ctx '{user}'" if user else "") + ")", location)
    return ctx.coalesce()
