"""Parameter cases (polycu/codegen/cases.py): a domain whose unsigned bound wrapped
gets its code built once per parameter range (fuzz seed 5607087, whose kernel ran
2^26 empty tiles a thread at n = 11; its program is the reproducer
tests/data/fuzz_repro/emulate_timeout_wrapped_unsigned_bound.c)."""
from __future__ import annotations

import islpy as isl

import polycu
from polycu.codegen.ast import host_ast, kernel_ast
from polycu.codegen.cases import parameter_cases
from polycu.codegen.nodes import Expr, For, If, Node, User
from polycu.driver import program_of
from polycu.options import Options

CONTEXT = isl.Set("[n] -> { : -2147483648 <= n <= 2147483647 }")


def test_a_wrapped_bound_splits_the_parameters():
    domain = isl.Set("[n] -> { S[k] : (n >= 2 and 0 <= k <= n - 2) or "
                     "(n <= 0 and 0 <= k <= 4294967294 + n) }")
    cases = parameter_cases([domain], CONTEXT)
    expected = [isl.Set("[n] -> { : 2 <= n <= 2147483647 }"),
                isl.Set("[n] -> { : -2147483648 <= n <= 0 }")]
    assert sorted(map(str, cases)) == sorted(map(str, expected))
    assert all(any(c.is_equal(e) for c in cases) for e in expected)


def test_other_disjunctions_keep_one_ast():
    # the same shape without a wrapped constant: the edge values are no case apart
    domain = isl.Set("[n] -> { S[k] : (n >= 2 and 0 <= k <= n - 2) or (n <= 0 and 0 <= k <= 5) }")
    assert parameter_cases([domain], CONTEXT) == [CONTEXT]
    # a wrapped piece whose parameters are those of the other: nothing to split
    both = isl.Set("[n] -> { S[k] : (n >= 0 and 0 <= k <= n) or (n >= 0 and k = 4294967296) }")
    assert parameter_cases([both], CONTEXT) == [CONTEXT]


SOURCE = """
void f(int n, double A[100][64]) {
#pragma scop
  for (unsigned t = 0; t < n - 1; t++)
    for (int i = 0; i < 64; i++)
      A[t % 100][i] = A[(t + 1) % 100][i] * 0.5 + i;
#pragma endscop
}
"""


def constants(node: Node | Expr | None) -> set[int]:
    """Every integer constant in the loop bounds and conditions of ``node``."""
    if node is None:
        return set()
    if isinstance(node, Expr):
        return {int(node.value)} if node.op == "int" else \
            set().union(*(constants(a) for a in node.args))
    if isinstance(node, For):
        return constants(node.init) | constants(node.upper) | constants(node.body)
    if isinstance(node, If):
        return constants(node.cond) | constants(node.then) | constants(node.else_)
    children = getattr(node, "children", ())
    return set().union(*(constants(c) for c in children))


def test_host_and_kernel_code_for_each_case():
    scop = polycu.load_text(SOURCE, "f.c")[0]
    program = program_of(scop, Options(run_on="gpu"))
    # host: if (n >= 2) launch; else if (n <= 0 && ...) launch
    host = host_ast(program)
    assert isinstance(host, If) and isinstance(host.else_, If) and host.else_.else_ is None
    assert isinstance(host.then, User) and isinstance(host.else_.then, User)
    # each thread's t loop: up to n - 2 where n >= 2, up to 2^32 + n - 2 where n <= 0
    (kernel,) = program.kernels
    code = kernel_ast(program, kernel)
    assert isinstance(code, If) and str(code.cond) == str(host.cond)
    assert isinstance(code.then, For) and isinstance(code.else_, If)
    assert max(constants(code.then)) < 2 ** 31 and 2 ** 32 - 2 in constants(code.else_)
