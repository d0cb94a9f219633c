"""Check generated kernels on the GPU against the CPU reference (``polycu check``).

In:  a C file compiled by polycu (``compiled.Compiled``), the sizes to run at, a seed.
Out: per SCoP, the comparison of every live-out array between the GPU run of the
generated kernels and the original SCoP compiled by gcc, both on copies of the
same inputs (``report.EmulationReport``); a mismatch names the first wrong index.

Sizes, in order of precedence: ``--param NAME=VALUE``; ``--dataset D`` for
PolyBench-style files, where the file is compiled with ``-DD_DATASET`` and parameter
``p`` takes the value of the size macro ``P`` (``parameters.dataset_parameters``);
otherwise values chosen by ``parameters.choose_parameters``.

Inputs are fresh random values (seeded, ``inputs.random_inputs``), or what the
program's own initialisation function writes (``--init``, ``program_init.py``).

The build that is checked is the build that ``bench`` times: the device code
compiled with ``--fmad=false``, which rounds like the CPU reference (gcc with
``-ffp-contract=off``), so that "ok" is a statement about the code that was timed.
"""
from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..gpu.where import CPU
from ..model import Scop
from ..options import Options
from .compare import compare_scop_arrays
from .compiled import Compiled, compile_program
from .device import import_pycuda
from .inputs import DEFAULT_PROFILE, fresh_seed, random_inputs
from .parameters import DEFAULT_PARAMETER_LIMIT, choose_parameters, scop_parameters
from .program_init import init_inputs
from .pycuda_run import DeviceProgram
from .reference import data_index_hint, run_reference
from .report import EmulationReport
from .turns import turn


@dataclass(frozen=True, eq=False)
class Target:
    """One SCoP of a file with its generated code, at fixed sizes."""

    scop: Scop
    description: Mapping[str, Any]
    params: dict[str, int]
    path: str = ""
    defines: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()

    def inputs(self, seed: int, init: str | None = None,
               profile: str = DEFAULT_PROFILE) -> dict[str, np.ndarray]:
        """Seeded random inputs of a ``profile``, or what the program's function
        ``init`` writes."""
        if init is None:
            return random_inputs(self.scop, self.params, seed, profile)
        return init_inputs(self.path, self.scop, self.params, init, seed,
                           defines=self.defines, includes=self.includes, profile=profile)


def targets_of(compiled: Compiled, *, dataset: str | None = None,
               overrides: Mapping[str, int] | None = None,
               limit: int = DEFAULT_PARAMETER_LIMIT) -> list[Target]:
    """Each SCoP of a compiled file at its sizes (compiled with ``-D<dataset>_DATASET``
    when ``dataset`` is given)."""
    options = compiled.options
    result = []
    for scop, description in compiled.pairs():
        fixed = {k: v for k, v in scop.model_values(overrides or {}).items()
                 if k in scop.parameters}
        sized = scop_parameters(scop, compiled.path, dataset=dataset, overrides=fixed,
                                defines=options.define, includes=options.include_dir)
        # choose_parameters also proves that every access stays inside its array.
        params = choose_parameters(scop, limit, sized if sized is not None else fixed)
        result.append(Target(scop, description, params, compiled.path,
                             tuple(options.define), tuple(options.include_dir)))
    return result


def at_dataset(options: Options, dataset: str | None) -> Options:
    """``options`` compiling with ``-D<dataset>_DATASET`` (unchanged without one)."""
    return options.replace(define=[*options.define, f"{dataset}_DATASET"]) if dataset \
        else options


def targets(path: str, options: Options, *, dataset: str | None = None,
            overrides: Mapping[str, int] | None = None,
            limit: int = DEFAULT_PARAMETER_LIMIT) -> list[Target]:
    """Compile ``path`` (with ``-D<dataset>_DATASET``) and size each of its SCoPs."""
    return targets_of(compile_program(path, at_dataset(options, dataset)), dataset=dataset,
                      overrides=overrides, limit=limit)


#: nvcc options of the build that is checked and timed: no contraction of a*b+c
#: into an FMA, as in the CPU reference (see the module docstring); with --fmad,
#: nvcc's default contraction (FMA_OPTIONS).
DEVICE_OPTIONS = ("--fmad=false",)
FMA_OPTIONS = ("--fmad=true",)


@dataclass(frozen=True, eq=False)
class Checked:
    """The comparison of one SCoP and the program that ran: the one to time."""

    report: EmulationReport
    program: DeviceProgram | None   # None: the SCoP runs on the CPU, nothing to time
    inputs: dict[str, np.ndarray]


def check_target(target: Target, seed: int, *, rtol: float | None = None,
                 timeout: float = 600.0, init: str | None = None,
                 profile: str = DEFAULT_PROFILE, fmad: bool = False) -> Checked:
    """Run the CPU reference and the GPU kernels on copies of the same inputs and
    compare every array they may change.

    One build is made (``DEVICE_OPTIONS``, or ``FMA_OPTIONS`` with ``fmad``): the
    program returned is the one that was compared, so a timing of it is a timing of
    checked code.  A SCoP left to the CPU (``gpu.where``) runs nothing on the GPU:
    its report says why, and no program comes back."""
    scop, params = target.scop, target.params
    if target.description["runs_on"] == CPU:
        return Checked(EmulationReport(scop.name, params, seed, (), location=scop.location,
                                       on_cpu=target.description["where"]["why"]), None, {})
    options = FMA_OPTIONS if fmad else DEVICE_OPTIONS
    # The reference (gcc, then its run, in child processes) and nvcc run side by side.
    with concurrent.futures.ThreadPoolExecutor(1) as beside:
        reference = beside.submit(run_reference, scop, params,
                                  lambda kind: target.inputs(seed, init, kind), profile,
                                  timeout=timeout)
        DeviceProgram.prebuild(target.description, options)
        ran = reference.result()
    with turn():    # the GPU is this process's while the program runs on it
        program = DeviceProgram(target.description, params, ran.inputs, options=options)
        actual = program.run()
    comparisons = compare_scop_arrays(scop, ran.expected, actual, rtol)
    report = EmulationReport(scop.name, params, seed, comparisons, location=scop.location,
                             profile=ran.profile, note=ran.note,
                             caveat=data_index_hint(scop))
    return Checked(report, program, ran.inputs)


def check_file(path: str, options: Options | None = None, *, dataset: str | None = None,
               params: Mapping[str, int] | None = None,
               limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
               profile: str = DEFAULT_PROFILE) -> list[EmulationReport]:
    """Compile ``path``, run every SCoP on the GPU and on the CPU, compare (the library
    form of ``polycu check``); a report per SCoP, mismatches included."""
    import_pycuda()  # before any compilation: without a GPU nothing can be checked
    seed = fresh_seed() if seed is None else seed
    options = options or Options()
    return [check_target(target, seed, init=options.init, profile=profile,
                         fmad=options.fmad).report
            for target in targets(path, options, dataset=dataset, overrides=params,
                                  limit=limit)]
