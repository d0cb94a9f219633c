"""Resident grids (--resident-grid, memory/resident.py, codegen/resident.py): the plan
of each stencil exactly (rows a block, halos, who runs each kernel), the programs it
refuses, the emulation against gcc with the bands on chip and off chip (the emulated
device holds POLYCU_EMU_RESIDENT_BLOCKS = 4 blocks), nvcc's build, and a removed
grid barrier or neighbour wait caught."""
from __future__ import annotations

import shutil

import pytest

from polycu.bench import cpu as polybench_cpu
from polycu.diagnostics import PolycuError
from polycu.driver import load_scops, placement_of
from polycu.memory.explain import format_placement
from polycu.memory.resident import ALIGNED
from polycu.options import Options
from polycu.runtime.compiled import compile_program
from polycu.runtime.emulate import emulate_generated

KERNELS = {k.name: k for k in polybench_cpu.find_kernels()}


def polybench(name: str, dataset: str = "MINI", **values: object) -> Options:
    return Options(define=[f"{dataset}_DATASET"], run_on="gpu", resident_grid=True,
                   include_dir=[str(polybench_cpu.UTILITIES_DIR),
                                str(KERNELS[name].directory)], **values)


def plan(name: str, dataset: str = "LARGE", **values: object):
    options = polybench(name, dataset, **values)
    (scop,) = load_scops(str(KERNELS[name].source), options)
    return placement_of(scop, options).resident


def test_jacobi_2d_plan() -> None:
    """1300 rows over 132 blocks: 10 rows a block, 130 blocks, A and B read one row
    beyond the band, both kernels run by the rows' owners; 2 x 10 x 1300 doubles, and
    the halo rows one phase reads (one row above and one below of A or of B) staged
    after them: 2 x 1300 doubles more, within the 232,448 bytes a block may have.
    Every reference's row is its instance's + a constant: A's five reads of the first
    kernel at -1, 0, 0, 0, 1, its write of B at 0."""
    grid = plan("jacobi-2d")
    assert (grid.rows, grid.bands, grid.band_bytes, grid.bytes) == (10, 130, 208000, 228800)
    assert {(a.name, a.rows, a.row_cells, a.halo) for a in grid.arrays} == \
        {("A", 1300, 1300, 1), ("B", 1300, 1300, 1)}
    assert set(grid.owners.values()) == {ALIGNED}
    assert grid.staged and grid.neighbours      # --resident-sync auto: flags
    first, second = sorted(grid.reach)
    assert sorted(grid.reach[first].values()) == \
        [("A", -1), ("A", 0), ("A", 0), ("A", 0), ("A", 1), ("B", 0)]
    assert (grid.halos(first), grid.halos(second)) == ({"A": 1}, {"B": 1})
    assert (grid.halo_offsets(first), grid.halo_offsets(second)) == \
        ({"A": 208000}, {"B": 208000})


def test_the_default_plans_jacobi_2d_and_dump_memory_says_so() -> None:
    """--resident-grid is on by default: jacobi-2d at LARGE is planned without asking,
    its phases ending with the neighbours' flags (--resident-sync auto),
    --dump-memory states the plan (blocks, rows, arrays and their halos, bytes, where
    the halo rows are, the sync) above the kernels, and names it where each array's
    line says device memory; --no-resident-grid gives the launches back, each reading
    through the read-only path the array the other one writes."""
    defaults = Options(define=["LARGE_DATASET"], run_on="gpu",
                       include_dir=[str(polybench_cpu.UTILITIES_DIR),
                                    str(KERNELS["jacobi-2d"].directory)])
    (scop,) = load_scops(str(KERNELS["jacobi-2d"].source), defaults)
    placement = placement_of(scop, defaults)
    assert placement.resident is not None and placement.resident.bands == 130
    lines = format_placement(placement).splitlines()
    assert lines[1] == (
        "# one cooperative launch of 130 blocks (--resident-grid): each keeps a band of 10 "
        "rows of A (halo 1 row), B (halo 1 row) in shared memory across every phase, "
        "228800 bytes a block; the halo rows a phase reads are staged in shared memory; "
        "a phase ends with its two neighbours' flags")   # auto: the halo rows are staged
    reasons = [line for line in lines if line.startswith("  ")]
    assert len(reasons) == 4 and all("global (" in r and "resident grid's bands" in r
                                     for r in reasons)
    barrier = placement_of(scop, defaults.replace(resident_sync="grid"))
    assert format_placement(barrier).splitlines()[1].endswith("with a grid-wide barrier")
    launches = placement_of(scop, defaults.replace(resident_grid=False))
    assert launches.resident is None
    assert "one cooperative launch" not in format_placement(launches)
    assert [c.kind for k in launches.kernels for c in k.choices] == \
        ["read-only", "global", "global", "read-only"]


