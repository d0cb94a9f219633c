"""Data-dependent conditions in the differential tester (session 39:
``polycu/fuzz/guards.py``): the seeds from 5,622,000 on put statements under
conditions on data, those from 5,623,000 on also count loops with data, in valid C
free of undefined behaviour whose integers the interpreter predicts (it decides
integer conditions as C does and runs both branches of a floating one, whose
statements write no integer), polycu's code for them matches gcc's, and the seeds
before keep their programs."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from polycu.fuzz import features, generate
from polycu.fuzz.emit import has_index_array
from polycu.fuzz.guards import GUARDS_FROM, LOOPS_FROM
from polycu.fuzz.interpret import Machine, predicted_integers
from polycu.fuzz.program import Program
from polycu.fuzz.run import run_file

#: sha256 (first 20 hex digits) of the text of seeds from before GUARDS_FROM, as the
#: generator of session 38 (05faa49) emitted them
OLD_TEXTS = {7: "6d9f19f4c882779ea8da", 5400004: "365df2253ae00a5a2f48",
             5610005: "048b69ede0fe30ce986b", 5621040: "70fded61383d3016788c",
             5621999: "c84760ac0c396e8094ae"}
#: seeds of the guards' campaigns, before LOOPS_FROM: as this session's first
#: generator of guards emitted them (after the branches not taken were recorded)
GUARD_TEXTS = {5622009: "6adc31f9253c6369b5d4", 5622249: "34d84874900f5d3771ec",
               5622999: "516092014ef6c91e7ff5"}


def _guards(nodes: list[dict]) -> list[dict]:
    out = []
    for node in nodes:
        if node["k"] == "if":
            out += [node] if node.get("data") else []
            out += _guards(node["then"]) + _guards(node.get("else") or [])
        elif node["k"] == "for":
            out += _guards(node["body"])
    return out


def test_old_seeds_keep_their_programs() -> None:
    for seed, digest in OLD_TEXTS.items():
        fin = generate(seed)
        assert hashlib.sha256(fin.text.encode()).hexdigest()[:20] == digest, seed
        assert "guard:data" not in features(fin)


def test_the_campaigns_seeds_keep_their_programs() -> None:
    for seed, digest in GUARD_TEXTS.items():
        fin = generate(seed)
        assert hashlib.sha256(fin.text.encode()).hexdigest()[:20] == digest, seed
        assert "loop:data" not in features(fin)


def test_loops_on_data_from_their_first_seed_on() -> None:
    """About one loop in seven inside loops counts with data, innermost, with a
    counter of its own; the emulation's random inputs do not apply to them."""
    forms = set()
    for seed in range(LOOPS_FROM, LOOPS_FROM + 60):
        fin = generate(seed)
        loops = [n for n in _all(fin.program.body) if n["k"] == "for" and n.get("data")]
        for loop in loops:
            assert not any(n["k"] == "for" for n in _all(loop["body"]))
            assert loop["var"].startswith("q") and loop["type"] == "int"
            forms.add(loop["cond"][0])
        assert has_index_array(fin.text) == bool(loops) or \
            any(a.get("index") for a in fin.program.arrays)
    assert forms == {"cmp", "and"}


def _all(nodes: list[dict]) -> list[dict]:
    out = []
    for node in nodes:
        out.append(node)
        if node["k"] == "for":
            out += _all(node["body"])
        elif node["k"] == "if":
            out += _all(node["then"]) + _all(node.get("else") or [])
    return out


def test_new_seeds_cover_every_form() -> None:
    """Floating and integer conditions, with else, negated, joined with an affine
    guard, and the running extreme whose condition reads what it may write."""
    seen: set[str] = set()
    for seed in range(GUARDS_FROM, GUARDS_FROM + 80):
        for guard in _guards(generate(seed).program.body):
            cond = guard["cond"]
            seen.add(cond[0])
            if guard.get("else"):
                seen.add("else")
            stmt = guard["then"][0]
            if cond[0] == "cmp" and stmt["lhs"][0] == "var" and cond[3] == stmt["lhs"]:
                seen.add("extreme")
    assert {"cmp", "and", "or", "not", "else", "extreme"} <= seen, seen


