"""CPU emulation of generated CUDA against the original C (polycu/runtime/emulate.py).

* the per-SCoP driver on hand-written CUDA (tests/data/emulation/gemm_scop.cu), right
  and with planted bugs;
* ``polycu emulate`` on the command line;
* every PolyBench SCoP: polycu's kernels, emulated on random inputs, against gcc's
  build of the SCoP;
* every PolyBench program, emitted by polycu, built with g++ and polycu_emu.h, run at
  MINI and SMALL: its array dump equals gcc's build of the original up to one unit in
  the last printed digit (the dump prints two decimals).
"""
from __future__ import annotations

import copy
import functools
import gzip
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
from polycu.bench import cpu as polybench_cpu
import pytest

import polycu
from polycu.driver import compile_file
from polycu.diagnostics import PolycuError
from polycu.options import Options
from polycu.codegen import Generated
from polycu.cli import report_files
from polycu.runtime.compare import compare_arrays
from polycu.runtime.emulate import (build_emulated, emulate_generated, emulate_scop,
                                    emulation_env, scop_translation_unit)
from polycu.runtime.nvcc import NvccCheck, nvcc_check
from session_work import computed
from polycu.runtime.programs import (ProgramBuild, ProgramReport, compare_dumps, emulate_program,
                                     parse_dump)

ROOT = Path(__file__).resolve().parent.parent

KERNELS = polybench_cpu.find_kernels()
UTILITIES = polybench_cpu.UTILITIES_DIR
GEMM = next(k for k in KERNELS if k.name == "gemm")
HAND_WRITTEN_GEMM = (Path(__file__).parent / "data" / "emulation" / "gemm_scop.cu").read_text()


def options(kernel: polybench_cpu.Kernel, dataset: str) -> Options:
    # --run-on gpu spelled out: ``generated`` keeps its result for the whole worker
    # process, which must not depend on the test that first asked for it
    return Options(define=[f"{dataset}_DATASET"], run_on="gpu",
                   include_dir=[str(UTILITIES), str(kernel.directory)])


@functools.lru_cache(maxsize=None)
def scops(name: str, dataset: str) -> list[polycu.Scop]:
    kernel = next(k for k in KERNELS if k.name == name)
    opts = options(kernel, dataset)
    return polycu.load(str(kernel.source), defines=opts.define, includes=opts.include_dir)


def _compiled(name: str, dataset: str) -> Generated | str:
    """polycu's output for a kernel, or why polycu failed (a value that pickles)."""
    kernel = next(k for k in KERNELS if k.name == name)
    try:
        return compile_file(str(kernel.source), options(kernel, dataset))
    except PolycuError as exc:
        return f"polycu failed: {exc}"


def generated_table(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], Generated | str]:
    """``_compiled`` of each (kernel, dataset) pair, each by one of the session's
    workers (session_work.py): asked for all at once, the pairs are split between
    the workers that ask, where one at a time they would be computed in turn."""
    return computed("emulate", {pair: partial(_compiled, *pair) for pair in pairs})


@functools.lru_cache(maxsize=None)
def generated(name: str, dataset: str) -> Generated:
    """polycu's output for a kernel (shared by the SCoP and the whole-program tests,
    and by the session's workers)."""
    result = generated_table([(name, dataset)])[name, dataset]
    if isinstance(result, str):
        pytest.fail(result)
    return result


def gemm_scop() -> polycu.Scop:
    return scops("gemm", "MINI")[0]


def hand_written(**switches: int) -> str:
    return "".join(f"#define {k} {v}\n" for k, v in switches.items()) + HAND_WRITTEN_GEMM


# -- the driver on hand-written CUDA ---------------------------------------------------

def test_right_kernels_match_the_reference() -> None:
    report = emulate_scop(gemm_scop(), hand_written(), "gemm_host", seed=4, nvcc=False)
    assert report.ok, report.format()
    assert report.params == {"ni": 20, "nj": 25, "nk": 30}
    c = next(a for a in report.arrays if a.name == "C")
    assert c.size == 500 and c.max_rel_error < 1e-13
    assert report.live_allocations == 0
    assert report.format().startswith("kernel_gemm_scop0: OK (ni=20, nj=25, nk=30; seed 4)")


def test_missing_barrier_is_a_mismatch_at_the_first_element() -> None:
    report = emulate_scop(gemm_scop(), hand_written(WITH_BARRIER=0), "gemm_host", seed=4,
                          nvcc=False)
    assert not report.ok
    failure = report.first_failure
    assert failure is not None and failure.name == "C"
    assert failure.first_mismatch == (0, 0) and failure.mismatches > 400
    assert [a.name for a in report.arrays if not a.ok] == ["C"]


