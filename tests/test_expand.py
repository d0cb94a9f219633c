"""Scalar expansion (schedule/expand.py): which scalars are expanded and how, the
proof that every read keeps its write, the cells of loops with divided bounds and
non-unit steps, and the programs that follow (ludcmp)."""
from __future__ import annotations

import io
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.codegen import generate
from polycu.driver import compile_file, program_of
from polycu.codegen.ast import with_asts
from polycu.diagnostics import Reporter
from polycu.gpu.mapping import map_to_gpu
from polycu.options import Options
from polycu.runtime.emulate import emulate_file, emulate_generated
from polycu.driver import candidates, choose
from polycu.memory import place
from polycu.schedule import IllegalSchedule, save_schedule
from polycu.schedule.expand import expand_temporaries

ROOT = Path(__file__).resolve().parent.parent

# Left-looking LU of one row at a time through the scalar w (ludcmp's first nest).
ROW_LU = """
void f(int n, double A[60][60])
{
  int i, j, k;
  double w;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
#pragma endscop
}
"""

# symm's nest: t lives within one (i, j), but C's updates order i.  Privatised, t
# leaves one parallel member (j, with i on the host); expanded, isl reorders the nest
# into one 2-D parallel, coalesced kernel.
SYMM_ROW = """
void f(int n, int m, double A[60][60], double B[60][80], double C[60][80])
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      t = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += A[i][k] * B[i][j];
        t += B[k][j] * A[i][k];
      }
      C[i][j] = C[i][j] + B[i][j] * A[i][i] + t;
    }
#pragma endscop
}
"""

# s carries a value from every i to the next: one live range spans the whole loop.
RUNNING = """
void f(int n, double a[100], double b[100])
{
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++) {
    s += a[i];
    b[i] = s;
  }
#pragma endscop
}
"""

# t is read before the SCoP writes it: its value comes from outside.
UPWARD = """
void f(int n, double a[100], double t)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    a[i] = t;
    t = a[i] + 1;
  }
#pragma endscop
}
"""

# An inner extent that is an expression of a parameter (m + 1): the linearised
# subscript must multiply by the whole of it.
WIDE = """
void f(int n, int m, double A[n][m + 1], double B[n][m + 1])
{
  int i, j;
  double w;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= m; j++) {
      w = A[i][j] * 2;
      B[i][j] = w + A[i][m - j];
    }
#pragma endscop
}
"""


# t lives inside one (i, j) iteration, but the SCoP's arrays are 1-D: t gets one
# cell per i only.
DEEP = """
void f(int n, double a[100], double b[100])
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t = a[j];
      for (k = 0; k < n; k++)
        t += a[k];
      b[i] = t;
    }
#pragma endscop
}
"""


def model(source: str):
    scop = polycu.load_text(source, "test.c")[0]
    return scop, polycu.dependences(scop)


def test_w_becomes_one_cell_per_row_and_column():
    scop, deps = model(ROW_LU)
    expanded = expand_temporaries(scop, deps)
    assert expanded is not None and expanded.arrays == ("w_x0",)
    array = expanded.scop.array("w_x0")
    # rows from i = 1 (j < i), sized from the footprint by the code generator; j < n - 1
    assert array.local and array.extents == (None, "n - 1")
    for s in expanded.scop.statements:
        (access,) = [a for a in s.accesses if a.array == "w_x0"][:1]
        cells = isl.Map(f"{{ {s.name}[{', '.join(s.iterators)}] -> w_x0[i - 1, j] }}")
        assert access.relation.is_equal(cells.align_params(access.relation.get_space()))
        assert "w_x0[i - 1][j]" in s.text and "w " not in s.text
    # the proof: the same flow, instance pair for instance pair; w's order is gone
    assert expanded.deps.flow.is_equal(deps.flow)
    assert expanded.deps.anti.is_subset(deps.anti)
    assert not deps.anti.is_subset(expanded.deps.anti)


def test_the_expanded_schedule_reorders_the_nest_into_a_2d_parallel_band():
    scop, deps = model(SYMM_ROW)
    quiet = Reporter(stream=open("/dev/null", "w"))
    best = choose(scop, deps, reporter=quiet)
    assert best.name.startswith("expand(t_x0)+")
    assert best.scop is not scop and best.scop.array("t_x0").local
    unexpanded = candidates(scop, deps, Options(expand_scalars=False), reporter=quiet)
    assert not any("expand" in c.schedule.name for c in unexpanded)
    ranked = candidates(scop, deps, reporter=quiet)
    assert ranked[0].score < unexpanded[0].score / 10


