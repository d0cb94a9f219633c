"""isl's AST builder can drop instances; polycu checks that every AST it builds runs
each instance once (polycu/codegen/coverage.py) and falls back to the next
schedule."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polycu
from polycu.codegen.coverage import WrongAst, check_leaves, covered
from polycu.diagnostics import Reporter
from polycu.driver import program_of
from polycu.options import Options
from polycu.runtime.emulate import emulate_file

ROOT = Path(__file__).resolve().parent.parent
REPRO = ROOT / "tests/data/fuzz_repro/codegen_isl_ast_misses_instances.c"

# One thread (b0, t0) of fuzz seed 1600081's kernel, for n >= 3: j takes the values
# n - 3 and n - 1 (j + n odd), and 4i - j is fixed by the thread modulo 32.  isl's
# AST runs j = n - 1 only; with n fixed to 10 in the context it runs both.
SCHEDULE = ("[n, b0, t0] -> { S2[i, j] -> [-1 + 4i - j, -j, 0, 2 - i + j] : n >= 3 and "
            "(1 + n + j) mod 2 = 0 and (1 + t0 - 4i + j) mod 32 = 0 and 0 <= i <= 5 and "
            "n - 3 <= j < n and -1 + n - 32b0 - t0 + 4i <= j <= 30 + n - 32b0 - t0 + 4i }")
CONTEXT = "[n, b0, t0] -> { : n >= 3 and b0 >= 0 and 0 <= t0 <= 31 }"


def schedule_of(text: str) -> isl.Schedule:
    order = isl.UnionMap(text)
    return isl.Schedule.from_domain(order.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(order))


def test_an_ast_that_misses_instances_is_refused():
    context = isl.Set(CONTEXT)
    with pytest.raises(WrongAst) as lost:
        covered(isl.AstBuild.from_context(context), schedule_of(SCHEDULE), context)
    # thread (1, 0) at n = 10 runs S2[2, 7] (4i - j = 1 mod 32) and nothing else
    thread = "n = 10 and b0 = 1 and t0 = 0"
    missing = lost.value.missing.intersect_params(isl.Set(f"[n, b0, t0] -> {{ : {thread} }}"))
    assert missing.is_equal(isl.UnionSet(f"[n, b0, t0] -> {{ S2[2, 7] : {thread} }}"))
    assert lost.value.repeated.is_empty()
    # the same schedule for n = 10 alone: isl's AST is complete and passes
    ten = context.intersect(isl.Set("[n, b0, t0] -> { : n = 10 }"))
    node = covered(isl.AstBuild.from_context(ten), schedule_of(SCHEDULE), ten)
    assert "S2(" in node.to_C_str()


def test_leaves_must_partition_the_domain():
    domain = isl.UnionSet("[n] -> { S[i] : 0 <= i < n; T[i] : 0 <= i < n }")
    context = isl.Set("[n] -> { : n >= 1 }")
    halves = [isl.UnionSet("[n] -> { S[i] : 0 <= i < n and i <= 4 }"),
              isl.UnionSet("[n] -> { S[i] : 5 <= i < n }"),
              isl.UnionSet("[n] -> { T[i] : 0 <= i < n }")]
    check_leaves(halves, domain, context)
    with pytest.raises(WrongAst) as wrong:          # S[4] twice
        check_leaves(halves + [isl.UnionSet("[n] -> { S[4] : n >= 5 }")], domain, context)
    assert wrong.value.missing.is_empty()
    assert wrong.value.repeated.is_equal(isl.UnionSet("[n] -> { S[4] : n >= 5 }"))
    with pytest.raises(WrongAst) as wrong:          # T never runs
        check_leaves(halves[:2], domain, context)
    assert wrong.value.missing.is_equal(isl.UnionSet("[n] -> { T[i] : 0 <= i < n }"))
    # only the instances inside the context count
    check_leaves(halves, domain, isl.Set("[n] -> { : n >= 7 }"))


def test_the_leaf_callback_still_annotates_and_its_errors_surface():
    context = isl.Set("[n] -> { : n >= 0 }")
    schedule = schedule_of("[n] -> { S[i] -> [i] : 0 <= i < n }")
    seen = []

    def at(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        seen.append(str(build.get_schedule()))
        return node

    covered(isl.AstBuild.from_context(context), schedule, context, at)
    assert len(seen) == 1 and "0 <= i < n" in seen[0]

    def broken(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        raise ValueError("inside the callback")

    with pytest.raises(ValueError, match="inside the callback"):
        covered(isl.AstBuild.from_context(context), schedule, context, broken)


def test_the_driver_takes_the_next_schedule_and_the_program_matches(capsys):
    reporter = Reporter()
    scop = polycu.load(str(REPRO))[0]
    program = program_of(scop, Options(), reporter)
    notes = [d.message for d in reporter.diagnostics]
    assert any("misses statement instances" in m and "isl-smartfuse" in m for m in notes)
    assert program.asts is not None
    for n in (4, 5):
        (report,) = emulate_file(str(REPRO), Options(), params={"n": n}, seed=3)
        assert report.ok, report.format()
