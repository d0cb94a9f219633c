"""Building, checking and timing one configuration of a SCoP.

In:  the SCoP's file, the base options, a ``space.Config``; the target (SCoP and
     sizes) and a seed.
Out: ``Built`` (the configuration's kernel description, or why it failed to build)
     and ``Measured`` (ok with a time, or the mismatch that discards it).

Building (polycu, then nvcc or the emulation's g++) is the slow part and runs in
worker processes (``build``); the products land in the compilers' caches on disk
(PyCUDA's and ``runtime.native``'s), so the evaluators, on this host, find them
built (one on another host builds them again).  The evaluators are the
``runtime.workers`` of ``--gpus`` and ``--ray``: each builds its own
(``EvaluatorRecipe``), so the CPU reference runs once per SCoP and worker
(``GpuEvaluator``, ``EmulationEvaluator``), and every configuration is compared with
it on copies of the same inputs before it is timed: a configuration whose results
differ is discarded, never timed and never cached.
"""
from __future__ import annotations

import hashlib
import json
import platform
import time
from dataclasses import dataclass
from typing import Any, Mapping

from ..diagnostics import Location, PolycuError, error
from ..driver import load_scops
from ..options import Options
from ..runtime.check import DEVICE_OPTIONS, FMA_OPTIONS, Target, at_dataset
from ..runtime.compare import compare_scop_arrays
from ..runtime.compiled import compile_program
from ..runtime.emulate import build_emulated, emulation_env, scop_translation_unit
from ..runtime.inputs import DEFAULT_PROFILE
from ..runtime.reference import run_reference
from ..runtime.turns import turn


