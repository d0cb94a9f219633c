"""The operation counts and traffic of ``docs/polybench.md`` are measured,
not only derived: every kernel of ``polybench/`` is compiled as C++ against
``tests/data/flopcount/polybench.h``, whose ``DATA_TYPE`` counts the
operations applied to it and records the array elements touched while the
kernel runs.  Each count must equal its formula in
``scripts/polybench_facts.py`` exactly, at the MINI dataset and at the
kernel's small ``check`` size (distinct parameter values, so that a formula
with two parameters swapped fails).

All binaries are built and run once, in parallel, by a module fixture.
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import polybench_facts as facts  # scripts/, on the path by conftest.py
import polybench_table as table
import pytest
from session_work import computed

REPO_ROOT = Path(__file__).resolve().parent.parent
COUNTING_DIR = REPO_ROOT / "tests" / "data" / "flopcount"
UTILITIES_DIR = REPO_ROOT / "polybench" / "utilities"



NAMES = [k.name for k in facts.KERNELS]
# Kernels whose min/max is a conditional expression that recomputes the
# selected operand (see tests/data/flopcount/polybench.h).
MINMAX_KERNELS = {"floyd-warshall", "nussinov"}
CASES = ("MINI", "check")
_REPORT = re.compile(r"^flops=(\d+) elements=(\d+) reevaluations=(\d+)$", re.M)


@dataclass(frozen=True)
class Count:
    flops: int
    elements: int
    reevaluations: int


def _size(kernel, case: str) -> dict[str, int]:
    if case == "check":
        return dict(zip(kernel.params, kernel.check))
    return kernel.size(case)


def _compile_and_count(source: Path, include_dir: Path, macros: list[str],
                       binary: Path) -> Count:
    subprocess.run(
        ["g++", "-std=c++17", "-O1", "-w", "-x", "c++",
         "-I", str(COUNTING_DIR), "-I", str(include_dir), str(source),
         *(f"-D{m}" for m in macros), "-o", str(binary)],
        check=True, capture_output=True, text=True)
    run = subprocess.run([str(binary)], check=True, capture_output=True,
                         text=True, timeout=120)
    match = _REPORT.search(run.stdout)
    assert match, f"no count report in the output of {binary}: {run.stdout!r}"
    return Count(*(int(g) for g in match.groups()))


def _count_kernel(kernel, case: str, build_dir: Path) -> Count:
    source = REPO_ROOT / kernel.path
    if case == "check":
        macros = [f"{p}={v}" for p, v in zip(kernel.params, kernel.check)]
    else:
        macros = [f"{case}_DATASET"]
    binary = build_dir / f"{kernel.name}-{case}"
    return _compile_and_count(source, source.parent, macros, binary)


def _counted(kernel, case: str, build_dir: Path) -> Count | Exception:
    """The kernel's count, or why there is none (reported by the test of that kernel)."""
    try:
        return _count_kernel(kernel, case, build_dir)
    except subprocess.CalledProcessError as err:
        return RuntimeError(f"{err.cmd}: {err.stderr}")
    except Exception as err:
        return err


@pytest.fixture(scope="module")
def counts(tmp_path_factory) -> dict[tuple[str, str], Count | Exception]:
    """Every kernel's counts, each found by one of the session's workers (session_work.py)."""
    build_dir = tmp_path_factory.mktemp("flopcount")
    return computed("flops", {(k.name, case): partial(_counted, k, case, build_dir)
                              for k in facts.KERNELS for case in CASES},
                    threads=os.cpu_count() or 2)


def _measured(counts, name: str, case: str) -> Count:
    result = counts[(name, case)]
    if isinstance(result, Exception):
        raise result
    return result


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", NAMES)
def test_operation_count_matches_formula(counts, name, case):
    kernel = facts.BY_NAME[name]
    size = _size(kernel, case)
    assert _measured(counts, name, case).flops == kernel.flop_count(size), (
        f"{name} at {size}: formula {kernel.flops}")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", NAMES)