def test_fdtd_2d_plan() -> None:
    """ex is read on its own rows only (halo 0), ey one row below, hz one row above;
    the kernel of ey[0][j] = _fict_[t] is run whole by the owner of row 0."""
    grid = plan("fdtd-2d")
    assert (grid.rows, grid.bands, grid.bytes) == (8, 125, 230400)
    assert not grid.staged          # the halo rows (2 x 1200 doubles) would not fit
    assert {a.name: a.halo for a in grid.arrays} == {"ex": 0, "ey": 1, "hz": 1}
    assert sorted(grid.owners.values(), key=str) == [0, ALIGNED, ALIGNED]
    assert grid.neighbours          # --resident-sync auto: the flags, staged or not


def test_heat_3d_plan_and_budget() -> None:
    """At LARGE, 120 planes of 120 x 120 over 132 blocks is one plane a block: no plane
    further than its halo (1) from its band's edges, so nothing would stay on chip
    (refused).  At MINI (10 planes of 10 x 10), planned for 4 blocks: 3 planes a
    block, 2 x 3 x 100 doubles."""
    assert plan("heat-3d") is None
    grid = plan("heat-3d", "MINI", resident_blocks=4)
    assert (grid.rows, grid.bands, grid.band_bytes, grid.bytes) == (3, 4, 4800, 6400)
    assert {(a.name, a.row_cells, a.halo) for a in grid.arrays} == {("A", 100, 1), ("B", 100, 1)}


@pytest.mark.parametrize("name", ["seidel-2d", "lu"])
def test_refused(name: str) -> None:
    """seidel-2d's wavefront writes rows its first member does not own; lu reads row k
    of every step, no bounded halo."""
    assert plan(name, "MINI") is None


@pytest.mark.parametrize("name,dataset,blocks,sync", [
    ("jacobi-2d", "MINI", 4, "grid"), ("jacobi-2d", "MINI", 4, "neighbours"),
    ("jacobi-2d", "MINI", 10, "neighbours"), ("fdtd-2d", "MINI", 4, "grid"),
    ("fdtd-2d", "MINI", 4, "neighbours"), ("fdtd-2d", "MINI", 5, "grid"),
    ("heat-3d", "MINI", 4, "neighbours"), ("heat-3d", "SMALL", 5, "grid")])
def test_emulation_matches_gcc(name: str, dataset: str, blocks: int, sync: str) -> None:
    """Planned for 4 blocks, the emulated device holds the bands on chip; planned for
    more, it does not, and the same kernel runs over device memory; nvcc builds it.
    Phases end with grid barriers or with the neighbours' flags."""
    compiled = compile_program(str(KERNELS[name].source),
                               polybench(name, dataset, resident_blocks=blocks,
                                         resident_sync=sync))
    (entry,) = compiled.description["scops"]
    (kernel,) = entry["kernels"]
    bands = kernel["resident"]["bands"]
    assert bands == 4 if blocks == 4 else bands > 4
    reports = emulate_generated(compiled.scops, compiled.description, seed=29,
                                nvcc=shutil.which("nvcc") is not None)
    assert reports and all(r.ok and not r.on_cpu for r in reports), \
        "\n".join(r.format() for r in reports)