def _program(body: list[dict]) -> Program:
    return Program(0, [{"name": "n", "type": "int", "value": 4}],
                   [{"name": "X", "type": "int", "ndim": 1, "kind": "fixed",
                     "init": {"k": 0, "a": [1], "m": 1000, "scale": 1}},
                    {"name": "D", "type": "double", "ndim": 1, "kind": "fixed",
                     "init": {"k": 0, "a": [1], "m": 7, "scale": 0.5}}],
                   [{"name": "s", "type": "double", "kind": "global", "init": 0.0}], body)


def test_the_interpreter_decides_integer_conditions_as_c_does() -> None:
    """X[i] = i: ``X[i] - 2 < 0u`` compares unsigned values (never true), yet the
    subscripts of its branch are recorded; ``X[i] >= 2`` takes C's branch; a floating
    condition runs both branches, and an integer written under one is the
    generator's error."""
    def loop(body: list[dict]) -> list[dict]:
        return [{"k": "for", "var": "i", "type": "int", "lb": ["num", "int", 0],
                 "cond": ["cmp", "<", ["var", "i"], ["var", "n"]], "step": 1, "body": body}]
    xi = ["ref", "X", [["var", "i"]]]
    bump = {"k": "stmt", "lhs": xi, "op": "+=", "rhs": ["num", "int", 10]}
    beyond = {"k": "stmt", "lhs": ["ref", "X", [["bin", "+", ["var", "i"], ["num", "int", 5]]]],
              "op": "+=", "rhs": ["num", "int", 10]}
    unsigned = {"k": "if", "data": True, "then": [beyond], "else": None,
                "cond": ["cmp", "<", ["bin", "-", xi, ["num", "int", 2]], ["num", "unsigned", 0]]}
    m = Machine(_program([]))
    m.run(loop([unsigned]))
    # never taken, but polycu's model reads and may write X[i + 5]: recorded, so sized
    assert [m.load(("ref", "X", (i,))) for i in range(9)] == list(range(9))
    assert m.hi["X"] == [8]
    signed = dict(unsigned, then=[bump], cond=["cmp", ">=", xi, ["num", "int", 2]],
                  **{"else": [dict(bump, op="-=")]})
    m = Machine(_program([]))
    m.run(loop([signed]))
    assert [m.load(("ref", "X", (i,))) for i in range(4)] == [-10, -9, 12, 13]
    floating = {"k": "if", "data": True, "cond": ["cmp", ">", ["ref", "D", [["var", "i"]]],
                                                   ["var", "s"]],
                "then": [{"k": "stmt", "lhs": ["var", "s"], "op": "=",
                          "rhs": ["ref", "D", [["bin", "+", ["var", "i"], ["num", "int", 1]]]]}],
                "else": None}
    m = Machine(_program([]))
    m.run(loop([floating]))
    assert m.hi["D"] == [4] and m.steps == 4 + 1 + 4
    with pytest.raises(AssertionError, match="integer written under a floating condition"):
        Machine(_program([])).run(loop([dict(floating, then=[bump])]))


def _seeds_with(feature: str, first: int, count: int) -> list[int]:
    seeds = []
    for seed in range(first, first + 200):
        has = features(generate(seed))
        if feature in has and "dialect:automatic" not in has:
            seeds.append(seed)
        if len(seeds) == count:
            break
    return seeds


def test_programs_with_guards_are_valid_and_the_interpreter_agrees_with_gcc(printed_by_gcc
                                                                           ) -> None:
    """Programs with data-dependent conditions and loops build with -Wall
    -pedantic-errors and under -fsanitize=undefined, run clean, and print the
    integers the interpreter computes."""
    compared = 0
    for seed in _seeds_with("guard:data", GUARDS_FROM, 6) + _seeds_with("loop:data", LOOPS_FROM, 6):
        fin = generate(seed)
        printed = printed_by_gcc(fin.text, f"p{seed}")
        for name, block in predicted_integers(fin).items():
            assert printed[name] == block, (seed, name)
            compared += 1
    assert compared >= 5


@pytest.mark.slow
def test_programs_with_guards_match_gcc(tmp_path: Path) -> None:
    """Such programs (a guard, a loop on data) through polycu, its emulation header,
    nvcc and ``polycu emulate``: every stage matches (no GPU needed)."""
    for seed in _seeds_with("guard:data", GUARDS_FROM, 1) + _seeds_with("loop:data", LOOPS_FROM, 1):
        path = tmp_path / f"{seed}.c"
        path.write_text(generate(seed).text)
        out = run_file(path, tmp_path / str(seed), gpu=False)
        assert out.cls == "match", (seed, out.cls, out.stage, out.key, out.detail)
