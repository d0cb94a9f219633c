"""Mapping (polycu/gpu) and the CUDA printers (polycu/codegen): exact isl sets, exact text.

Schedules are the SCoP's original order or ``polycu.schedule.identity`` (nested bands
combined), so that these tests do not move when the schedule ranking changes.
"""
from __future__ import annotations

import json
import re

import islpy as isl
import pytest

import polycu
from polycu.codegen import generate
from polycu.codegen.ast import host_ast, kernel_ast
from polycu.codegen.nodes import Expr, For, If
from polycu.codegen.cuda import c_expr, layouts, linearise, statement_text
from polycu.codegen.kernel import kernel_source
from polycu.codegen.host import transfers
from polycu.codegen.overflow import exact_in_c
from polycu.codegen.splice import call_site, splice
from polycu.diagnostics import PolycuError
from polycu.runtime.cexpr import evaluate
from polycu.runtime.emulate import emulate_file
from polycu.runtime.replay import buffers
from polycu.driver import compile_file
from polycu.options import Options
from polycu.gpu.mapping import choose_names, map_to_gpu
from polycu.gpu.sizes import Sizes
from polycu.memory import place
from polycu.schedule import identity

COPY_2D = """
void f(int n, int m, double A[100][200], double B[100][200])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      B[i][j] = 2 * A[i][j];
#pragma endscop
}
"""

ROW_RECURRENCE = """
void f(int n, int m, double A[100][200])
{
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i - 1][j] + 1;
#pragma endscop
}
"""

PREFIX_SUM = """
void f(int n, double A[100])
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    A[i] = A[i] + A[i - 1];
#pragma endscop
}
"""

SUM = """
void f(int n, double A[100], double *total)
{
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    s += A[i];
  total[0] = s;
#pragma endscop
}
"""


def scop_of(text: str) -> polycu.Scop:
    return polycu.load_text(text, "t.c")[0]


def program(text: str, *, tree: str = "identity", relaxed: frozenset[str] = frozenset(),
            sizes: Sizes | None = None):
    scop = scop_of(text)
    deps = polycu.dependences(scop)
    schedule = identity(scop, deps).tree if tree == "identity" else scop.schedule
    return map_to_gpu(scop, deps, schedule, relaxed=relaxed, sizes=sizes)


# -- mapping ----------------------------------------------------------------------------

def test_2d_band_maps_to_2d_grid_of_2d_blocks_with_exact_thread_sets() -> None:
    prog = program(COPY_2D)
    (kernel,) = prog.kernels
    assert kernel.host_ids == ()
    assert [(m.member, m.axis, m.tile, m.block) for m in kernel.mapped] == \
        [(0, "y", 32, 8), (1, "x", 32, 32)]
    assert kernel.block_dims() == (32, 8, 1)
    expected = isl.UnionSet(
        "[n, m, b0, t0, b1, t1] -> { S0[i, j] : 0 <= i < n and 0 <= j < m and "
        "32b0 <= i <= 32b0 + 31 and (i - t0) mod 8 = 0 and j = 32b1 + t1 and 0 <= t1 < 32 }")
    assert kernel.thread_domain().is_equal(expected)
    y, x = kernel.mapped
    assert x.grid.is_equal(isl.PwAff("[n, m] -> { [(floor((m - 1)/32) + 1)] : n > 0 and m > 0 }"))
    assert y.grid.is_equal(isl.PwAff("[n, m] -> { [(floor((n - 1)/32) + 1)] : n > 0 and m > 0 }"))
    assert kernel.launches.is_equal(isl.Set(f"[n, m] -> {{ {kernel.launch_name}[] : "
                                            "n > 0 and m > 0 }"))


def test_carried_outer_loop_stays_on_the_host_and_inner_loop_is_parallel() -> None:
    prog = program(ROW_RECURRENCE)
    (kernel,) = prog.kernels
    assert kernel.host_ids == ("h0",)
    assert [(m.axis, m.block) for m in kernel.mapped] == [("x", 32)]
    assert kernel.launches.is_equal(isl.Set(
        f"[n, m] -> {{ {kernel.launch_name}[h] : 1 <= h < n and m > 0 }}"))
    expected = isl.UnionSet("[n, m, h0, b0, t0] -> { S0[i, j] : i = h0 and 1 <= i < n and "
                            "0 <= j < m and j = 32b0 + t0 and 0 <= t0 < 32 }")
    assert kernel.thread_domain().is_equal(expected)
    guard = host_ast(prog)            # if (m >= 1) for (c0 = 1; c0 <= n - 1; c0 += 1) launch
    assert isinstance(guard, If) and c_expr(guard.cond) == "m >= 1"
    loop = guard.then
    assert isinstance(loop, For) and (c_expr(loop.init), c_expr(loop.upper)) == ("1", "n - 1")