@dataclass(frozen=True)
class Built:
    """A configuration's kernel description (one SCoP's entry), or why there is none."""

    entry: Mapping[str, Any] | None
    error: str = ""

    @property
    def code(self) -> str:
        """A hash of what runs (device code and host program): configurations with the
        same code are the same configuration."""
        if self.entry is None:
            return ""
        what = json.dumps([self.entry["device_source"], self.entry["host"]], sort_keys=True)
        return hashlib.sha256(what.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Measured:
    """The outcome of one configuration: 'ok' with its median kernel time, else
    'mismatch' or 'failed' with the reason."""

    status: str
    seconds: float | None = None
    detail: str = ""


def build(path: str, values: Mapping[str, Any], changes: Mapping[str, Any], gpu: bool,
          nvcc_options: tuple[str, ...], arch: str | None) -> Built:
    """Compile ``path`` with the base option ``values`` and the configuration's
    ``changes``, then build its code for the evaluator (nvcc for the GPU, g++ for
    the emulation) into the caches; a failure is a ``Built`` without entry."""
    try:
        # a configuration is GPU code, even of a SCoP the cost model leaves to the CPU
        compiled = compile_program(path, Options(**values).replace(**changes, run_on="gpu"))
        pairs = compiled.pairs()
        if len(pairs) != 1:
            return Built(None, f"tune takes files of exactly one SCoP; {path} has "
                               f"{len(pairs)}")
        scop, entry = pairs[0]
        if gpu:
            from pycuda.compiler import compile as nvcc
            nvcc(entry["device_source"], options=list(nvcc_options), no_extern_c=True,
                 arch=arch)
        else:
            build_emulated(scop, scop_translation_unit(entry), entry["host_function"])
        return Built(entry)
    except PolycuError as exc:
        return Built(None, str(exc))
    except Exception as exc:  # noqa: BLE001 - nvcc's own errors: the configuration fails
        return Built(None, f"{type(exc).__name__}: {exc}".strip()[:2000])


class GpuEvaluator:
    """Checks a configuration on the GPU against the CPU reference, then times its
    kernels (CUDA events, a CUDA graph of the launch sequence: ``DeviceProgram``)."""

    gpu = True

    def __init__(self, target: Target, seed: int, *, repeat: int = 10, fmad: bool = False,
                 init: str | None = None, timeout: float = 600.0):
        from ..runtime.device import arch_option, import_pycuda
        self.drv = import_pycuda()
        self.target, self.repeat = target, repeat
        self.options = FMA_OPTIONS if fmad else DEVICE_OPTIONS
        self.arch = arch_option()
        self.device = self.drv.Context.get_device().name()
        self.ran = run_reference(target.scop, target.params,
                                 lambda kind: target.inputs(seed, init, kind),
                                 DEFAULT_PROFILE, timeout=timeout)

    def measure(self, entry: Mapping[str, Any]) -> Measured:
        from ..runtime.pycuda_run import DeviceProgram
        try:
            with turn():    # no other process's kernels in this one's times
                program = DeviceProgram(entry, self.target.params, self.ran.inputs,
                                        options=self.options)
                compared = compare_scop_arrays(self.target.scop, self.ran.expected,
                                               program.run())
                wrong = [c for c in compared if not c.ok]
                if wrong:
                    return Measured("mismatch", detail=wrong[0].describe())
                timing = program.time(self.repeat, kernel_only=True)
            return Measured("ok", timing.kernel.median)
        except Exception as exc:  # noqa: BLE001 - a launch failure discards the configuration
            return Measured("failed", detail=f"{type(exc).__name__}: {exc}"[:2000])


class EmulationEvaluator:
    """Checks a configuration by emulating its CUDA on the CPU (threads, barriers and
    shared memory for real) against the CPU reference; its time is the emulation's
    wall time, which says nothing of a GPU: it is there so that the search runs, and
    is tested, where there is no GPU."""

    gpu = False
    arch = None
    options: tuple[str, ...] = ()

    def __init__(self, target: Target, seed: int, *, repeat: int = 1, timeout: float = 300.0,
                 init: str | None = None, **_: Any):
        self.target, self.repeat, self.timeout = target, repeat, timeout
        self.device = emulation_device()
        self.ran = run_reference(target.scop, target.params,
                                 lambda kind: target.inputs(seed, init, kind),
                                 DEFAULT_PROFILE, timeout=timeout)

    def measure(self, entry: Mapping[str, Any]) -> Measured:
        scop = self.target.scop
        try:
            function = build_emulated(scop, scop_translation_unit(entry),
                                      entry["host_function"])
            times = []
            for _ in range(self.repeat):
                actual = {k: v.copy() for k, v in self.ran.inputs.items()}
                start = time.perf_counter()
                outcome = function(self.target.params, actual, timeout=self.timeout,
                                   env=emulation_env())
                times.append(time.perf_counter() - start)
                wrong = [c for c in compare_scop_arrays(scop, self.ran.expected, actual)
                         if not c.ok]
                if wrong:
                    return Measured("mismatch", detail=wrong[0].describe())
                if outcome.live_allocations:
                    return Measured("failed", detail=f"{outcome.live_allocations} device "
                                                     "allocation(s) never freed")
            return Measured("ok", sorted(times)[len(times) // 2])
        except PolycuError as exc:
            return Measured("failed", detail=str(exc))


Evaluator = GpuEvaluator | EmulationEvaluator


@dataclass(frozen=True)
class EvaluatorRecipe:
    """What a worker builds its evaluator from, wherever it runs: the SCoP loaded
    again from its file (isl's objects do not pickle) at the very sizes, the
    reference run on the same seeded inputs, so every worker checks against the
    same values."""

    path: str
    values: Mapping[str, Any]       # the base options, by dest
    params: Mapping[str, int]       # every parameter's value
    dataset: str | None             # as ``runtime.check.targets`` takes it
    gpu: bool
    seed: int
    repeat: int
    fmad: bool
    init: str | None

    def evaluator(self, target: Target) -> Evaluator:
        """The evaluator of ``target`` (this recipe's SCoP, compiled here)."""
        if self.gpu:
            need_gpu()
            return GpuEvaluator(target, self.seed, repeat=self.repeat, fmad=self.fmad,
                                init=self.init)
        return EmulationEvaluator(target, self.seed, repeat=self.repeat, init=self.init)

    def __call__(self) -> Evaluator:
        """The evaluator, from the SCoP as the frontend reads it: the reference and the
        comparisons need no generated code, and the sizes are the recipe's, so the
        pipeline's placement and isl's ASTs (seconds at LARGE) are not redone per
        worker (``runtime.check.targets`` reads the file with the same -D)."""
        options = at_dataset(Options(**self.values), self.dataset)
        (scop,) = load_scops(self.path, options)
        return self.evaluator(Target(scop, {}, dict(self.params), self.path,
                                     tuple(options.define), tuple(options.include_dir)))


def measure_on(evaluator: Evaluator, entry: Mapping[str, Any]) -> Measured:
    """A worker's task: check and time one built configuration."""
    return evaluator.measure(entry)


@dataclass(frozen=True)
class Where:
    """What a worker measures on: the device's name (the cache entry's) and, for the
    GPU, the nvcc options and architecture the builds use, so it finds them built."""

    device: str
    nvcc_options: tuple[str, ...]
    arch: str | None


def describe(evaluator: Evaluator, _: object) -> Where:
    """A worker's task: what it measures on."""
    return Where(evaluator.device, evaluator.options, evaluator.arch)


def emulation_device() -> str:
    """The device name the emulation's measurements are cached under."""
    return f"CPU emulation ({platform.machine()})"


def device_here(gpu: bool) -> str:
    """The device an evaluator in this process measures on (the cache slot's)."""
    if not gpu:
        return emulation_device()
    from ..runtime.device import import_pycuda
    return import_pycuda().Context.get_device().name()


def need_gpu() -> None:
    """PyCUDA and a device, before anything is compiled; else a located error that
    names the emulation as the way to run without them."""
    from ..runtime.device import import_pycuda
    try:
        import_pycuda()
    except PolycuError as exc:
        raise error(f"{exc.diagnostics[0].message}; without a GPU, --evaluator emulate "
                    "checks the search on the CPU", Location("--evaluator")) from None
