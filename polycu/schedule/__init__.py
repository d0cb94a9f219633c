"""Scheduling: candidate execution orders of a SCoP, proven legal, ranked for a GPU.

In:  ``Scop`` and ``Dependences``.   Out: ``Schedule`` values (isl schedule trees
whose bands carry ``permutable``/``coincident`` flags computed from the
dependences).  See docs/schedule.md.

    deps = polycu.dependences(scop)
    ranked = candidates(scop, deps)           # best first, each proven legal
    best = choose(scop, deps)                 # or the --load-schedule one
    tiled = tile(best, band_paths(best.tree)[0], (32, 32))
    check_legality(scop, deps, tiled)         # raises IllegalSchedule if not
"""
from .bands import mark_bands, relaxation_used
from .candidates import (ORIGINAL, Candidate, candidates, choose, format_candidates,
                         identity, isl_candidate, original, preferences, rank)
from .io import load_schedule, save_schedule, scop_file
from .isl_scheduler import BudgetExceeded, isl_schedule, operation_budget
from .legality import IllegalSchedule, check_legality, is_legal
from .metrics import Kernel, Metrics, analyze
from .sizes import ANY, parse_sizes, sizes_for
from .transform import coalesce_bands, distribute, fuse, interchange, skew, split, tile
from .value import Path, Schedule, band_paths, format_tree, node_at, path_of

__all__ = ["Schedule", "Candidate", "Metrics", "Kernel", "Path", "IllegalSchedule",
           "BudgetExceeded", "mark_bands", "relaxation_used", "candidates", "choose", "rank",
           "ORIGINAL", "original", "preferences", "format_candidates", "identity", "isl_candidate",
           "isl_schedule", "operation_budget", "check_legality", "is_legal", "analyze",
           "parse_sizes", "sizes_for", "ANY", "tile", "interchange", "skew", "split",
           "distribute", "fuse", "coalesce_bands", "load_schedule", "save_schedule",
           "scop_file", "band_paths", "node_at", "path_of", "format_tree"]
