"""The ``Schedule`` value and small helpers to walk isl schedule trees.

A schedule maps every statement instance ``S[i]`` of the SCoP's domain to a
point in time; the tree form (isl's schedule trees) keeps the structure the GPU
mapping needs: bands (a multi-dimensional partial schedule whose members can be
permuted or run in parallel), sequences and filters.  Nodes are addressed by a
*path*: the child positions from the root.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import islpy as isl

from ..deps import Dependences
from ..model import Scop

Path = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Schedule:
    """One candidate execution order of a SCoP, with the model it orders.

    ``scop`` and ``deps`` are the model the schedule belongs to: the SCoP as loaded,
    or the SCoP with scalars expanded (expand.py), and its dependences.  Every later
    phase maps, places and prints that model, never another one.  ``tree`` has
    ``scop.domain()`` as its domain and every band node carries the ``permutable``
    flag and per-member ``coincident`` flags computed from ``deps`` by
    :func:`polycu.schedule.bands.mark_bands` (never trusted from wherever the tree
    came from).  ``relaxed`` names the reduction statements whose self-dependences
    were ignored when computing coincidence: the mapping must lower their updates
    with atomics.  ``name`` records where the schedule came from ('identity',
    'isl-maxfuse', 'loaded:FILE') and the transformations applied since
    ('identity|tile(32,32)').
    """

    name: str
    tree: isl.Schedule
    relaxed: frozenset[str]
    scop: Scop = field(repr=False)
    deps: Dependences = field(repr=False)

    def then(self, step: str, tree: isl.Schedule) -> "Schedule":
        """The schedule after one more transformation ``step`` (a new value)."""
        return Schedule(f"{self.name}|{step}", tree, self.relaxed, self.scop, self.deps)

    def get_map(self) -> isl.UnionMap:
        """The flattened schedule ``S[i] -> [t]`` (all statements in one time space)."""
        return self.tree.get_map()

    def yaml(self) -> str:
        """The isl schedule tree in isl's YAML block syntax (``--dump-schedule``)."""
        return format_tree(self.tree)


def node_at(tree: isl.Schedule, path: Path) -> isl.ScheduleNode:
    """The node reached from the root by following child positions ``path``."""
    node = tree.get_root()
    for position in path:
        if position >= node.n_children():
            raise IndexError(f"schedule tree has no node at path {path}")
        node = node.child(position)
    return node


def path_of(node: isl.ScheduleNode) -> Path:
    """The child positions leading from the root to ``node``."""
    positions: list[int] = []
    while node.has_parent():
        positions.append(node.get_child_position())
        node = node.parent()
    return tuple(reversed(positions))


def walk(tree: isl.Schedule) -> Iterator[isl.ScheduleNode]:
    """Every node of the tree, pre-order (parents before children)."""
    stack = [tree.get_root()]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.child(i) for i in reversed(range(node.n_children())))


def band_paths(tree: isl.Schedule) -> list[Path]:
    """Paths of all band nodes, pre-order."""
    return [path_of(n) for n in walk(tree) if n.get_type() == isl.schedule_node_type.band]


def is_band(node: isl.ScheduleNode) -> bool:
    return node.get_type() == isl.schedule_node_type.band


def format_tree(tree: isl.Schedule) -> str:
    """isl's block-style YAML of a schedule tree (what ``--save-schedule`` writes).

    ``isl.Schedule.read_from_str`` reads it back to an equal tree, flags included.
    """
    printer = isl.Printer.to_str(tree.get_ctx()).set_yaml_style(isl.yaml_style.BLOCK)
    return printer.print_schedule(tree).get_str()
