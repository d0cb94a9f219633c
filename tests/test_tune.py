"""polycu tune: the space, the search, the checks, the cache and --tuned.

The evaluator here is the CPU emulation (CI has no GPU): each configuration is
compiled by polycu, emulated with real threads and barriers, and compared with the
original; its time is the emulation's.  The GPU runs are scripts/tune_bench.sh's
(docs/results/tuning.md).
"""
from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path

import pytest

from polycu import Options, PolycuError, compile, tuned
from polycu.cli import main
from polycu.deps import compute_dependences
from polycu.driver import candidates, load_scops
from polycu.memory.placement import MAX_LANES
from polycu.runtime.check import targets
from polycu.tune.evaluate import Built, EmulationEvaluator, Measured, build
from polycu.tune import run as tune_run
from polycu.tune.run import tune_file
from polycu.tune.search import Evaluation, best, search
from polycu.tune.space import (PRUNE_RATIO, Config, neighbours, promising, size_choices,
                               space)

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "examples" / "gemm.c"
JACOBI_2D = ROOT / "polybench" / "stencils" / "jacobi-2d" / "jacobi-2d.c"
TWO_MM = ROOT / "polybench" / "linear-algebra" / "kernels" / "2mm" / "2mm.c"
ATAX = ROOT / "polybench" / "linear-algebra" / "kernels" / "atax" / "atax.c"
CHOLESKY = ROOT / "polybench" / "linear-algebra" / "solvers" / "cholesky" / "cholesky.c"
UTILITIES = str(ROOT / "polybench" / "utilities")


# -- the space ------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_size_choices_are_launchable(depth: int) -> None:
    choices = size_choices(depth)
    assert len(choices) == len(set(choices)) > 10
    for tile, block in choices:
        threads = 1
        lanes = 1
        for k in range(depth):
            b = block[depth - 1 - k]          # tile is outer first, block x first
            assert tile[k] % b == 0 and tile[k] // b in (1, 2, 4)
            lanes *= tile[k] // b
            threads *= b
        assert 32 <= threads <= 1024 and lanes <= MAX_LANES and block[0] >= 16


def test_default_config_changes_nothing_and_flags_replay() -> None:
    assert Config().changes() == {}
    config = Config("isl-minfuse", ((0, ((64, 32), (16, 16))), (1, ((32,), (32,)))),
                    False, True, False)
    changes = config.changes()
    assert changes["sizes"] == ("{ kernel[0] -> tile[64,32]; kernel[0] -> block[16,16]; "
                                "kernel[1] -> tile[32]; kernel[1] -> block[32] }")
    flags = tuned.config_flags(changes)
    assert flags[:2] == ["--private-memory", "--schedule"]  # sorted by option name
    assert "--no-shared-memory" in flags and "--no-single-block" in flags
    # the flags parse back into the very values (what the .cu header promises)
    from polycu.cli import build_parser
    args = build_parser().parse_args(["compile", "x.c", *flags])
    for dest, value in changes.items():
        assert getattr(args, dest) == value


