"""Tree reductions (--parallel-reductions: gpu/tree.py recognises the form,
codegen/tree.py prints it): which kernels of the matrix-vector PolyBench programs
sum in a tree and along which axis their lanes run, that the option leaves every
other kernel (and, off, every file) as it was, the emulation (real barriers,
race-checked shared memory) against gcc on PolyBench and on sums of this file's own
(integer ones exactly), the forms that are refused, a removed barrier, nvcc builds."""
from __future__ import annotations

import concurrent.futures
import functools
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

import polycu
from polycu import options as polycu_options
from polycu.bench import cpu as polybench_cpu
from polycu.codegen import Generated
from polycu.diagnostics import PolycuError
from polycu.gpu.ordered import launched
from polycu.driver import compile_file, placement_of
from polycu.memory import Placement
from polycu.options import Options
from polycu.runtime.compiled import Compiled, compile_program
from polycu.runtime.emulate import emulate_generated, emulate_scop, scop_translation_unit

DATA = Path(__file__).resolve().parent / "data" / "tree_reductions"
INTEGER_SUMS = DATA / "integer_sums.c"
FORMS = DATA / "forms.c"
KERNELS = {k.name: k for k in polybench_cpu.find_kernels()}
UTILITIES = polybench_cpu.UTILITIES_DIR
LINEAR = ("atax", "bicg", "mvt", "gesummv", "gemver")


def polybench_options(name: str, dataset: str = "MINI", **values: object) -> Options:
    """The kernel's defines and includes, compiled for the GPU (module fixtures run
    outside conftest's --run-on gpu fixture: small datasets would go to the CPU)."""
    return Options(define=[f"{dataset}_DATASET"], run_on="gpu",
                   include_dir=[str(UTILITIES), str(KERNELS[name].directory)], **values)


@functools.lru_cache(maxsize=None)
def polybench_scops(name: str, dataset: str = "MINI") -> list[polycu.Scop]:
    opts = polybench_options(name, dataset)
    return polycu.load(str(KERNELS[name].source), defines=opts.define,
                       includes=opts.include_dir)


@functools.lru_cache(maxsize=None)
def sums(path: Path) -> Compiled:
    """A file of sums (INTEGER_SUMS, FORMS) compiled with trees, once a worker for the
    tests that emulate it at several sizes and the nvcc builds."""
    return compile_program(str(path), Options(run_on="gpu", parallel_reductions=True))


@functools.lru_cache(maxsize=None)
def polybench_generated(name: str, dataset: str = "MINI", trees: bool = True) -> Generated:
    """With trees (``--parallel-reductions``) or with no tree at all (one thread a row,
    ``--no-ordered-reductions``)."""
    return compile_file(str(KERNELS[name].source),
                        polybench_options(name, dataset, parallel_reductions=trees,
                                          ordered_reductions=False))


def polybench_placement(name: str, **values: object) -> Placement:
    (scop,) = polybench_scops(name)
    return placement_of(scop, polybench_options(name, **values))


def written(scop: polycu.Scop, statement: str) -> str:
    """The array a statement writes."""
    (stmt,) = [s for s in scop.statements if s.name == statement]
    (write,) = stmt.writes
    return write.array


def trees_by_index(placement: Placement) -> dict[int, tuple]:
    """Kernel index -> (arrays summed, arrays written before the sums, after them,
    lanes on k) of every tree kernel."""
    scop = placement.program.scop
    index = {k.name: k.index for k in placement.program.kernels}
    return {index[name]: (tuple(written(scop, p.name) for p in tree.sums),
                          tuple(written(scop, p.name) for p in tree.before),
                          tuple(written(scop, p.name) for p in tree.after),
                          tree.lanes_on_k)
            for name, tree in placement.trees.items()}


# -- recognition on PolyBench (MINI) -------------------------------------------------

