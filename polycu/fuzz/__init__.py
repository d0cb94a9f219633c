"""polycu's own differential tester (issue 10): random affine C programs
(``generate``), compiled by polycu, emulated and built, compared with gcc
(``run``), failures shrunk (``minimise``).  ``scripts/fuzz.py`` is the command line.

A program is made in steps, one module each: ``program`` (the representation),
``structure`` and ``generate`` (the random skeleton, then values and statements),
``interpret`` (C's integer rules: undefined behaviour rejected, subscript ranges
found), ``tree`` (walks and rewrites of the loop tree), ``finalise`` (subscripts
shifted, arrays sized), ``emit`` (the C text, and the program read back from it),
``features`` (the constructs a program uses)."""
from .features import features
from .finalise import finalise
from .generate import generate
from .program import Finalised, Program

__all__ = ["Finalised", "Program", "features", "finalise", "generate"]
