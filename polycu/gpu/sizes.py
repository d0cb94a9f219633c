"""Tile and block sizes of the mapping, and PPCG's ``--sizes`` syntax for them.

``--sizes '{ kernel[0] -> tile[32,32]; kernel[i] -> block[16,8] }'`` is an isl
union map from kernel identifiers to sizes.  A map whose domain is one kernel
(``kernel[0]``) or a bounded set of kernels (``kernel[i] : 0 <= i <= 2``) gives the
sizes of those kernels; an unbounded one (``kernel[i]``) gives the default of
every kernel and is stored under the key ``ANY`` (-1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import islpy as isl

from ..diagnostics import Location, error
from ..model import maps_of

ANY = -1
KINDS = ("tile", "block", "grid")
SIZES = dict[int, dict[str, tuple[int, ...]]]
DEFAULT_TILE = 32


@dataclass(frozen=True)
class Sizes:
    """Tile and block sizes: ``tile_size`` for every member unless ``per_kernel`` says
    otherwise (``{kernel index or ANY: {'tile': (..), 'block': (..)}}``, PPCG's --sizes:
    tile sizes in band-member order, block sizes in x, y, z order); with
    ``single_block`` (--no-single-block turns it off) a program of many small
    launches may run whole in one block of ``cost.BLOCK_THREADS`` threads."""

    tile_size: int = DEFAULT_TILE
    per_kernel: Mapping[int, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)
    single_block: bool = True

    def lookup(self, kernel: int, kind: str) -> tuple[int, ...] | None:
        return sizes_for(self.per_kernel, kernel, kind)


def parse_sizes(text: str | None, where: Location | None = None) -> SIZES:
    """``{kernel id (or ANY): {'tile'|'block'|'grid': sizes}}`` from PPCG's syntax."""
    where = where or Location("--sizes")
    if not text or not text.strip():
        return {}
    try:
        umap = isl.UnionMap(text)
    except isl.Error:
        raise error(f"not an isl union map: {text!r} (expected e.g. "
                    "'{ kernel[0] -> tile[32,32]; kernel[i] -> block[16,8] }')", where) from None
    result: SIZES = {}
    for m in maps_of(umap):
        kind = m.get_tuple_name(isl.dim_type.out)
        if m.get_tuple_name(isl.dim_type.in_) != "kernel" or kind not in KINDS \
                or m.dim(isl.dim_type.in_) != 1:
            raise error(f"'{m}' must map kernel[i] to one of "
                        f"{', '.join(k + '[...]' for k in KINDS)}", where)
        if m.dim(isl.dim_type.param):
            raise error(f"'{m}' must not use parameters", where)
        # isl merges 'kernel[0] -> block[64]; kernel[2] -> block[32]' into one map:
        # each kernel's sizes are its own image
        for kernel in _kernels(m.domain(), m, where):
            image = m if kernel == ANY else m.intersect_domain(
                isl.Set(f"{{ kernel[{kernel}] }}").align_params(m.get_space()))
            result.setdefault(kernel, {})[kind] = _single_point(image.range(), m, where)
    return result


def sizes_for(sizes: Mapping[int, Mapping[str, tuple[int, ...]]], kernel: int,
              kind: str) -> tuple[int, ...] | None:
    """The sizes of ``kind`` for kernel number ``kernel``, falling back to ``ANY``."""
    for key in (kernel, ANY):
        if kind in sizes.get(key, {}):
            return tuple(sizes[key][kind])
    return None


def _single_point(range_: isl.Set, m: isl.Map, where: Location) -> tuple[int, ...]:
    if not range_.is_singleton() or range_.is_empty():
        raise error(f"'{m}' must give one size vector", where)
    point = range_.sample_point()
    values = tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python()
                   for k in range(range_.dim(isl.dim_type.set)))
    if not values or any(v <= 0 for v in values):
        raise error(f"sizes must be positive integers in '{m}'", where)
    return values


def _kernels(domain: isl.Set, m: isl.Map, where: Location) -> list[int]:
    if not domain.is_bounded():
        return [ANY]
    ids: list[int] = []
    domain.foreach_point(lambda p: ids.append(
        p.get_coordinate_val(isl.dim_type.set, 0).to_python()))
    if any(i < 0 for i in ids):
        raise error(f"kernel numbers must be non-negative in '{m}'", where)
    return sorted(ids)
