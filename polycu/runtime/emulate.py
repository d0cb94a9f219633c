"""CPU emulation of the CUDA polycu generates for a SCoP, checked against the original.

In:  a ``Scop`` and the generated CUDA of it (kernels plus the contract-1 host
     function), or a file's SCoPs and their kernel description (``Compiled``).
Out: per SCoP an ``EmulationReport``: array by array, what the emulated kernels
     computed compared with what gcc's build of the original computes on the same
     inputs, device allocations left, and whether nvcc builds the same CUDA.

Parameter values are chosen with isl so that every access stays inside the arrays'
extents and the arrays fit in memory (``parameters.choose_parameters``), arrays are
filled with seeded random values of their element types (``inputs.random_inputs``),
and the CPU reference (``reference.run_reference``) and the emulated host function
(the CUDA built by g++ against ``include/polycu_emu.h``, called through ctypes in a
child process) run on copies of them; they are compared as ``compare`` says.
Whole programs are emulated by ``programs``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..codegen.host import HOST_HELPERS
from ..codegen.objects import HOST_HELPERS as OBJECT_HELPERS
from ..diagnostics import Location, error
from ..gpu.where import CPU
from ..model import Scop
from ..options import Options
from .compare import compare_scop_arrays
from .compiled import compile_program
from .inputs import DEFAULT_PROFILE, fresh_seed, random_inputs
from .native import NativeFunction, Outcome, build_cached
from .nvcc import nvcc_check
from .parameters import DEFAULT_PARAMETER_LIMIT, choose_parameters
from .reference import data_index_hint, run_reference
from .report import EmulationReport
from .signature import Signature

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
EMULATION_HEADER = INCLUDE_DIR / "polycu_emu.h"

#: g++ flags of emulated code; -O1 keeps big generated files quick to build.
#: -fno-ivopts: g++ 12.2 at -O1 drops the call of a function holding a loop over
#: -c0 (induction-variable optimisation, then ipa-pure-const; tests/data/fuzz_repro).
EMULATION_FLAGS = ("-std=c++17", "-O1", "-fno-ivopts", "-fopenmp", "-ffp-contract=off",
                   "-DPOLYCU_EMULATE")


def emulation_env() -> dict[str, str]:
    """OpenMP settings under which a block of 1024 threads gets its full team.

    Threads sleep while they wait: with up to 1024 emulated threads on a few cores,
    spinning would starve the threads that have work to do.  Their stacks are 1 MiB
    unless the user says otherwise (a GPU thread has 1 KiB by default; 1024 threads
    with the usual 8 MiB would reserve 8 GiB).
    """
    env = {"OMP_DYNAMIC": "false", "OMP_WAIT_POLICY": "passive"}
    if "OMP_STACKSIZE" not in os.environ and "GOMP_STACKSIZE" not in os.environ:
        env["OMP_STACKSIZE"] = "1M"
    limit = os.environ.get("OMP_THREAD_LIMIT")
    if limit is not None and (not limit.isdigit() or int(limit) < 1024):
        env["OMP_THREAD_LIMIT"] = "1024"
    return env


ENTRY_PREFIX = "polycu_emulated_"


def emulation_source(scop: Scop, cuda_source: str, host_function: str) -> str:
    """The translation unit of the emulated SCoP: the generated CUDA, then a C-linkage
    entry with the contract-1 signature that calls its host function."""
    sig = Signature.of(scop)
    args = [*sig.parameters, *(f"polycu_arg_{a.name}" for a in sig.arrays)]
    return "\n".join([
        cuda_source.rstrip(),
        "",
        "/* Entry point of polycu's CPU emulation (C linkage, for ctypes). */",
        f'extern "C" {sig.prototype(ENTRY_PREFIX + scop.name)}',
        "{",
        f"  {host_function}({', '.join(args)});",
        "}",
        "",
    ])


def build_emulated(scop: Scop, cuda_source: str, host_function: str, *,
                   compiler: str = "g++", mma: int | None = None) -> NativeFunction:
    """Compile generated CUDA (kernels and host function) for the CPU, cached; with
    ``mma`` (4 or 8: mma.m8n8k4 or m16n8k8) the tensor-core kernels run their mma
    path instead of the products in C's order (``codegen/mma.py``)."""
    command = [compiler, *EMULATION_FLAGS, "-fPIC", "-shared", "-I", str(INCLUDE_DIR),
               *([f"-DPOLYCU_EMULATE_MMA={mma}"] if mma is not None else [])]
    library = build_cached(emulation_source(scop, cuda_source, host_function), command,
                           suffix=".so", language="c++", location=scop.location,
                           extra_key=EMULATION_HEADER.read_text())
    return NativeFunction(library, ENTRY_PREFIX + scop.name, Signature.of(scop),
                          f"the emulated kernels of {scop.name}", scop.location,
                          hint=data_index_hint(scop))