def test_missing_copy_in_reads_nan() -> None:
    report = emulate_scop(gemm_scop(), hand_written(COPY_IN_B=0), "gemm_host", seed=4,
                          params={"ni": 9, "nj": 11, "nk": 5}, nvcc=False)
    c = next(a for a in report.arrays if a.name == "C")
    assert c.mismatches == 9 * 11 and c.nan_actual == 9 * 11 and c.nan_expected == 0
    assert "NaN: 0 expected, 99 computed" in report.format()


def test_device_memory_never_freed_fails_the_check() -> None:
    report = emulate_scop(gemm_scop(), hand_written(FREE_ALL=0), "gemm_host", seed=4,
                          nvcc=False)
    assert all(a.ok for a in report.arrays) and report.live_allocations == 1
    assert not report.ok
    assert "1 device allocation(s) never freed" in report.format()


def test_a_kernel_that_does_not_compile_is_a_located_error() -> None:
    with pytest.raises(PolycuError, match=r"g\+\+ failed to build the c\+\+ code"):
        emulate_scop(gemm_scop(), hand_written() + "\nint broken(", "gemm_host", seed=1)


# -- the command line -------------------------------------------------------------------

def polycu_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polycu", "emulate", "--run-on=gpu", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_cli_reports_each_array_and_exits_zero() -> None:
    proc = polycu_cli(str(GEMM.source), "-DMINI_DATASET", f"-I{UTILITIES}",
                      f"-I{GEMM.directory}", "--param", "nk=7", "--seed", "12")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "kernel_gemm_scop0: OK (ni=20, nj=25, nk=7; seed 12)"
    assert lines[2].startswith("  C: 500 values, max relative error ")
    assert lines[2].endswith(", 0 mismatches")


def test_cli_bad_parameter_is_a_located_error() -> None:
    proc = polycu_cli(str(GEMM.source), "-DMINI_DATASET", f"-I{UTILITIES}",
                      f"-I{GEMM.directory}", "--param", "ni=100")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "gemm.c:66:9: error: no values of the parameters of kernel_gemm_scop0 in 1..37 " \
           "with ni=100" in proc.stderr


# -- dumps ------------------------------------------------------------------------------

def test_dump_parser_reads_values_printed_right_after_the_name() -> None:
    dump = ("==BEGIN DUMP_ARRAYS==\nbegin dump: x0.00 \n0.49 0.48 \nend   dump: x\n"
            "begin dump: corr\n1.00 \nend   dump: corr\n==END   DUMP_ARRAYS==\n")
    assert parse_dump(dump) == {"x": ["0.00", "0.49", "0.48"], "corr": ["1.00"]}


def test_dumps_match_up_to_one_unit_in_the_last_digit() -> None:
    def dump(values: str) -> str:
        return f"==BEGIN DUMP_ARRAYS==\nbegin dump: A\n{values}\nend   dump: A\n" \
               "==END   DUMP_ARRAYS==\n"
    assert compare_dumps(dump("1.25 -0.00 7"), dump("1.26 0.00 7"))[0].ok
    bad = compare_dumps(dump("1.25 -0.00 7"), dump("1.25 0.02 8"))[0]
    assert (bad.mismatches, bad.first_mismatch, bad.expected, bad.actual) == (2, 1, "-0.00",
                                                                              "0.02")
    with pytest.raises(ValueError, match="dumped arrays differ"):
        compare_dumps(dump("1"), dump("1").replace("dump: A", "dump: B"))


def gemm_build(dataset: str) -> ProgramBuild:
    return ProgramBuild(defines=(f"{dataset}_DATASET", "POLYBENCH_DUMP_ARRAYS"),
                        includes=(str(UTILITIES), str(GEMM.directory)),
                        c_sources=(str(UTILITIES / "polybench.c"),))


def test_emulated_gemm_matches_the_stored_reference_dump(tmp_path: Path) -> None:
    cu = tmp_path / "gemm.cu"
    generated("gemm", "SMALL").write(cu)
    stored = ROOT / "tests" / "data" / "polybench_ref" / "gemm_SMALL.dump.gz"
    with gzip.open(stored, "rt") as packed:
        report = emulate_program(cu, gemm_build("SMALL"), reference_dump=packed.read())
    assert report.ok, report.format()
    assert [(a.name, a.size) for a in report.arrays] == [("C", 60 * 70)]


