"""Scheduling: band flags, the legality proof, candidates and their ranking, I/O.

Every assertion is about a computed outcome: exact isl relations, flags read off
the trees, the sampled violating instance pairs checked against the dependences.
"""
from __future__ import annotations

import functools
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.diagnostics import PolycuError, Reporter
from polycu.options import Options
from polycu.driver import candidates, choose, strategy_of
from polycu.gpu.rank import measure, rank
from polycu.gpu.sizes import ANY, parse_sizes, sizes_for
from polycu.schedule import (IllegalSchedule, Schedule, band_paths, check_legality, distribute,
                             format_tree, fuse, identity, interchange, is_legal, isl_candidate,
                             load_schedule, mark_bands, node_at, save_schedule, skew, split, tile)
from polycu.schedule.isl_scheduler import Unbounded, bounded, isl_options

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "polybench"


@functools.lru_cache(maxsize=None)
def kernel(name: str):
    """(scop, deps) of a PolyBench kernel, loaded once per test session."""
    path = next(p for p in POLYBENCH.rglob(f"{name}.c") if p.parent.name == name)
    scop = polycu.load(str(path), includes=[str(POLYBENCH / "utilities"), str(path.parent)])[0]
    return scop, polycu.dependences(scop)


def from_text(source: str):
    scop = polycu.load_text(source, "test.c")[0]
    return scop, polycu.dependences(scop)


def bands(tree: isl.Schedule) -> list[tuple[int, bool, tuple[bool, ...]]]:
    """(members, permutable, coincident flags) of every band, pre-order."""
    result = []
    for path in band_paths(tree):
        node = node_at(tree, path)
        n = node.band_n_member()
        result.append((n, bool(node.band_get_permutable()),
                       tuple(bool(node.band_member_get_coincident(k)) for k in range(n))))
    return result


def quiet() -> Reporter:
    return Reporter(stream=open("/dev/null", "w"))


TRANSPOSED = """
void transpose_scale(int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = 2.0 * A[j][i];
#pragma endscop
}
"""

DOT = """
void dot(int n, double a[n], double b[n], double *s) {
#pragma scop
  for (int i = 0; i < n; i++)
    s[0] += a[i] * b[i];
#pragma endscop
}
"""


# -- band flags ---------------------------------------------------------------------

def test_identity_of_jacobi_2d_has_a_2d_fully_parallel_band_under_the_time_loop():
    scop, deps = kernel("jacobi-2d")
    tree = identity(scop, deps).tree
    # t: carries everything (not coincident); each (i, j) nest: one combined 2-d band
    assert bands(tree) == [(1, True, (False,)), (2, True, (True, True)),
                           (2, True, (True, True))]


def test_identity_of_gemm_marks_i_parallel_and_keeps_the_k_reduction_sequential():
    scop, deps = kernel("gemm")
    flags = bands(identity(scop, deps).tree)
    assert flags[0] == (1, True, (True,))           # i, around both statements
    assert flags[1] == (1, True, (True,))           # j of C *= beta
    assert (1, True, (False,)) in flags[2:]         # k of C += A*B carries the reduction


def test_flags_found_on_a_tree_are_recomputed_not_trusted():
    scop, deps = kernel("seidel-2d")
    lying = isl.Schedule(
        '{ domain: "[tsteps, n] -> { S0[t, i, j] : 0 <= t < tsteps and 0 < i <= n - 2 and '
        '0 < j <= n - 2 }", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]", permutable: 1, '
        'coincident: [ 1, 1, 1 ] } }')
    marked = mark_bands(lying, deps, combine=False)
    # Gauss-Seidel in place: every member carries a dependence, distances mix signs
    assert bands(marked) == [(3, False, (False, False, False))]


def test_relaxing_a_reduction_makes_its_loop_coincident():
    scop, deps = from_text(DOT)
    assert bands(identity(scop, deps).tree) == [(1, True, (False,))]
    relaxed = identity(scop, deps, frozenset({"S0"}))
    assert relaxed.relaxed == {"S0"}
    assert bands(relaxed.tree) == [(1, True, (True,))]
    # relaxation never weakens the proof: the sequential order is still checked in full
    check_legality(scop, deps, relaxed)


# -- the legality proof -------------------------------------------------------------

