"""Parameter values to run a SCoP at: chosen, fixed by the user, or a dataset's sizes.

In:  a ``Scop``; values fixed with ``--param``; a PolyBench dataset name.
Out: a value for every parameter, with every access inside its array, in the
     context, in its C type's range and with the arrays in ``shapes.MEMORY_LIMIT``
     (``choose_parameters``); the sizes of a dataset (``dataset_parameters``: the
     file preprocessed with ``-D<DATASET>_DATASET``, parameter ``p`` taking the value
     of its size macro ``P``, as PolyBench's ``main`` passes ``int ni = NI;``).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Sequence

import islpy as isl

from ..diagnostics import Location, PolycuError, error
from ..frontend.preprocess import preprocess_text
from ..gpu.where import out_of_bounds_parameters
from ..model import Scop
from .cexpr import CExprError, c_integer
from .shapes import MEMORY_LIMIT, array_bytes, memory_error, parameter_set
from .signature import Signature, integer_bounds

#: Default upper bound of chosen parameter values: past one 32-wide tile and a
#: multiple of no usual tile or block size, so partial tiles are exercised.
DEFAULT_PARAMETER_LIMIT = 37

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

_PROBE = "polycu_size_of_"
_PROBE_RE = re.compile(rf"{_PROBE}(\w+)\s*=\s*\((.*)\)\s*;")


def _choose(scop: Scop, limit: int, fixed: Mapping[str, int], least: int = 1) -> dict[str, int]:
    """``choose_parameters`` without the memory bound, free values in ``least..limit``."""
    if not scop.parameters:
        return {}
    sig = Signature.of(scop)
    good = scop.context.subtract(out_of_bounds_parameters(scop))
    for name, value in fixed.items():
        low, high = integer_bounds(sig.parameter_dtype(name, scop.location))
        if not low <= int(value) <= high:
            raise error(f"{name}={int(value)} does not fit the type '{sig.parameter_type(name)}' "
                        f"of parameter '{name}' of {scop.name} ({low}..{high})", scop.location)
        good = good.intersect(parameter_set(scop, f"{name} = {int(value)}"))
    # Every array with an element: the context allows an extent of 0 (a VLA parameter
    # double A[n - 37][m] at n = 37), and no array can be made with none.  Past the
    # limit if that is what it takes (there, n >= 38).
    nonempty = good
    for array in sig.arrays:
        if array.extent_set is not None and array.rank:
            nonempty = nonempty.intersect(array.extent_set.params().align_params(
                nonempty.get_space()))

    # Free values stay inside their C type too (an unsigned char is at most 255).
    tops = {p: integer_bounds(sig.parameter_dtype(p, scop.location))[1]
            for p in scop.parameters if p not in fixed}

    def at_least(low: int, within: isl.Set, limit: int) -> isl.Set:
        bounds = " and ".join(f"{low} <= {p} <= {min(limit, top)}"
                              for p, top in tops.items()) or "1 = 1"
        return within.intersect(parameter_set(scop, bounds))

    if not nonempty.is_empty():
        wider = limit
        while at_least(least, nonempty, wider).is_empty() and wider < 2 ** 31:
            wider *= 2
        if not at_least(least, nonempty, wider).is_empty():
            good, limit = nonempty, wider
    if at_least(least, good, limit).is_empty():
        where = f" with {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else ""
        raise error(f"no values of the parameters of {scop.name} in {least}..{limit}{where} "
                    f"keep every access inside its array and satisfy the context {scop.context}",
                    scop.location)
    low, high = least, limit  # invariant: at_least(low) is not empty
    while low < high:
        mid = (low + high + 1) // 2
        if at_least(mid, good, limit).is_empty():
            high = mid - 1
        else:
            low = mid
    chosen = at_least(low, good, limit)
    n = len(scop.parameters)
    names = chosen.get_space().get_var_names(isl.dim_type.param)
    point = chosen.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, n).lexmax().sample_point()
    values = {name: point.get_coordinate_val(isl.dim_type.set, k).to_python()
              for k, name in enumerate(names)}
    return {p: int(values[p]) for p in scop.parameters}


def choose_parameters(scop: Scop, limit: int = DEFAULT_PARAMETER_LIMIT,
                      fixed: Mapping[str, int] | None = None,
                      memory: int = MEMORY_LIMIT) -> dict[str, int]:
    """Parameter values for a random test: in the context, every access inside its
    array, every free value in ``1..limit`` (and in its C type's range) and as large
    as possible, with the SCoP's arrays in at most ``memory`` bytes.

    The values are balanced first (the largest ``L`` such that all free parameters
    can be ``>= L``), then each is maximised in order (isl's lexmax), so that a
    constraint like ``n + m <= 30`` gives ``15, 15`` and not ``30, 0``.  When the
    arrays would not fit, ``limit`` shrinks until they do; when no smaller limit
    helps, free values may be 0; when nothing helps (constant extents, fixed values),
    a located error names the array.
    """
    try:
        return _fitting(scop, limit, dict(fixed or {}), memory)
    except PolycuError as exc:   # in the user's names, as --param takes them
        raise exc.reworded(scop.in_source) from None


def _fitting(scop: Scop, limit: int, fixed: dict[str, int], memory: int) -> dict[str, int]:
    """``choose_parameters`` in the model's names.  Free values start at 1; where the
    arrays fit in memory at none of those, at 0 (fuzz seed 5606277: with ``for
    (unsigned r = 3000000000u; r <= b + 3000000000u; ...)`` the accesses stay in
    bounds only at b = 0 or where the sum wraps, b >= 1294967296, where the VLA
    ``a[b + 6][b + 2]`` cannot be made)."""
    unknown = sorted(set(fixed) - set(scop.parameters))
    if unknown:
        verb = "is not a parameter" if len(unknown) == 1 else "are not parameters"
        raise error(f"{', '.join(unknown)} {verb} of {scop.name} "
                    f"(parameters: {', '.join(scop.parameters) or 'none'})", scop.location)
    values = _choose(scop, limit, fixed)
    fitted = _fitted(scop, limit, fixed, memory, values, 1)
    if fitted is None:
        try:
            fitted = _fitted(scop, limit, fixed, memory, _choose(scop, limit, fixed, 0), 0)
        except PolycuError:   # no values at all from 0
            pass
    if fitted is None:
        raise memory_error(scop, values, memory)
    return fitted


def _fitted(scop: Scop, limit: int, fixed: dict[str, int], memory: int,
            values: dict[str, int], least: int) -> dict[str, int] | None:
    """``values`` (``_choose``'s, free values from ``least``) if their arrays fit in
    ``memory``, else the values of the largest smaller limit that fit; None if none."""
    if sum(array_bytes(scop, values).values()) <= memory:
        return values
    if set(fixed) == set(scop.parameters):
        return None
    low, high = 0, limit - 1   # the largest limit whose values fit, 0 for none
    while low < high:
        mid = (low + high + 1) // 2
        try:
            fits = sum(array_bytes(scop, _choose(scop, mid, fixed, least)).values()) <= memory
        except PolycuError:  # no values at all in least..mid
            fits = False
        low, high = (mid, high) if fits else (low, mid - 1)
    return _choose(scop, low, fixed, least) if low else None


def dataset_parameters(path: str, parameters: Sequence[str], dataset: str, *,
                       defines: Sequence[str] = (), includes: Sequence[str] = ()
                       ) -> dict[str, int]:
    """The value of each parameter at a PolyBench dataset: the size macro of its name.

    The file is preprocessed as for loading it, with ``-D<dataset>_DATASET`` and a
    probe line ``polycu_size_of_p = (P);`` per parameter appended.
    """
    if dataset not in DATASETS:
        raise error(f"unknown dataset '{dataset}' (one of {', '.join(DATASETS)})")
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    probe = "".join(f"\n{_PROBE}{p} = ({p.upper()});" for p in parameters)
    pre = preprocess_text(text + "\n" + probe + "\n", path,
                          [*defines, f"{dataset}_DATASET"], includes)
    found = {m.group(1): m.group(2) for m in _PROBE_RE.finditer(pre.text)}
    values = {}
    for p in parameters:
        try:
            values[p] = c_integer(found[p])
        except (KeyError, CExprError):
            raise error(f"cannot size parameter '{p}' for dataset {dataset}: macro "
                        f"{p.upper()} does not expand to an integer (give --param "
                        f"{p}=VALUE)", Location(path)) from None
    return values


def scop_parameters(scop: Scop, path: str, *, dataset: str | None,
                    overrides: Mapping[str, int], defines: Sequence[str] = (),
                    includes: Sequence[str] = ()) -> dict[str, int] | None:
    """Sizes from ``overrides`` and the dataset; None when neither gives them all."""
    unknown = set(overrides) - set(scop.parameters)
    if unknown:
        raise error(f"--param names {', '.join(sorted(unknown))}, not parameters of "
                    f"{scop.name} ({', '.join(scop.parameters) or 'none'})", scop.location)
    missing = [p for p in scop.parameters if p not in overrides]
    values = dict(overrides)
    if missing and dataset:
        values.update(dataset_parameters(path, missing, dataset, defines=defines,
                                         includes=includes))
    return values if all(p in values for p in scop.parameters) else None
