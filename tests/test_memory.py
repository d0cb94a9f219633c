"""The memory phase (polycu/memory): one choice per kernel and array, consumed by
code generation and shown by --dump-memory."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest
from pycparser import c_generator

import polycu
from polycu.cli import main
from polycu.diagnostics import PolycuError
from polycu.codegen.cuda import layouts
from polycu.codegen.kernel import kernel_source
from polycu.driver import placement_of, program_of
from polycu.memory import GLOBAL, PARAMETER, READ_ONLY, format_placement, place
from polycu.memory.placement import ANY
from polycu.options import Options

_GENERATOR = c_generator.CGenerator()

ROOT = Path(__file__).resolve().parent.parent

# s is private to each thread (local variable), alpha is only read (by value),
# A is read, B written.
SCALE = """
void f(int n, double alpha, double A[100], double B[100])
{
  int i;
  double s;
#pragma scop
  for (i = 0; i < n; i++) {
    s = alpha * A[i];
    B[i] = s + 1;
  }
#pragma endscop
}
"""


def scale_program():
    scop = polycu.load_text(SCALE, "scale.c")[0]
    return program_of(scop)


def test_each_array_of_each_kernel_has_one_choice_with_its_reason():
    program = scale_program()
    (kernel,) = program.kernels
    assert kernel.private == {"s"}
    (placed,) = place(program).kernels
    assert placed.kernel == kernel.name
    assert [(c.array, c.kind) for c in placed.choices] == \
        [("alpha", PARAMETER), ("A", READ_ONLY), ("B", GLOBAL)]
    assert placed.of("A").reason.startswith("read;")
    assert placed.of("B").reason.startswith("written;")


def test_codegen_declares_each_parameter_where_the_placement_put_it():
    program = scale_program()
    source = kernel_source(place(program), program.kernels[0], layouts(program.scop))
    assert "double alpha, const double *__restrict__ A, double *__restrict__ B)" in source
    assert "double s;" in source   # the private scalar: a local variable, not memory


def test_dump_memory_names_every_kernel_and_array(capsys):
    gemm = ROOT / "examples" / "gemm.c"
    assert main(["--dump-memory", "--no-tensor-cores", str(gemm)]) == 0
    out = capsys.readouterr().out
    scop = polycu.load(str(gemm))[0]
    assert out == format_placement(placement_of(scop, Options(tensor_cores=False)))
    # fed from registers and tiles alone, the kernel runs 16x16 threads of 4x2 lanes
    assert "  C: register (read and written; 8 element(s) per thread for each value of the " \
        "first 0 schedule dimension(s), reused below them)" in out
    assert "  B: shared (read; a 16x32 tile per block and step of schedule dimension 1, " \
        "loaded once, coalesced: each element is read by 16 threads in 8 warp(s); copied " \
        "with cp.async)" in out
    # one warp reads each element of A: it is tiled only because that pads S1
    assert "  A: shared (read; a 64x16 tile per block and step of schedule dimension 1, " \
        "loaded once, coalesced: each element is read by 16 threads in 1 warp(s), and the " \
        "tile lets the statements reading it run padded; it holds alpha * A[..], multiplied " \
        "once in the copy)" in out
    assert "  padded: S1 run on every lane of the register tile" in out
    assert "  alpha: parameter (a scalar the SCoP never writes: passed by value)" in out
    assert main(["--dump-memory", "--no-tensor-cores", "--no-private-memory",
                 "--no-shared-memory", str(gemm)]) == 0
    out = capsys.readouterr().out
    assert "  C: global (read and written; registers are off (--private-memory turns them " \
        "on); shared memory is off; the default: " in out


def gemm_program(sizes: str | None = None):
    from polycu.options import Options
    scop = polycu.load(str(ROOT / "examples" / "gemm.c"))[0]
    return program_of(scop, Options(sizes=sizes))


def test_gemm_keeps_a_register_tile_of_c_and_a_shared_tile_of_b():
    program = gemm_program()
    (kernel,) = program.kernels
    placed = place(program).kernel(kernel.name)
    (promotion,) = placed.registers
    assert (promotion.array, promotion.depth, promotion.written, promotion.lanes) == \
        ("C", 0, True, (4, 1))
    # lane u0 of thread (t0, t1) of block (b0, b1) holds C[32 b0 + t0 + 8 u0][32 b1 + t1]
    expected = isl.UnionMap(
        "[b0, t0, b1, t1, ni, nj, nk] -> { [u0, 0] -> C[32b0 + t0 + 8u0, 32b1 + t1] : "
        "0 <= u0 <= 3 and 32b0 + t0 + 8u0 < ni and 0 <= t0 <= 7 and b0 >= 0 and "
        "0 <= t1 <= 31 and b1 >= 0 and nj > 32b1 + t1 }")
    context = kernel.context(program.scop.context)
    footprint = promotion.footprint.intersect_params(context)
    assert footprint.is_equal(expected.align_params(footprint.get_space())
                              .intersect_params(context))
    a, b = placed.shared
    assert (b.array, b.size, b.extents, b.sharing, b.warps) == ("B", (16, 32), (16, 33), 8, 8)
    assert (a.array, a.size, a.extents, a.sharing, a.warps) == ("A", (32, 16), (32, 17), 32, 1)
    assert placed.padded == {"S1"}    # S0 runs outside every loop: its guards cost once
    source = kernel_source(place(program), kernel, layouts(program.scop))
    body = [line.strip() for line in source.splitlines()]
    assert "double r0[4][1] = {};" in body and "POLYCU_SHARED(double, s1, 528);" in body
    # each thread copies its two rows of the strip in an unrolled lane loop, and sets
    # the elements of the box outside the footprint to zero
    # (in a full strip, memory.strips: no guard on k)
    copy = body.index("POLYCU_COPY_ASYNC(s1[((t0 + 8 * c8)) * 33 + t1], B[((t0 + 16 * c3 + "
                      "8 * c8)) * 220 + (32 * b1 + t1)]);")
    assert body[copy - 2:copy] == ["for (int c8 = 0; c8 <= 1; c8 += 1) {",
                                   "if (nj >= 32 * b1 + t1 + 1) {"]
    assert body[copy + 1:copy + 3] == ["} else {", "s1[((t0 + 8 * c8)) * 33 + t1] = 0;"]
    before = [k for k, line in enumerate(body[:copy]) if line == "__syncthreads();"]
    after = [k for k, line in enumerate(body[copy:]) if line == "__syncthreads();"]
    # the copy between two barriers, with nothing but the copy phase between them
    assert not any("r0[" in line for line in body[before[-1]:copy + after[0]])
    # padded: no guard around the update in either kind of block (full blocks: in
    # the full strips and in the last one)
    update = "r0[c8][0] += (s0[((t0 + 8 * c8)) * 17 + c5]) * s1[c5 * 33 + t1];"
    at = [k for k, line in enumerate(body) if line == update]
    assert len(at) == 3 and all(body[k - 1].startswith("for (int c8 = 0; c8 <= 3;")
                                for k in at)
    # every lane loop (registers need constant indices; copies all in flight) and the
    # point loop of the full strips, and no other loop
    assert body.count("#pragma unroll") == sum(
        1 for line in body if line.startswith("for (int c8 = 0; c8 <= ")) + 1
    assert body[body.index("for (int c5 = 0; c5 <= 15; c5 += 1) {") - 1] == "#pragma unroll"
    assert "r0[c8][0] = C[((32 * b0 + t0 + 8 * c8)) * 220 + (32 * b1 + t1)];" in body
    plain = kernel_source(place(program, False, False), kernel, layouts(program.scop))
    assert "r0" not in plain and "__syncthreads" not in plain
    assert "C[c0 * 220 + (32 * b1 + t1)] *= beta;" in plain


def test_full_blocks_run_without_lane_guards():
    program = gemm_program("{ kernel[i] -> tile[64,64]; kernel[i] -> block[16,16] }")
    (kernel,) = program.kernels
    placed = place(program, shared_memory=False).kernel(kernel.name)
    assert placed.lanes == (4, 4)
    source = kernel_source(place(program, shared_memory=False), kernel,
                           layouts(program.scop))
    body = [line.strip() for line in source.splitlines()]
    full = body.index("if (ni >= 64 * b0 + 64 && nj >= 64 * b1 + 64) {")
    rest = body.index("} else {", full)
    assert "r0[c3][c4] *= beta;" in body[full:rest]
    assert not any(line.startswith("if (") for line in body[full + 1:rest])
    assert any("ni >= 64 * b0 + t0 + 16 * c3 + 1" in line for line in body[rest:])


def test_the_shared_copies_are_proven_to_load_the_footprint():
    from polycu.memory import shared
    from polycu.memory.footprint import box_of
    from polycu.memory.lanes import blockwide, lane_order
    from polycu.memory.registers import accesses, keep
    program = gemm_program()
    (kernel,) = program.kernels
    lanes = lane_order(program, kernel)
    context = kernel.context(program.scop.context)
    mined = shared.strip_mine(lanes, 1, shared.STRIP)
    prefix = mined.order.apply_range(keep(mined.width, 2, 0, mined.order.get_space()))
    access = accesses(program.scop, kernel, "B").intersect_domain(lanes.order.domain())
    block = blockwide(prefix.reverse().apply_range(access), kernel, context)
    offset, size = box_of(block)
    assert size == (16, 32)
    copies = shared._copies(block, offset, size, kernel, "polycu_copy_B")
    assert shared._loads_footprint(copies, block, kernel, context)
    # a thread that skips its share (t0 = 0 loads nothing) breaks the proof
    gap = copies.subtract(isl.UnionSet(
        "[t0] -> { polycu_copy_B[p0, p1, e0, e1] : t0 = 0 }").align_params(copies.get_space()))
    assert not shared._loads_footprint(gap, block, kernel, context)


def test_register_tiles_need_the_same_iterations_in_every_lane():
    from polycu.memory.lanes import lane_order, uniform_lanes
    (kernel,) = gemm_program().kernels
    assert uniform_lanes(lane_order(gemm_program(), kernel))
    symm = ROOT / "polybench/linear-algebra/blas/symm/symm.c"
    scop = polycu.load(str(symm), includes=[str(ROOT / "polybench/utilities")])[0]
    # (with tensor cores its two sums run apart, on mma: tests/test_tensor_triangles.py)
    program = program_of(scop, Options(tensor_cores=False))
    (kernel,) = program.kernels
    assert not uniform_lanes(lane_order(program, kernel))   # k < i: lanes differ
    placed = place(program).kernel(kernel.name)
    assert placed.order is None and not placed.registers and not placed.shared


def test_symm_is_mapped_again_with_a_shared_tile_and_registers():
    """Without tensor cores (which run its two sums apart: test_tensor_triangles.py),
    symm's lanes along i run different k (k < i), so its kernel is mapped again
    with ROWS; isl needs more than a schedule step's budget for that kernel's code
    (driver.PLACED_OPERATIONS), which it then builds: B in a shared tile, C and the
    expanded temp2 in registers, two lanes along j.  The emulation checks it."""
    import io
    from polycu.diagnostics import Reporter
    from polycu.runtime.emulate import emulate_file
    options = Options(define=["SMALL_DATASET"], include_dir=[str(ROOT / "polybench/utilities")],
                      tensor_cores=False)
    symm = ROOT / "polybench/linear-algebra/blas/symm/symm.c"
    scop = polycu.load(str(symm), defines=options.define, includes=options.include_dir)[0]
    placement = placement_of(scop, options, reporter=Reporter(stream=io.StringIO()))
    (kernel,) = placement.program.kernels
    assert [(m.tile, m.block) for m in kernel.mapped] == [(16, 16), (64, 32)]
    placed = placement.kernel(kernel.name)
    assert placed.lanes == (1, 2) and [t.array for t in placed.shared] == ["B"]
    assert sorted(p.array for p in placed.registers) == ["C", "temp2_x0"]
    for report in emulate_file(str(symm), options, seed=11):
        assert report.ok, report.format()


def test_memory_overrides_and_switches(capsys):
    gemm = str(ROOT / "examples" / "gemm.c")
    assert main(["--dump-memory", "--no-tensor-cores", "--memory", "0:B=global", "--memory", "*:A=shared",
                 gemm]) == 0
    out = capsys.readouterr().out
    assert "  B: global (read; no reuse" in out and "  A: shared (read; a 32x16 tile" in out
    assert main(["--dump-memory", "--no-tensor-cores", "--max-shared-memory", "1024", gemm]) == 0
    assert "shared (" not in capsys.readouterr().out      # 16x33 doubles do not fit
    assert main(["--dump-memory", "--no-tensor-cores", "--memory", "0:B=tex", gemm]) == 1
    assert "--memory wants K:ARRAY=KIND" in capsys.readouterr().err
    assert main(["--dump-memory", "--no-tensor-cores", "--memory", "0:C=texture", gemm]) == 1
    assert "--memory 0:C=texture: texture memory cannot hold 'C' in kernel_gemm_scop0_kernel0: " \
        "the kernel writes it" in capsys.readouterr().err
    assert main(["--dump-memory", "--no-tensor-cores", "--memory", "0:B=texture", gemm]) == 0
    assert "  B: texture (read; no reuse a register or a shared tile can hold; forced by " \
        "--memory: " in capsys.readouterr().out
    # what names nothing is said (a file may have other SCoPs), and changes nothing
    assert main(["--dump-memory", "--no-tensor-cores", "--memory", "3:A=shared", "--memory", "*:Q=global",
                 gemm]) == 0
    said = capsys.readouterr()
    assert "note: --memory *:Q=global: no kernel of kernel_gemm_scop0 touches 'Q'; " \
        "ignored here" in said.err
    assert "note: --memory 3:A: kernel_gemm_scop0 has no kernel 3 (kernels 0 to 0); " \
        "ignored here" in said.err
    assert main(["--dump-memory", "--no-tensor-cores", gemm]) == 0
    assert capsys.readouterr().out == said.out


def test_a_removed_barrier_is_caught_as_a_race():
    from polycu.driver import compile_scops
    from polycu.runtime.emulate import emulate_scop, scop_translation_unit
    gemm = str(ROOT / "examples" / "gemm.c")
    scop = polycu.load(gemm)[0]
    description = compile_scops(gemm, [scop], Options(tensor_cores=False)  # its own test
                                ).description["scops"][0]
    cuda = scop_translation_unit(description)
    copy = "POLYCU_COPY_ASYNC(s1[t0 * 33 + (t1 + 16 * c9)], B[((t0 + 16 * c3)) * 220 + " \
        "(32 * b1 + t1 + 16 * c9)]);"
    assert copy in cuda
    good = emulate_scop(scop, cuda, description["host_function"], seed=3, nvcc=False,
                        params={"ni": 70, "nj": 70, "nk": 40})
    assert good.ok, good.format()
    # drop the barrier between the copy and the reads of the tile (in the code of the
    # full blocks: ni = 70 has one row of them)
    lines = cuda.splitlines()
    at = next(k for k, line in enumerate(lines) if line.strip() == copy)
    after = next(k for k in range(at, len(lines)) if "__syncthreads();" in lines[k])
    broken = "\n".join(lines[:after] + lines[after + 1:])
    with pytest.raises(PolycuError, match=r"shared array s[01] .*\(a missing barrier\)"):
        emulate_scop(scop, broken, description["host_function"], seed=3, nvcc=False,
                     params={"ni": 70, "nj": 70, "nk": 40})


# x[0] is a reduction updated with atomicAdd once the reduction is relaxed: one
# cell every thread adds to, never a register.
DOT = """
void f(int n, double a[100], double b[100], double x[1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[0] += a[i] * b[i];
#pragma endscop
}
"""


def test_an_atomically_updated_array_stays_in_global_memory():
    from polycu.options import Options
    scop = polycu.load_text(DOT, "dot.c")[0]
    program = program_of(scop, Options(relax_reductions=True))
    (kernel,) = program.kernels
    assert kernel.atomic == {"S0"} and kernel.mapped
    assert place(program, True).kernel(kernel.name).of("x").kind == GLOBAL


def test_the_copies_order_is_printed_with_the_right_parameters():
    """Regression: isl's AST of gramschmidt's kernel 5 from a flat schedule map printed
    ``(t0 + 1) % 32`` where the kernel's bound is ``(h0 + 1) % 32`` (the map and the
    context list their parameters in other orders); on the GPU, A went wrong."""
    from polycu.codegen.ast import kernel_ast_of
    from polycu.codegen.cuda import print_node
    from polycu.memory.registers import thread_order
    source = ROOT / "polybench/linear-algebra/solvers/gramschmidt/gramschmidt.c"
    scop = polycu.load(str(source), includes=[str(ROOT / "polybench/utilities")])[0]
    program = program_of(scop)
    kernel = program.kernels[5]
    text = "\n".join(print_node(kernel_ast_of(program, kernel, thread_order(program, kernel)),
                                lambda user: [user.name], host=False, itype="int"))
    assert "(t0 + 1) % 32" not in text
    assert text.count("(h0 + 1) % 32") == 2


@pytest.mark.parametrize("path,sizes", [
    ("linear-algebra/blas/gemm/gemm.c", None),
    ("linear-algebra/blas/gemm/gemm.c", "{ kernel[i] -> tile[16,16]; kernel[i] -> block[4,8] }"),
    ("linear-algebra/blas/syrk/syrk.c", None), ("linear-algebra/kernels/3mm/3mm.c", None),
    ("linear-algebra/kernels/atax/atax.c", None),
    ("linear-algebra/solvers/gramschmidt/gramschmidt.c", None),
    ("datamining/correlation/correlation.c", None), ("stencils/adi/adi.c", None)])
def test_promoted_programs_keep_data_on_chip(path, sizes):
    """Each program places some array in registers or shared memory; with other
    --sizes than the default's, its emulation matches gcc (test_emulate.py emulates
    every kernel's default build)."""
    from polycu.options import Options
    from polycu.runtime.emulate import emulate_file
    options = Options(define=["MINI_DATASET"], include_dir=[str(ROOT / "polybench/utilities")],
                      sizes=sizes)
    source = ROOT / "polybench" / path
    placed = format_placement(place(program_of(
        polycu.load(str(source), defines=options.define, includes=options.include_dir)[0],
        options)))
    assert "register (" in placed or "shared (" in placed
    if sizes is None:
        return
    for report in emulate_file(str(source), options, seed=7):
        assert report.ok, report.format()


