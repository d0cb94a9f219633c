"""The fitted cost model: features, the fit, its correlations, the ranking it gives.

The measurements are tests/data/fit (``polycu tune --evaluator emulate --out``
files, trimmed: their times are the CPU emulation's, which is all CI has); the
synthetic tests make times with the model itself, so the fit must recover them.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polycu import Options, fitted
from polycu.cli import main
from polycu.deps import compute_dependences
from polycu.driver import candidates, load_scops, placement_of
from polycu.gpu.cost import representative_params
from polycu.gpu.rank import candidates as ranked_candidates
from polycu.driver import sizes_of, strategy_of, tensor_kernels
from polycu.memory import place
from polycu.memory.features import FEATURES, Features, features, params_point, predict
from polycu.runtime.native import cache_dir
from polycu.tune.fit import fit_constants, held_out, nnls, spearman

ROOT = Path(__file__).resolve().parent.parent
GEMM = str(ROOT / "examples" / "gemm.c")
TWO_MM = str(ROOT / "polybench" / "linear-algebra" / "kernels" / "2mm" / "2mm.c")
UTILITIES = str(ROOT / "polybench" / "utilities")
FIXTURE = sorted(str(p) for p in (ROOT / "tests" / "data" / "fit").glob("*.json"))
DEVICE = "CPU emulation (x86_64)"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and a present device of the fixture's name."""
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("POLYCU_DEVICE", DEVICE)
    return tmp_path


def _features(options: Options) -> dict[str, float]:
    scop = load_scops(GEMM, options)[0]
    placed = placement_of(scop, options)
    return features(placed, params_point(placed.program.scop,
                                         {"ni": 1000, "nj": 1100, "nk": 1200})).as_dict()


def test_configurations_differing_only_in_sizes_have_different_features() -> None:
    small = _features(Options(sizes="{ kernel[0] -> tile[32,32]; kernel[0] -> block[32,8] }"))
    large = _features(Options(sizes="{ kernel[0] -> tile[64,32]; kernel[0] -> block[16,16] }"))
    assert small != large
    # 4 lanes a thread (32x32 by 32x8) against 8 (64x32 by 16x16): more threads, so
    # less work for each, but smaller tiles, so more copies and more blocks
    assert small["work"] < large["work"]
    assert small["wave"] > large["wave"] and small["dram"] > large["dram"]
    assert small["launch"] == large["launch"] == 1.0


def test_features_follow_the_parameter_values() -> None:
    placed = placement_of(load_scops(GEMM, Options())[0], Options())
    scop = placed.program.scop
    small, large = (features(placed, params_point(scop, {"ni": n, "nj": n, "nk": n}))
                    .as_dict() for n in (64, 512))
    assert small["launch"] == large["launch"] and small["work"] < large["work"]
    assert large["dram"] / small["dram"] > 8 ** 2     # at least the square of the ratio


def test_nnls_keeps_constants_non_negative_and_optimal() -> None:
    rng = np.random.default_rng(7)
    a = rng.random((30, 5))
    b = a @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.01 * rng.random(30)
    x = nnls(a, b)
    assert (x >= 0).all()
    gradient = a.T @ (b - a @ x)          # Karush-Kuhn-Tucker: no direction improves
    assert np.all(gradient <= 1e-8) and np.allclose(gradient[x > 0], 0, atol=1e-8)
    assert x[1] == 0.0


def test_fit_recovers_the_constants_of_synthetic_times() -> None:
    rng = np.random.default_rng(11)
    known = np.array([4e-6, 2e-9, 3e-12, 0.0, 1e-13, 5e-7, 0.0, 1e-10])
    scale = np.array([10, 1e4, 1e9, 1e8, 1e10, 100, 10, 1e5])   # features' magnitudes
    rows = rng.random((60, len(FEATURES))) * scale
    seconds = rows @ known
    assert np.allclose(fit_constants(rows, seconds), known, rtol=1e-6, atol=1e-18)
    estimates, how = held_out(rows, seconds, ["a"] * 30 + ["b"] * 30)
    assert how == "leave one file out (2 files)"
    assert np.allclose(estimates, seconds, rtol=1e-6)
    assert spearman(estimates, seconds) == pytest.approx(1.0)