def _assert_witness_is_a_dependence(scop, deps, exc: IllegalSchedule) -> None:
    """The reported instance pair really is a dependence of the reported kind."""
    pair = isl.Map("{ " + exc.example + " }")
    relation = getattr(deps, exc.kind)
    assert exc.source == pair.get_tuple_name(isl.dim_type.in_)
    assert exc.sink == pair.get_tuple_name(isl.dim_type.out)
    params = exc.first.message.split("(with ")[1].split(")")[0]
    fixed = isl.Set("[" + ", ".join(p.split("=")[0] for p in params.split(", ")) + "] -> { : "
                    + " and ".join(params.split(", ")) + " }")
    assert not isl.UnionMap.from_map(pair).intersect_params(fixed).intersect(
        relation).is_empty()


def test_interchanging_seidel_2d_is_rejected_with_a_real_instance_pair():
    scop, deps = kernel("seidel-2d")
    swapped = isl.UnionMap("{ S0[t, i, j] -> [t, j, i] }")
    with pytest.raises(IllegalSchedule) as info:
        check_legality(scop, deps, swapped)
    exc = info.value
    assert exc.kind in ("flow", "anti", "output") and exc.source == exc.sink == "S0"
    assert exc.first.location is not None and exc.first.location.line > 0
    _assert_witness_is_a_dependence(scop, deps, exc)
    assert not is_legal(scop, deps, swapped)


def test_skewed_seidel_2d_wavefront_is_accepted():
    scop, deps = kernel("seidel-2d")
    check_legality(scop, deps, isl.UnionMap("{ S0[t, i, j] -> [t, 2t + i, 4t + 2i + j] }"))
    check_legality(scop, deps, scop.schedule)


def test_reversing_the_k_loop_of_lu_violates_a_flow_dependence():
    scop, deps = kernel("lu")
    original = scop.schedule.get_map()
    reverse_first = isl.UnionMap("{ [t0, t1, t2, t3, t4] -> [-t0, t1, t2, t3, t4] }")
    width = {m.dim(isl.dim_type.out) for m in _maps(original)}
    assert width == {5}, "lu's original schedule: i, sequence, k/j, position, inner"
    with pytest.raises(IllegalSchedule) as info:
        check_legality(scop, deps, original.apply_range(reverse_first))
    assert info.value.kind == "flow"
    _assert_witness_is_a_dependence(scop, deps, info.value)


def _maps(umap):
    out = []
    umap.foreach_map(out.append)
    return out


def test_two_dependent_instances_at_one_time_point_are_unordered():
    scop, deps = kernel("jacobi-1d")
    flat = isl.UnionMap("{ S0[t, i] -> [0]; S1[t, i] -> [0] }")
    with pytest.raises(IllegalSchedule, match="violates the"):
        check_legality(scop, deps, flat)


def test_a_schedule_must_cover_every_instance():
    scop, deps = kernel("jacobi-1d")
    partial = isl.UnionMap("{ S0[t, i] -> [t, 0, i] }")
    with pytest.raises(IllegalSchedule, match="does not schedule every instance of statement S1"):
        check_legality(scop, deps, partial)


def test_every_candidate_of_several_kernels_is_legal():
    for name in ("gemm", "lu", "seidel-2d", "fdtd-2d", "atax"):
        scop, deps = kernel(name)
        for cand in candidates(scop, deps, reporter=quiet()):
            check_legality(scop, deps, cand.schedule)


# -- ranking --------------------------------------------------------------------------

def test_ranking_prefers_the_coalesced_mapping_on_a_transposed_access():
    scop, deps = from_text(TRANSPOSED)
    original = identity(scop, deps)
    swapped = interchange(original, band_paths(original.tree)[0], (1, 0))
    # identity: j is innermost, on threadIdx.x, and B[j][i] / A[j][i] stride by n
    assert not measure(original).coalesced
    assert measure(swapped).coalesced
    ranked = rank([original, swapped])
    assert ranked[0].schedule is swapped and ranked[0].score < ranked[1].score
    # and candidates() finds the interchange by itself
    best = candidates(scop, deps, reporter=quiet())[0]
    assert best.coalesced and best.parallel_depth == 2
    # (the variant of the proven candidate, which the isl schedules equal to it joined)
    assert best.schedule.name.startswith("identity") \
        and best.schedule.name.endswith("|interchange(1,0)@0")


