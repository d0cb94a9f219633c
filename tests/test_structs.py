"""Structures inside a SCoP (issue 16): ``s.a[i]``, ``s.n``, ``b[i][j].c[k][l]``,
``p[i].re``, ``ps->a[i]``.  Each field is an array of its own in the model
(``polycu/frontend/members.py``): ``b[i][j].c[k][l]`` is ``b_c[i, j, k, l]``, so
fields never alias and each field's dependences are exact; the kernels take the
struct variable and index it as the C source does, and the host copies whole struct
variables.

Checked here: the model (``--dump-scop``), the dependences, the emitted CUDA (built
by nvcc where it is installed), the transfers, the emulation against gcc's build of
the original on random inputs (structs filled field by field), and whole programs
(``tests/data/structs/``), each checking its SCoP against plain loops.  What stays
unsupported is in the bad-input corpus (``struct_*.c``).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import islpy as isl
import numpy as np
import pytest
from test_c_semantics import differential
from test_data_dependent import generate, kernels_of
from test_inline_calls import run_program

import polycu
from polycu.deps import compute_dependences
from polycu.model import MAY_WRITE, Scop, format_scop, storages
from polycu.runtime.inputs import random_inputs
from polycu.runtime.nvcc import nvcc_check
from polycu.runtime.replay import buffers, host_values
from polycu.runtime.signature import Signature, dtype_of

PROGRAMS = Path(__file__).parent / "data" / "structs"
SIZES = [{"n": 17}, {"n": 5}]


def model(source: str) -> Scop:
    (scop,) = polycu.load_text(source, "f.c")
    return scop


def equal(umap: isl.UnionMap, text: str) -> bool:
    return umap.is_equal(isl.UnionMap(text))


COMPLEX = """
#define N 100
struct cplx { double re; double im; };
void f(int n, struct cplx p[N], struct cplx q[N])
{
  int i;
#pragma scop
  for (i = 1; i < n; i++) {
    q[i].re = p[i].re * p[i - 1].re - p[i].im * p[i - 1].im;
    q[i].im = p[i].re * p[i - 1].im + p[i].im * p[i - 1].re;
  }
#pragma endscop
}
"""


def test_each_field_is_an_array_indexed_by_the_variables_indices():
    lines = format_scop(model(COMPLEX)).splitlines()
    arrays = lines[lines.index("  arrays:") + 1:lines.index("  statements:")]
    assert arrays == ["    double p_re[100] (field re of p)",
                      "    double p_im[100] (field im of p)",
                      "    double q_re[100] (field re of q)",
                      "    double q_im[100] (field im of q)"]
    s0 = model(COMPLEX).statement("S0")
    # the statement speaks of the field arrays (the kernels print members again)
    assert s0.text == "q_re[i] = (p_re[i] * p_re[i - 1]) - (p_im[i] * p_im[i - 1])"
    assert [f"{a.kind} {a.relation}" for a in s0.accesses] == [
        "read [n] -> { S0[i] -> p_re[i] }", "read [n] -> { S0[i] -> p_re[-1 + i] }",
        "read [n] -> { S0[i] -> p_im[i] }", "read [n] -> { S0[i] -> p_im[-1 + i] }",
        "write [n] -> { S0[i] -> q_re[i] }"]
    # the contract passes the struct arrays themselves
    assert [(a.name, a.element_type, a.extents) for a in storages(model(COMPLEX))] == [
        ("p", "struct cplx", ("100",)), ("q", "struct cplx", ("100",))]


NESTED = """
#define N 20
typedef struct { double c[4][5]; float w; int tag; } cell;
struct soa { double a[N]; double b[N]; int n; };
void f(int n, cell b[N][N], struct soa *s, struct soa t)
{
  int i, j, k, l;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < 4; k++)
        for (l = 0; l < 5; l++)
          b[i][j].c[k][l] = b[i][j].c[k][l] * b[i][j].w;
  for (i = 1; i < n - 1; i++)
    s->b[i] = s->a[i - 1] + s->a[i + 1] + t.a[i] * t.n;
#pragma endscop
}
"""


def test_nested_arrays_pointers_and_scalar_fields():
    scop = model(NESTED)
    assert [(a.name, a.element_type, a.extents) for a in scop.arrays] == [
        ("b_c", "double", ("20", "20", "4", "5")), ("b_w", "float", ("20", "20")),
        ("s_a", "double", (None, "20")), ("t_a", "double", ("20",)), ("t_n", "int", ()),
        ("s_b", "double", (None, "20"))]
    s0, s1 = scop.statements
    assert [str(a.relation) for a in s0.accesses] == [
        "[n] -> { S0[i, j, k, l] -> b_c[i, j, k, l] }", "[n] -> { S0[i, j, k, l] -> b_w[i, j] }",
        "[n] -> { S0[i, j, k, l] -> b_c[i, j, k, l] }"]
    # s->a[i] is s[0].a[i]; t.n, a scalar field, is a 0-d array (never a parameter)
    assert [str(a.relation) for a in s1.accesses] == [
        "[n] -> { S1[i] -> s_a[0, -1 + i] }", "[n] -> { S1[i] -> s_a[0, 1 + i] }",
        "[n] -> { S1[i] -> t_a[i] }", "[n] -> { S1[i] -> t_n[] }",
        "[n] -> { S1[i] -> s_b[0, i] }"]
    assert scop.parameters == ("n",)


# Two fields of one struct array never alias: writing p[i].re does not feed a read of
# p[i - 1].im, only one of p[i - 1].re.
FIELDS = """
#define N 100
struct pair { double re; double im; };
void f(int n, struct pair p[N])
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    p[i].re = p[i - 1].im + 1;
  for (i = 1; i < n; i++)
    p[i].im = p[i - 1].re * 2;
