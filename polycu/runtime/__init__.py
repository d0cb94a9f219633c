"""Runtime: run the generated code (CPU reference, CPU emulation, GPU via PyCUDA), check
it and measure it.

The CPU side, importable without a GPU::

    from polycu.runtime import emulate_file
    for report in emulate_file("gemm.c", polycu.Options(define=["MINI_DATASET"])):
        print(report.format())

``reference``: the original SCoP built by gcc as a function of the contract-1
signature; ``emulate``: the generated CUDA run on the CPU with ``include/polycu_emu.h``,
per SCoP on random inputs (and built by nvcc when it is installed); ``programs``: a
whole emitted program against gcc's build of the original; ``check``: the kernels on
the GPU (``pycuda_run``).  ``docs/runtime.md`` lists every module and its place.
"""
from .compare import ArrayComparison, compare_arrays
from .emulate import emulate_file, emulate_generated, emulate_scop
from .inputs import INPUT_PROFILES, random_inputs
from .native import NativeFunction
from .nvcc import NvccCheck, nvcc_check
from .parameters import choose_parameters
from .programs import DumpComparison, ProgramBuild, ProgramReport, compare_dumps, emulate_program
from .reference import build_reference, reference_source
from .report import EmulationReport
from .shapes import check_memory
from .signature import Signature

__all__ = ["INPUT_PROFILES", "ArrayComparison", "DumpComparison", "EmulationReport",
           "NvccCheck", "ProgramBuild", "ProgramReport", "check_memory", "choose_parameters",
           "compare_arrays", "compare_dumps", "emulate_file", "emulate_generated",
           "emulate_program", "emulate_scop", "nvcc_check", "random_inputs", "NativeFunction",
           "Signature", "build_reference", "reference_source"]