def test_a_kernel_whose_analysis_exceeds_the_isl_budget_keeps_global_memory(capsys):
    """Regression (fuzz seed 200096): the shared-tile analysis of a kernel with
    unsigned bounds near 3e9 ran for minutes and took 12 GB; now it is cut at the
    budget and says so."""
    source = ROOT / "tests" / "data" / "fuzz_found" / "narrowing_wraps_for_small_m.c"
    assert main(["--dump-memory", "--tile-size", "5", str(source)]) == 0
    out = capsys.readouterr().out
    assert "  acc0: global (read and written; the analysis of registers and shared tiles " \
        "ran out of its isl budget)" in out



def test_a_kernel_whose_analysis_isl_fails_on_keeps_global_memory(monkeypatch):
    """Regression (fuzz seed 2000154, kept in tests/data/fuzz_repro): isl failed inside
    the shared-tile analysis ("negative number of basic maps") and the error reached
    the user as a traceback; now the kernel keeps global memory and says why."""
    import polycu.memory.placement as placement

    def failing(*args, **kwargs):
        raise isl.Error("call to isl_union_map_is_single_valued failed: negative number "
                        "of basic maps in /project/isl/isl_map.c:6784")

    monkeypatch.setattr(placement, "tiles", failing)
    program = gemm_program()
    (kernel,) = place(program).kernels
    assert {c.array: c.kind for c in kernel.choices if c.kind != PARAMETER} == \
        {"A": READ_ONLY, "B": READ_ONLY, "C": GLOBAL}
    assert kernel.registers == () and kernel.shared == ()
    assert {c.reason for c in kernel.choices if c.array == "C"} == {
        "read and written; the analysis of registers and shared tiles failed in isl "
        "(negative number of basic maps)"}