def test_ranking_maps_each_schedule_once_and_ranks_as_if_mapped_afresh(monkeypatch):
    """candidates() shares its mappings (gpu/rank.py ``Mappings``) between the
    coalescing trials, the ranking and the ranking after a relayout (seidel-2d has
    all three): each distinct schedule and sizes is mapped once, and every candidate's
    program and cost equal those of a mapping made afresh."""
    import polycu.gpu.rank as ranking
    scop, deps = kernel("seidel-2d")
    mapped: list[str] = []
    real = ranking.map_schedule

    def counted(schedule, sizes=None):
        mapped.append(f"{id(schedule.scop)} {schedule.tree.to_str()} {sizes!r}")
        return real(schedule, sizes)

    monkeypatch.setattr(ranking, "map_schedule", counted)
    ranked = candidates(scop, deps, reporter=quiet())
    assert any(c.schedule.name.startswith("relayout(") for c in ranked)
    assert len(mapped) == len(set(mapped)) >= len(ranked)
    monkeypatch.setattr(ranking, "map_schedule", real)
    for candidate in ranked:
        afresh = rank([candidate.schedule])[0]
        assert afresh.score == candidate.score
        assert afresh.explanation == candidate.explanation
        assert [(k.name, k.thread_domain().to_str()) for k in afresh.program.kernels] == \
            [(k.name, k.thread_domain().to_str()) for k in candidate.program.kernels]


def test_gemm_prefers_isl_2d_parallel_band_over_the_identity():
    scop, deps = kernel("gemm")
    ranked = candidates(scop, deps, reporter=quiet())
    best = ranked[0]
    assert best.parallel_depth == 2 and best.coalesced and best.kernels == 1
    assert best.schedule.relaxed == frozenset()
    ident = next(c for c in ranked if c.schedule.name.startswith("identity"))
    assert ident.parallel_depth == 1 and ident.score > best.score


def test_relaxed_candidate_only_when_it_adds_parallelism():
    scop, deps = from_text(DOT)
    ranked = candidates(scop, deps, Options(relax_reductions=True), reporter=quiet())
    best = ranked[0]
    assert best.schedule.relaxed == {"S0"} and best.parallel_depth == 1
    plain = candidates(scop, deps, reporter=quiet())
    assert all(not c.schedule.relaxed for c in plain)
    assert plain[0].parallel_depth == 0


def test_no_reschedule_keeps_only_the_identity():
    scop, deps = kernel("gemm")
    ranked = candidates(scop, deps, Options(reschedule=False, relax_reductions=False))
    assert [c.schedule.name for c in ranked] == ["identity"]


def test_operation_budget_falls_back_to_the_identity_with_a_warning():
    scop, deps = kernel("heat-3d")
    reporter = quiet()
    ranked = candidates(scop, deps, Options(schedule_max_operations=1000), reporter)
    assert [c.schedule.name for c in ranked] == ["identity"]
    assert any("operation budget" in d.message and d.severity == "warning"
               for d in reporter.diagnostics)
    ctx = scop.domain().get_ctx()
    assert ctx.get_max_operations() == 0  # the cap does not leak to later work


def test_isl_options_are_restored_and_overrides_apply():
    scop, deps = kernel("2mm")
    ctx = scop.domain().get_ctx()
    before = (ctx.get_schedule_outer_coincidence(), ctx.get_schedule_serialize_sccs())
    min_fuse = isl_candidate(scop, deps, "max", overrides=strategy_of(
        Options(isl_schedule_serialize_sccs=True)).isl_options)
    assert (ctx.get_schedule_outer_coincidence(), ctx.get_schedule_serialize_sccs()) == before
    assert min_fuse.get_map().is_equal(isl_candidate(scop, deps, "min").get_map())
    assert strategy_of(Options(isl_schedule_max_coefficient=3,
                               isl_schedule_algorithm="feautrier")).isl_options == {
        "schedule_max_coefficient": 3, "schedule_algorithm": 1}
    with isl_options(ctx, {"schedule_max_coefficient": 7}):
        assert ctx.get_schedule_max_coefficient() == 7
    assert ctx.get_schedule_max_coefficient() == -1



