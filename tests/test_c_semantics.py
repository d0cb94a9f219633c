"""Exact C semantics from C text to CUDA text (issue 10, points 1-5).

Each program (``tests/data/c_semantics/``) is a minimised reproducer of a silently wrong translation.  It is
compiled by polycu; the .cu is built for the CPU with the emulation header (g++)
and the host program OUT_host.c by gcc, as C; the result must print exactly what
gcc's build of the original prints.  Where nvcc is installed the same two files
must also build with it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.driver import compile_file
from polycu.codegen.cuda import layouts
from polycu.codegen.literals import literal
from polycu.diagnostics import PolycuError
from polycu.runtime.emulate import EMULATION_FLAGS, INCLUDE_DIR, emulation_env

NVCC = shutil.which("nvcc")
PROGRAMS = Path(__file__).parent / "data" / "c_semantics"


def program(name: str) -> str:
    """A reproducer of tests/data/c_semantics/ (also run on a GPU by
    scripts/gpu_c_semantics.sh)."""
    return (PROGRAMS / f"{name}.c").read_text()


def _run(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def differential(tmp: Path, name: str, text: str,
                 options: polycu.Options | None = None) -> tuple[str, str]:
    """(gcc's output of the original, the output of polycu's program emulated).
    The SCoPs run on the GPU unless ``options`` say otherwise: these programs are small
    enough that the cost model would leave them to the CPU, and compare gcc with gcc."""
    options = options or polycu.Options(run_on="gpu")
    source = tmp / f"{name}.c"
    source.write_text(text)
    _run(["gcc", "-std=c99", "-O1", str(source), "-lm", "-o", "reference"], tmp)
    expected = _run(["./reference"], tmp)
    generated = compile_file(str(source), options)
    host = generated.write(tmp / f"{name}_gpu.cu")
    _run(["gcc", "-std=c99", "-O1", "-c", str(host), "-o", "host.o"], tmp)
    _run(["g++", *EMULATION_FLAGS, "-I", str(INCLUDE_DIR), "-x", "c++", f"{name}_gpu.cu",
          "-x", "none", "host.o", "-lm", "-o", "emulated"], tmp)
    for text in (generated.cuda, generated.host or ""):
        # code only: comments and strings (the assumption's isl set in a message) out
        code = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', "", text, flags=re.S)
        beyond = [n for n in map(int, re.findall(r"\b\d{19,}\b", code)) if n >= 1 << 63]
        assert not beyond, f"literals beyond long long (unsigned to nvcc): {beyond[:3]}"
    actual = subprocess.run(["./emulated"], capture_output=True, text=True, cwd=tmp,
                            timeout=120, env=emulation_env())
    assert actual.returncode == 0, actual.stderr
    if NVCC is not None:
        _run([NVCC, "-arch=sm_90", "-c", f"{name}_gpu.cu", host.name], tmp)
    return expected, actual.stdout


def scop_of(tmp: Path, text: str) -> polycu.Scop:
    source = tmp / "t.c"
    source.write_text(text)
    (scop,) = polycu.load(str(source))
    return scop


# -- 1. every integer keeps its type ------------------------------------------------------

UNSIGNED_PAST_INT_MAX = program("unsigned_counter")

LONG_BOUNDS = program("long_bounds")

MIXED_SIGNS = program("mixed_signs")


@pytest.mark.parametrize("name, text", [("unsigned_counter", UNSIGNED_PAST_INT_MAX),
                                        ("long_bounds", LONG_BOUNDS),
                                        ("mixed_signs", MIXED_SIGNS)])
def test_integer_types_compute_what_c_computes(tmp_path: Path, name: str, text: str) -> None:
    expected, actual = differential(tmp_path, name, text)
    assert actual == expected
    assert len(expected.splitlines()) in (8, 10, 16)


def test_parameters_and_loops_use_their_types_in_the_generated_code(tmp_path: Path) -> None:
    source = tmp_path / "long.c"
    source.write_text(LONG_BOUNDS)
    generated = compile_file(str(source))
    (scop,) = generated.description["scops"]
    (kernel,) = scop["kernels"]
    assert [(a["name"], a["type"]) for a in kernel["args"][:1]] == [("n", "long long")]
    assert 'extern "C" void f_scop0_gpu(long polycu_arg_n, long *A, double *B)' \
        in generated.cuda
    assert "const long long n = polycu_arg_n;" in generated.cuda
    assert "extern void f_scop0_gpu(long, long *, double *);" in generated.host


def test_unsigned_and_long_parameters_bound_the_context(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, MIXED_SIGNS)
    assert scop.parameter_types == ("unsigned int",)
    assert scop.context.is_equal(isl.Set("[n] -> { : 0 <= n <= 4294967295 }"))
    first = scop.statements[0]
    # (unsigned)(i - 3) < n: for i < 3 only when n is within 3 - i of UINT_MAX.
    expected = isl.Set("[n] -> { S0[i] : 0 <= i <= 9 and i < n + 3 and "
                       "(i >= 3 or i <= n - 4294967294) }")
    assert first.domain.intersect_params(scop.context).is_equal(
        expected.intersect_params(scop.context))


def test_unsigned_bound_that_wraps_is_modelled_exactly(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, """
void f(unsigned n, double A[20])
{
#pragma scop
  for (unsigned i = 0; i < n - 1; i++)
    A[i] = 1;
#pragma endscop
}
""")
    (stmt,) = scop.statements

    # n = 0: n - 1 is UINT_MAX, so the loop runs 2^32 - 1 times; else n - 1 times.
    expected = isl.Set("[n] -> { S0[i] : 0 <= i and ((n >= 1 and i <= n - 2) or "
                       "(n = 0 and i <= 4294967294)) }")
    assert stmt.domain.intersect_params(scop.context).is_equal(
        expected.intersect_params(scop.context))


def test_big_constant_arrays_are_indexed_in_64_bits(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, """
float A[50000][50000];
void f(void)
{
#pragma scop
  for (int i = 0; i < 50000; i++)
    for (int j = 0; j < 50000; j++)
      A[i][j] = A[i][j] * 2;
#pragma endscop
}
""")
    assert layouts(scop)["A"].wide
    small = scop_of(tmp_path, "float A[1000][1000];\nvoid f(void)\n{\n#pragma scop\n"
                    "  for (int i = 0; i < 1000; i++)\n    A[i][i] = 0;\n#pragma endscop\n}\n")
    assert not layouts(small)["A"].wide


def test_wrapping_unsigned_loop_is_rejected_with_its_location(tmp_path: Path) -> None:
    source = tmp_path / "down.c"
    source.write_text("void f(unsigned n, double *A)\n{\n#pragma scop\n"
                      "  for (unsigned i = n; i >= 0; i--)\n    A[i] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(PolycuError) as info:
        polycu.load(str(source))
    assert str(info.value).startswith(f"{source}:4:3: error: loop iterator 'i' of type "
                                      "'unsigned int' wraps around")
    source.write_text("void f(unsigned n, double *A)\n{\n#pragma scop\n"
                      "  for (unsigned i = n - 1; i < n; i--)\n    A[i] = 1;\n#pragma endscop\n}\n")
    (scop,) = polycu.load(str(source))   # the usual downward idiom ends at the wrap
    assert scop.statements[0].domain.is_equal(
        isl.Set("[n] -> { S0[i] : 0 <= i < n }"))


# -- 2. casts convert -----------------------------------------------------------------------

RANGE_CHECK = program("range_check")


def test_unsigned_cast_range_check_runs_exactly_its_iterations(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, RANGE_CHECK)
    assert scop.statements[0].domain.is_equal(isl.Set("{ S0[i] : 3 <= i <= 6 }"))
    expected, actual = differential(tmp_path, "range", RANGE_CHECK)
    assert actual == expected and expected.split() == ["0"] * 3 + ["4", "5", "6", "7"] + \
        ["0"] * 13


# -- 3. C's math functions, not C++'s overloads --------------------------------------------

MATH = program("math")


def test_math_calls_convert_their_arguments_as_c_does(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, MATH)
    assert [s.text for s in scop.statements] == [
        "z[i] = exp((double) x[i])", "w[i] = abs((int) d[i])",
        "r[i] = sqrt((double) i) + fabsf((float) d[i])"]
    expected, actual = differential(tmp_path, "math", MATH)
    assert actual == expected
    assert expected.splitlines()[0].split()[:2] == ["2.6881171418161356e+43", "2"]


MATH_MORE = program("math_more")


def test_more_of_cs_pure_math_functions_match_gcc(tmp_path: Path) -> None:
    expected, actual = differential(tmp_path, "math_more", MATH_MORE)
    assert actual == expected and len(expected.splitlines()) == 6


CHAR_CONSTANTS = program("char_constants")


def test_a_character_constant_is_an_int_in_kernels(tmp_path: Path) -> None:
    expected, actual = differential(tmp_path, "chars", CHAR_CONSTANTS)
    assert actual == expected
    assert expected.splitlines()[:2] == ["4 171", "8 170"]
    cuda = compile_file(str(tmp_path / "chars.c"), polycu.Options(run_on="gpu")).cuda
    # sizeof('a') is folded to 4 (frontend/sizes.py); abs takes C's int
    assert "sizeof" not in cuda.split("__global__", 1)[1].split("\n}\n")[0]
    assert "abs((((int)'0') - ((int)'a')) + " in cuda


def test_calls_of_undeclared_or_user_functions_are_located_rejections(tmp_path: Path) -> None:
    source = tmp_path / "calls.c"
    source.write_text("void f(double A[4])\n{\n#pragma scop\n  for (int i = 0; i < 4; i++)\n"
                      "    A[i] = sqrt(A[i]);\n#pragma endscop\n}\n")
    with pytest.raises(PolycuError, match=r"calls.c:5:12: error: call to 'sqrt', which is "
                                          r"not declared"):
        polycu.load(str(source))
    # the user's own sqrt, declared without a body in this file: not the C library's
    source.write_text("double sqrt(double x);\nvoid f(double A[4])\n{\n"
                      "#pragma scop\n  for (int i = 0; i < 4; i++)\n    A[i] = sqrt(A[i]);\n"
                      "#pragma endscop\n}\n")
    with pytest.raises(PolycuError, match=r"calls.c:6:12: error: call to 'sqrt', whose "
                                          r"body is not in this file"):
        polycu.load(str(source))
    # with its body here, it is inlined as C calls it: A[i] = A[i]
    source.write_text("double sqrt(double x) { return x; }\nvoid f(double A[4])\n{\n"
                      "#pragma scop\n  for (int i = 0; i < 4; i++)\n    A[i] = sqrt(A[i]);\n"
                      "#pragma endscop\n}\n")
    (scop,) = polycu.load(str(source))
    assert "sqrt" not in scop.statements[0].text


# -- 4. the user's C stays C ----------------------------------------------------------------

STAYS_C = program("stays_c")


def test_c_that_is_not_cpp_builds_and_runs(tmp_path: Path) -> None:
    expected, actual = differential(tmp_path, "stays_c", STAYS_C)
    assert actual == expected and len(expected.splitlines()) == 5


# -- 5. values live after the SCoP ----------------------------------------------------------

def test_a_counter_read_after_the_scop_gets_its_final_value(tmp_path: Path) -> None:
    source = tmp_path / "live.c"
    source.write_text("int f(int n, double A[100])\n{\n  int i;\n#pragma scop\n"
                      "  for (i = 0; i < n; i++)\n    A[i] = 1;\n#pragma endscop\n"
                      "  return i;\n}\n")
    (scop,) = polycu.load(str(source))
    final = scop.statements[-1]
    assert final.text == "i = (((long long) n) <= 0LL) ? (0LL) : ((long long) n)"
    assert [a.array for a in final.writes] == ["i"] and not scop.array("i").dead_after
    # Assigned before it is read again: no final value.
    source.write_text("int f(int n, double A[100])\n{\n  int i;\n#pragma scop\n"
                      "  for (i = 0; i < n; i++)\n    A[i] = 1;\n#pragma endscop\n"
                      "  for (i = 0; i < n; i++)\n    A[i] += i;\n  return 0;\n}\n")
    (scop,) = polycu.load(str(source))
    assert [s.text for s in scop.statements] == ["A[i] = 1"]


def test_negative_constant_extent_is_a_located_error(tmp_path: Path) -> None:
    source = tmp_path / "neg.c"
    source.write_text("double A[N][4];\nvoid f(void)\n{\n#pragma scop\n"
                      "  for (int i = 0; i < 4; i++)\n    A[0][i] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(PolycuError, match=r"neg.c:1:8: error: array 'A' has a negative size"):
        polycu.load(str(source), defines=["N=-5"])


def test_one_name_for_two_variables_is_a_located_rejection(tmp_path: Path) -> None:
    source = tmp_path / "shadow.c"
    text = ("void f(int n, double A[100], double B[100], double C[1])\n{\n  double t = 2;\n"
            "#pragma scop\n  for (int i = 0; i < n; i++) {\n    double t = A[i];\n"
            "    B[i] = t;\n  }\n  C[0] = t;\n#pragma endscop\n}\n")
    source.write_text(text)
    with pytest.raises(PolycuError, match=r"shadow.c:9:10: error: 't' names a variable "
                                          "declared outside the SCoP and one declared inside"):
        polycu.load(str(source))
    source.write_text(text.replace("C[0] = t;", "C[0] = 1;"))
    (scop,) = polycu.load(str(source))
    assert scop.array("t").local


# -- programs the differential tester found (polycu/fuzz; minimised where it mattered) --

FOUND = sorted((Path(__file__).parent / "data" / "fuzz_found").glob("*.c"))


@pytest.mark.parametrize("path", FOUND, ids=lambda p: p.stem)
def test_programs_the_fuzzer_found_compute_what_gcc_computes(tmp_path: Path, path: Path
                                                             ) -> None:
    # on the GPU side whatever the cost model says: these programs are small
    expected, actual = differential(tmp_path, path.stem, path.read_text(),
                                    polycu.Options(run_on="gpu"))
    assert actual == expected and expected


def test_narrowing_out_of_range_only_for_huge_values_is_a_checked_assumption(
        tmp_path: Path) -> None:
    source = tmp_path / "narrow.c"
    source.write_text((Path(__file__).parent / "data" / "fuzz_found" /
                       "narrowing_only_for_huge_n.c").read_text())
    (scop,) = polycu.load(str(source))
    # int j = 2 * i with long i < n: out of range only for n beyond 2^30.
    assert scop.context.intersect(isl.Set("[n, m] -> { : n = 1073741827 }")).is_empty()
    assert not scop.context.intersect(isl.Set("[n, m] -> { : n = 1000 and m = 5 }")).is_empty()
    generated = compile_file(str(source))
    assert "are outside the values the GPU code assumes" in generated.cuda


# The differential tester's seed 1200055, reduced: A[j - 1] with j = 0 through a
# pointer parameter.  Legal C when A points inside an array, but the device copy of
# a pointer parameter starts at its element 0, so the kernels assume no negative
# index; where it fails, the program runs the loops as written instead of copying
# the wrong rows (the emulator had caught the write below the buffer).
BELOW = """
#include <stdio.h>