# syrk's triangle: the update reads A from global memory, so it is padded only in the
# blocks whose lanes all lie in [0, n) (there its triangular guard goes), and keeps
# its guards in the edge blocks, where a padded lane would read a row past n.
SYRK = """
void syrk(int n, int m, double alpha, double beta, double C[80][80], double A[80][70])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
#pragma endscop
}
"""


def emulated(scop, options, *params, seed=5):
    """The SCoP's translation unit, compiled once, and its emulation at each of
    ``params`` (None: emulate's own parameters)."""
    from polycu.driver import compile_scops
    from polycu.runtime.emulate import emulate_scop, scop_translation_unit
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    cuda = scop_translation_unit(description)
    return cuda, [emulate_scop(scop, cuda, description["host_function"], seed=seed,
                               nvcc=False, params=p) for p in params]


def syrk_program(tmp_path):
    """SYRK's SCoP, its program and its one kernel."""
    source = tmp_path / "syrk.c"
    source.write_text(SYRK)
    scop = polycu.load(str(source))[0]
    program = program_of(scop)
    (kernel,) = program.kernels
    return scop, program, kernel


def test_padding_in_full_blocks_when_a_padded_lane_reads_global_memory(tmp_path):
    from polycu.options import Options
    scop, program, kernel = syrk_program(tmp_path)
    overrides = {ANY: {"A": GLOBAL}}             # A in global memory (--memory '*:A=global')
    placement = place(program, overrides=overrides)
    placed = placement.kernel(kernel.name)
    assert placed.padded == {"S1"} and not placed.shared
    body = [line.strip() for line in
            kernel_source(placement, kernel, layouts(scop)).splitlines()]
    update = "r0[c3][0] += (alpha * A[((32 * b0 + t0 + 8 * c3)) * 70 + c2]) * " \
        "A[((32 * b1 + t1)) * 70 + c2];"
    full, edge = [k for k, line in enumerate(body) if line == update]
    assert body[full - 1] == "for (int c3 = 0; c3 <= 3; c3 += 1) {"
    assert body[edge - 1].startswith("if (n >= 32 * b0 + t0 + 8 * c3 + 1 && ")
    # edge blocks, full ones only, both
    _, reports = emulated(scop, Options(memory=["*:A=global"]),
                          *({"n": n, "m": 23} for n in (37, 64, 80)))
    for report in reports:
        assert report.ok, report.format()