def test_statement_without_parallelism_runs_in_a_single_thread_kernel() -> None:
    prog = program(PREFIX_SUM)
    (kernel,) = prog.kernels
    assert kernel.mapped == () and kernel.host_ids == () and kernel.block_dims() == (1, 1, 1)
    source = kernel_source(place(prog), kernel, layouts(prog.scop))
    assert "blockIdx" not in source and "for (int c0 = 1; c0 <= n - 1; c0 += 1)" in source


def test_a_wrong_coincident_flag_does_not_parallelise() -> None:
    scop = scop_of(PREFIX_SUM)
    deps = polycu.dependences(scop)
    band = scop.schedule.get_root().child(0)
    lying = band.band_member_set_coincident(0, 1).get_schedule()
    (kernel,) = map_to_gpu(scop, deps, lying).kernels
    assert kernel.mapped == () and kernel.host_ids == ()


def test_sequential_siblings_share_one_kernel() -> None:
    prog = program(SUM, tree="original")
    assert [k.statements for k in prog.kernels] == [("S0", "S1", "S2")]


def test_relaxed_sum_becomes_atomic_between_two_sequential_kernels() -> None:
    prog = program(SUM, tree="original", relaxed=frozenset({"S1"}))
    assert [(k.statements, len(k.mapped), sorted(k.atomic)) for k in prog.kernels] == \
        [(("S0",), 0, []), (("S1",), 1, ["S1"]), (("S2",), 0, [])]
    source = kernel_source(place(prog), prog.kernels[1], layouts(prog.scop))
    assert "atomicAdd(&s[0], A[(32 * b0 + t0)]);" in source


def test_tile_not_a_multiple_of_the_block_strides_points_over_threads() -> None:
    prog = program(COPY_2D, sizes=Sizes(per_kernel={0: {"tile": (20, 24), "block": (16, 6)}}))
    (kernel,) = prog.kernels
    assert [(m.axis, m.tile, m.block) for m in kernel.mapped] == [("y", 20, 6), ("x", 24, 16)]
    expected = isl.UnionSet(
        "[n, m, b0, t0, b1, t1] -> { S0[i, j] : 0 <= i < n and 0 <= j < m and "
        "20b0 <= i <= 20b0 + 19 and (i - 20b0 - t0) mod 6 = 0 and "
        "24b1 <= j <= 24b1 + 23 and (j - 24b1 - t1) mod 16 = 0 }")
    assert kernel.thread_domain().is_equal(expected)


def test_blocks_over_1024_threads_are_a_located_error() -> None:
    with pytest.raises(PolycuError, match="1024"):
        program(COPY_2D, sizes=Sizes(per_kernel={-1: {"block": (64, 32)}, 0: {"tile": (64, 64)}}))


def test_triangular_band_starts_its_grid_at_the_lower_bound() -> None:
    text = """
void f(int n, double A[100][100])
{
  int k, i;
#pragma scop
  for (k = 1; k < n; k++)
    for (i = k + 1; i < n; i++)
      A[k][i] = A[k - 1][i] + A[k - 1][k];
#pragma endscop
}
"""
    prog = program(text)
    (kernel,) = prog.kernels
    assert kernel.host_ids == ("h0",)
    (member,) = kernel.mapped
    assert member.lower.is_equal(isl.PwAff("[n, h0] -> { [(h0 + 1)] : 1 <= h0 <= n - 2 }"))
    assert member.grid.is_equal(isl.PwAff(
        "[n, h0] -> { [(floor((n - 1)/32) - floor((h0 + 1)/32) + 1)] : 1 <= h0 <= n - 2 }"))
    source = kernel_source(place(prog), kernel, layouts(prog.scop))
    # i = 32 (b0 + floor((h0 + 1) / 32)) + t0, written with isl's remainder
    assert "A[h0 * 100 + (-((h0 + 1) % 32) + h0 + 32 * b0 + t0 + 1)] = " in source


