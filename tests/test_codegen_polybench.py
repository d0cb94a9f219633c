"""polycu on the 30 PolyBench kernels: every program gets kernels, host code and a
description that agree with each other, and every category has a kernel mapping a
2-D band onto a 2-D grid of 2-D blocks.

``generated_suite`` is shared with test_nvcc.py (one generation per test session,
its kernels split between the workers).
Execution is checked by test_emulate.py (CPU emulation) and on the GPU by the runtime.
"""
from __future__ import annotations

import functools
import re
from functools import partial
from pathlib import Path

from polycu.bench import cpu as polybench_cpu
import pytest

from polycu.codegen import Generated
from polycu.driver import compile_file
from polycu.options import Options
from session_work import computed

ROOT = Path(__file__).resolve().parent.parent

KERNELS = polybench_cpu.find_kernels()
CATEGORIES = sorted({k.category for k in KERNELS})


def options(kernel: polybench_cpu.Kernel, *defines: str, **values: object) -> Options:
    """The kernel's defines and includes, compiled for the GPU (the cached suite is
    built outside conftest's fixture)."""
    return Options(define=list(defines), run_on="gpu",
                   include_dir=[str(polybench_cpu.UTILITIES_DIR), str(kernel.directory)],
                   **values)


@functools.lru_cache(maxsize=None)
def generated_suite() -> dict[str, Generated]:
    """Every PolyBench kernel compiled by polycu at the default (LARGE) dataset
    (each by one of the session's workers: session_work.py)."""
    return computed("suite", {k.name: partial(compile_file, str(k.source), options(k))
                              for k in KERNELS})


@pytest.fixture(scope="module")
def suite() -> dict[str, Generated]:
    return generated_suite()


def test_the_suite_has_thirty_kernels_in_six_categories() -> None:
    assert len(KERNELS) == 30 and len(CATEGORIES) == 6


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_category_maps_a_2d_band_to_a_2d_grid_of_2d_blocks(suite, category: str) -> None:
    two_d = []
    for kernel in (k for k in KERNELS if k.category == category):
        for scop in suite[kernel.name].description["scops"]:
            for entry in scop["kernels"]:
                axes = sorted(m["axis"] for m in entry["mapped"])
                if axes == ["x", "y"] and entry["block"][0] > 1 and entry["block"][1] > 1:
                    assert "blockIdx.y" in entry["source"] and "threadIdx.y" in entry["source"]
                    two_d.append(entry["name"])
    assert two_d, f"no 2-D kernel in {category}"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_description_matches_the_cuda_text(suite, kernel: polybench_cpu.Kernel) -> None:
    generated = suite[kernel.name]
    (scop,) = generated.description["scops"]
    cuda = generated.cuda
    assert scop["host_source"] in cuda and scop["kernels"]
    # a launch of a concurrent group names its stream first (codegen/concurrent.py); a
    # resident grid's cooperative launch its bands (codegen/resident.py: jacobi-2d and
    # fdtd-2d at LARGE)
    launched = set(re.findall(r"POLYCU_LAUNCH(?:_NOSYNC)?(?:_AFTER)?(?:_ON\([^,]+, |\()(\w+), polycu_grid",
                              cuda)) | set(re.findall(r"POLYCU_LAUNCH_RESIDENT\((\w+), \d+, ", cuda))
    assert launched == {k["name"] for k in scop["kernels"]}
    for entry in scop["kernels"]:
        assert entry["source"] in scop["device_source"] and entry["source"] in cuda
        # (a one-block program's kernel declares __launch_bounds__(N) before its name,
        # a tensor-core kernel POLYCU_BOUNDS(threads, blocks))
        source = re.sub(r"(__launch_bounds__|POLYCU_BOUNDS)\([\d, ]+\) ", "", entry["source"])
        signature = source.split("(", 1)[1].split(")", 1)[0]
        assert signature == ", ".join(
            f"{a['type']}{'' if a['type'].endswith('*') else ' '}{a['name']}"
            for a in entry["args"])
    # The SCoP's lines are replaced by one call; the text around it is verbatim.
    original = kernel.source.read_text().split("\n")
    first, last = scop["region"]
    body = generated.host.split("\n")
    assert body[:first - 1] == original[:first - 1]
    assert body[len(body) - (len(original) - last):] == original[last:]
    assert f"{scop['host_function']}(" in "\n".join(body[first - 1:len(body) - len(original) + last])


def test_c99_prototypes_index_with_the_size_parameters_and_run_on_the_cpu() -> None:
    from polycu.runtime.emulate import emulate_file
    kernel = next(k for k in KERNELS if k.name == "gemm")
    opts = options(kernel, "MINI_DATASET", "POLYBENCH_USE_C99_PROTO", tensor_cores=False)
    (scop,) = compile_file(str(kernel.source), opts).description["scops"]
    # the tensor-core kernel indexes in 64 bits too
    tensor = compile_file(str(kernel.source), options(
        kernel, "MINI_DATASET", "POLYBENCH_USE_C99_PROTO")).description["scops"][0]
    assert "C[((long long)(i_)) * nj + j_]" in tensor["kernels"][0]["source"]
    (entry,) = scop["kernels"]
    # ni * nj may exceed 2^31 (int parameters): C indexes with 64-bit pointer
    # arithmetic, and so does the kernel.
    assert "C[((long long)((64 * b0 + t0 + 16 * c8))) * nj + (32 * b1 + t1 + 16 * c9)]" \
        in entry["source"]
    assert "A[((long long)((64 * b0 + t0 + 16 * c8))) * nk + (t1 + 16 * c3)]" in entry["source"]
    (report,) = emulate_file(str(kernel.source), opts, params={"ni": 33, "nj": 41, "nk": 7},
                             seed=5)
    assert report.ok, report.format()


def walk(nodes: list[dict]) -> list[dict]:
    """Every node of a host control tree."""
    return [n for node in nodes for n in [node] + walk(node.get("body", []) +
                                                       node.get("then", []) +
                                                       node.get("else", []))]


@pytest.mark.parametrize("name", ["atax", "bicg"])
def test_matrix_vector_kernels_run_every_row_in_parallel_without_host_loops(suite, name) -> None:
    """Relaxing their sums would leave 'y[j] = 0' ordered with only the first update of
    the chain; the mapping refuses that and the compiler keeps the sums in order."""
    (scop,) = suite[name].description["scops"]
    assert [len(k["mapped"]) for k in scop["kernels"]] == [1, 1]
    assert not any("for" in node for node in walk(scop["host"]))     # no host loop
    assert not any(k["atomic"] for k in scop["kernels"])