def test_elements_touched_match_formula(counts, name, case):
    kernel = facts.BY_NAME[name]
    size = _size(kernel, case)
    assert _measured(counts, name, case).elements == kernel.element_count(size), (
        f"{name} at {size}: formula {kernel.elements}")


@pytest.mark.parametrize("name", NAMES)
def test_recomputations_are_discounted_only_for_conditional_minmax(counts, name):
    """The re-evaluation rule must fire where a min/max conditional selects
    its recomputed operand, and nowhere else (it would hide real work)."""
    skipped = _measured(counts, name, "MINI").reevaluations
    if name in MINMAX_KERNELS:
        assert skipped > 0
    else:
        assert skipped == 0


MINMAX_PROBE = r"""
#include <polybench.h>
/* p[0] = 5 stays (5 < 1 + 7); p[1] = 9 is replaced (9 >= 1 + 7), which
   evaluates the sum twice; then one plain product. */
int main(int argc, char **argv)
{
  POLYBENCH_1D_ARRAY_DECL(p, DATA_TYPE, 4, 4);
  (*p)[0] = 5; (*p)[1] = 9; (*p)[2] = 1; (*p)[3] = 7;
  polybench_start_instruments;
  (*p)[0] = (*p)[0] < (*p)[2] + (*p)[3] ? (*p)[0] : (*p)[2] + (*p)[3];
  (*p)[1] = (*p)[1] < (*p)[2] + (*p)[3] ? (*p)[1] : (*p)[2] + (*p)[3];
  (*p)[2] = (*p)[2] * (*p)[3];
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(printf("%g %g\n", (*p)[0].v, (*p)[1].v));
  int ok = (*p)[0].v == 5 && (*p)[1].v == 8 && (*p)[2].v == 7;
  POLYBENCH_FREE_ARRAY(p);
  return ok ? 0 : 1;
}
"""


def test_counting_harness_on_a_known_program(tmp_path):
    """Two min updates (an add and a comparison each; the second selects and
    recomputes the sum) and one multiply: 5 operations, 1 recomputation
    skipped, 4 distinct elements."""
    source = tmp_path / "probe.c"
    source.write_text(MINMAX_PROBE)
    count = _compile_and_count(source, tmp_path, [], tmp_path / "probe")
    assert count == Count(flops=5, elements=4, reevaluations=1)


def _header_sizes(kernel, dataset: str) -> tuple[int, ...]:
    header = (REPO_ROOT / kernel.path).with_suffix(".h")
    out = subprocess.run(
        ["gcc", "-E", "-dM", "-I", str(UTILITIES_DIR), "-include", "polybench.h",
         f"-D{dataset}_DATASET", str(header)],
        check=True, capture_output=True, text=True).stdout
    defined = dict(re.findall(r"^#define (\w+) (\d+)$", out, re.M))
    return tuple(int(defined[p]) for p in kernel.params)


@pytest.mark.parametrize("name", NAMES)
def test_dataset_sizes_match_kernel_headers(name):
    kernel = facts.BY_NAME[name]
    for dataset in facts.DATASETS:
        assert _header_sizes(kernel, dataset) == kernel.sizes[dataset], dataset


def test_document_is_generated_from_facts():
    doc = REPO_ROOT / "docs" / "polybench.md"
    assert doc.read_text() == table.render(), (
        "docs/polybench.md is stale: run python scripts/polybench_table.py")


def test_roofline_classification_uses_the_ridge_point():
    """gemm is the textbook compute-bound kernel and gesummv (two
    matrix-vector products, each matrix element used once) the textbook
    memory-bound one; both must land on their side of the ridge."""
    assert 10 < facts.RIDGE < 12
    gemm, gesummv = facts.BY_NAME["gemm"], facts.BY_NAME["gesummv"]
    assert gemm.bound() == "compute" and gemm.intensity() > facts.RIDGE
    assert gesummv.bound() == "memory"
    assert gesummv.intensity() == pytest.approx(4 * 1300**2 / (8 * 2 * 1300**2), rel=1e-2)