def test_generated_names_avoid_the_scops_identifiers() -> None:
    text = COPY_2D.replace("double B[100][200]", "double c0[100][200]").replace("B[i][j]", "c0[i][j]")
    names = choose_names(scop_of(text))
    assert names.iterator != "c"
    assert kernel_ast(program(text), program(text).kernels[0]) is not None


# -- printers ---------------------------------------------------------------------------

def e(op: str, *args: Expr) -> Expr:
    return Expr(op, args)


I, J = Expr.id_("i"), Expr.id_("j")
K2, K32, K64 = Expr.int_(2), Expr.int_(32), Expr.int_(64)


@pytest.mark.parametrize("expr,text", [
    (e("mul", K32, e("pdiv_q", e("sub", I, J), K64)), "32 * ((i - j) / 64)"),
    (e("sub", I, e("add", J, K2)), "i - (j + 2)"),
    (e("add", I, e("add", J, K2)), "i + j + 2"),
    (e("sub", e("sub", I, J), K2), "i - j - 2"),
    (e("fdiv_q", e("minus", I), K32), "polycu_floord(-i, 32)"),
    (e("min", I, J, K2), "min(min(i, j), 2)"),
    (e("cond", e("ge", I, K2), I, e("add", J, K2)), "i >= 2 ? i : j + 2"),
    (e("and", e("or", e("eq", I, J), e("lt", I, K2)), e("gt", J, Expr.int_(-3))),
     "(i == j || i < 2) && j > -3"),
    (e("mul", Expr.int_(-2), I), "-2 * i"),
])
def test_c_expressions_are_parenthesised_by_precedence(expr: Expr, text: str) -> None:
    assert c_expr(expr) == text


def test_host_min_max_use_the_prologue_helpers() -> None:
    assert c_expr(e("max", I, J), host=True) == "polycu_max(i, j)"


@pytest.mark.parametrize("a", range(-9, 10))
@pytest.mark.parametrize("b", [1, 3, 8])
def test_host_expressions_keep_c_integer_semantics(a: int, b: int) -> None:
    env = {"i": a, "j": b}
    c_remainder = abs(a) % b * (1 if a >= 0 else -1)

    def host(expr: Expr) -> int:   # what the host function and the runtimes compute
        return evaluate(c_expr(expr, host=True), env)

    assert host(e("zdiv_r", I, J)) == c_remainder
    assert host(e("fdiv_q", I, J)) == (a - (a % b)) // b
    assert host(e("cond", e("ge", I, K2), e("min", I, J), e("minus", J))) == \
        (min(a, b) if a >= 2 else -b)


def test_subscripts_are_linearised_row_major_by_horner() -> None:
    assert linearise(["i", "j + 1", "k"], (None, "200", "n")) == \
        "(i * 200 + (j + 1)) * n + k"
    # each subscript whole, in its own type: an unsigned one that wraps back into its
    # row must wrap before it joins the sum (fuzz seed 4800140)
    assert linearise(["i", "(j - u) + 2u"], (None, "8"), wide=True) == \
        "((long long)(i)) * 8 + ((j - u) + 2u)"
    assert linearise(["i", "(32 * b + t)", "(int)c", "(a) + (b)"], (None, "4", "4", "4")) \
        == "((i * 4 + (32 * b + t)) * 4 + ((int)c)) * 4 + ((a) + (b))"


def test_statement_bodies_substitute_iterators_and_linearise() -> None:
    scop = scop_of(COPY_2D)
    (stmt,) = scop.statements
    text = statement_text(stmt, (Expr.id_("c0"), e("add", e("mul", K32, Expr.id_("b1")),
                                                     Expr.id_("t1"))), layouts(scop))
    assert text == "B[c0 * 200 + (32 * b1 + t1)] = 2 * A[c0 * 200 + (32 * b1 + t1)];"


@pytest.mark.parametrize("update,atomic", [
    ("A[i] += B[i] * 2", "atomicAdd(&A[0], B[c0] * 2);"),
    ("A[i] -= B[i]", "atomicAdd(&A[0], -(B[c0]));"),
    ("A[i] = A[i] + B[i]", "atomicAdd(&A[0], B[c0]);"),
    ("A[i] = B[i] + A[i]", "atomicAdd(&A[0], B[c0]);"),
])
def test_atomic_lowering_of_sum_updates(update: str, atomic: str) -> None:
    text = f"""
void f(int n, double A[10], double B[10])
{{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    {update.replace('A[i]', 'A[0]')};
#pragma endscop
}}
"""
    scop = scop_of(text)
    (stmt,) = scop.statements
    assert stmt.reduction == "+"
    assert statement_text(stmt, (Expr.id_("c0"),), layouts(scop), atomic=True) == atomic


