"""polycu: a polyhedral source-to-source optimizer from C loop nests to CUDA.

The library API follows the pipeline (frontend -> model -> deps -> schedule ->
mapping -> memory -> codegen -> runtime); every phase returns new immutable values::

    import polycu
    scop = polycu.load("polybench/linear-algebra/blas/gemm/gemm.c",
                       includes=["polybench/utilities"])[0]
    deps = polycu.dependences(scop)
    ranked = polycu.candidates(scop, deps)      # proven legal, mapped, best first
    best = ranked[0].schedule                   # or polycu.choose(scop, deps)
    program = ranked[0].program                 # the GpuProgram it maps to
    placed = polycu.place(program)              # where each array lives
    out = polycu.compile("gemm.c", polycu.Options(include_dir=[...]))   # .cuda, .description
"""
__version__ = "0.1.0"
"""The one version number: pyproject.toml reads it into the package metadata, and
``polycu --version`` reads the metadata back, falling back to this in a source tree
that was never installed."""

from .deps import Dependences, compute_dependences as dependences, format_dependences
from .codegen import Generated, generate
from .driver import candidates, choose, compile_file as compile
from .diagnostics import Diagnostic, Location, PolycuError
from .frontend.load import load_file as load, load_text
from .gpu.kernel import GpuProgram, Kernel
from .gpu.mapping import map_to_gpu
from .gpu.rank import Candidate
from .gpu.sizes import Sizes
from .memory import Placement, place
from .model import Access, Array, Scop, Statement, format_scop
from .options import Options
from .schedule import IllegalSchedule, Schedule, check_legality, mark_bands


def check(path, options=None, **kwargs):  # type: ignore[no-untyped-def]
    """Run every SCoP of a C file on the GPU and compare it with its CPU reference
    (``polycu check``); the arguments of ``polycu.runtime.check.check_file``.
    Imported on first use: it needs numpy and PyCUDA."""
    from .runtime.check import check_file
    return check_file(path, options, **kwargs)


__all__ = ["load", "load_text", "dependences", "Dependences", "Scop", "Statement", "Access",
           "Array", "Options", "PolycuError", "Diagnostic", "Location", "format_scop",
           "format_dependences", "Schedule", "Candidate", "IllegalSchedule", "candidates",
           "choose", "check_legality", "mark_bands", "check", "map_to_gpu", "GpuProgram",
           "Kernel", "Sizes", "place", "Placement", "compile", "generate", "Generated", "__version__"]
