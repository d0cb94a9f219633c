"""The PolyBench/C 4.2.1 suite of ``polybench/``: every kernel must build
warning-free, run, and dump exactly the stored reference output (which
equals the original benchmark's output) for the MINI and SMALL datasets.

All binaries are built once, in parallel, by a module fixture; the tests
then only run them.
"""
from __future__ import annotations

import csv
import json
import os
import re
from functools import partial
from pathlib import Path

import polybench_cpu as pbcpu  # scripts/, on the path by conftest.py
import pytest
from session_work import computed

REPO_ROOT = Path(__file__).resolve().parent.parent
REF_DIR = REPO_ROOT / "tests" / "data" / "polybench_ref"


KERNELS = pbcpu.find_kernels()
DATASETS = ("MINI", "SMALL")

# The 30 benchmarks of PolyBench/C 4.2.1, by category.
EXPECTED_SUITE = {
    "datamining": {"correlation", "covariance"},
    "linear-algebra/blas": {"gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm"},
    "linear-algebra/kernels": {"2mm", "3mm", "atax", "bicg", "doitgen", "mvt"},
    "linear-algebra/solvers": {"cholesky", "durbin", "gramschmidt", "lu", "ludcmp", "trisolv"},
    "medley": {"deriche", "floyd-warshall", "nussinov"},
    "stencils": {"adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"},
}

WARNING_FLAGS = ("-O2", "-Wall", "-Wextra")

# Build variants: name -> (datasets, macros, cflags, warnings allowed).
# USE_SCALAR_LB leaves the runtime size parameters of the kernel functions
# unused (as in the original), hence the allowed -Wunused-parameter.
VARIANTS = {
    "dump": (DATASETS, ["POLYBENCH_DUMP_ARRAYS"], WARNING_FLAGS + pbcpu.DUMP_CFLAGS, False),
    "c99": (DATASETS, ["POLYBENCH_DUMP_ARRAYS", "POLYBENCH_USE_C99_PROTO"],
            WARNING_FLAGS + pbcpu.DUMP_CFLAGS, False),
    "scalar_lb": (("MINI",), ["POLYBENCH_DUMP_ARRAYS", "POLYBENCH_USE_SCALAR_LB"],
                  ("-O2",) + pbcpu.DUMP_CFLAGS, True),
    "float": (("MINI",), ["POLYBENCH_DUMP_ARRAYS", "DATA_TYPE_IS_FLOAT"], WARNING_FLAGS, False),
    "time": (("MINI",), ["POLYBENCH_TIME"], WARNING_FLAGS, False),
}


def _ids(kernel) -> str:
    return kernel.name


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """(kernel name, dataset, variant) -> BuildResult, or the BuildError."""
    out_dir = tmp_path_factory.mktemp("polybench-bin")
    jobs = [(kernel, dataset, variant)
            for kernel in KERNELS
            for variant, (datasets, _, _, _) in VARIANTS.items()
            for dataset in datasets]

    def build(job):
        kernel, dataset, variant = job
        _, macros, cflags, _ = VARIANTS[variant]
        try:
            return pbcpu.build_kernel(kernel, dataset, out_dir, defines=macros,
                                      cflags=cflags, tag=f"_{variant}")
        except pbcpu.BuildError as exc:
            return exc

    return computed("builds", {(k.name, d, v): partial(build, (k, d, v)) for k, d, v in jobs},
                    threads=os.cpu_count() or 1)


def _built(builds, kernel, dataset, variant):
    result = builds[(kernel.name, dataset, variant)]
    if isinstance(result, Exception):
        pytest.fail(f"build failed: {result}")
    if not VARIANTS[variant][3]:
        assert result.diagnostics == "", f"gcc reported:\n{result.diagnostics}"
    return result


def _dump(builds, kernel, dataset, variant) -> str:
    run = pbcpu.run_kernel(_built(builds, kernel, dataset, variant).binary, timeout=60)
    assert run.stdout == "", "dump builds must print nothing on stdout"
    return run.stderr


def _first_difference(expected: str, actual: str) -> str:
    """Names the first differing value, to make a failure readable."""
    want, got = pbcpu.parse_dump(expected), pbcpu.parse_dump(actual)
    if list(want) != list(got):
        return f"arrays {list(got)} instead of {list(want)}"
    for name in want:
        if len(want[name]) != len(got[name]):
            return f"{name}: {len(got[name])} values instead of {len(want[name])}"
        for index, (w, g) in enumerate(zip(want[name], got[name])):
            if w != g:
                return f"{name}[{index}] (flattened) = {g} instead of {w}"
    return "same values, different layout (line breaks or spacing)"


def test_suite_has_the_30_polybench_kernels():
    found: dict[str, set[str]] = {}
    for kernel in KERNELS:
        found.setdefault(kernel.category, set()).add(kernel.name)
    assert found == EXPECTED_SUITE
    assert len(KERNELS) == 30