def test_pointer_to_pointer_arrays_are_refused_with_a_location() -> None:
    text = """
void f(int n, double **A)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i][i] = 0;
#pragma endscop
}
"""
    with pytest.raises(PolycuError) as info:
        layouts(scop_of(text))
    assert "pointer to pointers" in info.value.first.message
    assert info.value.first.location.line == 2


# -- host code --------------------------------------------------------------------------

def test_copies_only_what_is_live_in_or_partially_written() -> None:
    text = """
void f(int n, double A[100], double B[200], double C[100], double D[100])
{
  int i;
#pragma scop
  for (i = 0; i < 100; i++)
    C[i] = A[i];
  for (i = 0; i < n; i++)
    B[2 * i] = A[i];
  for (i = 0; i < 100; i++)
    D[i] = 0;
  for (i = 0; i < 100; i++)
    D[i] = D[i] + C[i];
#pragma endscop
}
"""
    prog = program(text)
    moves = {t.array.name: (t.copy_in, t.copy_out) for t in
             transfers(prog, layouts(prog.scop), "dev_")}
    assert moves == {"A": (True, False), "B": (True, True), "C": (False, True),
                     "D": (False, True)}


PARTLY_WRITTEN = """
void f(int n, int m, double A[20][30], double T[20][30], double y[20])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      T[i][j] = 2.0 * A[i][j];
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < m; j++)
      y[i] += T[i][j];
  }
#pragma endscop
}
"""


def test_a_copy_in_is_skipped_where_the_writes_cover_the_array(tmp_path) -> None:
    # T is not live in; its writes cover the 20 x 30 block only when n >= 20 and
    # m >= 30, where the host skips its copy-in (y: the same with n >= 20)
    prog = program(PARTLY_WRITTEN)
    # (isl orders a conjunction's terms as it likes: compare them as sets)
    moves = {t.array.name: (t.copy_in, t.covered and frozenset(t.covered.split(" && ")))
             for t in transfers(prog, layouts(prog.scop), "dev_")}
    assert moves == {"A": (True, None), "T": (True, {"n >= 20", "m >= 30"}),
                     "y": (True, {"n >= 20"})}
    path = tmp_path / "partly.c"
    path.write_text(PARTLY_WRITTEN)
    generated = compile_file(str(path), Options(run_on="gpu"))
    guard = re.search(r"if \(!\((.*)\)\) POLYCU_CHECK\(polycu_copy_in\(dev_T, T, ", generated.cuda)
    assert guard and set(guard.group(1).split(" && ")) == {"n >= 20", "m >= 30"}
    (scop,) = generated.description["scops"]
    copied = {n: [b.copy_in for b in (buffers(scop, v)[n] for v in (
        {"n": 20, "m": 30}, {"n": 19, "m": 30}, {"n": 20, "m": 29}))] for n in ("T", "y")}
    assert copied == {"T": [False, True, True], "y": [False, True, False]}


@pytest.mark.parametrize("params", [{"n": 20, "m": 30}, {"n": 7, "m": 30}, {"n": 20, "m": 4},
                                    {"n": 0, "m": 0}])
def test_skipped_copies_leave_no_stale_element(emulated, params) -> None:
    # the emulator fills device buffers with garbage: a skipped copy-in at values
    # where some element is not written would show in T's or y's copy-out
    emulated(PARTLY_WRITTEN, [params])


def test_a_wrong_cover_condition_is_caught(tmp_path, monkeypatch) -> None:
    from polycu.codegen import transfers as module
    monkeypatch.setattr(module, "_covered_condition", lambda scop, missed: "1")
    path = tmp_path / "partly.c"
    path.write_text(PARTLY_WRITTEN)
    (report,) = emulate_file(str(path), Options(run_on="gpu"), params={"n": 7, "m": 30},
                             seed=2, nvcc=False)
    assert not report.ok and [a.name for a in report.arrays if not a.ok] == ["T", "y"]


