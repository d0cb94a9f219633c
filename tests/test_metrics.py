"""Exact flop and byte counts (polycu.runtime.metrics).

The expected values are derived by hand from the loop nests (written next to
each case) and, where ``scripts/polybench_facts.py`` has a formula, checked
against it too, so a convention drifting on either side fails here.
"""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import polybench_facts as FACTS  # scripts/, on the path by conftest.py
import pytest

import polycu
from polycu.runtime.metrics import (Ceilings, count_points, element_size, figures, scop_work,
                                    statement_flops)

REPO = Path(__file__).resolve().parent.parent
UTILITIES = REPO / "polybench" / "utilities"




def _polybench(name: str):
    kernel = FACTS.BY_NAME[name]
    source = REPO / kernel.path
    return polycu.load(str(source), includes=[str(UTILITIES), str(source.parent)],
                       defines=["MINI_DATASET"])[0]


def _by_array(work):
    return {a.array: (a.live_in, a.written, a.touched) for a in work.arrays}


def test_gemm_counts():
    ni, nj, nk = 10, 12, 14
    work = scop_work(_polybench("gemm"), {"ni": ni, "nj": nj, "nk": nk})
    # C[i][j] *= beta: 1 op on ni*nj points; C[i][j] += alpha*A[i][k]*B[k][j]: 3 ops on ni*nk*nj.
    assert dict(work.points) == {"S0": ni * nj, "S1": ni * nj * nk}
    assert dict(work.flops_per_instance) == {"S0": 1, "S1": 3}
    assert work.flops == ni * nj + 3 * ni * nj * nk == 5160
    # C is read before written (live-in) and written; A, B, alpha, beta only read.
    assert _by_array(work) == {"C": (ni * nj, ni * nj, ni * nj), "A": (ni * nk, 0, ni * nk),
                               "B": (nk * nj, 0, nk * nj), "alpha": (1, 0, 1),
                               "beta": (1, 0, 1)}
    assert work.bytes == 8 * (2 * ni * nj + ni * nk + nk * nj + 2) == 4400
    size = {"NI": ni, "NJ": nj, "NK": nk}
    facts = FACTS.BY_NAME["gemm"]
    assert work.flops == facts.flop_count(size)
    assert sum(a.touched for a in work.arrays if not a.scalar) == facts.element_count(size)


def test_jacobi_2d_counts():
    tsteps, n = 4, 12
    work = scop_work(_polybench("jacobi-2d"), {"tsteps": tsteps, "n": n})
    interior = (n - 2) ** 2
    # Two statements of 4 additions and 1 multiplication on tsteps*(n-2)^2 points.
    assert work.flops == 2 * 5 * tsteps * interior == 4000
    # A: the first sweep reads the whole grid but its 4 corners (live-in); the
    # interior is written.  B: only its border (never written) comes from outside.
    assert _by_array(work) == {"A": (n * n - 4, interior, n * n - 4),
                               "B": (4 * (n - 2), interior, n * n - 4)}
    assert work.bytes == 8 * (n * n - 4 + 4 * (n - 2) + 2 * interior) == 3040
    size = {"TSTEPS": tsteps, "N": n}
    facts = FACTS.BY_NAME["jacobi-2d"]
    assert work.flops == facts.flop_count(size)
    assert sum(a.touched for a in work.arrays) == facts.element_count(size)


def test_atax_counts():
    m, n = 5, 7
    work = scop_work(_polybench("atax"), {"m": m, "n": n})
    # tmp[i] = tmp[i] + A[i][j]*x[j] and y[j] = y[j] + A[i][j]*tmp[i]: 2 ops each on m*n
    # points; the initialisations y[i] = 0 and tmp[i] = 0.0 are free.
    assert work.flops == 4 * m * n == 140
    # y and tmp are initialised inside the SCoP: nothing of them is live-in.
    assert _by_array(work) == {"y": (0, n, n), "tmp": (0, m, m), "A": (m * n, 0, m * n),
                               "x": (n, 0, n)}
    assert work.bytes == 8 * (m * n + n + n + m) == 432
    assert work.footprint_bytes == 8 * (m * n + 2 * n + m)
    size = {"M": m, "N": n}
    facts = FACTS.BY_NAME["atax"]
    assert work.flops == facts.flop_count(size)
    assert work.footprint_bytes == 8 * facts.element_count(size)