def test_every_reference_belongs_to_a_kernel():
    names = {f"{k.name}_{d}.dump.gz" for k in KERNELS for d in DATASETS}
    stale = sorted(p.name for p in REF_DIR.glob("*.dump.gz") if p.name not in names)
    assert stale == []


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("kernel", KERNELS, ids=_ids)
def test_dump_matches_reference(builds, kernel, dataset):
    reference = REF_DIR / f"{kernel.name}_{dataset}.dump.gz"
    assert reference.exists(), f"missing {reference}; run scripts/polybench_cpu.py"
    expected = pbcpu.read_dump(reference)
    actual = _dump(builds, kernel, dataset, "dump")
    assert actual == expected, _first_difference(expected, actual)


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("kernel", KERNELS, ids=_ids)
def test_c99_prototypes_give_the_same_dump(builds, kernel, dataset):
    assert _dump(builds, kernel, dataset, "c99") == _dump(builds, kernel, dataset, "dump")


@pytest.mark.parametrize("kernel", KERNELS, ids=_ids)
def test_scalar_loop_bounds_give_the_same_dump(builds, kernel):
    assert _dump(builds, kernel, "MINI", "scalar_lb") == _dump(builds, kernel, "MINI", "dump")


@pytest.mark.parametrize("kernel", KERNELS, ids=_ids)
def test_float_build_dumps_the_same_arrays(builds, kernel):
    """Single precision changes values, not which arrays are dumped nor
    their sizes."""
    as_float = pbcpu.parse_dump(_dump(builds, kernel, "MINI", "float"))
    as_double = pbcpu.parse_dump(_dump(builds, kernel, "MINI", "dump"))
    assert {n: len(v) for n, v in as_float.items()} == \
        {n: len(v) for n, v in as_double.items()}


@pytest.mark.parametrize("kernel", KERNELS, ids=_ids)
def test_time_is_printed(builds, kernel):
    run = pbcpu.run_kernel(_built(builds, kernel, "MINI", "time").binary, timeout=60)
    assert re.fullmatch(r"\d+\.\d{6}\n", run.stdout), run.stdout
    assert 0.0 <= pbcpu.parse_time(run.stdout) < 60.0
    assert run.stderr == "", "without POLYBENCH_DUMP_ARRAYS nothing is dumped"


def test_parse_dump_reads_arrays_in_order():
    text = ("==BEGIN DUMP_ARRAYS==\n"
            "begin dump: s\n0.50 -1.25 \nend   dump: s\n"
            "begin dump: q\n3.00 \nend   dump: q\n"
            "==END   DUMP_ARRAYS==\n")
    assert pbcpu.parse_dump(text) == {"s": [0.5, -1.25], "q": [3.0]}
    assert list(pbcpu.parse_dump(text)) == ["s", "q"]


def test_parse_dump_accepts_a_value_glued_to_the_name():
    """trisolv, like the original, breaks lines after values."""
    text = ("==BEGIN DUMP_ARRAYS==\n"
            "begin dump: x0.00 \n0.49 \nend   dump: x\n"
            "==END   DUMP_ARRAYS==\n")
    assert pbcpu.parse_dump(text) == {"x": [0.0, 0.49]}


@pytest.mark.parametrize("text", [
    "",
    "==BEGIN DUMP_ARRAYS==\n==END   DUMP_ARRAYS==\n",
    "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.00 \nend   dump: B\n==END   DUMP_ARRAYS==\n",
    "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1.00 \nend   dump: A\njunk\n==END   DUMP_ARRAYS==\n",
])
def test_parse_dump_rejects_malformed_dumps(text):
    with pytest.raises(ValueError):
        pbcpu.parse_dump(text)


def test_cpu_script_records_dumps_and_timings(tmp_path):
    assert pbcpu.main(["--dataset", "MINI", "--out", str(tmp_path), "--jobs", "2",
                       "--repeat", "2", "--kernels", "atax", "bicg"]) == 0
    for name in ("atax", "bicg"):
        stored = pbcpu.read_dump(tmp_path / f"{name}_MINI.dump.gz")
        assert stored == pbcpu.read_dump(REF_DIR / f"{name}_MINI.dump.gz")
    rows = json.loads((tmp_path / "timings_MINI.json").read_text())
    assert [(r["kernel"], len(r["samples_s"]), r["error"]) for r in rows] == \
        [("atax", 2, ""), ("bicg", 2, "")]
    assert all(r["median_s"] >= 0.0 for r in rows)
    with open(tmp_path / "timings_MINI.csv", newline="") as handle:
        assert [row["kernel"] for row in csv.DictReader(handle)] == ["atax", "bicg"]