def test_pointer_parameters_are_sized_by_their_footprint() -> None:
    text = """
void f(int n, double *x, double *y)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = x[i + 2];
#pragma endscop
}
"""
    prog = program(text)
    counts = {t.array.name: t.count for t in transfers(prog, layouts(prog.scop), "dev_")}
    assert counts["x"] == "(size_t)1 * (n <= 0 ? 0 : n + 2)"
    assert [evaluate(counts["x"], {"n": v}) for v in (-1, 0, 5)] == [0, 0, 7]


def test_splice_keeps_every_other_line_verbatim() -> None:
    scop = scop_of(COPY_2D)
    text = COPY_2D
    first, last = scop.region
    lines = text.split("\n")
    replaced = splice(text, [(scop.region, call_site(scop, layouts(scop), "  "))]).split("\n")
    tail = len(lines) - last
    assert replaced[:first - 1] == lines[:first - 1]
    assert replaced[len(replaced) - tail:] == lines[last:]
    assert "f_scop0_gpu(n, m, (double *)A, (double *)B);" in "\n".join(replaced)


def test_generate_puts_prologue_kernels_and_host_before_the_original_text() -> None:
    scop = scop_of(COPY_2D)
    deps = polycu.dependences(scop)
    prog = map_to_gpu(scop, deps, identity(scop, deps).tree)
    out = generate("t.c", COPY_2D, [place(prog)])
    cuda = out.cuda
    assert cuda.startswith("/* Generated by polycu")
    assert cuda.index("#ifdef POLYCU_EMULATE") < cuda.index('extern "C" __global__') \
        < cuda.index('extern "C" void f_scop0_gpu(int n, int m, double *A, double *B)')
    # The user's program is not in the .cu: it stays C, in the host program.
    assert "void f(int n, int m" not in cuda and "void f(int n, int m" in out.host
    assert "extern void f_scop0_gpu(int, int, double *, double *);" in out.host
    (desc,) = out.description["scops"]
    assert desc["host_function"] == "f_scop0_gpu" and desc["parameters"] == ["n", "m"]
    (launch,) = desc["host"][0]["then"]
    assert launch["launch"] == "f_scop0_kernel0" and launch["block"] == [32, 8, 1]
    assert [evaluate(g["c"], {"n": 70, "m": 33}) for g in launch["grid"]] == [2, 3, 1]
    assert launch["args"] == ["n", "m", "A", "B"]
    (kernel,) = desc["kernels"]
    assert [(a["name"], a["type"], a["role"]) for a in kernel["args"]] == [
        ("n", "int", "param"), ("m", "int", "param"),
        ("A", "const double *__restrict__", "array"), ("B", "double *__restrict__", "array")]
    assert kernel["source"] in desc["device_source"]


# -- the command line --------------------------------------------------------------------

def test_cli_writes_the_cu_and_its_description_next_to_the_input(tmp_path, capsys) -> None:
    from polycu.cli import main
    source = tmp_path / "copy.c"
    source.write_text(COPY_2D)
    assert main([str(source)]) == 0
    cuda = (tmp_path / "copy.cu").read_text()
    description = json.loads((tmp_path / "copy.kernels.json").read_text())
    assert description["scops"][0]["host_source"] in cuda
    assert "f_scop0_gpu(n, m, (double *)A, (double *)B);" in \
        (tmp_path / "copy_host.c").read_text()
    assert source.read_text() == COPY_2D


@pytest.mark.parametrize("argv,message", [
    (["{src}", "-o", "{src}"], "would overwrite the input"),
    (["{src}", "{src}", "-o", "{dir}/x.cu"], "-o names one output"),
    (["{src}", "--tile-size", "0"], "--tile-size must be a positive integer"),
    (["{src}", "-o", "{dir}/missing/x.cu"], "cannot write"),
])
def test_cli_refusals_are_located_errors(tmp_path, capsys, argv: list[str], message: str) -> None:
    from polycu.cli import main
    source = tmp_path / "copy.c"
    source.write_text(COPY_2D)
    args = [a.format(src=source, dir=tmp_path) for a in argv]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert source.read_text() == COPY_2D