def test_each_reference_of_an_array_gets_its_own_tile_when_one_box_would_span_it(tmp_path):
    # syrk reads A[i][k] and A[j][k]: rows of the block's i and of its j, which lie
    # apart; one box around both would span the matrix, so each gets a 32x16 tile
    # (A[j][k], read by the 8 warps of a column of threads, is then read coalesced).
    from polycu.options import Options
    scop, program, kernel = syrk_program(tmp_path)
    placement = place(program)
    placed = placement.kernel(kernel.name)
    refs = {a.ref: _GENERATOR.visit(a.node) for s in scop.statements for a in s.accesses}
    held = sorted((tuple(sorted(refs[r] for r in t.references)), t.size, t.sharing, t.warps)
                  for t in placed.shared)
    assert held == [(("A[i][k]",), (32, 16), 32, 1), (("A[j][k]",), (32, 16), 8, 8)]
    assert placed.padded == {"S1"} and all(t.zeros is not None for t in placed.shared)
    reason = placed.of("A").reason
    assert "a 32x16 tile for A[i][k]" in reason and "a 32x16 tile for A[j][k]" in reason
    body = [line.strip() for line in
            kernel_source(placement, kernel, layouts(scop)).splitlines()]
    assert "r0[c8][0] += (s0[((t0 + 8 * c8)) * 17 + c5]) * s1[t1 * 17 + c5];" in body
    _, reports = emulated(scop, Options(), *({"n": n, "m": 23} for n in (37, 64, 80)))
    for report in reports:
        assert report.ok, report.format()


