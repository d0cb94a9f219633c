"""Relayout (schedule/relayout.py, gpu/layout.py): an array whose index moves
diagonally from one thread to the next is stored along a basis in which it moves to
the next element, copied in and out by kernels, and the program computes what C
computes."""
from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.deps import compute_dependences
from polycu.driver import compile_scops, program_of
from polycu.gpu.layout import skewed_arrays
from polycu.runtime.emulate import emulate_scop, scop_translation_unit
from polycu.schedule.copyout import Copy
from polycu.schedule.relayout import _same_values, relayout, unimodular

# seidel-2d's sweep, written for these tests
SEIDEL = """
void sweep(int tsteps, int n, double A[60][60])
{
#pragma scop
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1] + A[i][j-1] + A[i][j]
                   + A[i][j+1] + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
#pragma endscop
}
"""

# a row recurrence per thread: the next thread's index moves by (1, 0), a transpose
ROWS = """
void rows(int n, double p[50][50], double u[50][50])
{
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      p[i][j] = p[i][j - 1] * 0.5 + u[j][i];
#pragma endscop
}
"""


def _determinant(u: tuple[tuple[int, ...], ...]) -> int:
    r = len(u)
    return sum((-1) ** sum(1 for a, b in itertools.combinations(perm, 2) if a > b)
               * math.prod(u[k][perm[k]] for k in range(r))
               for perm in itertools.permutations(range(r)))


@pytest.mark.parametrize("d", [(1, -2), (1, 2), (-3, 2), (2, 5, -7), (0, 3, 1), (4, 0, -1, 6)])
def test_unimodular_sends_the_direction_to_the_last_unit_vector(d):
    u = unimodular(d)
    assert u is not None and abs(_determinant(u)) == 1
    assert [sum(a * b for a, b in zip(row, d)) for row in u] == [0] * (len(d) - 1) + [1]


def test_a_direction_with_a_common_divisor_has_no_unimodular_basis():
    assert unimodular((2, -4)) is None and unimodular((0, 0)) is None


def load(tmp_path: Path, text: str, name: str):
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    return str(source), polycu.load(str(source))[0]


def test_seidel_wavefront_is_relaid_and_coalesced(tmp_path):
    path, scop = load(tmp_path, SEIDEL, "seidel")
    program = program_of(scop, polycu.Options(run_on="gpu"))
    assert program.scop.array("A_L0").local
    assert [s.text for s in program.scop.statements if s.name != "S0"] == [
        "A_L0[(2 * x0) + x1][x0] = A[x0][x1]", "A[x0][x1] = A_L0[(2 * x0) + x1][x0]"]
    # the wavefront's kernel now moves by one element of A_L0 from thread to thread
    assert skewed_arrays(program) == {}
    plain = program_of(scop, polycu.Options(run_on="gpu", relayout=False))
    assert skewed_arrays(plain) == {"A": (1, -2)}
    assert all(a.name == "A" for a in plain.scop.arrays)


@pytest.mark.parametrize("tsteps,n", [(1, 3), (2, 4), (3, 7), (4, 33), (2, 60)])
def test_relaid_seidel_computes_what_c_computes(tmp_path, tsteps, n):
    path, scop = load(tmp_path, SEIDEL, "seidel")
    result = compile_scops(path, [scop], polycu.Options(run_on="gpu"))
    assert "A_L0" in result.cuda
    description = result.description["scops"][0]
    report = emulate_scop(scop, scop_translation_unit(description),
                          description["host_function"], seed=n, nvcc=False,
                          params={"tsteps": tsteps, "n": n})
    assert report.ok, report.format()


def test_a_transposed_direction_is_left_to_tiles(tmp_path):
    _, scop = load(tmp_path, ROWS, "rows")
    program = program_of(scop, polycu.Options(run_on="gpu"))
    assert skewed_arrays(program) == {}
    assert not any(a.name.endswith("_L0") for a in program.scop.arrays)


@pytest.mark.parametrize("drop", ["copy-in", "copy-out"])
def test_the_proof_refuses_a_relayout_without_one_of_its_copies(tmp_path, drop):
    """Copies are not assumed: a relaid SCoP missing its copy-in (the sweep would read
    cells nothing wrote) or its copy-out (A would keep its old values) is refused."""
    _, scop = load(tmp_path, SEIDEL, "seidel")
    deps = compute_dependences(scop)
    good = relayout(scop, deps, {"A": (1, -2)})
    assert good is not None and good.arrays == ("A_L0",)
    copy_in, copy_out = good.scop.statements[0], good.scop.statements[-1]
    assert _same_values(scop, good.scop, deps, good.deps, [Copy(copy_in, None)],
                        [Copy(copy_out, None)], {"A": "A_L0"})
    gone = copy_in if drop == "copy-in" else copy_out
    broken = replace(good.scop, statements=tuple(s for s in good.scop.statements
                                                 if s is not gone),
                     schedule=good.scop.schedule.intersect_domain(
                         good.scop.domain().subtract(isl.UnionSet.from_set(gone.domain))))
    ins = [] if drop == "copy-in" else [Copy(copy_in, None)]
    outs = [] if drop == "copy-out" else [Copy(copy_out, None)]
    assert not _same_values(scop, broken, deps, compute_dependences(broken), ins, outs,
                            {"A": "A_L0"})


def test_a_saved_relayout_schedule_loads_back(tmp_path):
    path, scop = load(tmp_path, SEIDEL, "seidel")
    saved = tmp_path / "seidel.yaml"
    first = compile_scops(path, [scop], polycu.Options(run_on="gpu", save_schedule=str(saved)))
    again = compile_scops(path, [scop], polycu.Options(run_on="gpu", load_schedule=str(saved)))
    assert "A_L0" in first.cuda and again.cuda == first.cuda