def test_spearman_of_known_permutations() -> None:
    # rho = 1 - 6 sum d^2 / (n (n^2 - 1)): d = (-1, 1, -1, 1, 0) gives 1 - 24/120
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([0.1, 5, 7e3], [1, 2, 3]) == pytest.approx(1.0)   # ranks, not values
    # ties share their mean rank: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4)
    x, y = np.array([1, 2.5, 2.5, 4]), np.arange(1, 5)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert np.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_the_fitted_cache_lies_beside_devices_json(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path / "a"))
    assert fitted.cache_path().parent == cache_dir()
    monkeypatch.delenv("POLYCU_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "b"))
    assert fitted.cache_path().parent == cache_dir()


def test_device_fit_on_the_fixture_writes_the_record(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)               # the files name their C files from the root
    assert len(FIXTURE) == 2
    assert main(["device", "--fit", *FIXTURE, "-I", UTILITIES, "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert f"cost model fitted for {DEVICE}" in out
    assert "held out: leave one file out (2 files)" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.strip().startswith(("overall", *FIXTURE))}
    assert set(rows) == {"overall", *FIXTURE}
    assert all(-1.0 <= float(v) <= 1.0 for values in rows.values() for v in values)
    record = json.loads((cache / "fitted.json").read_text())[DEVICE]
    assert record["features"] == list(FEATURES)
    assert record["samples"] == sum(
        1 for f in FIXTURE for e in json.loads(Path(f).read_text())["evaluations"]
        if e["status"] == "ok" and e["same_as"] is None)
    assert all(c >= 0 for c in record["constants"].values())
    assert any(c > 0 for c in record["constants"].values())
    said = record["spearman"]
    assert set(said["in_sample"]) == set(said["held_out"]) == {"overall", *FIXTURE}
    assert fitted.constants() == record["constants"]


def test_fit_wants_files_and_files_want_fit(cache: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    assert main(["device", *FIXTURE]) == 1
    assert "measurement files go with --fit" in capsys.readouterr().err


def _ranking(options: Options) -> list[tuple[str, str]]:
    scop = load_scops(TWO_MM, options)[0]
    return [(c.schedule.name, c.explanation)
            for c in candidates(scop, compute_dependences(scop), options)]


def test_without_a_fit_the_ranking_is_unchanged(cache: Path) -> None:
    options = Options(include_dir=[UTILITIES])
    assert fitted.estimate(options) is None
    scop = load_scops(TWO_MM, options)[0]
    # the cost model's own ranking, with the kernels on tensor cores discounted
    own = ranked_candidates(scop, compute_dependences(scop), strategy_of(options),
                            sizes_of(options), tensor=tensor_kernels)
    assert _ranking(options) == [(c.schedule.name, c.explanation) for c in own]
    # a fit for another device changes nothing here either
    fitted.store("another GPU", {"features": list(FEATURES),
                                 "constants": dict.fromkeys(FEATURES, 1.0)})
    assert fitted.estimate(options) is None
    assert _ranking(options) == [(c.schedule.name, c.explanation) for c in own]


def test_with_a_fit_the_ranking_follows_its_estimates(cache: Path) -> None:
    options = Options(include_dir=[UTILITIES])
    own = _ranking(options)
    # a device where only launches cost: the fewest launches first
    constants = {**dict.fromkeys(FEATURES, 0.0), "launch": 1e-5, "wave": 1e-9}
    fitted.store(DEVICE, {"features": list(FEATURES), "constants": constants})
    estimate = fitted.estimate(options)
    assert estimate is not None
    scop = load_scops(TWO_MM, options)[0]
    ranked = candidates(scop, compute_dependences(scop), options)
    scores = [estimate(c.program) for c in ranked]
    assert scores == sorted(scores)
    assert all("fitted estimate" in c.explanation for c in ranked)
    placed = place(ranked[0].program)
    assert scores[0] == pytest.approx(predict(constants, features(
        placed, representative_params(scop))))
    # --no-fitted-cost: polycu's own constants again
    assert _ranking(options.replace(fitted_cost=False)) == own
    # a record of other features (another version of polycu) is not used
    fitted.store(DEVICE, {"features": ["launch"], "constants": {"launch": 1.0}})
    assert fitted.estimate(options) is None


def test_predict_is_linear_in_the_constants() -> None:
    found = Features(tuple(float(k + 1) for k in range(len(FEATURES))))
    one = dict.fromkeys(FEATURES, 1.0)
    assert predict(one, found) == sum(found.values)
    assert predict({name: 2.0 for name in FEATURES}, found) == 2 * predict(one, found)
    assert predict({}, found) == 0.0