def test_a_schedule_beyond_the_coefficient_bound_is_refused_like_an_isl_failure():
    # isl's step that carries dependences ignores schedule_max_coefficient (fuzz seed
    # 3400210, tests/data/fuzz_found/schedule_coefficient_beyond_bound.c).
    tree = isl.Schedule.from_domain(isl.UnionSet("[n] -> { S[i, j] : 0 <= i, j < n }"))
    tree = tree.insert_partial_schedule(isl.MultiUnionPwAff(
        "[n] -> [{ S[i, j] -> [(4294967296i + j)] }, { S[i, j] -> [(floor(j/2))] }]"))
    with pytest.raises(isl.Error) as refused:
        bounded(tree, 1024)
    assert isinstance(refused.value, Unbounded) and "4294967296" in str(refused.value)
    assert bounded(tree, 4294967296) is tree and bounded(tree, -1) is tree


# -- transformations ----------------------------------------------------------------

def test_tiling_jacobi_2d_gives_tile_and_point_bands():
    scop, deps = kernel("jacobi-2d")
    base = identity(scop, deps)
    path = band_paths(base.tree)[1]
    tiled = tile(base, path, (32, 16))
    assert tiled.name == f"identity|tile(32,16)@{'.'.join(map(str, path))}"
    assert bands(tiled.tree)[1:3] == [(2, True, (True, True)), (2, True, (True, True))]
    point = isl.UnionSet("[tsteps, n] -> { S0[3, 40, 70] : tsteps = 10 and n = 100 }")
    times = point.apply(tiled.get_map())
    # time loop 3, sequence position 0, tile (floor(40/32), floor(70/16)), point (8, 6)
    assert times.is_equal(isl.UnionSet(
        "[tsteps, n] -> { [3, 0, 1, 4, 8, 6] : tsteps = 10 and n = 100 }"))
    assert base.tree.get_map().is_equal(identity(scop, deps).tree.get_map())  # unchanged


def test_tiling_a_non_permutable_band_is_refused():
    scop, deps = kernel("seidel-2d")
    tree = mark_bands(isl.Schedule(
        '{ domain: "[tsteps, n] -> { S0[t, i, j] : 0 <= t < tsteps and 0 < i <= n - 2 and '
        '0 < j <= n - 2 }", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]" } }'), deps, combine=False)
    s = Schedule("manual", tree, frozenset(), scop, deps)
    with pytest.raises(PolycuError, match="not permutable"):
        tile(s, (0,), (32, 32, 32))


def test_skewing_seidel_makes_it_permutable_and_tileable():
    scop, deps = kernel("seidel-2d")
    tree = isl.Schedule(
        '{ domain: "[tsteps, n] -> { S0[t, i, j] : 0 <= t < tsteps and 0 < i <= n - 2 and '
        '0 < j <= n - 2 }", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]" } }')
    s = Schedule("manual", mark_bands(tree, deps, combine=False), frozenset(), scop, deps)
    s = skew(skew(s, (0,), 1, 0, 1), (0,), 2, 0, 2)     # (t, t + i, 2t + j)
    s = skew(s, (0,), 2, 1, 1)                           # (t, t + i, 3t + i + j)
    assert bands(s.tree) == [(3, True, (False, False, False))]
    tiled = tile(s, (0,), (8, 8, 8))
    check_legality(scop, deps, tiled)


def test_an_illegal_interchange_is_refused_by_the_proof():
    scop, deps = kernel("seidel-2d")
    tree = isl.Schedule(
        '{ domain: "[tsteps, n] -> { S0[t, i, j] : 0 <= t < tsteps and 0 < i <= n - 2 and '
        '0 < j <= n - 2 }", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]" } }')
    s = Schedule("manual", mark_bands(tree, deps, combine=False), frozenset(), scop, deps)
    with pytest.raises(IllegalSchedule):
        interchange(s, (0,), (0, 2, 1))


def test_distribute_then_fuse_gemm_round_trips():
    scop, deps = kernel("gemm")
    base = identity(scop, deps)
    spread = distribute(base, band_paths(base.tree)[0])
    # i copied into each statement's subtree: S0 gets (i) then (j), S1 (i) then (k), (j)
    assert node_at(spread.tree, (0,)).get_type() == isl.schedule_node_type.sequence
    assert all(flags[2][0] for flags in bands(spread.tree)[:1])
    back = fuse(spread, (0,))
    assert back.get_map().is_equal(base.get_map())


