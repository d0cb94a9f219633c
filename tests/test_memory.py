"""The memory phase (polycu/memory): one choice per kernel and array, consumed by
code generation and shown by --dump-memory."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.cli import main
from polycu.codegen.cuda import kernel_source, layouts
from polycu.driver import program_of
from polycu.memory import GLOBAL, PARAMETER, REGISTER, format_placement, place

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
        [("alpha", PARAMETER), ("A", GLOBAL), ("B", GLOBAL)]
    assert placed.of("A").reason.startswith("read;")
    assert placed.of("B").reason.startswith("written;")


def test_codegen_declares_each_parameter_where_the_placement_put_it():
    program = scale_program()
    source = kernel_source(place(program), program.kernels[0], layouts(program.scop))
    assert "double alpha, const double *__restrict__ A, double *__restrict__ B)" in source
    assert "double s;" in source   # the private scalar: a local variable, not memory


def test_dump_memory_names_every_kernel_and_array(capsys):
    gemm = ROOT / "examples" / "gemm.c"
    assert main(["--dump-memory", str(gemm)]) == 0
    out = capsys.readouterr().out
    scop = polycu.load(str(gemm))[0]
    assert out == format_placement(place(program_of(scop)))
    assert "  C: global (read and written; registers are off (--private-memory turns " \
        "them on))" in out
    assert "  alpha: parameter (a scalar the SCoP never writes: passed by value)" in out
    assert main(["--dump-memory", "--private-memory", str(gemm)]) == 0
    out = capsys.readouterr().out
    assert "  C: register (read and written; one element per thread for each value of " \
        "the first 1 schedule dimension(s), reused below them)" in out
    assert "  A: global (read; no reuse by one thread that a register can hold)" in out


def gemm_program():
    scop = polycu.load(str(ROOT / "examples" / "gemm.c"))[0]
    return program_of(scop)


def test_gemm_keeps_its_output_element_in_a_register_across_k():
    program = gemm_program()
    (kernel,) = program.kernels
    (promotion,) = place(program, private_memory=True).kernel(kernel.name).registers
    assert (promotion.array, promotion.depth, promotion.written) == ("C", 1, True)
    # one thread, for each row i of its (strided) rows: the one element C[i][32 b1 + t1]
    footprint = promotion.footprint
    expected = isl.UnionMap(
        "[b0, t0, b1, t1, ni, nj, nk] -> { [i] -> C[i, 32b1 + t1] : (t0 - i) mod 8 = 0 "
        "and 32b0 <= i <= 31 + 32b0 and 0 <= i < ni and 0 <= t1 <= 31 and b1 >= 0 "
        "and nj > 32b1 + t1 }")
    assert footprint.is_equal(expected.align_params(footprint.get_space()))
    source = kernel_source(place(program, True), kernel, layouts(program.scop))
    body = [line.strip() for line in source.splitlines()]
    load = body.index("r0 = C[c0 * 220 + (32 * b1 + t1)];")
    assert body[load + 1] == "r0 *= beta;"
    assert body[load + 3] == "r0 += (alpha * A[c0 * 240 + c4]) * B[c4 * 220 + (32 * b1 + t1)];"
    assert body[load + 5] == "C[c0 * 220 + (32 * b1 + t1)] = r0;"
    assert "double r0;" in body
    plain = kernel_source(place(program), kernel, layouts(program.scop))
    assert "r0" not in plain and "C[c0 * 220 + (32 * b1 + t1)] *= beta;" in plain


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
    # without atomics the one thread keeps the sum in a register
    serial = program_of(scop)
    (kernel,) = serial.kernels
    assert not kernel.mapped
    assert place(serial, True).kernel(kernel.name).of("x").kind == REGISTER


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


@pytest.mark.parametrize("path", [
    "linear-algebra/blas/gemm/gemm.c", "linear-algebra/blas/symm/symm.c",
    "linear-algebra/kernels/atax/atax.c", "linear-algebra/solvers/gramschmidt/gramschmidt.c",
    "datamining/correlation/correlation.c", "stencils/adi/adi.c"])
def test_promoted_programs_match_the_reference_in_emulation(path):
    from polycu.options import Options
    from polycu.runtime.emulate import emulate_file
    options = Options(define=["MINI_DATASET"], include_dir=[str(ROOT / "polybench/utilities")],
                      private_memory=True)
    source = ROOT / "polybench" / path
    assert "register" in format_placement(place(program_of(
        polycu.load(str(source), defines=options.define, includes=options.include_dir)[0]),
        True))
    for report in emulate_file(str(source), options, seed=7):
        assert report.ok, report.format()