void kernel(long n, int m, int *A)
{
#pragma scop
  for (long i = 0; i < n; i++)
    for (int j = 0; j < m; j += 2)
      A[j - 1] += 4;
#pragma endscop
}

int main(void)
{
  static int buffer[4] = {1, 2, 3, 4};
  kernel(N, 2, buffer + 1);
  for (int k = 0; k < 4; k++)
    printf("%d\\n", buffer[k]);
  return 0;
}
"""


def test_a_negative_index_of_a_pointer_parameter_is_a_checked_assumption(
        tmp_path: Path) -> None:
    scop = scop_of(tmp_path, BELOW.replace("kernel(N,", "kernel(1,"))
    assert scop.context.intersect(isl.Set("[n, m] -> { : n = 1 and m = 2 }")).is_empty()
    assert not scop.context.intersect(isl.Set("[n, m] -> { : n = 0 and m = 2 }")).is_empty()
    # n = 0: nothing runs below 0, the program runs as gcc's does
    expected, actual = differential(tmp_path, "below0", BELOW.replace("kernel(N,", "kernel(0,"))
    assert actual == expected == "1\n2\n3\n4\n"
    # n = 1: gcc's program writes buffer[0]; so does polycu's, on the CPU: the call of
    # the host function (which would stop there) is under the assumption
    expected, actual = differential(tmp_path, "below1", BELOW.replace("kernel(N,", "kernel(1,"))
    assert actual == expected == "5\n2\n3\n4\n"
    generated = compile_file(str(tmp_path / "below1.c"))
    assert "if (kernel_scop0_gpu_assumes(n, m)) {" in generated.host
    assert "are outside the values the GPU code assumes" in generated.cuda


# The differential tester's seed 5602628, reduced: with an unsigned n, k <= n - 1
# holds for every int k when n == 0 (n - 1 wraps to UINT_MAX), so k runs up to
# INT_MAX and overflows: undefined.  Modelled, that case gave k a range of 2^31
# whose strips every thread of the shared-tile kernel looped over, whatever n was.
# Now the parameters for which an int iterator overflows are assumed away (and
# checked by the host), so every loop is bounded by n.
OVERFLOWING = """
#include <stdio.h>

