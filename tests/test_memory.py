"""The memory phase (polycu/memory): one choice per kernel and array, consumed by
code generation and shown by --dump-memory."""
from __future__ import annotations

from pathlib import Path

import polycu
from polycu.cli import main
from polycu.codegen.cuda import kernel_source, layouts
from polycu.driver import program_of
from polycu.memory import GLOBAL, PARAMETER, format_placement, place

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
    assert "  C: global (read and written;" in out
    assert "  alpha: parameter (a scalar the SCoP never writes: passed by value)" in out