#pragma endscop
}
"""


def test_dependences_are_exact_per_field():
    deps = compute_dependences(model(FIELDS))
    assert equal(deps.flow, "[n] -> { S0[i] -> S1[i + 1] : 1 <= i <= n - 2 }")
    assert equal(deps.anti, "[n] -> { S0[i] -> S1[i - 1] : 2 <= i < n }")
    assert deps.output.is_empty()
    assert equal(deps.live_in, "[n] -> { S0[i] -> p_im[i - 1] : 1 <= i < n; "
                 "S1[1] -> p_re[0] : n >= 2 }")


def test_a_field_in_a_call_is_converted_to_the_parameters_type():
    scop = model("""
#include <stdlib.h>
struct pair { double re; int k; };
void f(int n, struct pair p[100], int B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = abs(p[i].re) + p[i].k;
#pragma endscop
}
""")
    assert scop.statements[0].text == "B[i] = abs((int) p_re[i]) + p_k[i]"


def test_a_data_dependent_condition_on_a_field_may_write_another():
    scop = model(COMPLEX.replace("    q[i].re = p[i].re * p[i - 1].re - p[i].im * p[i - 1].im;\n",
                                 "    if (p[i].re > 0) q[i].re = p[i].re;\n"))
    s0 = scop.statement("S0")
    assert [(a.array, a.kind) for a in s0.accesses] == [
        ("p_re", "read"), ("p_re", "read"), ("q_re", MAY_WRITE)]


def test_the_kernel_takes_the_struct_arrays_and_the_host_copies_them_whole(tmp_path: Path):
    generated = generate(tmp_path, COMPLEX)
    cuda = generated.cuda
    definition = cuda.index("struct cplx { double re; double im; };")
    (kernel,) = kernels_of(cuda)
    assert definition < cuda.index("__global__")
    assert "const struct cplx *__restrict__ p, struct cplx *__restrict__ q)" in kernel
    assert "q[" in kernel and "].re = (p[" in kernel and "].im" in kernel
    # q is only written, field by field: its other fields and elements keep the host's
    # values, so the structs are copied in before the whole structs are copied out
    assert "polycu_copy_in(dev_q, q, dev_q_bytes)" in cuda
    assert "polycu_copy_out(q, dev_q, dev_q_bytes)" in cuda
    assert "cudaMemcpy(p, dev_p" not in cuda
    assert "dev_q_bytes = (size_t)1 * ((100)) * sizeof(struct cplx)" in cuda
    assert "(struct cplx *)p, (struct cplx *)q);" in generated.host
    (entry,) = generated.description["scops"]
    assert [(a["name"], a["struct"]) for a in entry["arrays"]] == [
        ("p", [["re", "double", []], ["im", "double", []]]),
        ("q", [["re", "double", []], ["im", "double", []]])]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("source", [COMPLEX, NESTED], ids=["complex", "nested"])
def test_nvcc_builds_the_cuda(tmp_path: Path, source: str):
    check = nvcc_check(generate(tmp_path, source).cuda)
    assert check.status == "ok", check.describe()


def test_pointer_and_nested_fields_print_as_in_c(tmp_path: Path):
    kernels = kernels_of(generate(tmp_path, NESTED).cuda)
    assert any("cell *__restrict__ b)" in k and "].c[" in k and "].w;" in k for k in kernels)
    assert any("struct soa *__restrict__ s, const struct soa *__restrict__ t)" in k
               and "s[0].b[" in k and "t[0].n" in k for k in kernels)


GEMM = """
#define N 64
struct mat { double v[N][N]; };
void f(int n, struct mat *A, struct mat *B, struct mat *C)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C->v[i][j] += A->v[i][k] * B->v[k][j];
#pragma endscop
}
"""


def test_fields_stay_in_their_structs_in_device_memory(tmp_path: Path, emulated):
    cuda = generate(tmp_path, GEMM).cuda
    kernels = kernels_of(cuda)
    assert not any("POLYCU_SHARED" in k for k in kernels) and "__constant__ " not in cuda
    assert any("C[0].v[" in k and "A[0].v[" in k for k in kernels)
    # the same product on plain arrays reads B through a shared tile (the tensor
    # cores' tiles, POLYCU_SHARED16)
    plain = GEMM.replace("struct mat *A, struct mat *B, struct mat *C",
                         "double A[N][N], double B[N][N], double C[N][N]").replace("->v", "")
    assert any("POLYCU_SHARED" in k for k in kernels_of(generate(tmp_path, plain).cuda))
    emulated(GEMM, [{"n": 33}])


# A field temporary expanded per iteration (schedule/expand.py) and copied back into
# its struct: the rewriting sees an ordinary array reference.
EXPANDED = """
#define N 100
struct tmp { double x; double row[N]; };
void f(int n, struct tmp t, double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    t.x = A[i][0] * 2;
    for (j = 0; j < n; j++)
      t.row[j] = A[i][j] + t.x;
    for (j = 0; j < n; j++)
      B[i][j] = t.row[j] * t.row[n - 1 - j];
  }