void kernel(unsigned n, double A[4], double B[8])
{
#pragma scop
  for (int j = 0; j < 4; j++)
    for (int k = 0; k <= n - 1; k++)
      A[j] += B[k] * j;
#pragma endscop
}

int main(void)
{
  static double A[4], B[8];
  for (int k = 0; k < 8; k++)
    B[k] = 0.5 * k + 1.0;
  kernel(N, A, B);
  for (int j = 0; j < 4; j++)
    printf("%.17g\\n", A[j]);
  return 0;
}
"""


def test_a_signed_iterator_that_overflows_is_a_checked_assumption(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, OVERFLOWING.replace("kernel(N,", "kernel(5u,"))
    assert scop.context.intersect(isl.Set("[n] -> { : n = 0 }")).is_empty()
    assert not scop.context.intersect(isl.Set("[n] -> { : n = 5 }")).is_empty()
    # k is bounded by n - 1 under the context: no point beyond it, none at INT_MAX
    beyond = isl.Set("[n] -> { S1[j, k] : k >= n }")
    domain = scop.domain().intersect_params(scop.context)
    assert domain.intersect(isl.UnionSet(beyond)).is_empty()
    expected, actual = differential(tmp_path, "overflow", OVERFLOWING.replace(
        "kernel(N,", "kernel(5u,"), polycu.Options(run_on="gpu"))
    assert actual == expected == "".join(f"{10.0 * j:.17g}\n" for j in range(4))
    assert "outside the values the GPU code assumes" in compile_file(
        str(tmp_path / "overflow.c"), polycu.Options(run_on="gpu")).cuda


def test_an_iterator_that_overflows_for_every_parameter_is_rejected(tmp_path: Path) -> None:
    source = tmp_path / "always.c"
    source.write_text("void f(double A[8])\n{\n#pragma scop\n"
                      "  for (int i = 0; i <= 2147483647; i++)\n    A[i % 8] += 1.0;\n"
                      "#pragma endscop\n}\n")
    with pytest.raises(PolycuError, match=r"always\.c:4:3: .*'i' of type 'int' overflows"):
        compile_file(str(source))


def test_the_context_leaves_out_values_beyond_the_parameters_types(tmp_path: Path) -> None:
    """The pieces a conversion adds for a long beyond +-2^63 are not in the context, and
    no such literal is ever printed: C++ has no signed type for it (nvcc reads
    9223372036854775808LL as unsigned, so `p >= 9223372036854775808LL` holds for a
    negative p; fuzz seed 5620517)."""
    text = (Path(__file__).parent / "data" / "fuzz_found" /
            "long_parameter_guard_beyond_int64.c").read_text()
    scop = scop_of(tmp_path, text)
    assert scop.context.is_equal(isl.Set("[p] -> { : -2147483647 <= p <= 2147483648 }"))
    with pytest.raises(OverflowError):
        literal(1 << 63)
    with pytest.raises(OverflowError):
        literal(-(1 << 63) - 1)
    assert literal(-(1 << 63) + 1) == "-9223372036854775807LL"
    # LLONG_MIN has no literal either: -9223372036854775808LL negates an unsigned one
    assert literal(-(1 << 63)) == "(-9223372036854775807LL - 1)"


def test_64_bit_signed_arithmetic_that_overflows_only_for_unusual_values_is_assumed_not_to(
        tmp_path: Path) -> None:
    """`for (long i = m - 4; i < m; i++)`: m - 4 leaves long for m below LLONG_MIN + 4
    (undefined in C).  The domain kept i beyond -2^63 there, and the code for those
    points needed 9223372036854775816 in a loop bound (fuzz seed 5632027); those m are
    now assumed away, as a conversion's unusual values are, and checked at run time."""
    text = """
void f(long m, double A[8])
{
#pragma scop
  for (long i = m - 4; i < m; i++)
    A[i - m + 4] = 1.0;
#pragma endscop
}
"""
    scop = scop_of(tmp_path, text)
    assert scop.context.is_equal(isl.Set(
        "[m] -> { : m >= -9223372036854775804 }").align_params(scop.context.get_space()))
    (stmt,) = scop.statements      # within the context: no i below -2^63
    assert stmt.domain.intersect_params(scop.context).is_equal(isl.Set(
        "[m] -> { S0[i] : m - 4 <= i < m and m >= -9223372036854775804 }").set_tuple_name(
            stmt.domain.get_tuple_name()))
    source = tmp_path / "start.c"
    source.write_text(text)
    assert "9223372036854775804" in compile_file(str(source), polycu.Options(run_on="gpu")).cuda