def test_split_cuts_a_band():
    scop, deps = kernel("jacobi-2d")
    base = identity(scop, deps)
    cut = split(base, band_paths(base.tree)[1], 1)
    assert bands(cut.tree)[1:3] == [(1, True, (True,)), (1, True, (True,))]
    assert cut.get_map().is_equal(base.get_map())


# -- sizes ----------------------------------------------------------------------------

def test_parse_sizes_reads_ppcg_syntax():
    sizes = parse_sizes("{ kernel[0] -> tile[32, 16]; kernel[i] -> block[16, 8]; "
                        "kernel[i] -> tile[4] : 1 <= i <= 2 }")
    assert sizes == {0: {"tile": (32, 16)}, ANY: {"block": (16, 8)},
                     1: {"tile": (4,)}, 2: {"tile": (4,)}}
    assert sizes_for(sizes, 0, "block") == (16, 8)
    assert sizes_for(sizes, 7, "tile") is None
    assert parse_sizes(None) == {}


def test_parse_sizes_reads_kernels_that_isl_merges_into_one_map():
    """Regression (found by polycu tune on atax and jacobi-2d): isl stores
    'kernel[0] -> block[64]; kernel[2] -> block[32]' as one map of two points; each
    kernel's sizes are its own image, not an error."""
    assert parse_sizes("{ kernel[1] -> block[32, 16]; kernel[0] -> block[64, 8] }") == \
        {0: {"block": (64, 8)}, 1: {"block": (32, 16)}}
    assert parse_sizes("{ kernel[0] -> block[64]; kernel[2] -> block[32]; "
                       "kernel[i] -> tile[4] : 1 <= i <= 2; kernel[0] -> tile[64] }") == \
        {0: {"block": (64,), "tile": (64,)}, 1: {"tile": (4,)},
         2: {"block": (32,), "tile": (4,)}}


@pytest.mark.parametrize("text", ["junk", "{ kernel[0] -> tile[0] }",
                                  "{ foo[0] -> tile[3] }", "{ kernel[0] -> tile[i] }",
                                  "[n] -> { kernel[0] -> tile[n] }"])
def test_parse_sizes_rejects_bad_input_with_a_located_diagnostic(text):
    with pytest.raises(PolycuError) as info:
        parse_sizes(text)
    assert str(info.value.first.location) == "--sizes"


# -- I/O ------------------------------------------------------------------------------

def test_save_and_load_round_trip(tmp_path):
    scop, deps = kernel("gemm")
    best = choose(scop, deps, reporter=quiet())
    path = tmp_path / "gemm.yaml"
    save_schedule(best, str(path))
    loaded = load_schedule(scop, deps, str(path))
    assert loaded.name == f"loaded:{path}"
    assert loaded.get_map().is_equal(best.get_map())
    assert bands(loaded.tree) == bands(best.tree)
    again = choose(scop, deps, Options(load_schedule=str(path)))
    assert again.get_map().is_equal(best.get_map())


def test_loading_an_illegal_schedule_names_the_file(tmp_path):
    scop, deps = kernel("seidel-2d")
    path = tmp_path / "bad.yaml"
    path.write_text(format_tree(isl.Schedule(
        '{ domain: "[tsteps, n] -> { S0[t, i, j] : 0 <= t < tsteps and 0 < i <= n - 2 and '
        '0 < j <= n - 2 }", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(j)] }, { S0[t, i, j] -> [(i)] }]" } }')))
    with pytest.raises(IllegalSchedule) as info:
        load_schedule(scop, deps, str(path))
    assert any(d.location is not None and d.location.file == str(path)
               for d in info.value.diagnostics)


@pytest.mark.parametrize("content, message", [
    ("this is not a schedule", "not an isl schedule tree"),
    ('domain: "{ T9[i] : 0 <= i < 4 }"\n', "does not have"),
])
def test_loading_a_bad_file_gives_a_located_diagnostic(tmp_path, content, message):
    scop, deps = kernel("gemm")
    path = tmp_path / "s.yaml"
    path.write_text(content)
    with pytest.raises(PolycuError, match=message) as info:
        load_schedule(scop, deps, str(path))
    assert info.value.first.location.file == str(path)


