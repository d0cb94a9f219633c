"""Scheduling: candidate execution orders of a SCoP, each proven legal.

In:  ``Scop`` and ``Dependences``.   Out: ``Schedule`` values (isl schedule trees
whose bands carry ``permutable``/``coincident`` flags computed from the
dependences, with the model they order).  Ranking them is the mapping's job
(``polycu.gpu.rank``).  See docs/schedule.md.

    deps = polycu.dependences(scop)
    found = prove(generate(scop, deps), reporter)   # each proven legal
    tiled = tile(found[0], band_paths(found[0].tree)[0], (32, 32))
    check_legality(scop, deps, tiled)         # raises IllegalSchedule if not
"""
from .bands import mark_bands, relaxation_used
from .candidates import (ORIGINAL, Strategy, generate, identity, isl_candidate, load, original,
                         prove, reduction_statements)
from .io import load_schedule, save_schedule, scop_file
from .isl_scheduler import (ALGORITHMS, MAX_OPERATIONS, BudgetExceeded, isl_schedule,
                            operation_budget)
from .legality import IllegalSchedule, check_legality, is_legal
from .transform import coalesce_bands, distribute, fuse, interchange, skew, split, tile
from .value import Path, Schedule, band_paths, format_tree, node_at, path_of

__all__ = ["Schedule", "Strategy", "Path", "IllegalSchedule", "BudgetExceeded", "mark_bands",
           "relaxation_used", "generate", "prove", "load", "reduction_statements", "ORIGINAL",
           "original", "identity", "isl_candidate", "isl_schedule", "operation_budget",
           "ALGORITHMS", "MAX_OPERATIONS", "check_legality", "is_legal", "tile", "interchange",
           "skew", "split", "distribute", "fuse", "coalesce_bands", "load_schedule",
           "save_schedule", "scop_file", "band_paths", "node_at", "path_of", "format_tree"]