# kernel index -> (sums, before, after, lanes on k), by the arrays they write:
#   atax    0: tmp[i] = 0; tmp[i] += A[i][j] * x[j]    1: y[j] = 0; y[j] += A[i][j] * tmp[i]
#   bicg    0: s[j] = 0; s[j] += r[i] * A[i][j]        1: q[i] = 0; q[i] += A[i][j] * p[j]
#   mvt     0: x1[i] += A[i][j] * y_1[j]               1: x2[i] += A[j][i] * y_2[j]
#   gesummv 0: tmp = y = 0; both sums; y = alpha tmp + beta y
#   gemver  0: A += u1 v1 + u2 v2 (2-D, no sum)  1: x += beta A[j][i] y[j]  2: x += z (no
#           sum)  3: w += alpha A[i][j] x[j]
EXPECTED_TREES = {
    "atax": (2, {0: (("tmp",), ("tmp",), (), True), 1: (("y",), ("y",), (), False)}),
    "bicg": (2, {0: (("s",), ("s",), (), False), 1: (("q",), ("q",), (), True)}),
    "mvt": (2, {0: (("x1",), (), (), True), 1: (("x2",), (), (), False)}),
    "gesummv": (1, {0: (("tmp", "y"), ("tmp", "y"), ("y",), True)}),
    "gemver": (4, {1: (("x",), (), (), False), 3: (("w",), (), (), True)}),
}


# Two sums of a row with their own bounds (rows of sum 1 without terms where i >= m),
# P writing both cells and Q reading both: each sum gets its own adders.
SUMS_OF_A_ROW = """
void f(int n, int m, double A[150][290], double B[150][290], double x[290], double s[150],
       double t[150], double w[150])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    s[i] = 0.5 * i;
    t[i] = s[i] - 1.0;
    for (j = 0; j <= i + 40; j++)
      s[i] = s[i] + A[i][j] * x[j];
    for (j = i; j < m; j++)
      t[i] -= B[i][j] * x[j];
    w[i] = s[i] * t[i];
  }
#pragma endscop
}
"""


def test_ordered_sums_of_a_row_have_adders_of_their_own(tmp_path: Path) -> None:
    """A row of adders along y for each sum, every sum's chunks between the same
    barriers; C's values to the last bit, with rows of one sum longer than the
    other's or empty."""
    path = tmp_path / "two.c"
    path.write_text(SUMS_OF_A_ROW)
    (scop,) = polycu.load(str(path))
    (tree,) = placement_of(scop, Options(run_on="gpu")).trees.values()
    assert tree.ordered and len(tree.sums) == 2 and launched(tree) == (32, 10)
    compiled = compile_program(str(path), Options(run_on="gpu"))
    for params in ({"n": 150, "m": 290}, {"n": 150, "m": 60}, {"n": 9, "m": 3}):
        (report,) = emulate_generated(compiled.scops, compiled.description, params=params,
                                      seed=2, nvcc=False)
        assert report.ok and not report.on_cpu, report.format()
        assert all(a.max_rel_error == 0 and a.mismatches == 0 for a in report.arrays)


# A term whose reads C evaluates only under a condition: the right operand of &&
# and both branches of ?: (A's read out of bounds, maybe, where C skips it).
CONDITIONAL_READS = """
void f(int n, int m, double A[150][290], double x[290], double z[150])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      z[i] += x[j] > 0.5 && A[i][j] < 0.0 ? 1.0 : A[i][j] * x[j];
#pragma endscop
}
"""


def test_ordered_trees_load_only_the_reads_c_always_makes(tmp_path: Path) -> None:
    """The loading threads fetch a term's operands a chunk ahead into registers: the
    reads C makes whenever the statement runs, here x[j] alone; the emulation over
    three chunks (the last partial) gives gcc's values to the last bit."""
    path = tmp_path / "conditional.c"
    path.write_text(CONDITIONAL_READS)
    compiled = compile_program(str(path), Options(run_on="gpu"))
    cuda = compiled.generated.cuda
    loaded = re.findall(r"(ld0_\d+)\[u\] = .*\? \(double\)\((\w+)\[", cuda)
    assert set(loaded) == {("ld0_0", "x")}, loaded
    assert "? (1.0) : (A[" in cuda
    (report,) = emulate_generated(compiled.scops, compiled.description,
                                  params={"n": 150, "m": 290}, seed=3, nvcc=False)
    assert report.ok and not report.on_cpu, report.format()
    assert all(a.max_rel_error == 0 and a.mismatches == 0 for a in report.arrays)