def jacobi_2d_source(sync: str) -> tuple[object, dict]:
    """jacobi-2d at MINI planned for 4 blocks (on chip), its description's one SCoP."""
    compiled = compile_program(str(KERNELS["jacobi-2d"].source),
                               polybench("jacobi-2d", resident_blocks=4, resident_sync=sync))
    (entry,) = compiled.description["scops"]
    return compiled, entry


@pytest.mark.parametrize("sync,removed", [
    ("grid", "POLYCU_GRID_SYNC();"),
    ("neighbours", "polycu_band_wait(polycu_flags_kernel_jacobi_2d_scop0_resident, "
                   "polycu_phase);")])
def test_a_removed_barrier_or_wait_is_caught(sync: str, removed: str) -> None:
    """Without the grid barrier (or the wait for the neighbours' flags) after jacobi-2d's
    first sweep, a block's second sweep reads halo rows its neighbour has not published
    yet: the emulation's turns make that happen every time.  With flags the source has
    the grid barrier after the flags are cleared and one a phase off chip; with grid
    barriers one a phase on chip and one off chip (the first removed is on chip)."""
    compiled, entry = jacobi_2d_source(sync)
    source = entry["device_source"]
    assert source.count("POLYCU_GRID_SYNC();") == (4 if sync == "grid" else 3)
    assert source.count(removed) == (4 if sync == "grid" else 2)
    entry["device_source"] = source.replace(removed, ";", 1)
    (report,) = emulate_generated(compiled.scops, compiled.description, seed=29, nvcc=False)
    assert not report.ok and any(a.mismatches for a in report.arrays), report.format()


def test_flags_overlap_the_inner_rows() -> None:
    """On chip, each jacobi-2d sweep computes its band's two edge rows (one row a side:
    polycu_k < 2), copies them and sets its flag, and only then computes the 6 inner
    rows (of 8 a band at MINI) on the shared copies; the neighbours' wait ends the
    phase.  Off chip, the whole band and the grid
    barrier."""
    _, entry = jacobi_2d_source("neighbours")
    source = entry["device_source"]
    start = source.index("if (polycu_on_chip) {\n")
    indent = source[source.rindex("\n", 0, start) + 1:start]
    on_chip, off_chip = source[start:].split(f"\n{indent}}} else {{", 1)
    steps = ["polycu_k < 2;", "polycu_view_B.global[", "polycu_band_signal(",
             "double *__restrict__ const A = polycu_view_A.slab",
             "polycu_b < min(polycu_r + 7 - (1)", "polycu_band_wait("]
    found = [on_chip.find(s) for s in steps]
    assert -1 not in found and found == sorted(found), on_chip
    assert "polycu_band_" not in off_chip[:off_chip.index("POLYCU_GRID_SYNC();")]


@pytest.mark.parametrize("name,walks", [("jacobi-2d", 2), ("fdtd-2d", 0)])
def test_threads_walk_segments_of_four_rows_or_more(name: str, walks: int) -> None:
    """At LARGE, jacobi-2d's 8 inner rows a band go to 2 segments of 4 rows, each
    thread walking one segment of a column (unrolled, restrict pointers), in both
    sweeps; fdtd-2d's 6 would go to 3 segments of 2, shorter than WALK_ROWS, so its
    inner rows stay spread over groups of threads."""
    compiled = compile_program(str(KERNELS[name].source), polybench(name, "LARGE"))
    (entry,) = compiled.description["scops"]
    source = entry["device_source"]
    assert source.count("  POLYCU_UNROLL_ROWS\n") == walks
    assert source.count("(polycu_hi - polycu_lo + 1) / 2") == walks


def test_a_flag_never_set_is_reported_not_waited_for() -> None:
    """A wait for a phase no neighbour reaches stops the emulation with the block that
    waits, instead of hanging as a GPU would."""
    compiled, entry = jacobi_2d_source("neighbours")
    wait = "polycu_band_wait(polycu_flags_kernel_jacobi_2d_scop0_resident, polycu_phase);"
    entry["device_source"] = entry["device_source"].replace(
        wait, wait.replace("polycu_phase)", "polycu_phase + 1)"), 1)
    with pytest.raises(PolycuError, match="block 0 waits for a neighbour's flag that no "
                       "block will set"):
        emulate_generated(compiled.scops, compiled.description, seed=29, nvcc=False)


