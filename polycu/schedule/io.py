"""Schedules in and out of files: isl's schedule tree YAML.

``--save-schedule FILE`` writes the chosen schedule's tree; ``--load-schedule
FILE`` reads one back.  A loaded tree is never trusted: its domain must be the
SCoP's, its band flags are recomputed and it goes through the legality proof.
When a source file has several SCoPs, SCoP number k > 0 uses ``FILE`` with
``.k`` inserted before the extension (``s.yaml``, ``s.1.yaml``, ...).
"""
from __future__ import annotations

import os

import islpy as isl

from ..deps import Dependences
from ..diagnostics import Diagnostic, Location, error
from ..model import Scop, statement_names
from .bands import mark_bands
from .legality import IllegalSchedule, check_legality
from .value import Schedule, format_tree


def scop_file(path: str, index: int) -> str:
    """The file of SCoP number ``index`` of a source file (see the module docstring)."""
    if index == 0:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}.{index}{ext}"


def save_schedule(schedule: Schedule, path: str) -> None:
    """Write the schedule tree (block YAML) to ``path``."""
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(format_tree(schedule.tree))
    except OSError as exc:
        raise error(f"cannot write schedule: {exc.strerror}", Location(path)) from None


def read_tree(path: str, ctx: isl.Context) -> isl.Schedule:
    """Parse an isl schedule tree file; a located diagnostic when it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise error(f"cannot read schedule: {exc.strerror}", Location(path)) from None
    try:
        tree = isl.Schedule.read_from_str(ctx, text)
    except isl.Error:
        tree = None
    if tree is None or not tree.get_root().get_type() == isl.schedule_node_type.domain:
        raise error("not an isl schedule tree (expected YAML with a 'domain:' root, as "
                    "written by --save-schedule)", Location(path, 1))
    return tree


def load_schedule(scop: Scop, deps: Dependences, path: str) -> Schedule:
    """The schedule in ``path`` for ``scop``, marked and proven legal."""
    domain = scop.domain()
    tree = read_tree(path, domain.get_ctx())
    loaded = tree.get_domain()
    names = {s.name for s in scop.statements}
    extra = [name for name in statement_names(loaded) if name not in names]
    if extra:
        raise error(f"the schedule names statement(s) {', '.join(sorted(extra))} that SCoP "
                    f"'{scop.name}' does not have (it has {', '.join(sorted(names))})",
                    Location(path, 1))
    missing = domain.subtract(loaded)
    if not missing.is_empty():
        raise error(f"the schedule's domain misses instances of SCoP '{scop.name}': "
                    f"{missing}", Location(path, 1))
    tree = tree.intersect_domain(domain)
    label = f"loaded:{path}"
    schedule = Schedule(label, mark_bands(tree, deps, combine=False), frozenset(), scop, deps)
    try:
        check_legality(scop, deps, schedule, label=label)
    except IllegalSchedule as exc:
        raise IllegalSchedule(exc.diagnostics + (Diagnostic(
            "note", "the schedule was loaded from here", Location(path, 1)),),
            kind=exc.kind, source=exc.source, sink=exc.sink, example=exc.example) from None
    return schedule