@pytest.mark.parametrize("name", LINEAR)
def test_polybench_trees(name: str) -> None:
    placement = polybench_placement(name, parallel_reductions=True)
    count, expected = EXPECTED_TREES[name]
    assert len(placement.program.kernels) == count
    assert trees_by_index(placement) == expected
    for tree in placement.trees.values():
        # 8 rows of 32 lanes along k; 16 rows along i, a power of two of slices of k
        if tree.lanes_on_k:
            assert tree.block == (32, 8) and (tree.slices, tree.rows) == (32, 8)
        else:
            assert tree.block[0] == tree.rows == 16
            assert tree.slices in (16, 32, 64)
        # the kernel's arrays stay in device memory (scalars are passed by value)
        for choice in placement.kernel(tree.kernel).choices:
            if choice.kind != "parameter":
                assert choice.kind in ("global", "read-only"), choice
                assert "sums in a tree" in choice.reason, choice


@pytest.mark.parametrize("name", LINEAR)
def test_no_tree_without_the_options(name: str) -> None:
    assert polybench_placement(name, ordered_reductions=False).trees == {}
    plain = compile_file(str(KERNELS[name].source),
                         polybench_options(name, ordered_reductions=False)).cuda
    assert polybench_generated(name, trees=False).cuda == plain
    assert "sum0" not in plain


@pytest.mark.parametrize("name", LINEAR)
def test_the_default_trees_keep_c_order(name: str) -> None:
    """Every matrix-vector kernel's sums are double: ordered trees by default, the
    same kernels as the option's trees but for the order of the additions."""
    ordered = polybench_placement(name).trees
    tree = polybench_placement(name, parallel_reductions=True).trees
    assert ordered.keys() == tree.keys() and ordered
    assert all(t.ordered and not tree[k].ordered for k, t in ordered.items())
    assert all("added in C's order" in str(t) for t in ordered.values())


# A row sum read along k, a column sum read along i (after the first: y is read),
# an integer sum, each with more terms than two chunks; and the float sum C rounds
# once with its double constant, which an ordered tree would round twice.
ORDERED = """
void f(int n, int m, double A[150][290], double x[290], double y[150], double z[290],
       long C[150][290], long s[150])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.5;
    for (j = 0; j < m; j++)
      y[i] = y[i] + A[i][j] * x[j];
  }
  for (j = 0; j < m; j++)
    for (i = 0; i < n; i++)
      z[j] -= A[i][j] * y[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      s[i] += C[i][j] * j;
#pragma endscop
}
"""
FLOAT = """
void f(int n, int m, float F[150][290], float g[150])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      g[i] += F[i][j] * 0.1;
#pragma endscop
}
"""


def test_ordered_trees_give_c_values_to_the_last_bit(tmp_path: Path) -> None:
    path = tmp_path / "ordered.c"
    path.write_text(ORDERED)
    (scop,) = polycu.load(str(path))
    trees = placement_of(scop, Options(run_on="gpu")).trees
    assert len(trees) == 3 and all(t.ordered for t in trees.values())
    assert sorted(t.lanes_on_k for t in trees.values()) == [False, True, True]
    # the rows' adders are a warp of their own: one more row of threads along y; the
    # kernels ask for one block an SM at least (registers to load the terms ahead)
    assert sorted(launched(t) for t in trees.values()) == [(16, 33), (32, 9), (32, 9)]
    compiled = compile_program(str(path), Options(run_on="gpu"))
    cuda = compiled.generated.cuda
    assert sorted(re.findall(r"__launch_bounds__\((\d+), 1\)", cuda)) == ["288", "288", "528"]
    for params in ({"n": 150, "m": 290}, {"n": 129, "m": 3}):
        (report,) = emulate_generated(compiled.scops, compiled.description, params=params,
                                      seed=5, nvcc=False)
        assert report.ok and not report.on_cpu, report.format()
        assert all(a.max_rel_error == 0 and a.mismatches == 0 for a in report.arrays)
    path.write_text(FLOAT)
    (scop,) = polycu.load(str(path))
    assert placement_of(scop, Options(run_on="gpu")).trees == {}