def test_a_division_or_an_integer_conversion_is_never_padded():
    from polycu.memory.padding import _may_trap
    from pycparser import c_parser

    def body(text):
        return c_parser.CParser().parse(f"void f(){{ {text} }}").ext[0].body

    assert _may_trap(body("x = a * (b / c);")) and _may_trap(body("x %= 3;"))
    assert _may_trap(body("x = a + (int) b;"))
    assert not _may_trap(body("x = a * b + (double) c;"))


# Fuzz seed 5600798, minimised: the index (j - 3u) + 3u is j for 0 <= j <= 5 only, and
# the frontend cuts its access relations to that domain.  A padded lane's j < 0 then
# read W at 2^32 + j (SIGSEGV in the emulation); the proof saw no cell at all there.
UNSIGNED_INDEX = """
static double B[39][2];
static double W[2][9];
void k(int m, double s, double A[39][6]) {
#pragma scop
  for (int o = 0; o < m; o++)
    for (int j = 0; j < 6; j++) {
      A[o][(j - 3u) + 3u] = 0.0;
      for (int k = 0; k <= 1; ++k)
        A[o][(j - 3u) + 3u] += (s * B[o][(k - 3u) + 3u]) * W[k][(j - 3u) + 3u];
    }
#pragma endscop
}
"""


