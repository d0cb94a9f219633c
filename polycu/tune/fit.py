"""Fitting the cost model's constants to measured times (``polycu device --fit``).

In:  the files ``polycu tune --out`` writes (the C file, the winner's -D macros,
     parameter values and device, every evaluation's option changes, status and
     seconds), and the base options (-I, -D).
Out: ``Fit``: the constants of ``memory.features``' model (seconds per unit of
     each feature, all >= 0), the Spearman rank correlation of its estimates with
     the times per file and overall, in-sample and held out; stored for the
     device the times were measured on (``polycu.fitted``).

Each measured configuration is rebuilt (compile only, no GPU, without a fit of
its own: ``--no-fitted-cost``, so that a fit never feeds on an earlier one) and
its features taken at the parameter values it was timed at.
"""
from __future__ import annotations

import concurrent.futures
import datetime
import io
import json
import math
import multiprocessing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..diagnostics import Location, Reporter, error
from ..driver import load_scops, placement_of
from ..fitted import store
from ..memory.features import FEATURES, Features, features, params_point, predict
from ..options import OPTIONS, Options


@dataclass(frozen=True)
class Sample:
    """One measured configuration: where it comes from, its features and time."""

    source: str                 # the measurement file
    flags: tuple[str, ...]
    features: Features
    seconds: float


@dataclass(frozen=True)
class Fit:
    """The fitted constants and how well their estimates rank the times."""

    device: str
    constants: dict[str, float]
    samples: int
    in_sample: dict[str, float]   # Spearman per measurement file, and "overall"
    held_out: dict[str, float]
    validation: str               # how the held-out estimates were made

    def record(self) -> dict[str, Any]:
        """What ``polycu.fitted`` stores for the device."""
        def finite(said: dict[str, float]) -> dict[str, float | None]:
            return {k: None if math.isnan(v) else v for k, v in said.items()}
        return {"features": list(FEATURES), "constants": self.constants,
                "samples": self.samples, "spearman": {"in_sample": finite(self.in_sample),
                                                      "held_out": finite(self.held_out)},
                "validation": self.validation,
                "fitted": datetime.datetime.now().isoformat(timespec="seconds")}


def _rebuilt(path: str, values: dict[str, Any], changes: dict[str, Any],
             params: dict[str, int]) -> tuple[float, ...]:
    """The features of one configuration of ``path`` (run in a worker process)."""
    options = Options(**values).replace(**changes)
    scop = load_scops(path, options)[0]
    placed = placement_of(scop, options, Reporter(stream=io.StringIO()))
    return features(placed, params_point(placed.program.scop, params)).values


def samples(files: Sequence[str], options: Options, jobs: int = 1) -> tuple[str, list[Sample]]:
    """The device and the measured configurations of every file (each rebuilt with
    ``options``' -I, -U and -D plus the file's own -D macros)."""
    device, work = None, []
    for name in files:
        data = _read(name)
        winner = data.get("winner")
        if not winner:
            continue                               # nothing passed: no time to fit
        if device is not None and winner["device"] != device:
            raise error(f"measured on {winner['device']}, not on {device} like the files "
                        "before it: fit one device at a time", Location(name))
        device = winner["device"]
        defines = [*options.define, *(d for d in winner["defines"] if d not in options.define)]
        base = options.replace(define=defines, tuned=False, fitted_cost=False)
        values = {opt.dest: getattr(base, opt.dest) for opt in OPTIONS}
        for e in data["evaluations"]:
            if e["status"] == "ok" and e["same_as"] is None and e["seconds"]:
                work.append((name, data["path"], values, e, winner["params"]))
    if device is None:
        raise error("no measured configuration in the files (polycu tune --out writes "
                    "them)", Location(files[0] if files else "--fit"))
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        found = list(pool.map(_rebuilt, [w[1] for w in work], [w[2] for w in work],
                              [w[3]["changes"] for w in work], [w[4] for w in work]))
    return device, [Sample(w[0], tuple(w[3]["flags"]), Features(f), float(w[3]["seconds"]))
                    for w, f in zip(work, found)]


def _read(name: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(name).read_text())
    except (OSError, ValueError) as exc:
        raise error(f"not a measurement file of polycu tune --out: {exc}",
                    Location(name)) from None
    if not isinstance(data, dict) or "evaluations" not in data or "path" not in data:
        raise error("not a measurement file of polycu tune --out (no 'path' and "
                    "'evaluations')", Location(name))
    return data