@pytest.mark.parametrize("name", LINEAR)
def test_tree_kernels_and_the_others(name: str) -> None:
    """The tree kernels get their launch shape, one shared array a sum and a barrier
    a step of the tree (and one before it); the other kernels are those of the
    default, character for character."""
    placement = polybench_placement(name, parallel_reductions=True)
    (on,) = polybench_generated(name).description["scops"]
    (off,) = polybench_generated(name, trees=False).description["scops"]
    assert [k["name"] for k in on["kernels"]] == [k["name"] for k in off["kernels"]]
    for kernel, plain in zip(on["kernels"], off["kernels"]):
        tree = placement.trees.get(kernel["name"])
        if tree is None:
            assert kernel["source"] == plain["source"]
            assert kernel["block"] == plain["block"]
            continue
        threads = tree.block[0] * tree.block[1]
        assert kernel["block"] == [*tree.block, 1]
        assert f"__launch_bounds__({threads})" in kernel["source"]
        assert kernel["source"].count("__syncthreads();") == tree.slices.bit_length()
        for r in range(len(tree.sums)):
            assert f"POLYCU_SHARED(double, sum{r}, {threads});" in kernel["source"]
        assert f"sum{len(tree.sums)}" not in kernel["source"]


@pytest.mark.parametrize("name", ["jacobi-2d", "jacobi-1d", "trisolv"])
def test_programs_without_a_tree_are_unchanged(name: str) -> None:
    """jacobi-2d (kernels of two mapped members), jacobi-1d (no sum), trisolv (no
    kernel of the form): the option changes nothing."""
    assert polybench_placement(name, parallel_reductions=True).trees == {}
    assert polybench_generated(name).cuda == polybench_generated(name, trees=False).cuda


def test_memory_overrides_keep_the_plain_kernel() -> None:
    """--memory chooses an array's memory: that kernel keeps the code that obeys it."""
    placement = polybench_placement("atax", parallel_reductions=True, memory=["0:A=global"])
    assert sorted(trees_by_index(placement)) == [1]
    placement = polybench_placement("atax", parallel_reductions=True, memory=["*:x=global"])
    assert sorted(trees_by_index(placement)) == [1]
    # an array no kernel has: both stay trees
    placement = polybench_placement("atax", parallel_reductions=True, memory=["*:Q=global"])
    assert sorted(trees_by_index(placement)) == [0, 1]


# -- emulation of PolyBench ----------------------------------------------------------

@pytest.mark.parametrize("name", LINEAR)
def test_polybench_emulation_matches_gcc(name: str) -> None:
    """MINI at the largest sizes up to 37 that fit its arrays, and at sizes up to 2
    (rows of one term, one block); SMALL (more terms than slices: each thread adds
    several)."""
    for dataset, limit in (("MINI", 37), ("MINI", 2), ("SMALL", 200)):
        description = polybench_generated(name, dataset).description
        assert any("sum0" in k["source"] for s in description["scops"]
                   for k in s["kernels"])
        reports = emulate_generated(polybench_scops(name, dataset), description,
                                    limit=limit, seed=2026, nvcc=False)
        assert reports
        for report in reports:
            assert report.ok, report.format() + "\n" + report.output
            assert not report.on_cpu


# -- sums of our own -----------------------------------------------------------------