def test_a_program_that_does_not_build_is_a_failed_report(tmp_path: Path) -> None:
    cu = tmp_path / "broken.cu"
    generated("gemm", "MINI").write(cu)
    cu.write_text(cu.read_text() + "\nint broken(\n")
    report = emulate_program(cu, gemm_build("MINI"), original=GEMM.source)
    assert not report.ok and not report.arrays
    assert report.error is not None and "g++ failed to build" in report.error
    assert report.format().startswith(f"{cu}: FAILED")


# -- polycu's output for every PolyBench kernel -----------------------------------------

# gramschmidt orthogonalises the n columns of an m x n matrix: with n > m (MINI: 30 > 20)
# the last columns are rounding noise, which any change of summation order changes.
FIXED = {"gramschmidt": {"n": 16}}

@pytest.mark.parametrize("name", [k.name for k in KERNELS])
def test_emulated_scop_matches_the_reference_on_random_inputs(name: str) -> None:
    """At the largest sizes up to 37 that fit MINI's arrays, then at sizes up to 2
    (empty and single-iteration loops, grids of one block)."""
    for limit in (37, 2):
        reports = emulate_generated(scops(name, "MINI"), generated(name, "MINI").description,
                                    params=FIXED.get(name) if limit > 2 else None,
                                    limit=limit, seed=2026, nvcc=False)  # test_nvcc.py
        assert reports, f"{name}: no SCoP"
        for report in reports:
            assert report.ok, report.format() + "\n" + report.output


@pytest.fixture(scope="module")
def program_reports(tmp_path_factory: pytest.TempPathFactory
                    ) -> dict[tuple[str, str], ProgramReport]:
    """Every kernel at MINI and SMALL: emitted (here: isl is not thread-safe), then
    built, run and compared a core's worth at a time, each by one of the session's
    workers."""
    out = tmp_path_factory.mktemp("programs")
    reports: dict[tuple[str, str], ProgramReport] = {}
    jobs = []
    table = generated_table([(k.name, d) for d in ("MINI", "SMALL") for k in KERNELS])
    for dataset in ("MINI", "SMALL"):
        for kernel in KERNELS:
            cu = out / f"{kernel.name}_{dataset}.cu"
            result = table[kernel.name, dataset]
            if isinstance(result, str):
                reports[kernel.name, dataset] = ProgramReport(str(cu), (), error=result)
                continue
            result.write(cu)
            build = ProgramBuild(defines=(f"{dataset}_DATASET", "POLYBENCH_DUMP_ARRAYS"),
                                 includes=(str(UTILITIES), str(kernel.directory)),
                                 c_sources=(str(UTILITIES / "polybench.c"),))
            jobs.append(((kernel.name, dataset), cu, build, kernel.source))
    reports.update(computed("programs", {
        key: partial(emulate_program, cu, build, original=source)
        for key, cu, build, source in jobs}, threads=os.cpu_count() or 2))
    return reports


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
@pytest.mark.parametrize("name", [k.name for k in KERNELS])
def test_emulated_program_prints_the_dump_of_the_original(
        name: str, dataset: str, program_reports: dict[tuple[str, str], ProgramReport]) -> None:
    report = program_reports[name, dataset]
    assert report.ok, report.format()
    assert report.arrays


def test_comparison_reports_the_relative_error_norm():
    result = compare_arrays("v", np.array([3.0, 4.0]), np.array([3.0, 4.5]))
    assert result.norm_error == pytest.approx(0.1)  # ||(0, 0.5)|| / ||(3, 4)||
    assert result.mismatches == 1 and result.first_mismatch == (1,)
    assert "relative error norm 0.1" in result.describe()


# -- typed parameters, input profiles, memory, nvcc -----------------------------------------

TYPED = r"""
void h(unsigned n, long m, long B[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (i < m)
      B[i] = m + i;
#pragma endscop
}
"""


def test_emulated_host_function_takes_typed_parameters() -> None:
    """The emulated kernels and the reference get m > 2^32 as it is, not truncated."""
    scop = polycu.load_text(TYPED, "typed.c")[0]
    assert scop.parameter_types == ("unsigned int", "long")
    entry = compile_text(TYPED).description["scops"][0]
    m = 5_000_000_000
    report = emulate_scop(scop, scop_translation_unit(entry), entry["host_function"],
                          params={"m": m}, seed=1, nvcc=False)
    assert report.ok and report.params == {"n": 37, "m": m}, report.format()
    data = {"B": np.zeros(40, np.int64)}
    build_emulated(scop, scop_translation_unit(entry), entry["host_function"])(
        {"n": 6, "m": m}, data, env=emulation_env())
    assert data["B"][:7].tolist() == [m + i for i in range(6)] + [0]