@pytest.mark.parametrize("name", ["correlation", "covariance", "2mm", "lu", "heat-3d",
                                  "fdtd-2d", "symm", "trisolv"])
def test_flops_agree_with_facts(name):
    """The counter's conventions are polybench_facts' on floating point."""
    kernel = FACTS.BY_NAME[name]
    size = dict(zip(kernel.params, kernel.check))
    scop = _polybench(name)
    work = scop_work(scop, {p: size[p.upper()] for p in scop.parameters})
    assert work.flops == kernel.flop_count(size)


def _statement(text: str, decls: str):
    source = (f"#include <math.h>\n{decls}\nvoid f(int n) {{\n#pragma scop\n{text}\n"
              "#pragma endscop\n}\n")
    scop = polycu.load_text(source, "t.c")[0]
    return scop, scop.statements[0]


@pytest.mark.parametrize("text, expected", [
    ("for (int i = 0; i < n; i++) a[i] /= sqrt(s) * b[i];", 3),     # compound /, sqrt, *
    ("for (int i = 0; i < n; i++) a[i] = -b[i] + (double)(i * 2 + 1);", 1),  # int math free
    ("for (int i = 0; i < n; i++) k[i] = k[i] + 2 * i;", 0),      # integer array
    ("for (int i = 0; i < n; i++) a[i] = b[i] <= s ? 1.0 : b[i];", 1),  # a float comparison
    ("for (int i = 1; i < n; i++) a[i] = a[i] < b[i] + s ? a[i] : b[i] + s;", 2),  # min
    ("for (int i = 0; i < n; i++) a[i] = b[i - 1] * 0.5f;", 1),   # subscripts are free
])
def test_statement_flops(text, expected):
    scop, statement = _statement(text, "double a[100], b[100], s; int k[100];")
    assert statement_flops(scop, statement) == expected


def test_count_points_exact_on_non_rectangular_sets():
    # A tetrahedron k < j < i < n: C(n, 3) points, not a product, scanned by isl.
    tetra = isl.Set("{ [i, j, k] : 0 <= k < j < i < 50 }")
    assert count_points(tetra) == 50 * 49 * 48 // 6
    # A time loop around a strided set: factored, 7 * |{0, 3, ..., 99}| = 7 * 34.
    strided = isl.Set("{ [t, i] : 0 <= t < 7 and 0 <= i < 100 and exists e: i = 3e }")
    assert count_points(strided) == 7 * 34
    assert count_points(isl.Set("{ [i] : 0 <= i < 0 }")) == 0
    assert count_points(isl.Set("{ A[] }")) == 1


def test_element_sizes():
    assert element_size("double") == 8
    assert element_size("unsigned  char") == 1
    with pytest.raises(ValueError):
        element_size("struct s")


def test_figures_against_ceilings():
    work = scop_work(_polybench("gemm"), {"ni": 10, "nj": 12, "nk": 14})
    ceilings = Ceilings("test", copy_bandwidth=1e9, fp64_peak=1e10, fp32_peak=2e10)
    fig = figures(work, 1e-5, ceilings)
    assert fig.gflops == pytest.approx(5160 / 1e-5 / 1e9)
    assert fig.gbytes == pytest.approx(4400 / 1e-5 / 1e9)
    assert fig.minimum_seconds == pytest.approx(4400 / 1e9)
    assert fig.ratio_to_minimum == pytest.approx(1e-5 / (4400 / 1e9))
    # Bound: max(4400 B / 1 GB/s, 5160 flop / 10 GFLOP/s) = 4.4 us of 10 us.
    assert fig.roofline_fraction == pytest.approx(4.4e-6 / 1e-5)
    compute_bound = Ceilings("test", copy_bandwidth=1e12, fp64_peak=1e8, fp32_peak=1e9)
    assert figures(work, 1e-4, compute_bound).roofline_fraction == pytest.approx(
        5160 / 1e8 / 1e-4)
    with pytest.raises(ValueError):
        figures(work, 0.0, ceilings)