def file_trees(path: Path) -> tuple[set[tuple], set[tuple[str, ...]]]:
    """The trees of a file's one SCoP (as ``trees_by_index`` describes them) and the
    arrays written by each other kernel."""
    (scop,) = polycu.load(str(path))
    placement = placement_of(scop, Options(run_on="gpu", parallel_reductions=True))
    scop = placement.program.scop       # with the statements polycu adds (copy-outs)
    trees = trees_by_index(placement)
    others = {tuple(sorted(written(scop, s) for s in k.statements))
              for k in placement.program.kernels if k.index not in trees}
    return set(trees.values()), others


def test_integer_sums_are_trees() -> None:
    trees, others = file_trees(INTEGER_SUMS)
    assert trees == {
        (("s",), (), ("t",), True),         # s[i] += a[i][k] * b[k]; then t[i]
        (("c",), (), (), False),            # c[j] += u[k][j]: a column
        (("d",), (), (), True),             # d[i] -= u[i][k] * 3u, k < i
        (("e", "q"), (), (), False),        # e[j] = u[k][j] * k + e[j], k > j; q[i] -=
        (("h",), (), (), True),             # h[i] += (unsigned char)u[i][k]
    }
    assert others == {("s",)}               # s[i] = 0, a kernel of its own


@pytest.mark.parametrize("params", [
    {"n": 37, "m": 70}, {"n": 70, "m": 37}, {"n": 33, "m": 2}, {"n": 1, "m": 1},
    {"n": 0, "m": 5},
])
def test_integer_sums_are_exact(params: dict[str, int]) -> None:
    compiled = sums(INTEGER_SUMS)
    (report,) = emulate_generated(compiled.scops, compiled.description, params=params,
                                  seed=sum(params.values()), nvcc=False)
    assert report.ok, report.format()
    assert report.params == params
    for array in report.arrays:
        assert array.mismatches == 0 and array.max_rel_error == 0, report.format()


def test_floating_forms_are_trees() -> None:
    trees, others = file_trees(FORMS)
    assert trees == {
        # at each time step, from the host; r expanded to one row a step (r_x0)
        (("s",), ("s",), ("r_x0",), True),
        (("v",), ("v", "v"), ("t", "v", "w"), True),  # in C's order, around the sum
        (("g",), (), (), False),                    # g[i] = e + g[i], k <= i, floats
        (("z",), ("y",), (), False),                # rows of y and z differ
    }
    assert others == {("x",), ("r",)}       # x[i] = r[n - 1 - i] * 0.5; r's last row


@pytest.mark.parametrize("params", [
    {"n": 37, "m": 70, "tsteps": 3}, {"n": 70, "m": 37, "tsteps": 2},
    {"n": 4, "m": 1, "tsteps": 1}, {"n": 0, "m": 9, "tsteps": 1},
])
def test_floating_forms_match_gcc(params: dict[str, int]) -> None:
    compiled = sums(FORMS)
    (report,) = emulate_generated(compiled.scops, compiled.description, params=params,
                                  seed=sum(params.values()), nvcc=False)
    assert report.ok, report.format()
    assert report.params == params


# -- refusals ------------------------------------------------------------------------

# Each pair: a source whose one kernel is a tree, and a change of it whose one kernel
# (of all its statements: the scheduler keeps them together) is no tree.
ROW_SUM = """
void f(int n, double A[40][40], double x[40], double y[40], double y2[80], double z[40])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int k = 0; k < n; k++)
      y[i] += A[i][k] * y2[k];
    z[i] = y[i];
  }
#pragma endscop
}
"""
PLAIN = """
void f(int n, double A[40][40], double p[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      p[i] += A[i][k];
#pragma endscop
}
"""
# t[i] = s[i] + r[i] after both sums; moved between them (it reads r[i] before
# r's sum and s[i] after s's) the scheduler keeps it there, in the one kernel
TWO_SUMS = """
void f(int n, double A[40][40], double B[40][40], double s[40], double r[40], double t[40])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < n; k++)
      s[i] += A[i][k];
    for (int k = 0; k < n; k++)
      r[i] += B[i][k];
    t[i] = s[i] + r[i];
  }
#pragma endscop
}
"""
T_BETWEEN = TWO_SUMS.replace("    t[i] = s[i] + r[i];\n", "").replace(
    "    for (int k = 0; k < n; k++)\n      r[i]",
    "    t[i] = s[i] + r[i];\n    for (int k = 0; k < n; k++)\n      r[i]")