# Lawson and Hanson's active-set method: min ||A x - b|| subject to x >= 0.
def nnls(a: np.ndarray, b: np.ndarray, iterations: int = 500) -> np.ndarray:
    """The non-negative least-squares solution of ``a x = b``."""
    n = a.shape[1]
    x, passive = np.zeros(n), np.zeros(n, dtype=bool)
    tolerance = 1e-12 * max(1.0, float(np.abs(a).max(initial=0.0)))
    for _ in range(iterations):
        gradient = a.T @ (b - a @ x)
        if passive.all() or gradient[~passive].max(initial=-1.0) <= tolerance:
            break
        passive[np.argmax(np.where(passive, -np.inf, gradient))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            shrinking = passive & (z <= 0)
            alpha = np.min(x[shrinking] / (x[shrinking] - z[shrinking]))
            x = x + alpha * (z - x)
            passive &= x > tolerance
    return x


# Minimise  sum_i ((sum_f c_f F_if - t_i) / t_i)^2  over c >= 0.
def fit_constants(rows: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Constants (>= 0) minimising the relative error of the estimates.

    Relative, because the times of a set of kernels span orders of magnitude: an
    absolute error would fit the slowest kernel alone.  Relative rather than
    logarithmic, because it keeps the problem a linear least squares under
    non-negativity (the rows divided by their times), solved exactly by ``nnls``
    with no starting point or step to choose.  Each column is scaled to unit norm
    first (features range from a few launches to billions of bytes)."""
    a = rows / seconds[:, None]
    norms = np.linalg.norm(a, axis=0)
    norms[norms == 0] = 1.0
    return nnls(a / norms, np.ones(len(seconds))) / norms


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the mean of their ranks."""
    order = np.argsort(values, kind="mergesort")
    result = np.empty(len(values))
    result[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        tied = values == value
        result[tied] = result[tied].mean()
    return result


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's of the ranks); nan when either side
    has fewer than two distinct values."""
    x, y = ranks(np.asarray(a, float)), ranks(np.asarray(b, float))
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def held_out(rows: np.ndarray, seconds: np.ndarray, groups: Sequence[str],
             folds: int = 5) -> tuple[np.ndarray, str]:
    """Each sample's estimate by constants fitted without it: leaving its whole file
    out (a tuned space the fit never saw) when there are several files, else
    ``folds``-fold over the configurations."""
    estimates = np.empty(len(seconds))
    names = sorted(set(groups))
    if len(names) > 1:
        parts = [np.array([g == name for g in groups]) for name in names]
        how = f"leave one file out ({len(names)} files)"
    else:
        k = min(folds, len(seconds))
        parts = [np.arange(len(seconds)) % k == fold for fold in range(k)]
        how = f"{k}-fold over the configurations"
    for test in parts:
        estimates[test] = rows[test] @ fit_constants(rows[~test], seconds[~test])
    return estimates, how


def _correlations(found: list[Sample], estimates: np.ndarray) -> dict[str, float]:
    result = {}
    for name in dict.fromkeys(s.source for s in found):
        mine = [k for k, s in enumerate(found) if s.source == name]
        result[name] = spearman(estimates[mine], [found[k].seconds for k in mine])
    result["overall"] = spearman(estimates, [s.seconds for s in found])
    return result


def fit(device: str, found: list[Sample]) -> Fit:
    """The constants fitted to ``found`` and their correlations."""
    rows = np.array([s.features.values for s in found], float)
    seconds = np.array([s.seconds for s in found], float)
    constants = dict(zip(FEATURES, map(float, fit_constants(rows, seconds))))
    inside = np.array([predict(constants, s.features) for s in found])
    outside, how = held_out(rows, seconds, [s.source for s in found])
    return Fit(device, constants, len(found), _correlations(found, inside),
               _correlations(found, outside), how)


def report(result: Fit) -> str:
    """The fit in a few lines: constants, then the correlations per file."""
    lines = [f"cost model fitted for {result.device} on {result.samples} measured "
             "configurations (seconds per unit):"]
    lines += [f"  {name:8s} {value:.4g}" for name, value in result.constants.items()]
    lines.append(f"Spearman rank correlation of estimates and times (held out: "
                 f"{result.validation}):")
    width = max(len(k) for k in result.in_sample)
    lines.append(f"  {'':{width}s}  in-sample  held-out")
    for name, value in result.in_sample.items():
        lines.append(f"  {name:{width}s}  {value:9.3f}  {result.held_out[name]:8.3f}")
    return "\n".join(lines)


def run_fit(files: Sequence[str], options: Options,
            say: Callable[[str], None] = print) -> Fit:
    """``polycu device --fit FILES``: rebuild, fit, store for the device, report."""
    device, found = samples(files, options, options.jobs)
    if len(found) < 2:
        raise error(f"{len(found)} measured configuration(s): too few to fit",
                    Location(files[0]))
    result = fit(device, found)
    where = store(device, result.record())
    say(report(result))
    say(f"stored for {device} in {where}")
    return result
