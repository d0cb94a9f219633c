"""Schedule transformations: pure functions from a ``Schedule`` to a new one.

Each transformation rewrites the tree at a band (addressed by its path), then
re-marks the flags from the dependences and proves the result legal, so a
``Schedule`` is always legal and truthfully flagged.  Nested bands are not
re-combined after a transformation (a split would otherwise be undone).

The new value's name records the step and the node, e.g. ``|tile(32,32)@0.0``.

* ``tile(s, path, sizes)``: ``i -> (floor(i / b), i mod b)`` per member, i.e. a band
  of tile indices above a band of point offsets (PPCG's choice: tile loops not
  scaled, point loops shifted to start at 0); legal for permutable bands.
* ``interchange(s, path, order)``: members permuted; legal for permutable bands.
* ``skew(s, path, target, source, factor)``: ``p_target += factor * p_source``.
* ``split(s, path, k)``: the band cut after its first ``k`` members.
* ``distribute(s, path)`` / ``fuse(s, path)``: a band above a sequence is pushed
  into every child (loop distribution) / bands heading every child of a sequence
  are pulled above it as one band (loop fusion).
* ``coalesce_bands(s, cost)``: every would-be kernel band permuted so that its
  coincident members lead, with the one ``cost`` (the mapping's estimate) likes
  best innermost among those mapped.
"""
from __future__ import annotations

from typing import Callable, Sequence

import islpy as isl

from ..diagnostics import error
from .bands import leading_coincident, mark_bands
from .legality import IllegalSchedule, check_legality
from .value import Path, Schedule, is_band, node_at, path_of


def _finish(schedule: Schedule, node: isl.ScheduleNode, step: str) -> Schedule:
    """Re-mark and prove the tree holding ``node``; the new value records ``step``."""
    tree = mark_bands(node.get_schedule(), schedule.deps, schedule.relaxed, combine=False)
    result = schedule.then(step, tree)
    check_legality(schedule.scop, schedule.deps, result)
    return result


def _at(path: Path) -> str:
    """The history's notation of a node: ``@`` and the child positions, dot-separated."""
    return "@" + ".".join(map(str, path))


def _band(schedule: Schedule, path: Path) -> isl.ScheduleNode:
    try:
        node = node_at(schedule.tree, tuple(path))
    except IndexError as exc:
        raise error(str(exc)) from None
    if not is_band(node):
        raise error(f"the node at path {tuple(path)} of schedule '{schedule.name}' is not a "
                    "band")
    return node


def _require_permutable(schedule: Schedule, node: isl.ScheduleNode, what: str,
                        path: Path) -> None:
    if node.band_n_member() > 1 and not node.band_get_permutable():
        raise error(f"cannot {what} the band at path {tuple(path)} of schedule "
                    f"'{schedule.name}': it is not permutable")


def _members(node: isl.ScheduleNode) -> list[isl.UnionPwAff]:
    partial = node.band_get_partial_schedule()
    return [partial.get_at(k) for k in range(partial.dim(isl.dim_type.set))]


def _with_members(node: isl.ScheduleNode, members: list[isl.UnionPwAff]) -> isl.ScheduleNode:
    """The band at ``node`` replaced by one with the partial schedule ``members``."""
    partial = node.band_get_partial_schedule()
    for k, member in enumerate(members):
        partial = partial.set_at(k, member)
    return node.delete().insert_partial_schedule(partial)


def tile(schedule: Schedule, path: Path, sizes: Sequence[int]) -> Schedule:
    """Tile the permutable band at ``path`` with ``sizes`` (one per member, extra ignored)."""
    node = _band(schedule, path)
    _require_permutable(schedule, node, "tile", path)
    n = node.band_n_member()
    if len(sizes) < n or any(int(b) <= 0 for b in sizes[:n]):
        raise error(f"tile sizes {tuple(sizes)} must give a positive size for each of the "
                    f"{n} member(s) of the band at path {tuple(path)}")
    ctx = node.get_ctx()
    values = isl.MultiVal.zero(node.band_get_space())
    for k in range(n):
        values = values.set_val(k, isl.Val.int_from_si(ctx, int(sizes[k])))
    saved = ctx.get_tile_scale_tile_loops(), ctx.get_tile_shift_point_loops()
    try:
        ctx.set_tile_scale_tile_loops(0)
        ctx.set_tile_shift_point_loops(1)
        node = node.band_tile(values)
    finally:
        ctx.set_tile_scale_tile_loops(saved[0])
        ctx.set_tile_shift_point_loops(saved[1])
    return _finish(schedule, node,
                   f"tile({','.join(str(int(b)) for b in sizes[:n])}){_at(path)}")


def interchange(schedule: Schedule, path: Path, order: Sequence[int]) -> Schedule:
    """Permute the members of the band at ``path``: new member k is old ``order[k]``."""
    node = _band(schedule, path)
    n = node.band_n_member()
    if sorted(order) != list(range(n)):
        raise error(f"{tuple(order)} is not a permutation of the {n} member(s) of the band "
                    f"at path {tuple(path)}")
    members = _members(node)
    node = _with_members(node, [members[k] for k in order])
    return _finish(schedule, node, f"interchange({','.join(map(str, order))}){_at(path)}")