def columns(sums: int) -> str:
    """``sums`` column sums of doubles in one loop: 8 bytes a sum for each of the
    16 x 64 threads (100 terms a row) of a block."""
    arrays = ", ".join(f"double w{r}[100]" for r in range(sums))
    body = "\n".join(f"      w{r}[j] += A[k][j] * {r + 1}.0;" for r in range(sums))
    return f"""
void f(int n, double A[100][100], {arrays})
{{
#pragma scop
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) {{
{body}
    }}
#pragma endscop
}}
"""


def one_kernel(source: str, tmp_path: Path) -> tuple[frozenset[str], bool]:
    """The statements of the source's one kernel (which has them all), and whether
    it is a tree."""
    path = tmp_path / "r.c"
    path.write_text(source)
    (scop,) = polycu.load(str(path))
    placement = placement_of(scop, Options(run_on="gpu", parallel_reductions=True))
    (kernel,) = placement.program.kernels
    assert set(kernel.statements) == {s.name for s in scop.statements}
    return frozenset(kernel.statements), kernel.name in placement.trees


@pytest.mark.parametrize("source, refused", [
    # a term reads y2, which the kernel writes (other cells than those it reads)
    (ROW_SUM, ROW_SUM.replace("z[i] = y[i];", "y2[n + i] = y[i];")),
    # a product, not a sum
    (PLAIN, PLAIN.replace("p[i] += A[i][k]", "p[i] *= A[i][k]")),
    # a statement of the row between its two sums
    (TWO_SUMS, T_BETWEEN),
    # a bound of k with a coefficient
    (PLAIN, PLAIN.replace("k < n; k++", "2 * k < n; k++")),
    # a step of 2 in k
    (PLAIN, PLAIN.replace("k < n; k++", "k < n; k += 2")),
    # 7 x 8 bytes x 1024 threads of shared memory, over the 48 KB of a block (6: 48 KB)
    (columns(6), columns(7)),
], ids=["reads-what-it-writes", "product", "between-sums", "coefficient", "step",
        "shared-budget"])
def test_refused(tmp_path: Path, source: str, refused: str) -> None:
    assert refused != source
    assert one_kernel(source, tmp_path)[1], "the control is no tree"
    assert not one_kernel(refused, tmp_path)[1]


# -- a removed barrier ---------------------------------------------------------------

def _without_barrier(source: str, n: int) -> str:
    starts = [m.start() for m in re.finditer(re.escape("__syncthreads();"), source)]
    return source[:starts[n]] + source[starts[n] + len("__syncthreads();"):]


@pytest.mark.parametrize("kernel", [0, 1], ids=["lanes-on-k", "lanes-on-i"])
def test_a_removed_barrier_is_caught_as_a_race(kernel: int) -> None:
    """Every barrier of a tree kernel but its last (after the last step, which the
    thread that reads the total wrote itself) orders shared memory another thread
    reads: without it the emulation stops with a race on the partial sums."""
    (scop,) = polybench_scops("atax")
    (entry,) = polybench_generated("atax").description["scops"]
    cuda, host = scop_translation_unit(entry), entry["host_function"]
    source = entry["kernels"][kernel]["source"]
    name = entry["kernels"][kernel]["name"]
    assert source in cuda
    barriers = source.count("__syncthreads();")
    assert barriers >= 5
    params = {"n": 37, "m": 37}
    assert emulate_scop(scop, cuda, host, seed=5, nvcc=False, params=params).ok
    for n in range(barriers - 1):
        broken = cuda.replace(source, _without_barrier(source, n))
        with pytest.raises(PolycuError, match=rf"kernel {name}, .*shared array sum0 .*"
                                              r"\(a missing barrier\)"):
            emulate_scop(scop, broken, host, seed=5, nvcc=False, params=params)