def compile_text(text: str) -> Generated:
    """polycu's output for a C text (written to a file: compile_file reads files)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snippet.c"
        path.write_text(text)
        return compile_file(str(path), Options())


def test_signed_overflow_of_the_original_makes_its_integers_nonnegative() -> None:
    """floyd-warshall: negative weights make path sums fall without bound, into a
    signed overflow (undefined), so the inputs are drawn again without negatives."""
    (report,) = emulate_generated(scops("floyd-warshall", "MINI"),
                                  generated("floyd-warshall", "MINI").description,
                                  seed=5, limit=20, nvcc=False)
    assert report.ok, report.format()
    assert report.profile == "nonnegative-ints"
    assert report.format().splitlines()[:2] == [
        "kernel_floyd_warshall_scop0: OK (n=20; seed 5; inputs nonnegative-ints)",
        "  inputs nonnegative-ints: the original overflows a signed integer on inputs of "
        "both signs"]


def test_cli_refuses_arrays_too_big_to_emulate(tmp_path: Path) -> None:
    """A 10 GB array is a located error in a second, not a process killed for memory
    (the child may not even try: its address space is limited to 4 GiB)."""
    source = tmp_path / "big.c"
    source.write_text("void f(int n, float A[50000][50000])\n{\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    A[i][i] = 0;\n#pragma endscop\n}\n")

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    proc = subprocess.run([sys.executable, "-m", "polycu", "emulate", "--run-on=gpu", str(source)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          preexec_fn=limited)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (f"{source}:1:21: error: array 'A' needs 10.0 GB "
                                   "(float[50000][50000]); emulation is limited to 2 GiB")


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

# Accepted by g++ with polycu_emu.h (where __global__ means nothing), refused by nvcc.
NOT_CUDA = ("\nstatic int polycu_host_only(void) { return 1; }\n"
            "__global__ void polycu_bad(int *p) { *p = polycu_host_only(); }\n")


@needs_nvcc
def test_emulate_also_builds_the_cuda_with_nvcc() -> None:
    (report,) = emulate_generated(scops("jacobi-1d", "MINI"),
                                  generated("jacobi-1d", "MINI").description, seed=1)
    assert report.ok and report.nvcc == NvccCheck("ok"), report.format()
    assert report.format().endswith("\n  nvcc -arch=sm_90 -c: builds")


@needs_nvcc
def test_cuda_that_nvcc_refuses_fails_the_emulation(capsys: pytest.CaptureFixture[str]) -> None:
    description = copy.deepcopy(generated("jacobi-1d", "MINI").description)
    description["scops"][0]["device_source"] += NOT_CUDA
    (report,) = emulate_generated(scops("jacobi-1d", "MINI"), description, seed=1)
    assert all(a.ok for a in report.arrays) and not report.ok   # emulated fine, but nvcc
    assert report.nvcc is not None and report.nvcc.failed
    assert "error: calling a __host__ function" in report.nvcc.detail
    assert len(report.nvcc.detail.splitlines()) <= 8
    assert report.format().startswith("kernel_jacobi_1d_scop0: FAILED")
    assert "  nvcc -arch=sm_90 -c failed:\n    " in report.format()
    with pytest.raises(PolycuError, match="kernel_jacobi_1d_scop0: nvcc cannot build the "
                                          "generated CUDA: .*calling a __host__ function"):
        report_files(["jacobi-1d.c"], lambda path: [report], "the emulated kernels")


@needs_nvcc
def test_nvcc_builds_are_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path))
    source = generated("jacobi-1d", "MINI").description["scops"][0]["device_source"]
    assert nvcc_check(source) == NvccCheck("ok")
    assert len(list(tmp_path.glob("*.o"))) == 1

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError("nvcc ran again")

    monkeypatch.setattr(subprocess, "run", no_compiler)
    assert nvcc_check(source) == NvccCheck("ok")


def test_without_nvcc_the_check_is_skipped_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "nvcc" else which(name))
    (report,) = emulate_generated(scops("jacobi-1d", "MINI"),
                                  generated("jacobi-1d", "MINI").description, seed=1)
    assert report.ok and report.nvcc == NvccCheck("skipped")
    assert report.format().splitlines()[-1] == ("  nvcc is not installed: the CUDA was "
                                                "emulated but not compiled for a GPU")
