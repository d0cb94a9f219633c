"""polycu: a polyhedral source-to-source optimizer from C loop nests to CUDA.

The library API follows the pipeline (frontend -> model -> deps -> schedule ->
mapping -> memory -> codegen -> runtime); every phase returns new immutable values::

    import polycu
    scop = polycu.load("polybench/linear-algebra/blas/gemm/gemm.c",
                       includes=["polybench/utilities"])[0]
    deps = polycu.dependences(scop)
"""
from .deps import Dependences, compute_dependences as dependences, format_dependences
from .diagnostics import Diagnostic, Location, PolycuError
from .frontend.load import load_file as load, load_text
from .model import Access, Array, Scop, Statement, format_scop
from .options import Options

__all__ = ["load", "load_text", "dependences", "Dependences", "Scop", "Statement", "Access",
           "Array", "Options", "PolycuError", "Diagnostic", "Location", "format_scop",
           "format_dependences"]