#pragma endscop
}
"""


def test_a_field_temporary_expands_and_emulates(emulated):
    assert model(EXPANDED).statement("S1").text == "t_row[j] = A[i][j] + t_x"
    emulated(EXPANDED, SIZES)


def test_random_inputs_fill_every_field_of_the_c_layout():
    scop = model(NESTED)
    (b, s, t) = Signature.of(scop).arrays
    assert b.struct is not None and dtype_of(b).itemsize == 4 * 5 * 8 + 8   # 4 + padding
    assert dtype_of(s).names == ("a", "b", "n") and dtype_of(s).itemsize == 2 * 20 * 8 + 8
    data = random_inputs(scop, {"n": 7}, seed=3)
    assert data["b"].shape == (20, 20) and data["b"]["c"].shape == (20, 20, 4, 5)
    assert data["s"].shape == (1,) and data["t"].shape == ()   # s->a[i]: s[0] only
    assert np.count_nonzero(data["b"]["c"]) > 0 and np.count_nonzero(data["b"]["w"]) > 0


@pytest.mark.parametrize("source", [COMPLEX, NESTED, FIELDS], ids=["complex", "nested", "fields"])
def test_emulation_equals_gccs_build_of_the_original(emulated, source: str):
    emulated(source, SIZES)


PARAMETER = """
#define N 100
struct coefficients { double alpha; double beta; };
void f(int n, struct coefficients p, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = p.alpha * A[i] + p.beta;
#pragma endscop
}
"""


def test_a_struct_scalar_read_in_the_scop(tmp_path: Path, emulated):
    scop = model(PARAMETER)
    assert [(a.name, a.rank) for a in scop.arrays] == [("p_alpha", 0), ("A", 1),
                                                        ("p_beta", 0), ("B", 1)]
    (kernel,) = kernels_of(generate(tmp_path, PARAMETER).cuda)
    assert "const struct coefficients *__restrict__ p" in kernel
    assert "p[0].alpha * A[" in kernel
    emulated(PARAMETER, SIZES)


# -- whole programs: gcc's build of the original and polycu's, each checking itself -----
@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.c")))
def test_programs_compute_what_gcc_computes(tmp_path: Path, name: str) -> None:
    for result in run_program(tmp_path, PROGRAMS / name):
        assert (result.returncode, result.stdout) == (0, "OK\n"), result.stderr


def test_there_are_at_least_four_programs() -> None:
    assert len(list(PROGRAMS.glob("*.c"))) >= 4


def test_the_pycuda_replay_allocates_whole_structs(tmp_path: Path):
    (entry,) = generate(tmp_path, COMPLEX).description["scops"]
    found = buffers(entry, host_values(entry, {"n": 17}))
    assert sorted(found) == ["p", "q"]
    assert np.dtype(found["q"].dtype).names == ("re", "im")
    assert (found["q"].count, found["q"].nbytes, found["q"].copy_in) == (100, 1600, True)


# A member's name is no variable: locals 're' and 'im' beside fields .re and .im were
# rejected as "a variable declared outside the SCoP and one declared inside it".
SQUARES = """
#include <stdio.h>
typedef struct { double re, im; } cplx;
void f(int n, cplx Z[16])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double re = Z[i].re * Z[i].re - Z[i].im * Z[i].im + 0.25, im = 2.0 * Z[i].re * Z[i].im;
    Z[i].re = re;
    Z[i].im = im;
  }
#pragma endscop
}
int main(void)
{
  static cplx Z[16];
  for (int i = 0; i < 16; i++) { Z[i].re = 0.125 * i - 1.0; Z[i].im = 0.0625 * (i % 5); }
  f(16, Z);
  for (int i = 0; i < 16; i++) printf("%.17g %.17g\\n", Z[i].re, Z[i].im);
  return 0;
}
"""


def test_locals_named_like_members_are_other_variables(tmp_path: Path) -> None:
    (scop,) = polycu.load_text(SQUARES, "squares.c")
    assert {"re", "im"} <= {a.name for a in scop.arrays}
    expected, actual = differential(tmp_path, "squares", SQUARES)
    assert actual == expected and expected.split()[:2] == ["1.25", "-0"]