def test_space_covers_each_candidate_with_polycu_first() -> None:
    options = Options(include_dir=[UTILITIES])
    scop = load_scops(str(TWO_MM), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    configs = space(ranked)
    assert configs[0] == Config()
    names = {c.schedule for c in configs[1:]}
    assert names == {c.schedule.name.split("=")[0] for c in ranked}
    # 2mm's kernels are 2-D: each gets each 2-D choice, four memory settings each
    minfuse = [c for c in configs if c.schedule == "isl-minfuse"]
    assert len(minfuse) == 4 * len(size_choices(2))
    assert all(len(c.sizes) == 4 and len({s for _, s in c.sizes}) == 1 for c in minfuse)
    rng = random.Random(3)
    near = neighbours(minfuse[0], ranked, rng)
    assert len(set(near)) == len(near) and minfuse[0] not in near
    # one step: another schedule, one kernel's sizes, or one memory flag
    for other in near:
        moved = sum(a != b for a, b in zip(dict(minfuse[0].sizes).values(),
                                           dict(other.sizes).values()))
        assert other.schedule != "isl-minfuse" or moved == 1 or \
            other.shared_memory != minfuse[0].shared_memory or \
            other.private_memory != minfuse[0].private_memory


def test_space_measures_host_loops_with_and_without_a_resident_grid() -> None:
    """The resident grid is polycu's default where its plan holds, so a candidate
    whose kernels launch from host loops is measured without it and with it, ended by
    each sync (--resident-sync auto guesses), and each way's flags build it again; 2mm
    has no host loop and gets none of them."""
    options = Options(include_dir=[UTILITIES], define=["LARGE_DATASET"])
    scop = load_scops(str(JACOBI_2D), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    configs = space(ranked)
    looped = [c for c in ranked if c.host_loops]
    assert looped and not any(c.program.single_block for c in looped)
    for candidate in looped:
        name = candidate.schedule.name.split("=")[0]
        assert Config(name, resident_grid=True, resident_sync="grid") in configs
        assert Config(name, resident_grid=True, resident_sync="neighbours") in configs
        assert Config(name, resident_grid=False) in configs
    assert tuned.config_flags(Config(resident_grid=False).changes()) == ["--no-resident-grid"]
    flags = tuned.config_flags(Config(resident_grid=True, resident_sync="neighbours").changes())
    assert flags == ["--resident-grid", "--resident-sync", "neighbours"]
    from polycu.cli import build_parser
    args = build_parser().parse_args(["compile", "x.c", *flags])
    assert (args.resident_grid, args.resident_sync) == (True, "neighbours")
    two_mm = load_scops(str(TWO_MM), Options(include_dir=[UTILITIES]))[0]
    assert all(c.resident_grid is None and c.resident_sync is None
               for c in space(candidates(two_mm, compute_dependences(two_mm))))


def test_candidates_estimated_far_slower_are_not_tried() -> None:
    """cholesky's original order runs the whole factorisation in one thread (the
    model: over 1000x the best candidate); a search that measured it at LARGE held a
    device call for minutes.  Candidates within PRUNE_RATIO stay."""
    options = Options(include_dir=[UTILITIES], define=["LARGE_DATASET"])
    scop = load_scops(str(CHOLESKY), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    kept, slow = promising(ranked)
    assert [c.schedule.name for c in slow] == ["identity"]
    assert kept == [c for c in ranked if c.schedule.name != "identity"] and kept[0] is ranked[0]
    assert all(c.score <= PRUNE_RATIO * ranked[0].score for c in kept)
    assert slow[0].score > 1000 * ranked[0].score
    assert {c.schedule for c in space(kept)[1:]} == {c.schedule.name.split("=")[0]
                                                     for c in kept}


def test_reordered_reductions_join_the_space_only_when_allowed() -> None:
    """--reorder-reductions: tree reductions beside polycu's choice and beside every
    other point, and one step away from each in the local search; never otherwise."""
    options = Options(include_dir=[UTILITIES])
    scop = load_scops(str(ATAX), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    plain, reordered = space(ranked), space(ranked, reorder=True)
    assert all(c.parallel_reductions is None for c in plain)
    assert reordered[:2] == [Config(), Config(parallel_reductions=True)]
    assert reordered[2:] == [dataclasses.replace(c, parallel_reductions=tree)
                             for c in plain[1:] for tree in (None, True)]
    tree = Config(parallel_reductions=True)
    assert tuned.config_flags(tree.changes()) == ["--parallel-reductions"]
    rng = random.Random(1)
    assert Config() in neighbours(tree, ranked, rng, reorder=True)
    assert tree in neighbours(Config(), ranked, rng, reorder=True)
    assert not any(c.parallel_reductions for c in neighbours(Config(), ranked, rng))


def test_tuning_with_reordered_reductions_checks_them(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """atax's sums in a tree: other code than the default, emulated and checked
    against the original (within the check's tolerance), then cached if fastest."""
    out, cache = tmp_path / "out", tmp_path / "cache.json"
    assert main(["tune", str(ATAX), "-I", UTILITIES, "--evaluator", "emulate",
                 "--max-configs", "2", "--jobs", "2", "--repeat", "1", "--seed", "3",
                 "--reorder-reductions", "--strategy", "local", "--out", str(out),
                 "--tune-cache", str(cache)]) == 0
    capsys.readouterr()
    evaluations = json.loads((out / "atax.json").read_text())["evaluations"]
    assert [e["flags"] for e in evaluations] == [[], ["--parallel-reductions"]]
    assert [e["status"] for e in evaluations] == ["ok", "ok"]
    assert evaluations[1]["same_as"] is None      # other code, measured on its own
    default = compile(str(ATAX), Options(include_dir=[UTILITIES]))
    tree = compile(str(ATAX), Options(include_dir=[UTILITIES], parallel_reductions=True))
    # the partial sums of a row meet in shared memory, between barriers; the
    # default's ordered trees add the terms one after the other instead
    assert "__syncthreads" in tree.cuda and "__launch_bounds__" in tree.cuda
    assert "p0 = p0 + sum0[" in default.cuda and "p0 = p0 + sum0[" not in tree.cuda


def test_a_second_tune_finds_the_winner_and_builds_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache slot (SCoP, sizes, device) is looked up before anything is scheduled,
    built or run; --retune searches again."""
    out, cache = tmp_path / "out", tmp_path / "cache.json"
    command = ["tune", str(ATAX), "-I", UTILITIES, "--evaluator", "emulate",
               "--max-configs", "2", "--jobs", "2", "--repeat", "1", "--seed", "3",
               "--strategy", "local", "--out", str(out), "--tune-cache", str(cache)]
    assert main(command) == 0
    first = capsys.readouterr().out
    stored = cache.read_text()
    evaluations = (out / "atax.json").read_text()
    [entry] = tuned.read(cache).values()

    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("a cache hit scheduled or ran something")
    monkeypatch.setattr(tune_run, "candidates", forbidden)
    monkeypatch.setattr(tune_run, "open_workers", forbidden)
    assert main(command) == 0
    second = capsys.readouterr().out
    assert "nothing built (--retune searches again)" in second
    assert f"best {entry.kernel_s * 1e3:.3f} ms" in second and "best" in first
    # the cache and the search's evaluations are left as the first run wrote them
    assert cache.read_text() == stored and (out / "atax.json").read_text() == evaluations
    # another size is another slot: searched (here: stopped at the forbidden schedule)
    with pytest.raises(AssertionError, match="cache hit scheduled"):
        main([*command, "--param", "n=40", "--param", "m=30"])
    with pytest.raises(AssertionError, match="cache hit scheduled"):
        main([*command, "--retune"])


# -- --schedule -------------------------------------------------------------------------
def test_schedule_option_picks_the_named_candidate() -> None:
    options = Options(include_dir=[UTILITIES])
    default = compile(str(TWO_MM), options).description["scops"][0]
    minfuse = compile(str(TWO_MM), options.replace(schedule="isl-minfuse"))
    kernels = minfuse.description["scops"][0]["kernels"]
    assert len(kernels) == 4 != len(default["kernels"])
    with pytest.raises(PolycuError, match=r"no schedule candidate 'fused'.*isl-minfuse"):
        compile(str(TWO_MM), options.replace(schedule="fused"))


# -- the search, on a synthetic time ---------------------------------------------------------
def _synthetic(ranked):  # type: ignore[no-untyped-def]
    """A builder and a measure whose time is a known function of the sizes: the
    fastest configuration is the 2-D kernel with 128x2 blocks and 2x2 lanes."""
    def time_of(config: Config) -> float:
        if not config.sizes or len(config.sizes[0][1][0]) != 2:
            return 1000.0 if not config.sizes else 1001.0
        (tile, block) = config.sizes[0][1]
        return 1.0 + abs(block[0] - 128) / 32 + abs(block[1] - 2) + abs(tile[0] - 4) \
            + abs(tile[1] - 256) / 64 + (0.5 if config.shared_memory is False else 0)

    def builder(configs):  # type: ignore[no-untyped-def]
        return [Built({"device_source": repr(c), "host": []}) for c in configs]

    def measure(built: list[Built]) -> list[Measured]:
        return [Measured("ok", time_of(eval(b.entry["device_source"],  # noqa: S307
                                            {"Config": Config}))) for b in built]
    return builder, measure


def test_local_search_finds_the_optimum_of_a_known_landscape() -> None:
    options = Options()
    scop = load_scops(str(GEMM), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    builder, measure = _synthetic(ranked)
    found = search(ranked, builder, measure, strategy="local", max_configs=150,
                   budget_s=600, jobs=4, seed=1)
    assert found[0].config == Config() and found[0].seconds == 1000.0
    winner = best(found)
    assert winner is not None and winner.seconds == 1.0
    assert dict(winner.config.sizes)[0] == ((4, 256), (128, 2))
    exhaustive = search(ranked, builder, measure, strategy="exhaustive", max_configs=40,
                        budget_s=600, jobs=4, seed=1)
    assert len(exhaustive) == 40 and [e.config for e in exhaustive] == space(ranked)[:40]


def test_the_first_batch_is_measured_whatever_the_budget() -> None:
    """--budget bounds the search, not polycu's choice: with the budget spent before
    the first batch is even built (a slow build of a large SCoP), that batch is still
    measured, and nothing after it.  The local search fills that batch with the
    default's first neighbours."""
    options = Options()
    scop = load_scops(str(GEMM), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    builder, measure = _synthetic(ranked)
    for strategy in ("local", "exhaustive"):
        found = search(ranked, builder, measure, strategy=strategy, max_configs=8,
                       budget_s=0, jobs=4, seed=1, reorder=True)
        assert [e.config for e in found][:2] == [Config(), Config(parallel_reductions=True)]
        assert len(found) == 4
        if strategy == "local":
            near = neighbours(Config(), ranked, random.Random(1), reorder=True)
            assert [e.config for e in found][2:] == [c for c in near if c not in
                                                     (Config(), found[1].config)][:2]
        assert all(e.status == "ok" for e in found)


def test_identical_code_is_measured_once() -> None:
    options = Options()
    scop = load_scops(str(GEMM), options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    measured = []

    def builder(configs):  # type: ignore[no-untyped-def]
        return [Built({"device_source": "same" if c.shared_memory is not False else repr(c),
                       "host": []}) for c in configs]

    def measure(built: list[Built]) -> list[Measured]:
        measured.extend(b.code for b in built)
        return [Measured("ok", 1.0 + len(measured) - len(built) + i)
                for i in range(1, len(built) + 1)]
    found = search(ranked, builder, measure, strategy="exhaustive", max_configs=6,
                   budget_s=600, jobs=3, seed=0)
    assert len(measured) == len(set(measured)) == 6
    copies = [e for e in found if e.same_as is not None]
    assert copies and all(found[e.same_as].seconds == e.seconds for e in copies)


# -- real configurations, emulated ---------------------------------------------------------------
def test_a_wrong_configuration_is_discarded() -> None:
    """A configuration whose code computes something else fails its check against the
    original and never wins, however fast."""
    options = Options()
    (target,) = targets(str(GEMM), options, overrides={"ni": 9, "nj": 11, "nk": 7})
    evaluator = EmulationEvaluator(target, seed=5)
    values = {k: getattr(options, k) for k in vars(options)}
    right = build(str(GEMM), values, {"shared_memory": False}, False, (), None)
    assert right.entry is not None and not right.error
    entry = dict(right.entry)             # alpha * A[..] * B[..] becomes alpha + ...
    entry["device_source"] = entry["device_source"].replace("(alpha * A", "(alpha + A")
    assert entry["device_source"] != right.entry["device_source"]
    ok, wrong = evaluator.measure(right.entry), evaluator.measure(entry)
    assert ok.status == "ok" and ok.seconds is not None and ok.seconds > 0
    assert wrong.status == "mismatch" and wrong.seconds is None and "C" in wrong.detail
    tried = [Evaluation(Config(shared_memory=False), ok.status, ok.seconds),
             Evaluation(Config(private_memory=False), wrong.status, 0.0, wrong.detail)]
    assert best(tried) is tried[0]
    broken = build(str(GEMM), values, {"sizes": "{ kernel[0] -> tile[64,64]; "
                                              "kernel[0] -> block[64,64] }"}, False, (), None)
    assert broken.entry is None and "at most 1024" in broken.error


def test_a_block_larger_than_its_tile_is_said(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    """PPCG cuts such a block down to the tile silently; polycu cuts it and says so."""
    out = str(tmp_path / "gemm.cu")
    assert main([str(GEMM), "-o", out, "--sizes",
                 "{ kernel[0] -> tile[32,32]; kernel[0] -> block[64,8] }"]) == 0
    err = capsys.readouterr().err
    assert "warning: --sizes: kernel 0 runs blocks of 32 threads along x, not 64" in err
    assert main([str(GEMM), "-o", out, "--sizes",
                 "{ kernel[0] -> tile[32,64]; kernel[0] -> block[64,8] }"]) == 0
    assert "--sizes" not in capsys.readouterr().err


def test_tune_caches_the_winner_and_tuned_compiles_it(tmp_path: Path) -> None:
    source = tmp_path / "gemm.c"
    shutil.copy(GEMM, source)
    cache = tmp_path / "cache.json"
    options = Options(evaluator="emulate", max_configs=5, jobs=2, tune_cache=str(cache),
                      repeat=1)
    tuning = tune_file(str(source), options, params={"ni": 12, "nj": 10, "nk": 9}, seed=7,
                       progress=False)
    statuses = [e.status for e in tuning.evaluations]
    assert statuses[0] == "ok" and tuning.evaluations[0].config == Config()
    assert sum(1 for e in tuning.evaluations if e.same_as is None and e.status == "ok") >= 3
    entry = tuning.entry
    assert entry is not None and entry.params == {"ni": 12, "nj": 10, "nk": 9}
    assert entry.kernel_s == min(e.seconds for e in tuning.evaluations if e.status == "ok")
    tuned.store(cache, [entry])
    # the same loop nest in another file finds the entry; --tuned compiles its flags
    other = tmp_path / "copy.c"
    other.write_text("/* a copy */\n" + source.read_text())
    plain = compile(str(other), Options(**entry.changes))
    via_cache = compile(str(other), Options(tuned=True, tune_cache=str(cache)))
    assert via_cache.cuda.startswith("/* Compiled with tuned configurations")
    header = via_cache.cuda.split("*/", 1)[0]
    assert "kernel_gemm_scop0" in header and "ni=12, nj=10, nk=9" in header
    assert via_cache.cuda.split("*/", 1)[1].lstrip("\n") == plain.cuda
    # a changed loop nest is another SCoP: never tuned, the defaults, with a note
    changed = tmp_path / "changed.c"
    changed.write_text(source.read_text().replace("alpha * A[i][k]", "alpha * A[k][i]"))
    assert not compile(str(changed), Options(tuned=True, tune_cache=str(cache))) \
        .cuda.startswith("/* Compiled with tuned")


def test_cache_keeps_the_faster_winner_per_slot(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "c.json"
    one = tuned.Entry("s", "k", "f.c", ("LARGE_DATASET",), {"n": 4}, "GPU", {"tile_size": 16},
                      2.0, 3.0, date="2026-01-01")
    tuned.store(cache, [one, dataclasses.replace(one, kernel_s=1.0, changes={"tile_size": 8})])
    tuned.store(cache, [dataclasses.replace(one, kernel_s=1.5)])
    other_size = dataclasses.replace(one, params={"n": 8}, defines=("SMALL_DATASET",),
                                     date="2026-02-01")
    tuned.store(cache, [other_size])
    entries = tuned.read(cache)
    assert sorted(e.kernel_s for e in entries.values()) == [1.0, 2.0]
    assert json.loads(cache.read_text())["version"] == tuned.VERSION

    class Fake:
        name = "s"
    monkeypatch.setattr(tuned, "scop_key", lambda scop: "k")
    chosen, said = tuned.lookup(entries, Fake(), ["LARGE_DATASET"])  # type: ignore[arg-type]
    assert chosen is not None and chosen.changes == {"tile_size": 8} and "n=4" in said
    chosen, said = tuned.lookup(entries, Fake(), ["OTHER"])  # type: ignore[arg-type]
    assert chosen is not None and chosen.params == {"n": 8} and "latest" in said
    cache.write_text("{not json")
    with pytest.raises(PolycuError, match="cannot read the tuning cache"):
        tuned.read(cache)


def test_tune_without_a_gpu_says_how_to_go_on(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy")
    try:
        import pycuda  # noqa: F401
        pytest.skip("PyCUDA is installed")
    except ImportError:
        pass
    assert main(["tune", str(GEMM)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("--evaluator: error: PyCUDA is not available") and \
        "--evaluator emulate" in err and "Traceback" not in err


def test_the_emulation_checks_on_what_init_writes() -> None:
    """--init: both evaluators check every configuration on what the program's own
    init function writes, not on random values (PolyBench's init_array)."""
    options = Options(include_dir=[UTILITIES], define=["MINI_DATASET"])
    (target,) = targets(str(TWO_MM), options)
    initialised = EmulationEvaluator(target, seed=5, init="init_array")
    randomised = EmulationEvaluator(target, seed=5)
    expected = target.inputs(5, "init_array")
    assert set(initialised.ran.inputs) == set(expected)
    for name, values in expected.items():
        assert (initialised.ran.inputs[name] == values).all(), name
    assert any((randomised.ran.inputs[n] != v).any() for n, v in expected.items()
               if v.size > 1)
    values = {k: getattr(options, k) for k in vars(options)}
    built = build(str(TWO_MM), values, {}, False, (), None)
    assert built.entry is not None
    assert initialised.measure(built.entry).status == "ok"
