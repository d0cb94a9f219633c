"""Subscripts isl cannot describe (``x[col[k]]``, ``H[idx[i] % nb]``, ``A[i * j]``,
``x[i / m]``): the statement is one whose references are over-approximated, as a
data-dependent loop's are (``frontend/loops.py``, ``subscripts_data``): such a
subscript is any index of its dimension and every write a may-write, so what the
statement may leave alone keeps its value from before, and the loops around it
stay parallel only where no instance may touch what another writes.

Checked here: the model of a histogram (may-writes, the array copied in), a gather
that stays parallel and a scatter that does not, the subscripts that stay errors,
and whole programs against gcc (``tests/data/data_subscripts``).
"""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError
from polycu.model import MAY_WRITE

PROGRAMS = sorted((Path(__file__).parent / "data" / "data_subscripts").glob("*.c"))

HISTOGRAM = """
void f(int n, int nb, int idx[1000], double w[1000], double H[64], double y[1000],
       double x[64])
{
#pragma scop
  for (int i = 0; i < n; i++)
    H[idx[i] % nb] += w[i];
  for (int i = 0; i < n; i++)
    y[i] = w[i] * x[idx[i] % nb];
#pragma endscop
}
"""


def test_a_data_subscript_is_any_index_and_its_write_a_may_write() -> None:
    (scop,) = polycu.load_text(HISTOGRAM, "h.c")
    hist, gather = scop.statements
    writes = [a for a in hist.accesses if a.array == "H" and a.kind == MAY_WRITE]
    assert len(writes) == 1 and hist.loop
    every_bin = isl.Set("[n, nb] -> { H[b] : 0 <= b < 64 }")
    assert writes[0].relation.range().is_equal(
        every_bin.align_params(writes[0].relation.range().get_space()))
    reads = {a.array for a in gather.accesses if a.kind == "read"}
    assert reads == {"w", "x", "idx"}
    assert not any(a.kind == MAY_WRITE and a.array == "x" for a in gather.accesses)


def test_the_gather_runs_in_parallel_and_the_histogram_in_one_thread(tmp_path: Path
                                                                      ) -> None:
    """The histogram's instances may all write one bin: its loop runs in one thread.
    The gather's only read at computed indices: one thread per element."""
    source = tmp_path / "h.c"
    source.write_text(HISTOGRAM)
    cuda = polycu.compile(str(source), polycu.Options(run_on="gpu")).cuda
    kernels = [k.split("\n}\n")[0] for k in cuda.split("__global__")[1:]]
    (hist,) = [k for k in kernels if "H[idx[" in k]
    (gather,) = [k for k in kernels if "x[idx[" in k]
    assert "threadIdx" not in hist and "for (int c0 = 0; c0 <= n - 1; c0 += 1)" in hist
    assert "threadIdx" in gather and "for (" not in gather