def test_a_cover_condition_is_printed_in_64_bits_only_where_c_computes_it_exactly() -> None:
    # long parameters: n >= 20 && m >= 30 overflows nowhere, so it is printed as it
    # is; a condition isl derives near the ends of a long's range
    # (9223372036854775806 - m + n >= 0, fuzz seed 5631513) overflows for a
    # negative m, and one with a literal beyond long long has no 64-bit C text: those
    # are computed in 128 bits (overflow.exactly)
    prog = program(PARTLY_WRITTEN.replace("int n, int m", "long n, long m"))
    moves = {t.array.name: t.covered and frozenset(t.covered.split(" && "))
             for t in transfers(prog, layouts(prog.scop), "dev_")}
    assert moves == {"A": None, "T": {"n >= 20", "m >= 30"}, "y": {"n >= 20"}}
    n, m = Expr.id_("n"), Expr.id_("m")
    longs = {"n": (-2**63, 2**63 - 1), "m": (-2**63, 2**63 - 1)}
    ints = {"n": (-2**31, 2**31 - 1), "m": (-2**31, 2**31 - 1)}
    near_end = Expr("ge", (Expr("add", (Expr("sub", (Expr.int_(2**63 - 2), m)), n)),
                           Expr.int_(0)))
    assert not exact_in_c(near_end, longs, wide_names=True)
    assert exact_in_c(Expr("ge", (n, Expr.int_(20))), longs, wide_names=True)
    assert not exact_in_c(Expr("ge", (n, Expr.int_(2**64 - 4))), longs, wide_names=True)
    # two ints summed in int overflow; in long long (a long parameter beside) they do not
    total = Expr("ge", (Expr("add", (n, m)), Expr.int_(5)))
    assert not exact_in_c(total, ints, wide_names=False)
    assert exact_in_c(total, ints, wide_names=True)
    # polycu_floord(n, 8) negates a negative n: LLONG_MIN has no negation
    floor = Expr("fdiv_q", (n, Expr.int_(8)))
    assert exact_in_c(floor, ints, wide_names=True)
    assert not exact_in_c(floor, longs, wide_names=True)


def test_a_comparison_with_a_constant_beyond_long_long_is_computed_in_128_bits() -> None:
    # fuzz seed 5631513: a kernel guard n + 18446744073709551612 >= 2 * m (long m)
    n, m = Expr.id_("n"), Expr.id_("m")
    guard = Expr("ge", (Expr("add", (n, Expr.int_(2**64 - 4))), Expr("mul", (Expr.int_(2), m))))
    text = c_expr(guard, host=True)
    assert "polycu_i128" in text and not re.search(r"\d{19}", text)
    for nv, mv in [(1, 2**63 - 1), (3, 2**63 - 1), (-5, -2**63), (0, 2**62)]:
        assert evaluate(text, {"n": nv, "m": mv}) == int(nv + 2**64 - 4 >= 2 * mv)
    below = c_expr(Expr("lt", (m, Expr.int_(-2**64 - 7))), host=True)
    assert evaluate(below, {"m": -2**63}) == 0
    # LLONG_MIN beside a sum: its literal is the negation-free one
    lowest = c_expr(Expr("ge", (Expr("add", (m, n)), Expr.int_(-2**63))), host=True)
    assert "(-9223372036854775807LL - 1)" in lowest
    assert evaluate(lowest, {"m": -2**63, "n": -1}) == 0
    # CUDA's min and max have no 128-bit overloads: conditionals instead
    text = c_expr(Expr("ge", (Expr("max", (n, m)), Expr.int_(2**63))))
    assert "max(" not in text and evaluate(text, {"n": 2**63 - 1, "m": 5}) == 0
    # a sum with a constant near the ends of long long, as an assumption of seed
    # 5631513 has (n <= m + 9223372036854775806), overflows in 64 bits for m > 1:
    # computed in 128 bits too; a bare comparison with such a constant is exact
    near = c_expr(Expr("ge", (Expr("add", (m, Expr.int_(2**63 - 2))), n)), host=True)
    assert "polycu_i128" in near and evaluate(near, {"n": 2, "m": 12}) == 1
    assert c_expr(Expr("le", (m, Expr.int_(2**63 - 2))), host=True) == \
        "m <= 9223372036854775806LL"
    # a value with such a constant (a bound, a subscript) stays literal's error, which
    # codegen locates (fuzz seed 5632027)
    with pytest.raises(OverflowError):
        c_expr(Expr("add", (n, Expr.int_(2**64))), host=True)
