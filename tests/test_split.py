"""Index-set splitting (schedule/split.py): the hyperplanes found, the pieces, and the
pulled-back tree, proven against the original dependences and executed on the CPU."""
from __future__ import annotations

import islpy as isl
import pytest

import polycu
from polycu.diagnostics import Reporter
from polycu.options import Options
from polycu.runtime.emulate import emulate_file
from polycu.driver import candidates
from polycu.gpu.rank import measure
from polycu.schedule import (Schedule, band_paths, check_legality, isl_candidate, mark_bands,
                             node_at)
from polycu.schedule.split import renaming, split_planes, split_schedule

FLOYD = """
void fw(int n, int path[n][n]) {
#pragma scop
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j]
                                                            : path[i][k] + path[k][j];
#pragma endscop
}
"""

PEEL_ONLY = """
void f(int n, double a[n][n], double b[n]) {
#pragma scop
  for (int t = 0; t < n; t++)
    for (int i = 0; i < n; i++)
      a[t][i] = (i == 0 ? b[t] : a[t][i - 1]) + 1.0;
#pragma endscop
}
"""


def model(source: str):
    scop = polycu.load_text(source, "test.c")[0]
    return scop, polycu.dependences(scop)


def list_points(set_: isl.Set) -> list[isl.Point]:
    points: list[isl.Point] = []
    set_.foreach_point(points.append)
    return points


def planes_text(planes) -> dict[str, set[str]]:
    """Each hyperplane as the isl set of its zeros, sign-independent."""
    return {name: {str(aff.eq_set(isl.Aff.zero_on_domain(
        isl.LocalSpace.from_space(aff.get_domain_space())))) for aff in affs}
        for name, affs in planes.items()}


def test_floyd_warshall_is_cut_at_row_and_column_k():
    scop, deps = model(FLOYD)
    unsplit = isl_candidate(scop, deps, "max")
    planes = split_planes(scop, deps, unsplit.tree)
    assert set(planes) == {"S0"}
    zeros = {isl.Set(text) for text in planes_text(planes)["S0"]}
    expected = [isl.Set("[n] -> { S0[k, i, j] : j = k }"),
                isl.Set("[n] -> { S0[k, i, j] : i = k }")]
    assert len(zeros) == 2
    assert all(any(z.is_equal(e) for z in zeros) for e in expected)


def test_the_pieces_partition_the_domain():
    scop, deps = model(FLOYD)
    planes = split_planes(scop, deps, isl_candidate(scop, deps, "max").tree)
    rename = renaming(scop, planes)
    pieces = scop.domain().apply(rename)
    names = sorted(s.get_tuple_name() for s in polycu.model.sets_of(pieces))
    assert names == [f"S0__{n}" for n in range(9)]  # 3 x 3 sign classes, none empty
    assert rename.is_injective() and rename.is_single_valued()
    assert rename.domain().is_equal(scop.domain())
    total = sum(len(list_points(s)) for s in polycu.model.sets_of(pieces.intersect_params(
        isl.Set("[n] -> { : n = 6 }"))))
    assert total == 6 ** 3


def test_split_schedule_is_legal_and_every_piece_off_row_and_column_is_2d_parallel():
    scop, deps = model(FLOYD)
    planes = split_planes(scop, deps, isl_candidate(scop, deps, "max").tree)
    tree = mark_bands(split_schedule(scop, deps, planes), deps, frozenset(), split=True)
    check_legality(scop, deps, tree)
    off = isl.Set("[n] -> { S0[k, i, j] : i != k and j != k }")
    parallel_2d = isl.UnionSet.empty(off.get_space())
    for path in band_paths(tree):
        node = node_at(tree, path)
        if node.band_n_member() >= 2 and node.band_member_get_coincident(0) \
                and node.band_member_get_coincident(1):
            parallel_2d = parallel_2d.union(node.get_domain())
    off = isl.UnionSet.from_set(off).intersect(scop.domain())
    assert off.is_subset(parallel_2d)
    metrics = measure(Schedule("split", tree, frozenset(), scop, deps))
    unsplit = measure(isl_candidate(scop, deps, "max"))
    # one launch per piece and k instead of a wavefront of 2n launches per k
    assert sum(k.launches for k in metrics.kernels) < sum(k.launches for k in unsplit.kernels) / 50


def test_the_split_candidate_wins_for_floyd_warshall_and_can_be_turned_off():
    scop, deps = model(FLOYD)
    quiet = Reporter(stream=open("/dev/null", "w"))
    ranked = candidates(scop, deps, reporter=quiet)
    assert ranked[0].schedule.name.startswith("isl-split(S0:")
    assert ranked[0].schedule.scop is scop  # the tree is over the original statements
    off = candidates(scop, deps, Options(index_set_split=False), reporter=quiet)
    assert not any("split" in c.schedule.name for c in off)


def test_a_plane_on_one_iterator_is_not_a_cut():
    scop, deps = model(PEEL_ONLY)
    unsplit = isl_candidate(scop, deps, "max")
    assert split_planes(scop, deps, unsplit.tree) == {}


@pytest.mark.parametrize("n", [1, 2, 23, 70])
def test_split_floyd_warshall_runs_like_the_original_on_the_cpu(tmp_path, n):
    # n = 1, 2: most pieces are empty; 70: several 32-wide tiles per piece
    source = tmp_path / "fw.c"
    source.write_text(FLOYD)
    (report,) = emulate_file(str(source), Options(), params={"n": n}, seed=n)
    assert report.ok, report.format()
    assert report.arrays[0].size == n * n