# -- an int cell of double terms (refused since 825cb84) ------------------------------

@pytest.fixture
def reductions_by_default(gpu_placement: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """--parallel-reductions on by default (as conftest's gpu_placement does for
    --run-on), so that conftest's ``emulated`` compiles with it."""
    monkeypatch.setattr(polycu_options, "OPTIONS", tuple(
        replace(o, default=True) if o.flag == "--parallel-reductions" else o
        for o in polycu_options.OPTIONS))


INT_CELL_OF_DOUBLES = """
void f(int n, double A[40][40], int s[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      s[i] += A[i][k];
#pragma endscop
}
"""


def test_reductions_by_default(reductions_by_default: None) -> None:
    assert Options().parallel_reductions and Options().run_on == "gpu"


def test_int_cell_of_double_terms_matches_gcc(
        reductions_by_default: None,
        emulated: Callable[[str, list[dict[str, int]]], Path]) -> None:
    """s[i] += A[i][k] with int s and double A is no tree: C converts the cell to int
    after every term, so the order of the terms matters (before the fix it was taken
    for a tree, and the emulation gave s[0] 639 where gcc gives 619 at n=37)."""
    emulated(INT_CELL_OF_DOUBLES, [{"n": 37}, {"n": 5}])


# -- nvcc ----------------------------------------------------------------------------

NVCC = shutil.which("nvcc")


@pytest.fixture(scope="module")
def nvcc_builds(tmp_path_factory: pytest.TempPathFactory
                ) -> dict[str, tuple[subprocess.CompletedProcess[str], dict[str, int]]]:
    """``nvcc -arch=sm_90 -c -Xptxas -v`` of the emulated translation unit of gemver
    and gesummv (MINI) and of the two files of sums, with the shared memory each tree
    kernel declares."""
    tmp = tmp_path_factory.mktemp("tree_nvcc")
    generated = {name: polybench_generated(name) for name in ("gemver", "gesummv")}
    generated.update({path.stem: sums(path).generated for path in (INTEGER_SUMS, FORMS)})
    jobs = []
    for name, gen in generated.items():
        (entry,) = gen.description["scops"]
        cu = tmp / f"{name}.cu"
        cu.write_text(scop_translation_unit(entry))
        smem = {}
        for kernel in entry["kernels"]:
            sizes = re.findall(r"POLYCU_SHARED\((\w[\w ]*), sum\d+, (\d+)\);",
                               kernel["source"])
            if sizes:
                width = {"double": 8, "float": 4, "int": 4, "unsigned": 4, "short": 2,
                         "unsigned char": 1}
                smem[kernel["name"]] = sum(width[t] * int(n) for t, n in sizes)
        jobs.append((name, cu, smem))

    def build(job: tuple[str, Path, dict[str, int]]):
        name, cu, smem = job
        return name, (subprocess.run([NVCC, "-arch=sm_90", "-O3", "-c", "-Xptxas", "-v",
                                      str(cu), "-o", str(cu.with_suffix(".o"))],
                                     capture_output=True, text=True, timeout=300), smem)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return dict(pool.map(build, jobs))


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
@pytest.mark.parametrize("name", ["gemver", "gesummv", "integer_sums", "forms"])
def test_nvcc_builds_tree_kernels(nvcc_builds, name: str) -> None:
    """sm_90 builds the tree kernels without spills, with the shared memory they
    declare and one barrier each."""
    built, smem = nvcc_builds[name]
    assert built.returncode == 0, built.stderr
    assert smem, "no tree kernel"
    for kernel, size in smem.items():
        info = re.search(rf"entry function '{kernel}'.*?\n(.*?)Compile time", built.stderr,
                         re.S)
        assert info, built.stderr
        assert " 0 bytes spill stores, 0 bytes spill loads" in info.group(1)
        assert f"used 1 barriers, {size} bytes smem" in info.group(1)