def test_a_live_range_across_iterations_is_not_expanded():
    scop, deps = model(RUNNING)
    assert expand_temporaries(scop, deps) is None


def test_a_scalar_read_before_written_is_not_expanded():
    scop, deps = model(UPWARD)
    assert expand_temporaries(scop, deps) is None


def test_expanded_program_allocates_the_temporary_on_the_device_only(tmp_path):
    source = tmp_path / "symm.c"
    source.write_text(SYMM_ROW)
    generated = compile_file(str(source))
    cuda = generated.cuda
    assert "polycu_malloc((void **)&dev_t_x0" in cuda
    assert "polycu_copy_in(dev_t_x0" not in cuda and "polycu_copy_out(t_x0" not in cuda
    assert "polycu_copy_in(" in cuda  # the other arrays' copies are spelt so
    for n in (1, 2, 45):
        (report,) = emulate_file(str(source), Options(), params={"n": n, "m": 7}, seed=11)
        assert report.ok, report.format()


def test_compound_inner_extents_are_parenthesised(tmp_path):
    source = tmp_path / "wide.c"
    source.write_text(WIDE)
    assert "* (m + 1) +" in compile_file(str(source)).cuda
    (report,) = emulate_file(str(source), Options(), params={"n": 9, "m": 6}, seed=5)
    assert report.ok, report.format()


def test_ludcmp_program_uses_expanded_temporaries_and_parallel_kernels():
    path = ROOT / "polybench/linear-algebra/solvers/ludcmp/ludcmp.c"
    options = Options(define=["SMALL_DATASET"], include_dir=[str(ROOT / "polybench/utilities")])
    (scop,) = polycu.load(str(path), defines=options.define, includes=options.include_dir)
    program = program_of(scop, options)
    assert {a.name for a in program.scop.arrays if a.local} >= {"w_x0", "w_x2"}
    mapped = [len(k.mapped) for k in program.kernels]
    assert max(mapped) == 2 and sum(mapped) >= 8


def test_a_saved_expanded_schedule_loads_back_on_the_expanded_model(tmp_path):
    scop, deps = model(ROW_LU)
    quiet = Reporter(stream=open("/dev/null", "w"))
    saved = tmp_path / "lu.yaml"
    # the best schedule of the expanded model (privatising w beats it for this nest)
    first = next(c.schedule for c in candidates(scop, deps, reporter=quiet)
                 if c.schedule.scop is not scop)
    save_schedule(first, str(saved))
    loaded = choose(scop, deps, Options(load_schedule=str(saved)), reporter=quiet)
    assert loaded.name == f"loaded:{saved}" and loaded.get_map().is_equal(first.get_map())
    assert loaded.scop.array("w_x0").local
    # without expansion the same tree violates w's anti dependences: a located error
    with pytest.raises(IllegalSchedule, match="violates the (anti|output) dependence"):
        choose(scop, deps, Options(load_schedule=str(saved), expand_scalars=False),
               reporter=quiet)


def test_a_temporary_has_no_more_dimensions_than_the_arrays():
    scop, deps = model(DEEP)
    expanded = expand_temporaries(scop, deps)
    assert expanded is not None and expanded.scop.array("t_x0").extents == (None,)
    assert expanded.deps.flow.is_equal(deps.flow)


# -- exact cells: divisions in bounds, non-unit steps, negative starts ------------------

def reduction_rows(header: str, row: str = "i") -> str:
    """acc sums row ``row`` of B for every iteration of the loop ``header``."""
    return f"""
void f(int n, double A[100], double B[100][100])
{{
  int i, k;
  double acc;
#pragma scop
  {header} {{
    acc = 0;
    for (k = 0; k < n; k++)
      acc += B[{row}][k];
    A[{row}] = acc;
  }}
#pragma endscop
}}
"""


HALF = reduction_rows("for (i = 1; i < (n + 1) / 2; i++)")
EVEN = reduction_rows("for (i = 0; i < n; i += 2)")
DOWN3 = reduction_rows("for (i = n - 1; i >= 0; i -= 3)")
SHIFTED = reduction_rows("for (i = n / 2 - 3; i < n - 3; i++)", "i + 3")