def skew(schedule: Schedule, path: Path, target: int, source: int, factor: int) -> Schedule:
    """Add ``factor`` times member ``source`` to member ``target`` of the band at ``path``."""
    node = _band(schedule, path)
    n = node.band_n_member()
    if not (0 <= target < n and 0 <= source < n) or target == source:
        raise error(f"skew needs two distinct members among the {n} of the band at path "
                    f"{tuple(path)}")
    members = _members(node)
    members[target] = members[target].add(members[source].scale_val(
        isl.Val.int_from_si(node.get_ctx(), int(factor))))
    node = _with_members(node, members)
    return _finish(schedule, node, f"skew({target},{source},{factor}){_at(path)}")


def split(schedule: Schedule, path: Path, k: int) -> Schedule:
    """Cut the band at ``path`` into its first ``k`` members and the rest."""
    node = _band(schedule, path)
    if not 0 < k < node.band_n_member():
        raise error(f"cannot split a band of {node.band_n_member()} member(s) after {k}")
    return _finish(schedule, node.band_split(k), f"split({k}){_at(path)}")


def distribute(schedule: Schedule, path: Path) -> Schedule:
    """Loop distribution: the band at ``path`` (above a sequence) copied into each child."""
    node = _band(schedule, path)
    if node.n_children() != 1 or node.child(0).get_type() != isl.schedule_node_type.sequence:
        raise error(f"the band at path {tuple(path)} does not head a sequence")
    partial = node.band_get_partial_schedule()
    node = node.delete()  # now the sequence
    for i in range(node.n_children()):
        child = node.child(i)
        part = partial.intersect_domain(child.filter_get_filter())
        node = child.child(0).insert_partial_schedule(part).parent().parent()
    return _finish(schedule, node, f"distribute{_at(path)}")


def fuse(schedule: Schedule, path: Path) -> Schedule:
    """Loop fusion: the bands heading every child of the sequence at ``path`` become one
    band above it (members must agree in number)."""
    node = node_at(schedule.tree, tuple(path))
    if node.get_type() != isl.schedule_node_type.sequence:
        raise error(f"the node at path {tuple(path)} is not a sequence")
    widths = {node.child(i).child(0).band_n_member() if is_band(node.child(i).child(0)) else 0
              for i in range(node.n_children())}
    if len(widths) != 1 or 0 in widths:
        raise error(f"the children of the sequence at path {tuple(path)} do not all start "
                    "with bands of the same number of members")
    combined = None
    for i in range(node.n_children()):
        band = node.child(i).child(0)
        part = band.band_get_partial_schedule()
        combined = part if combined is None else combined.union_add(part)
        node = band.delete().parent().parent()
    return _finish(schedule, node.insert_partial_schedule(combined), f"fuse{_at(path)}")


#: Band members a GPU maps to blocks and threads (x, y, z).
MAX_MAPPED = 3


def coalesce_bands(schedule: Schedule, cost: Callable[[Schedule], float]) -> Schedule | None:
    """Permute kernel bands for coalescing; None when nothing changes.

    In each permutable band that would become a kernel (or would, once a
    coincident member leads), the coincident members move to the front and the
    one whose placement innermost (``threadIdx.x``) gives the lowest ``cost`` goes
    there; ties keep the band as it is.  Permutations of a permutable band are
    legal; each is proven anyway, and one the proof rejects is not applied.
    """
    current = schedule
    steps = []
    for path in _kernel_band_paths(schedule.tree):
        node = node_at(current.tree, path)
        n = node.band_n_member()
        if not node.band_get_permutable():
            continue
        flags = [bool(node.band_member_get_coincident(k)) for k in range(n)]
        parallel = [k for k in range(n) if flags[k]]
        if not parallel:
            continue
        others = [k for k in range(n) if not flags[k]]
        mapped = min(len(parallel), MAX_MAPPED)
        best, best_key = None, None
        for x in parallel:
            rest = [k for k in parallel if k != x]
            order = rest[:mapped - 1] + [x] + rest[mapped - 1:] + others
            if order == list(range(n)):
                trial = current
            else:
                try:
                    trial = interchange(current, path, order)
                except IllegalSchedule:   # flags that hold only where no witness is
                    continue              # (fuzz seed 3900138): not applied
            key = (cost(trial), order != list(range(n)))
            if best_key is None or key < best_key:
                best, best_key = (trial, order), key
        if best is not None and best[1] != list(range(n)):
            current = best[0]
            steps.append(path)
    if not steps:
        return None
    return current


def _kernel_band_paths(tree: isl.Schedule) -> list[Path]:
    """Paths of the bands the mapping would take as kernels (or could, once permuted)."""
    result: list[Path] = []
    stack = [tree.get_root()]
    while stack:
        node = stack.pop()
        if is_band(node):
            n = node.band_n_member()
            flags = [bool(node.band_member_get_coincident(k)) for k in range(n)]
            if any(flags) and (leading_coincident(flags) or node.band_get_permutable()):
                result.append(path_of(node))
                continue
        stack.extend(node.child(i) for i in range(node.n_children()))
    return result