# Stencils beyond PolyBench's: halos of two rows and uneven ones, int arrays with C's
# %, an array read but never written (fdtd-2d has the kernel fixed at row 0).
PROGRAMS = {
    "halo2_1d": """
void f(int T, double A[64], double B[64])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 2; i < 62; i++)
      B[i] = 0.25 * (A[i - 2] + A[i - 1] + A[i + 1] + A[i + 2]);
    for (int i = 2; i < 62; i++)
      A[i] = B[i] - 0.5 * A[i];
  }
#pragma endscop
}
""",
    "int_mod": """
void f(int T, int A[40][24], int B[40][24])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < 39; i++)
      for (int j = 1; j < 23; j++)
        B[i][j] = A[i - 1][j] + A[i + 1][j] - A[i][j - 1] % 5 + t;
    for (int i = 1; i < 39; i++)
      for (int j = 1; j < 23; j++)
        A[i][j] = B[i][j] % 1000 - 3;
  }
#pragma endscop
}
""",
    "uneven_read_only": """
void f(int T, float A[48][20], float B[48][20], const float C[48][20])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 2; i < 46; i++)
      for (int j = 0; j < 19; j++)
        B[i][j] = 0.5f * A[i][j] + 0.25f * C[i - 2][j + 1] + 0.125f * A[i + 1][j + 1];
    for (int i = 2; i < 46; i++)
      for (int j = 0; j < 19; j++)
        A[i][j] = B[i][j] - 0.125f * C[i + 1][j] + 0.0625f * B[i - 1][j];
  }
#pragma endscop
}
""",
}


@pytest.mark.parametrize("blocks", [4, 9])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_other_stencils(tmp_path, name: str, blocks: int) -> None:
    """Each runs as a resident grid (on chip planned for 4 blocks; for 9, over device
    memory in the emulation) and computes what gcc computes (one block and skewed
    layouts, which these sizes would choose, turned off)."""
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAMS[name])
    options = Options(run_on="gpu", resident_grid=True, resident_blocks=blocks,
                      single_block=False, relayout=False)
    compiled = compile_program(str(path), options)
    (entry,) = compiled.description["scops"]
    (kernel,) = entry["kernels"]
    assert (kernel["resident"]["bands"] <= 4) == (blocks == 4)
    reports = emulate_generated(compiled.scops, compiled.description, seed=31,
                                nvcc=shutil.which("nvcc") is not None)
    assert reports and all(r.ok for r in reports), "\n".join(r.format() for r in reports)


def test_a_shifted_write_is_run_by_its_rows_owner(tmp_path) -> None:
    """B[i + 1] written by instance i: the kernel is aligned with shift 1 (its
    instance i runs in the band of row i + 1), and computes what gcc computes."""
    path = tmp_path / "shifted.c"
    path.write_text(PROGRAMS["halo2_1d"].replace("B[i] = 0.25", "B[i + 1] = 0.25"))
    options = Options(run_on="gpu", resident_grid=True, resident_blocks=4, single_block=False)
    (scop,) = load_scops(str(path), options)
    grid = placement_of(scop, options).resident
    assert sorted(grid.shifts.values()) == [0, 1]
    reports = emulate_generated(*_compiled(path, options), seed=3, nvcc=False)
    assert all(r.ok for r in reports), "\n".join(r.format() for r in reports)


def test_a_read_five_rows_away_is_refused(tmp_path) -> None:
    """A[i - 5]: beyond the widest halo looked for (4 rows)."""
    path = tmp_path / "far.c"
    path.write_text(PROGRAMS["halo2_1d"].replace("A[i - 2] +", "A[i - 5] +")
                    .replace("int i = 2; i < 62", "int i = 5; i < 62"))
    options = Options(run_on="gpu", resident_grid=True, resident_blocks=4, single_block=False)
    (scop,) = load_scops(str(path), options)
    assert placement_of(scop, options).resident is None