def test_no_lane_is_padded_where_an_access_relation_is_cut_to_the_domain(tmp_path):
    from polycu.options import Options
    source = tmp_path / "unsigned_index.c"
    source.write_text(UNSIGNED_INDEX)
    scop = polycu.load(str(source))[0]
    (update,) = [s for s in scop.statements if len(s.accesses) > 3]
    assert not any(a.relation.domain().is_equal(isl.Set.universe(a.relation.domain()
                                                                  .get_space()))
                   for a in update.accesses if a.array == "W")
    placement = placement_of(scop, Options(run_on="gpu", tensor_cores=False))
    assert all(update.name not in p.padded for p in placement.kernels)
    _, reports = emulated(scop, Options(run_on="gpu"), {"m": 39}, {"m": 17})
    for report in reports:
        assert report.ok, report.format()


def test_padded_gemm_edge_blocks_run_the_full_blocks_code_and_match():
    from polycu.options import Options
    sizes = "{ kernel[i] -> tile[64,64]; kernel[i] -> block[16,16] }"
    program = gemm_program(sizes)
    (kernel,) = program.kernels
    body = [line.strip() for line in
            kernel_source(place(program), kernel, layouts(program.scop)).splitlines()]
    update = "r0[c8][c9] += (s0[((t0 + 16 * c8)) * 17 + c5]) * " \
        "s1[c5 * 65 + (t1 + 16 * c9)];"
    assert [line for line in body if "+= (s0" in line] == [update, update, update]
    scop = polycu.load(str(ROOT / "examples" / "gemm.c"))[0]
    cuda, (report,) = emulated(scop, Options(sizes=sizes), None)
    assert report.ok, report.format()