# Two expanded dimensions, the inner one bounded by a division: its extent is printed
# with '/' (isl proves the numerator non-negative wherever the nest runs).
INNER_HALF = """
void f(int n, double A[100][100], double B[100][100])
{
  int i, j, k;
  double acc;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < (n + 1) / 2; j++) {
      acc = B[i][0];
      for (k = 0; k < j; k++)
        acc += B[i][k] * B[k][j];
      A[i][j] = acc;
    }
#pragma endscop
}
"""


def cells_of(source: str) -> tuple[tuple, dict[str, isl.Map]]:
    """The extents of acc's temporary and each statement's access to it."""
    scop, deps = model(source)
    expanded = expand_temporaries(scop, deps)
    assert expanded is not None and expanded.arrays == ("acc_x0",)
    assert expanded.deps.flow.is_equal(deps.flow)
    relations = {s.name: a.relation for s in expanded.scop.statements for a in s.accesses
                 if a.array == "acc_x0"}
    return expanded.scop.array("acc_x0").extents, relations


def same_map(relation: isl.Map, text: str) -> bool:
    return relation.is_equal(isl.Map(text).align_params(relation.get_space()))


@pytest.mark.parametrize("source, cell", [
    (HALF, "i - 1"),        # exact offset 1: floor((n + 1) / 2) - 1 rows from the footprint
    (EVEN, "i"),            # every other cell used: sparse but exact
    (DOWN3, "i"),           # the least i is (n - 1) mod 3: the constant offset 0
    (SHIFTED, "i + 3"),     # i starts at n / 2 - 3 >= -3: the constant offset -3
])
def test_expanded_cells_follow_the_exact_bounds(source, cell):
    extents, relations = cells_of(source)
    assert extents == (None,)   # rows: the accesses' footprint, max(0, 1 + max index)
    assert same_map(relations["S0"], f"[n] -> {{ S0[i] -> acc_x0[{cell}] }}")
    assert same_map(relations["S1"], f"[n] -> {{ S1[i, k] -> acc_x0[{cell}] }}")


def test_an_inner_extent_with_a_division_is_exact():
    extents, relations = cells_of(INNER_HALF)
    assert extents == (None, "(n + 1) / 2")
    assert same_map(relations["S2"], "[n] -> { S2[i, j] -> acc_x0[i, j] }")


def test_a_start_with_no_least_value_is_not_expanded_and_says_why():
    scop, deps = model(reduction_rows("for (i = -(n / 2); i < n; i++)", "i + 50"))
    reporter = Reporter(stream=io.StringIO())
    assert expand_temporaries(scop, deps, reporter) is None
    (note,) = reporter.diagnostics
    assert note.severity == "note" and note.location.line == 5
    assert note.message == ("scalar 'acc' is not expanded in S0, S1, S2: the least value of "
                            "its loop iterator i is not an affine expression of the parameters")


def emulate_candidate(tmp_path: Path, source: str, prefix: str, sizes: tuple[int, ...]):
    """Generate the code of the best candidate named ``prefix...`` and emulate it."""
    path = tmp_path / "expand.c"
    path.write_text(source)
    scop, deps = model(source)
    quiet = Reporter(stream=io.StringIO())
    (schedule,) = [c.schedule for c in candidates(scop, deps, reporter=quiet)
                   if c.schedule.name.startswith(prefix)][:1]
    program = with_asts(map_to_gpu(schedule.scop, schedule.deps, schedule.tree))
    description = generate(str(path), source, [place(program)]).description
    for n in sizes:
        (report,) = emulate_generated(polycu.load(str(path)), description, params={"n": n},
                                      seed=n, nvcc=False)
        assert report.ok, report.format()
    return program


@pytest.mark.parametrize("source", [HALF, EVEN, SHIFTED, INNER_HALF])
def test_expanded_programs_run_like_the_original_at_small_sizes(tmp_path, source):
    program = emulate_candidate(tmp_path, source, "expand(acc_x0)+isl-maxfuse", (0, 1, 2, 3, 9))
    assert "acc_x0" in {a.name for a in program.scop.arrays if a.local}
    assert any(k.mapped for k in program.kernels)
