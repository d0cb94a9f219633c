"""Inputs from the program's own initialisation function (``--init``), on the CPU."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import polycu
from polycu.diagnostics import PolycuError
from polycu.runtime.program_init import init_inputs, init_parameters

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "polybench/linear-algebra/blas/gemm/gemm.c"
INCLUDES = [str(ROOT / "polybench/utilities"), str(GEMM.parent)]
DEFINES = ["MINI_DATASET"]


def gemm_scop():
    return polycu.load(str(GEMM), defines=DEFINES, includes=INCLUDES)[0]


def test_polybench_init_array_fills_the_scop_arrays():
    scop = gemm_scop()
    values = {"ni": 20, "nj": 25, "nk": 30}  # MINI
    data = init_inputs(str(GEMM), scop, values, "init_array", seed=3, defines=DEFINES,
                       includes=INCLUDES)
    i, j = np.indices((20, 25))
    assert np.array_equal(data["C"], ((i * j + 1) % 20) / 20)
    i, k = np.indices((20, 30))
    assert np.array_equal(data["A"], (i * (k + 1) % 30) / 30)
    k, j = np.indices((30, 25))
    assert np.array_equal(data["B"], (k * (j + 2) % 25) / 25)
    assert data["alpha"].item() == 1.5 and data["beta"].item() == 1.2


def test_unknown_function_is_a_located_error():
    with pytest.raises(PolycuError, match="no function 'setup'"):
        init_inputs(str(GEMM), gemm_scop(), {"ni": 20, "nj": 25, "nk": 30}, "setup", seed=1,
                    defines=DEFINES, includes=INCLUDES)


def test_arguments_must_name_parameters_or_arrays():
    with pytest.raises(PolycuError, match="parameter 'argc' of 'main' is not"):
        init_inputs(str(GEMM), gemm_scop(), {"ni": 20, "nj": 25, "nk": 30}, "main", seed=1,
                    defines=DEFINES, includes=INCLUDES)


KERNELS = sorted(p for p in (ROOT / "polybench").glob("*/**/*.c") if p.parent.name == p.stem)


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_every_polybench_init_array_runs_and_sets_its_inputs(path):
    from polycu.runtime.parameters import dataset_parameters
    includes = [str(ROOT / "polybench/utilities"), str(path.parent)]
    scop = polycu.load(str(path), defines=DEFINES, includes=includes)[0]
    values = dataset_parameters(str(path), scop.parameters, "MINI", includes=includes)
    data = init_inputs(str(path), scop, values, "init_array", seed=5, defines=DEFINES,
                       includes=includes)
    # Every array the function receives no longer holds the seeded random values (a
    # scalar initialised outside the function, like correlation's eps, keeps them).
    from polycu.runtime.inputs import random_inputs
    untouched = random_inputs(scop, values, 5)
    changed = {name for name in data if not np.array_equal(data[name], untouched[name])}
    received = {name for name, pointer in init_parameters(str(path), "init_array", DEFINES,
                                                      includes) if pointer}
    assert received & set(data) and received & set(data) <= changed


def test_the_initialisation_gets_parameters_of_their_own_types(tmp_path):
    """A long parameter over 2^32 reaches the program's function as it is."""
    source = tmp_path / "typed.c"
    source.write_text(r"""
static void init(long m, unsigned n, long B[40])
{
  for (int i = 0; i < 40; i++)
    B[i] = m + i + n;
}

void h(unsigned n, long m, long B[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (i < m)
      B[i] = m + i;
#pragma endscop
}
""")
    scop = dataclasses.replace(polycu.load(str(source))[0], parameter_types=("unsigned", "long"))
    m = 5_000_000_000
    data = init_inputs(str(source), scop, {"n": 5, "m": m}, "init", seed=1)
    assert data["B"].tolist() == [m + i + 5 for i in range(40)]