WIDE = """
void f(int T, double A[38][1300], double B[38][1300])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < 37; i++)
      for (int j = 1; j < 1299; j++)
        B[i][j] = B[i][j] * 0.5 + A[i - 1][j] - A[i + 1][j - 1] + 0.25 * A[i][j + 1];
    for (int i = 1; i < 37; i++)
      for (int j = 0; j < 1300; j++)
        A[i][j] = A[i][j] - 0.125 * B[i][j] + 0.0625 * B[i + 1][j];
  }
#pragma endscop
}
"""


def test_walked_rows_with_a_remainder_and_in_place_updates(tmp_path) -> None:
    """Rows of 1300 cells, 10 rows a band of the 4 blocks, halo 1: the 8 inner rows go
    to 2 segments of 4, the last band's cut short (its rows 30..37 of 38), and both
    sweeps update an array in place (B[i][j] * 0.5, A[i][j] - ...) through the
    restrict pointers.  Emulated against gcc, on chip, with both syncs."""
    path = tmp_path / "wide.c"
    path.write_text(WIDE)
    for sync in ("grid", "neighbours"):
        options = Options(run_on="gpu", resident_grid=True, resident_blocks=4,
                          resident_sync=sync, single_block=False, relayout=False)
        compiled = compile_program(str(path), options)
        (entry,) = compiled.description["scops"]
        assert entry["device_source"].count("  POLYCU_UNROLL_ROWS\n") == 2
        assert entry["device_source"].count("(polycu_hi - polycu_lo + 1) / 2") == 2
        reports = emulate_generated(compiled.scops, compiled.description, seed=48,
                                    nvcc=False)
        assert reports and all(r.ok for r in reports), "\n".join(r.format() for r in reports)


def _compiled(path, options: Options):
    compiled = compile_program(str(path), options)
    return compiled.scops, compiled.description


SHORTS = """
void f(int T, short A[30][40], short B[30][40])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 2; i < 28; i++)
      for (int j = 1; j < 39; j++) {
        B[i][j] = A[i][j];
        for (int k = 1; k < 3; k++)
          B[i][j] = B[i][j] + A[i - k][j] - A[i + k][j + 1] / 2;
      }
    for (int i = 2; i < 28; i++)
      for (int j = 1; j < 39; j++)
        A[i][j] = (B[i - 1][j - 1] + B[i][j]) / 2;
  }
#pragma endscop
}
"""


def test_edge_rows_resolve_constant_rows_and_keep_the_views_for_the_others(tmp_path) -> None:
    """A[i - k] and A[i + k] (k = 1, 2: no one row offset) stay with the view in the
    edge rows, A[i][j] and the write of B go to the shared copies; the second sweep's
    B[i - 1] is a constant offset, so B's halo rows are staged, by plain copies (cp.async
    moves no 2-byte element), and its edge rows read them.  Emulated against gcc (short
    arithmetic, C's truncating division), on chip, with both syncs."""
    path = tmp_path / "shorts.c"
    path.write_text(SHORTS)
    for sync in ("grid", "neighbours"):
        options = Options(run_on="gpu", resident_grid=True, resident_blocks=4,
                          resident_sync=sync, single_block=False, relayout=False)
        (scop,) = load_scops(str(path), options)
        grid = placement_of(scop, options).resident
        assert grid.staged and (grid.rows, grid.bytes) == (8, 1280 + 2 * 40 * 2)
        assert [grid.halos(k) for k in sorted(grid.reach)] == [{}, {"B": 1}]
        compiled = compile_program(str(path), options)
        (entry,) = compiled.description["scops"]
        source = entry["device_source"]
        assert "POLYCU_COPY_ASYNC(" not in source[source.index("__global__"):]
        assert source.count("reinterpret_cast<short *>(polycu_dynamic + 1280)[polycu_c] = "
                            "polycu_view_B.global[polycu_i];") == 1
        assert "polycu_above_B[" in source and "polycu_below_B[" not in source
        assert "+ A[(" in source.replace("polycu_in_A[", "X[")   # the view's, in edge rows
        reports = emulate_generated(compiled.scops, compiled.description, seed=49,
                                    nvcc=False)
        assert reports and all(r.ok for r in reports), "\n".join(r.format() for r in reports)
