"""polycu's own differential tester (issue 10): random affine C programs
(``generate``), compiled by polycu, emulated and built, compared with gcc
(``run``), failures shrunk (``minimise``).  ``scripts/fuzz.py`` is the command line."""
from .generate import Finalised, Program, features, finalise, generate

__all__ = ["Finalised", "Program", "features", "finalise", "generate"]
