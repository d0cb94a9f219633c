"""Runtime: run the generated code (CPU reference, CPU emulation, GPU via PyCUDA), check
it and measure it.

The CPU side, importable without a GPU::

    from polycu.runtime import emulate_file
    for report in emulate_file("gemm.c", polycu.Options(define=["MINI_DATASET"])):
        print(report.format())

``reference``: the original SCoP built by gcc as a function of the contract-1
signature; ``emulate``: the generated CUDA run on the CPU with ``include/polycu_emu.h``,
per SCoP on random inputs (and built by nvcc when it is installed) or as a whole
program against gcc's build of the original.
"""
from .emulate import (INPUT_PROFILES, ArrayComparison, DumpComparison, EmulationReport,
                      NvccCheck, ProgramBuild, ProgramReport, check_memory, choose_parameters,
                      compare_arrays, compare_dumps, emulate_file, emulate_generated,
                      emulate_program, emulate_scop, nvcc_check, random_inputs)
from .reference import NativeFunction, Signature, build_reference, reference_source

__all__ = ["INPUT_PROFILES", "ArrayComparison", "DumpComparison", "EmulationReport",
           "NvccCheck", "ProgramBuild", "ProgramReport", "check_memory", "choose_parameters",
           "compare_arrays", "compare_dumps", "emulate_file", "emulate_generated",
           "emulate_program", "emulate_scop", "nvcc_check", "random_inputs", "NativeFunction",
           "Signature", "build_reference", "reference_source"]