def test_what_stays_an_error(tmp_path: Path) -> None:
    """A floating subscript is no C; an increment in a subscript is a side effect."""
    for subscript, said in (("1.5", "double constant"), ("m++", "increment")):
        source = tmp_path / "bad.c"
        source.write_text(f"""
void f(int n, int m, double A[100][100], double x[100])
{{
#pragma scop
  for (int i = 0; i < n; i++)
    x[i] = A[i][{subscript}];
#pragma endscop
}}
""")
        with pytest.raises(PolycuError, match=said):
            polycu.load(str(source))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_programs_with_data_subscripts_compute_what_gcc_computes(tmp_path: Path,
                                                                 path: Path) -> None:
    expected, actual = differential(tmp_path, path.stem, path.read_text(),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected


GATHER = """
void f(int n, int row[300], int col[300], double x[300], double A[20][30], double y[300])
{
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = 2.0 * x[col[i]] + A[row[i]][col[i]];
#pragma endscop
}
"""


def test_index_arrays_take_random_values_within_what_they_index(tmp_path: Path) -> None:
    """col indexes x (300) and A's columns (30), row A's rows (20): their random values
    stay below 30 and 20, so a gather is checked on inputs C defines."""
    from polycu.runtime.emulate import emulate_file
    from polycu.runtime.inputs import index_ranges, random_inputs
    source = tmp_path / "g.c"
    source.write_text(GATHER)
    (scop,) = polycu.load(str(source))
    shapes = {"row": (300,), "col": (300,), "x": (300,), "A": (20, 30), "y": (300,)}
    assert index_ranges(scop, shapes) == {"col": (0, 29), "row": (0, 19)}
    data = random_inputs(scop, {"n": 300}, seed=5)
    assert 0 <= data["col"].min() and data["col"].max() < 30 and len(set(data["col"])) > 20
    assert 0 <= data["row"].min() and data["row"].max() < 20
    for seed in (1, 2, 3):
        (report,) = emulate_file(str(source), polycu.Options(run_on="gpu"), seed=seed)
        assert report.ok, report.format()


OFFSETS = """
void f(int n, int nb, int idx[300], int col[300], double w[300], double H[8],
       double x[300], double y[300])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    H[(idx[i] % nb) + 2] += w[i];
    y[i] = x[col[i] - 7] + x[3 + col[i]];
  }
#pragma endscop
}
"""


def test_index_arrays_with_offsets_and_remainders(tmp_path: Path) -> None:
    """idx in H[(idx[i] % nb) + 2] (nb = 5, H of 8) takes values in [-2, 4] (C's %
    keeps the sign: -2 % 5 + 2 = 0), col in x[col[i] - 7] and x[3 + col[i]] values in
    [7, 296]: both SCoPs' emulations then run on inputs C defines, the histogram's
    collisions included."""
    from polycu.runtime.emulate import emulate_file
    from polycu.runtime.inputs import index_ranges, random_inputs
    source = tmp_path / "h.c"
    source.write_text(OFFSETS)
    (scop,) = polycu.load(str(source))
    shapes = {"idx": (300,), "col": (300,), "w": (300,), "H": (8,), "x": (300,),
              "y": (300,)}
    assert index_ranges(scop, shapes, {"n": 300, "nb": 5}) == {"idx": (-2, 4),
                                                              "col": (7, 296)}
    assert index_ranges(scop, shapes, {"n": 300, "nb": 9})["idx"] == (-2, 5)
    assert "idx" not in index_ranges(scop, shapes)      # nb unknown: a use out of form
    # an unsigned modulus converts a negative idx to unsigned first: no negatives
    source.write_text(OFFSETS.replace("% nb)", "% 5u)"))
    (unsigned,) = polycu.load(str(source))
    assert index_ranges(unsigned, shapes, {"n": 300, "nb": 5})["idx"] == (0, 4)
    source.write_text(OFFSETS)
    data = random_inputs(scop, {"n": 300, "nb": 5}, seed=5)
    assert set(data["idx"]) == {-2, -1, 0, 1, 2, 3, 4}
    assert data["col"].min() >= 7 and data["col"].max() <= 296
    for seed in (1, 2):
        (report,) = emulate_file(str(source), polycu.Options(run_on="gpu"), seed=seed,
                                 params={"n": 300, "nb": 5})
        assert report.ok, report.format()


def test_a_mismatch_of_a_gather_on_random_indices_says_why(tmp_path: Path) -> None:
    """Random values of col send x[col[i] * 1 - 7] outside x: the emulation's comparison
    then says nothing about polycu, and the report says so, with what to do instead."""
    from polycu.runtime.emulate import emulate_file
    source = tmp_path / "g.c"
    source.write_text("""
void f(int n, int col[300], double x[300], double y[300])
{
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = 2.0 * x[col[i] * 1 - 7];
#pragma endscop
}
""")
    (report,) = emulate_file(str(source), polycu.Options(run_on="gpu"), seed=3)
    assert not report.ok
    assert "--init FUNCTION" in report.failure() and "--init FUNCTION" in report.format()
    (none,) = emulate_file(str(source), polycu.Options(run_on="gpu"), seed=3,
                           params={"n": 0})
    assert none.ok and "--init" not in none.format()
