"""The comparison of an array computed by generated code with the CPU reference's.

In:  the expected array (the reference's) and the actual one (emulated or GPU).
Out: ``ArrayComparison``: size, mismatches, the maximum relative error, the relative
     error norm, NaN counts and the first index where each differs.

An element matches when ``|a - e| <= rtol * max(|e|, s)`` with ``s = f * max |e|``
over the array, so values that cancel to almost nothing are judged on the array's
scale, not their own.  double: ``rtol = 1e-9``, ``f = 1e-3``.  float: ``rtol = 1e-4``,
``f = 1``, i.e. every element within 1e-4 of the array's largest magnitude: with
24-bit significands, recurrences such as deriche's filters amplify the last-bit
differences of ``expf`` between CUDA and glibc far beyond a per-element relative
bound where results cancel.  NaN matches NaN only, infinities match themselves,
integers must be equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..model import Scop
from .signature import Signature

DEFAULT_RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
#: ``f`` of the module docstring: the fraction of the array's largest magnitude
#: below which an element is judged on that scale instead of its own.
ARRAY_SCALE = {np.dtype(np.float64): 1e-3, np.dtype(np.float32): 1.0}


@dataclass(frozen=True)
class ArrayComparison:
    """How one array computed by the code under test compares with the reference."""

    name: str
    size: int
    mismatches: int
    max_rel_error: float
    first_mismatch: tuple[int, ...] | None = None
    expected: float | int | None = None     # at the first mismatch
    actual: float | int | None = None
    nan_expected: int = 0
    nan_actual: int = 0
    nan_mismatch: tuple[int, ...] | None = None   # first index where NaN-ness differs
    norm_error: float = 0.0     # ||a - e||_2 / ||e||_2 over the finite values

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        text = (f"{self.name}: {self.size} values, max relative error {self.max_rel_error:.3g}, "
                f"relative error norm {self.norm_error:.3g}, "
                f"{self.mismatches} mismatch{'es' if self.mismatches != 1 else ''}")
        if self.nan_expected or self.nan_actual:
            text += f", NaN: {self.nan_expected} expected, {self.nan_actual} computed"
        if self.first_mismatch is not None:
            text += (f"; first at {self.name}{''.join(f'[{i}]' for i in self.first_mismatch)}: "
                     f"expected {self.expected!r}, got {self.actual!r}")
        if self.nan_mismatch is not None and self.nan_mismatch != self.first_mismatch:
            text += f"; NaN differs first at {list(self.nan_mismatch)}"
        return text


def compare_arrays(name: str, expected: np.ndarray, actual: np.ndarray,
                   rtol: float | None = None) -> ArrayComparison:
    """Compare element by element (see the module docstring for the rule)."""
    if expected.shape != actual.shape:
        raise ValueError(f"{name}: shapes {expected.shape} and {actual.shape} differ")
    if rtol is None:
        rtol = DEFAULT_RTOL.get(expected.dtype, 0.0)
    e = expected.astype(np.float64) if expected.dtype.kind == "f" else expected
    a = actual.astype(np.float64) if actual.dtype.kind == "f" else actual
    if expected.dtype.kind == "f":
        e_nan, a_nan = np.isnan(e), np.isnan(a)
        finite = np.isfinite(e) & np.isfinite(a)
        scale = ARRAY_SCALE.get(expected.dtype, 1e-3) * float(np.max(np.abs(e[finite]),
                                                                      initial=0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            denominator = np.maximum(np.abs(e), scale)
            rel = np.where(finite, np.abs(a - e) / np.where(denominator > 0, denominator, 1.0),
                           0.0)
        same_special = (e_nan & a_nan) | (~finite & ~e_nan & ~a_nan & (e == a))
        bad = np.where(finite, rel > rtol, ~same_special)
        max_rel = float(np.max(rel, initial=0.0))
        norm = _relative_norm(e[finite], a[finite])
    else:
        e_nan = a_nan = np.zeros(e.shape, dtype=bool)
        diff = np.abs(e.astype(np.float64) - a.astype(np.float64))
        bad = diff > 0
        denominator = np.maximum(np.abs(e.astype(np.float64)), 1.0)
        max_rel = float(np.max(diff / denominator, initial=0.0))
        norm = _relative_norm(e.astype(np.float64), a.astype(np.float64))
    count = int(np.count_nonzero(bad))
    first = expected_value = actual_value = None
    if count:
        flat = int(np.flatnonzero(bad.ravel())[0])
        first = tuple(int(i) for i in np.unravel_index(flat, expected.shape))
        expected_value, actual_value = expected[first].item(), actual[first].item()
    nan_diff = np.flatnonzero((e_nan != a_nan).ravel())
    nan_first = (tuple(int(i) for i in np.unravel_index(int(nan_diff[0]), expected.shape))
                 if nan_diff.size else None)
    return ArrayComparison(name, int(expected.size), count, max_rel, first, expected_value,
                           actual_value, int(np.count_nonzero(e_nan)),
                           int(np.count_nonzero(a_nan)), nan_first, norm)


def compare_scop_arrays(scop: Scop, expected: Mapping[str, np.ndarray],
                        actual: Mapping[str, np.ndarray],
                        rtol: float | None = None) -> tuple[ArrayComparison, ...]:
    """Compare every array and scalar of the SCoP that code may change, but the
    scalars dead after the SCoP (no code can read them, and privatised ones stay
    unwritten on the host)."""
    found = []
    for a in Signature.of(scop).arrays:
        if a.dead_after:
            continue
        names = expected[a.name].dtype.names    # a struct variable: field by field
        found += [compare_arrays(f"{a.name}.{n}", expected[a.name][n], actual[a.name][n], rtol)
                  for n in names] if names else \
            [compare_arrays(a.name, expected[a.name], actual[a.name], rtol)]
    return tuple(found)


def _relative_norm(e: np.ndarray, a: np.ndarray) -> float:
    """||a - e||_2 / ||e||_2 (the absolute norm when e is all zeros), computed on
    values scaled by their largest magnitude so that huge entries do not overflow."""
    scale = float(max(np.max(np.abs(e), initial=0.0), np.max(np.abs(a), initial=0.0)))
    if not np.isfinite(scale) or scale == 0.0:
        scale = 1.0
    diff = float(np.linalg.norm(((a - e) / scale).ravel()))
    ref = float(np.linalg.norm((e / scale).ravel()))
    return diff / ref if ref > 0 else diff * scale