def test_cli_dump_and_bad_load(tmp_path, capsys):
    from polycu.cli import main
    gemm = str(ROOT / "examples" / "gemm.c")
    saved = tmp_path / "s.yaml"
    assert main(["--dump-schedule", "--save-schedule", str(saved), gemm]) == 0
    out = capsys.readouterr().out
    assert "# chosen: isl-maxfuse" in out and "coincident: [ 1, 1 ]" in out
    assert saved.exists()
    dumped = tmp_path / "dumped.yaml"
    dumped.write_text(out)  # the dump, comments included, loads back
    assert main(["--dump-schedule", "--load-schedule", str(dumped), gemm]) == 0
    assert f"# chosen: loaded:{dumped}" in capsys.readouterr().out
    missing = tmp_path / "missing.yaml"
    assert main(["--dump-schedule", "--load-schedule", str(missing), gemm]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{missing}: error: cannot read schedule") and "Traceback" not in err


# -- the proof against brute force ---------------------------------------------------

def _points(uset: isl.UnionSet) -> list[isl.Point]:
    found: list[isl.Point] = []
    uset.foreach_point(found.append)
    return found


def _brute_force_legal(deps, relation: isl.UnionMap, params: isl.Set) -> bool:
    """Enumerate every dependence pair at fixed parameters; compare times as tuples."""
    def time_of(point: isl.Point) -> tuple[int, ...]:
        image = isl.UnionSet.from_set(isl.Set.from_point(point)).apply(relation)
        (p,) = _points(image)
        space = p.get_space()
        return tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python()
                     for k in range(space.dim(isl.dim_type.set)))

    pairs = deps.validity.intersect_params(params).wrap()
    for point in _points(pairs):
        pair = isl.Set.from_point(point).unwrap()
        if not time_of(_points(isl.UnionSet.from_set(pair.domain()))[0]) < \
                time_of(_points(isl.UnionSet.from_set(pair.range()))[0]):
            return False
    return True


@pytest.mark.parametrize("name, relation, legal", [
    ("seidel-2d", "{ S0[t, i, j] -> [t, i, j] }", True),
    ("seidel-2d", "{ S0[t, i, j] -> [t, j, i] }", False),
    ("seidel-2d", "{ S0[t, i, j] -> [t, 2t + i, 4t + 2i + j] }", True),
    ("seidel-2d", "{ S0[t, i, j] -> [i, t, j] }", False),
    ("jacobi-1d", "{ S0[t, i] -> [t, 0, i]; S1[t, i] -> [t, 1, i] }", True),
    ("jacobi-1d", "{ S0[t, i] -> [t, 0, -i]; S1[t, i] -> [t, 1, -i] }", True),
    ("jacobi-1d", "{ S0[t, i] -> [t, 1, i]; S1[t, i] -> [t, 0, i] }", False),
    ("jacobi-1d", "{ S0[t, i] -> [2t, i]; S1[t, i] -> [2t + 1, i] }", True),
])
def test_the_proof_agrees_with_enumerating_every_dependence(name, relation, legal):
    scop, deps = kernel(name)
    umap = isl.UnionMap(relation)
    params = isl.Set("[tsteps, n] -> { : tsteps = 2 and n = 6 }")
    assert _brute_force_legal(deps, umap.intersect_params(params), params) == legal
    assert is_legal(scop, deps, umap) == legal


def test_each_scop_of_a_file_has_its_own_schedule_file(tmp_path):
    from polycu.schedule import scop_file
    assert scop_file("out/s.yaml", 0) == "out/s.yaml"
    assert scop_file("out/s.yaml", 2) == "out/s.2.yaml"
    two = """
void f(int n, double A[n], double B[n]) {
#pragma scop
  for (int i = 0; i < n; i++) A[i] = 1.0;
#pragma endscop
#pragma scop
  for (int i = 1; i < n; i++) B[i] = B[i - 1] + A[i];
#pragma endscop
}
"""
    scops = polycu.load_text(two, "two.c")
    target = str(tmp_path / "s.yaml")
    for index, scop in enumerate(scops):
        choose(scop, polycu.dependences(scop), Options(save_schedule=target), index=index)
    first, second = (tmp_path / "s.yaml").read_text(), (tmp_path / "s.1.yaml").read_text()
    assert "S0[i]" in first and "S0[i]" in second and first != second
    for index, scop in enumerate(scops):
        deps = polycu.dependences(scop)
        loaded = choose(scop, deps, Options(load_schedule=target), index=index)
        assert loaded.get_map().is_equal(choose(scop, deps).get_map())
