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
from .memory import Placement, format_placement, place
from .model import Access, Array, Scop, Statement, format_scop
from .options import Options
from .schedule import IllegalSchedule, Schedule, check_legality, mark_bands


def check(path, options=None, **kwargs):  # type: ignore[no-untyped-def]
    """Run every SCoP of a C file on the GPU and compare it with its CPU reference
    (``polycu check``); the arguments of ``polycu.runtime.check.check_file``.
    Imported on first use: it needs numpy and PyCUDA."""
    from .runtime.check import check_file
    return check_file(path, options, **kwargs)


def measure(path, options=None, *, params=None, evaluator="emulate", seed=0):  # type: ignore[no-untyped-def]
    """Check the one SCoP of a C file, compiled with ``options``, against its CPU
    reference and time it, as ``polycu tune`` does each configuration: a
    ``tune.evaluate.Measured`` (status 'ok' with seconds, else why not).
    ``evaluator`` 'emulate' runs the CUDA on the CPU (any machine; its time is the
    emulation's), 'gpu' on the GPU (PyCUDA; kernel time by CUDA events); ``params``
    fixes parameter values (the others are chosen as ``polycu emulate`` does)."""
    from .runtime.check import targets
    from .tune.evaluate import EmulationEvaluator, GpuEvaluator
    options = options or Options()
    found = targets(path, options, overrides=params, limit=options.max_param)
    if len(found) != 1:
        raise PolycuError(Diagnostic("error", f"measure takes files of exactly one SCoP; "
                                     f"this one has {len(found)}", Location(path)))
    kind = GpuEvaluator if evaluator == "gpu" else EmulationEvaluator
    return kind(found[0], seed, init=options.init).measure(found[0].description)


__all__ = ["load", "load_text", "dependences", "Dependences", "Scop", "Statement", "Access",
           "Array", "Options", "PolycuError", "Diagnostic", "Location", "format_scop",
           "format_dependences", "Schedule", "Candidate", "IllegalSchedule", "candidates",
           "choose", "check_legality", "mark_bands", "check", "map_to_gpu", "GpuProgram",
           "Kernel", "Sizes", "place", "Placement", "compile", "generate", "Generated", "__version__",
           "format_placement", "measure"]