def emulate_scop(scop: Scop, cuda_source: str, host_function: str, *,
                 params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None, timeout: float = 300.0,
                 profile: str = DEFAULT_PROFILE, nvcc: bool = True,
                 mma: int | None = None) -> EmulationReport:
    """Run the original SCoP (gcc) and the generated CUDA (emulated) on the same
    fresh random inputs and compare every array and scalar they can change (but the
    scalars dead after the SCoP: no code can read them, and privatised ones stay
    unwritten on the host).

    ``params`` fixes some parameter values (the others are chosen); ``seed`` picks
    the inputs (a fresh one, reported, when None), ``profile`` their kind
    (``random_inputs``).  With ``nvcc``, the CUDA is also built by nvcc when it is
    installed (``nvcc_check``): a build it refuses fails the report.  ``mma``
    emulates the tensor-core kernels' mma path (``build_emulated``).
    """
    values = choose_parameters(scop, limit, params)
    seed = fresh_seed() if seed is None else seed
    ran = run_reference(scop, values, lambda kind: random_inputs(scop, values, seed, kind),
                        profile, timeout=timeout)
    actual = {k: v.copy() for k, v in ran.inputs.items()}
    outcome: Outcome = build_emulated(scop, cuda_source, host_function, mma=mma)(
        values, actual, timeout=timeout, env=emulation_env())
    comparisons = compare_scop_arrays(scop, ran.expected, actual, rtol)
    return EmulationReport(scop.name, values, seed, comparisons, outcome.live_allocations,
                           outcome.output, scop.location,
                           nvcc_check(cuda_source, scop.location) if nvcc else None,
                           ran.profile, ran.note, caveat=data_index_hint(scop))


def scop_translation_unit(description: Mapping[str, object]) -> str:
    """The CUDA of one SCoP from its kernel description: the device source (prologue
    and kernels), the host helpers of the .cu (those of textures and surfaces when
    it has some), and the host function."""
    objects = [OBJECT_HELPERS] if description.get("objects") else []
    return "\n".join([str(description["device_source"]), HOST_HELPERS, *objects,
                      str(description["host_source"])])


def emulate_generated(scops: Sequence[Scop], description: Mapping[str, Any], *,
                      params: Mapping[str, int] | None = None,
                      limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                      rtol: float | None = None, profile: str = DEFAULT_PROFILE,
                      nvcc: bool = True) -> list[EmulationReport]:
    """Emulate every SCoP of a kernel description (``Generated.description``) against
    its original code (a SCoP left to the CPU is that code: its report says so);
    ``params`` may fix parameters of any of them.  With ``nvcc``
    (and nvcc installed), each SCoP's CUDA, the very translation unit that is
    emulated (``scop_translation_unit``), is also built by nvcc."""
    by_name = {s.name: s for s in scops}
    known = {p for s in scops for p in s.user_parameters()}
    unknown = sorted(set(params or {}) - known - {p for s in scops for p in s.parameters})
    if unknown:
        raise error(f"--param names {', '.join(unknown)}, not a parameter of any SCoP of "
                    f"{description['source']} ({', '.join(sorted(known)) or 'none'})",
                    Location(str(description["source"])))
    reports = []
    for entry in description["scops"]:
        scop = by_name[entry["name"]]
        fixed = {k: v for k, v in scop.model_values(params or {}).items()
                 if k in scop.parameters}
        if entry["runs_on"] == CPU:
            reports.append(EmulationReport(scop.name, fixed, seed or 0, (),
                                           location=scop.location,
                                           on_cpu=entry["where"]["why"]))
            continue
        reports.append(emulate_scop(scop, scop_translation_unit(entry), entry["host_function"],
                                    params=fixed, limit=limit, seed=seed, rtol=rtol,
                                    profile=profile, nvcc=nvcc))
    return reports


def emulate_file(path: str, options: Options, *, params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None, profile: str = DEFAULT_PROFILE,
                 nvcc: bool = True) -> list[EmulationReport]:
    """Compile a C file with polycu and emulate every SCoP against its original code
    (and build its CUDA with nvcc: ``emulate_generated``)."""
    compiled = compile_program(path, options)
    return emulate_generated(compiled.scops, compiled.description, params=params,
                             limit=limit, seed=seed, rtol=rtol, profile=profile, nvcc=nvcc)
