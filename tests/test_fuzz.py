"""The differential tester (polycu/fuzz, docs/fuzz.md): its generator is deterministic,
its programs are valid C99 free of undefined behaviour and cover what issue 10
lists; its comparison and classification rules; its minimiser; and a fixed set of
seeds and the saved reproducers run end to end (gcc, polycu, the CPU emulation,
nvcc where installed, polycu emulate)."""
from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import polycu
from polycu.fuzz import features, generate
from polycu.fuzz.campaign import run_campaign
from polycu.fuzz.contraction import AFTER_FROM, FIRST_SEED, is_contraction_seed
from polycu.fuzz.dialect import dialect
from polycu.fuzz.emit import emit_program, program_of_text
from polycu.fuzz.finalise import finalise
from polycu.fuzz.interpret import Machine, init_value
from polycu.fuzz.generate import Generator
from polycu.fuzz.names import respelled
from polycu.fuzz.program import INT_TYPES, Invalid, Program
from polycu.fuzz.minimise import minimise, size
from polycu.fuzz.outputs import compare_outputs, parse_output
from polycu.fuzz.gpu import NUDGE, gpu_present
from polycu.fuzz.run import FAILURES, LOCATED, Timeouts, blur, run_file, traceback_key
from polycu.fuzz.structure import DATA_FROM, Structure
from polycu.fuzz.tree import physical

REPRO_DIR = Path(__file__).resolve().parent / "data" / "fuzz_repro"
#: seeds run end to end in CI (about a minute with two workers): quick ones of the
#: fuzz run of docs/fuzz.md that together cover most constructs, two rejections
CI_SEEDS = (1011, 1013, 1016, 1029, 1031, 1033, 1040, 1041, 1052, 1053, 1060,
            5400004,      # a contraction nest on the tensor cores (fuzz/contraction.py)
            5400038)      # a data subscript, A[C[i] % 3] (structure.index_expr)


def _gcc(source: Path, exe: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["gcc", "-std=c99", "-O1", "-ffp-contract=off", *flags, str(source),
                           "-lm", "-o", str(exe)], capture_output=True, text=True, timeout=120)


def _run(exe: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


# -- the generator ----------------------------------------------------------------------

def test_generator_is_deterministic() -> None:
    texts = [generate(seed).text for seed in range(40)]
    assert texts == [generate(seed).text for seed in range(40)]
    assert len(set(texts)) == len(texts)


def test_program_structure_round_trips() -> None:
    for seed in range(20):
        fin = generate(seed)
        program = program_of_text(fin.text)
        assert program is not None
        assert finalise(program).text == fin.text


def test_programs_cover_the_issue() -> None:
    seen: set[str] = set()
    for seed in range(300):
        seen |= features(generate(seed))
    wanted = {f"depth:{d}" for d in range(1, 5)} | {f"stmts:{s}" for s in range(1, 5)}
    wanted |= {f"type:{t}" for t in ("float", "double", "int", "unsigned", "long")}
    wanted |= {f"iter:{t}" for t in ("int", "long", "unsigned")}
    wanted |= {f"ndim:{n}" for n in (1, 2, 3)}
    wanted |= {f"array:{k}" for k in ("fixed", "vla", "global", "pointer")}
    wanted |= {"step:up", "step:down", "step:non-unit", "loop:time", "loop:big-offset",
               "guard", "guard:else", "expr:min", "expr:max", "expr:/", "expr:%", "expr:cond",
               "expr:cast", "let", "scalar:arg", "scalar:global", "scalar:local", "param:zero",
               "param:long", "op:+=", "op:=", "op:*=", "op:++", "call:sqrt", "call:sqrtf",
               "call:pow", "call:abs", "option:--tile-size", "names:reserved",
               "dialect:typedef", "dialect:enum", "dialect:automatic", "subscript:wrap"}
    # (shape:contraction: from seed 5,400,000 on, test_contraction_nests_reach_the_tensor_cores)
    assert wanted <= seen, sorted(wanted - seen)


def test_contraction_nests_reach_the_tensor_cores(tmp_path: Path) -> None:
    """From seed 5,400,000 on, one program in eight is a contraction nest; most are
    run on the FP64 tensor cores, the near misses are not, and the seeds before
    keep their programs."""
    seeds = [s for s in range(FIRST_SEED, FIRST_SEED + 200) if is_contraction_seed(s)]
    assert 12 <= len(seeds) <= 40
    assert not any(is_contraction_seed(s) for s in range(FIRST_SEED - 300, FIRST_SEED))
    tensor = 0
    for seed in seeds[:8]:
        fin = generate(seed)
        assert "shape:contraction" in features(fin)
        path = tmp_path / f"c{seed}.c"
        path.write_text(fin.text)
        cuda = polycu.compile(str(path), polycu.Options(run_on="gpu")).cuda
        tensor += "polycu_mma(" in cuda
    assert 2 <= tensor < 8, tensor


def _after_the_sums(seed: int) -> bool:
    """Whether ``seed``'s contraction nest ends a cell with a statement after its sums."""
    (i_loop,) = generate(seed).program.body
    (j_loop,) = i_loop["body"]
    kinds = [n["k"] for n in j_loop["body"]]
    return kinds.index("for") < len(kinds) - 1


def test_statements_after_the_sums_from_their_first_seed_on(tmp_path: Path) -> None:
    """From AFTER_FROM on, some contraction nests scale or shift each cell after its
    sums (trmm's form, which the recogniser once took for the init); polycu runs
    the sums alone on the tensor cores and the program matches gcc's."""
    before = [s for s in range(AFTER_FROM - 300, AFTER_FROM) if is_contraction_seed(s)]
    assert before and not any(map(_after_the_sums, before))
    seeds = [s for s in range(AFTER_FROM, AFTER_FROM + 300) if is_contraction_seed(s)]
    after = [s for s in seeds if _after_the_sums(s)]
    assert 3 <= len(after) < len(seeds)
    path = tmp_path / f"a{after[0]}.c"
    path.write_text(generate(after[0]).text)
    outcome = run_file(path, tmp_path, stages=("reference", "compile", "build", "run",
                                               "compare"), nvcc=None)
    assert outcome.cls == "match" and not outcome.failures, outcome.detail


def test_data_subscripts_from_their_first_seed_on() -> None:
    """From DATA_FROM on, one seed in six may read subscripts from integer arrays
    (gathers, scatters, ``% c``); the seeds before keep their programs."""
    assert not any(Structure(s, 0).data_subscripts for s in range(DATA_FROM - 300, DATA_FROM))
    seeds = [s for s in range(DATA_FROM, DATA_FROM + 300) if Structure(s, 0).data_subscripts]
    assert 25 <= len(seeds) <= 80
    found = [fin for fin in map(generate, seeds[:30]) if "subscript:data" in features(fin)]
    assert len(found) >= 5
    # an index array holds small values and is read inside another array's subscript
    assert any(re.search(r"\w\[\(*\w+\[[^]]*\]", f.text.split("#pragma scop")[-1])
               for f in found)


def test_reserved_names_change_nothing_but_the_names(tmp_path: Path) -> None:
    """Seed 4200003 spells some names with words isl, C++ or CUDA reserve (``class``,
    ``virtual``, ``dim3``, ``rat``); gcc's build prints the same values as the same
    program under the generator's own names."""
    seed = 4200003
    renamed = next(respelled(Generator(seed, a).program(), a) for a in itertools.count()
                   if _valid(Generator(seed, a).program()))
    fin = generate(seed)
    assert fin.program.to_json() == finalise(renamed).program.to_json()
    plain = finalise(next(Generator(seed, a).program() for a in itertools.count()
                          if _valid(Generator(seed, a).program())))
    assert {"class", "virtual", "dim3"} <= set(_names(fin.program))
    assert not {"class", "virtual", "dim3"} & set(_names(plain.program))
    assert "long rat = " in fin.text and "long rat = " not in plain.text
    outputs = []
    for name, text in (("plain", plain.text), ("renamed", fin.text)):
        source = tmp_path / f"{name}.c"
        source.write_text(text)
        assert _gcc(source, tmp_path / name).returncode == 0
        outputs.append([line if not line.startswith("@ ") else line.split()[2]
                        for line in _run(tmp_path / name).stdout.splitlines()])
    assert outputs[0] == outputs[1] and len(outputs[0]) > 5


def test_dialect_spells_the_same_program(tmp_path: Path) -> None:
    """Typedef names for the types and enumeration constants for the SCoP's ``int``
    literals (the dialect of seed 4300007) change nothing gcc prints."""
    checked = 0
    for seed in range(40):
        plain = generate(seed).text
        if "typedef" in plain or "enum" in plain or "#pragma scop" not in plain:
            continue
        spelled = dialect(plain, 4300007)
        assert "typedef double real;" in spelled and "enum { K_" in spelled
        assert program_of_text(spelled).to_json() == program_of_text(plain).to_json()
        outputs = _printed(tmp_path, seed, plain=plain, spelled=spelled)
        assert outputs[0] == outputs[1]
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_wrapping_subscripts_reach_the_same_elements(tmp_path: Path) -> None:
    """``(s - 3u) + 3u`` for every subscript after the first: gcc prints what it
    prints for the plain subscripts, and only the later subscripts change."""
    checked = 0
    for seed in range(60):
        fin = generate(seed)
        if "typedef" in fin.text or "enum" in fin.text or "#pragma scop" not in fin.text:
            continue
        plain, wrapped = emit_program(fin, wrap=False), emit_program(fin, wrap=True)
        if wrapped == plain:            # no array of two dimensions or more
            continue
        assert " - 3u) + 3u" in wrapped and " - 3u) + 3u" not in plain
        outputs = _printed(tmp_path, seed, plain=plain, wrapped=wrapped)
        assert outputs[0] == outputs[1] and outputs[0]
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def _printed(tmp_path: Path, seed: int, **texts: str) -> list[str]:
    """What gcc's build of each text prints (built with -Wall -pedantic-errors)."""
    outputs = []
    for name, text in texts.items():
        source = tmp_path / f"{name}{seed}.c"
        source.write_text(text)
        assert _gcc(source, tmp_path / name, "-Wall", "-pedantic-errors").returncode == 0
        outputs.append(_run(tmp_path / name).stdout)
    return outputs


def _valid(program: Program) -> bool:
    try:
        finalise(program)
    except Invalid:
        return False
    return True


def _names(program: Program) -> list[str]:
    return [x["name"] for x in program.params + program.arrays + program.scalars] + \
        re.findall(r'"var":"(\w+)"', program.to_json()) + \
        re.findall(r'\["var","(\w+)"\]', program.to_json())


def test_programs_are_valid_c99(tmp_path: Path) -> None:
    for seed in range(12):
        source = tmp_path / f"p{seed}.c"
        source.write_text(generate(seed).text)
        proc = _gcc(source, tmp_path / f"p{seed}", "-Wall", "-pedantic-errors",
                    "-Werror=implicit-function-declaration")
        assert proc.returncode == 0, proc.stderr


def test_programs_run_clean_under_sanitizers(tmp_path: Path) -> None:
    for seed in range(8):
        source = tmp_path / f"p{seed}.c"
        source.write_text(generate(seed).text)
        plain, checked = tmp_path / f"p{seed}", tmp_path / f"p{seed}_san"
        assert _gcc(source, plain).returncode == 0
        proc = _gcc(source, checked, "-fsanitize=undefined,address", "-fno-sanitize-recover=all",
                    "-fno-omit-frame-pointer")
        assert proc.returncode == 0, proc.stderr
        ran = _run(checked)
        assert ran.returncode == 0 and "runtime error" not in ran.stderr, (seed, ran.stderr)
        assert ran.stdout == _run(plain).stdout


def test_interpreter_agrees_with_gcc(tmp_path: Path) -> None:
    """The generator's C interpreter (which rejects undefined behaviour) computes the
    integer results gcc's build prints."""
    checked = 0
    for seed in range(24):
        fin = generate(seed)
        source = tmp_path / f"p{seed}.c"
        source.write_text(fin.text)
        assert _gcc(source, tmp_path / f"p{seed}").returncode == 0
        output = _run(tmp_path / f"p{seed}").stdout
        printed = {name: values for name, _, values in parse_output(output)}
        machine = Machine(fin.program)
        machine.run(physical(fin.program.body))
        for a in fin.program.arrays:
            if a["type"] not in INT_TYPES:
                continue
            shift = fin.shifts[a["name"]]
            expect = []
            for index in itertools.product(*(range(n) for n in fin.extents[a["name"]])):
                logical = tuple(i - s for i, s in zip(index, shift))
                value = machine.values[a["name"]].get(logical)
                if value is None:
                    value = init_value(a["init"], a["type"], logical)
                expect.append(str(value))
            assert expect == printed[a["name"]], (seed, a["name"])
            checked += 1
    assert checked >= 5


def test_interpreter_rejects_undefined_behaviour() -> None:
    program = program_of_text(generate(3).text)
    program.params = [{"name": "n", "type": "int", "value": 5}]
    program.arrays = [{"name": "A", "type": "int", "ndim": 1, "kind": "fixed",
                       "init": {"k": 3, "a": [1], "m": 7, "scale": 1}, "pad": [0]}]
    program.scalars = []
    loop = {"k": "for", "var": "i", "type": "int", "lb": ["num", "int", 0],
            "cond": ["cmp", "<", ["var", "i"], ["var", "n"]], "step": 1, "body": []}
    overflow = {"k": "stmt", "lhs": ["ref", "A", [["num", "int", 0]]], "op": "*=",
                "rhs": ["num", "int", 2147483647]}
    program.body = [dict(loop, body=[overflow])]
    with pytest.raises(Invalid, match="signed overflow"):
        finalise(program)
    endless = dict(loop, cond=["cmp", ">=", ["var", "i"], ["num", "int", 0]], body=[])
    program.body = [endless]
    with pytest.raises(Invalid, match="iterations"):
        finalise(program)


def test_arrays_are_shifted_and_sized() -> None:
    """Negative subscripts are shifted; every array holds every access."""
    program = program_of_text(generate(3).text)
    program.params = [{"name": "n", "type": "int", "value": 4}]
    program.arrays = [{"name": "A", "type": "double", "ndim": 2, "kind": "vla",
                       "init": {"k": 1, "a": [1, 3], "m": 7, "scale": 0.5}, "pad": [0, 0]}]
    program.scalars = []
    i = ["var", "i"]
    i_minus_2, i_plus_1 = ["bin", "-", i, ["num", "int", 2]], ["bin", "+", i, ["num", "int", 1]]
    program.body = [{"k": "for", "var": "i", "type": "int", "lb": ["num", "int", 0],
                     "cond": ["cmp", "<", ["var", "i"], ["var", "n"]], "step": 1,
                     "body": [{"k": "stmt", "op": "=", "lhs": ["ref", "A", [i, i_minus_2]],
                               "rhs": ["ref", "A", [i_plus_1, i]]}]}]
    fin = finalise(program)
    assert fin.shifts["A"] == [0, 2] and fin.extents["A"] == [5, 6]
    assert "A[i][i]" in fin.text and "A[i + 1][i + 2]" in fin.text
    assert "double A[n + 1][n + 2]" in fin.text or "double A[5]" in fin.text or "[6]" in fin.text


# -- comparison and classification --------------------------------------------------------

def test_compare_outputs() -> None:
    def out(type_: str, *values: str) -> str:
        return f"@ A {type_}\n" + "".join(v + "\n" for v in values)
    assert compare_outputs(out("int", "1", "-2"), out("int", "1", "-2")) is None
    assert "1 of 2" in compare_outputs(out("int", "1", "-2"), out("int", "1", "-3"))
    assert compare_outputs(out("double", "1.0000000000001"), out("double", "1")) is None
    assert compare_outputs(out("double", "1.00001"), out("double", "1")) is not None
    assert compare_outputs(out("float", "1.00001"), out("float", "1")) is None
    assert compare_outputs(out("double", "nan", "-inf"), out("double", "-nan", "-inf")) is None
    assert compare_outputs(out("double", "inf"), out("double", "1e308")) is not None
    assert compare_outputs(out("double", "nan"), out("double", "0")) is not None
    # values near zero are judged on the array's scale
    assert compare_outputs(out("double", "1e6", "1e-12"), out("double", "1e6", "-1e-12")) is None
    assert "other arrays" in compare_outputs(out("double", "1"), out("double", "1", "2"))


def test_classification_helpers() -> None:
    text = "x.c:12:5: error: condition 'a[i] > 0' is not affine\nx.c:3:1: note: here"
    m = LOCATED.search(text)
    assert m and m.group("line") == "12" and m.group("col") == "5"
    assert LOCATED.search("x.c: error: no line") is None
    tb = ('Traceback (most recent call last):\n  File "/a/polycu/cli.py", line 3, in main\n'
          '  File "/a/polycu/gpu/mapping.py", line 9, in map_band\nAssertionError: bad\n')
    assert traceback_key(tb) == "AssertionError at gpu/mapping.py:map_band"
    assert blur("array 'A' needs 12 elements in t3") == "array '_' needs N elements in N"


# -- the minimiser --------------------------------------------------------------------

def test_minimiser_keeps_the_property_and_shrinks() -> None:
    def has_modulo(fin) -> bool:
        if "#pragma scop" not in fin.text:      # the automatic dialect
            return False
        scop = fin.text.split("#pragma scop")[1].split("#pragma endscop")[0]
        return "%" in scop
    seed = next(s for s in range(100) if has_modulo(generate(s)) and size(generate(s)) > 900)
    start = generate(seed)
    best = minimise(start.program, has_modulo, max_tests=500)
    assert has_modulo(best)
    assert size(best) < size(start)
    assert best.text.count(";") < start.text.count(";")


# -- end to end: every fixed seed and every reproducer passes ---------------------------------------------

@pytest.mark.slow
def test_fixed_seeds_end_to_end(tmp_path: Path) -> None:
    summary = run_campaign(0, 0, tmp_path, jobs=2, seeds=list(CI_SEEDS), progress=lambda s: None)
    bad = {c: n for c, n in summary["failures_anywhere"].items() if n}
    assert not bad, [g for g in summary["groups"] if g["class"] in FAILURES]
    assert summary["unlocated_rejections"] == 0


REPROS = sorted(REPRO_DIR.glob("*.c"))


@pytest.mark.slow
@pytest.mark.parametrize("source", REPROS, ids=[p.stem for p in REPROS])
def test_reproducer(source: Path, tmp_path: Path) -> None:
    # the slowest reproducer (compile_isl_budget_inside_the_ast_callback) compiles in
    # 61-65 s on CI's two cores (session 34): the limit catches a hang, not a speed
    outcome = run_file(source, tmp_path, timeouts=Timeouts(compile=150.0))
    assert outcome.cls in ("match", "rejection") and not outcome.failures, \
        f"{outcome.cls} ({outcome.stage}): {outcome.detail}"
    if outcome.cls == "rejection":
        assert Path(LOCATED.search(outcome.detail).group("file")).name == source.name


def test_nvcc_is_optional() -> None:
    assert shutil.which("gcc")


# -- the GPU stage ------------------------------------------------------------------------

def _fake_nvcc(tmp_path: Path, script: str) -> str:
    """An ``nvcc`` whose ``-o`` output is the shell script ``script``."""
    fake = tmp_path / "nvcc"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "-o" ]; do shift; done\n'
                    f"cat > \"$2\" <<'END'\n#!/bin/sh\n{script}\nEND\nchmod +x \"$2\"\n")
    fake.chmod(0o755)
    return str(fake)


def test_the_gpu_stage_judges_what_the_gpu_build_prints(tmp_path: Path) -> None:
    """The GPU stage compares what nvcc's build prints with gcc's reference, whatever
    the emulation said: other output, or a run that fails, is a ``gpu`` failure."""
    path = tmp_path / "p.c"
    path.write_text(generate(1011).text)
    stages = ("reference", "compile", "gpu")
    wrong = run_file(path, tmp_path / "a", stages=stages, gpu=True,
                     nvcc=_fake_nvcc(tmp_path, 'echo "@ A double"; echo 1'))
    assert (wrong.cls, wrong.stage, wrong.key) == ("gpu", "gpu", "mismatch")
    assert "other arrays printed" in wrong.detail
    crash = "echo 'out.cu:9: polycu: launch failed' >&2; exit 3"
    failed = run_file(path, tmp_path / "b", stages=stages, gpu=True,
                      nvcc=_fake_nvcc(tmp_path, crash))
    assert (failed.cls, failed.key) == ("gpu", "run: exit N launch failed")
    skipped = run_file(path, tmp_path / "c", stages=stages, gpu=False,
                       nvcc=_fake_nvcc(tmp_path, "exit 3"))
    assert skipped.cls == "match" and "gpu" not in skipped.seconds


def test_a_gpu_failure_gone_without_ptxas_optimiser_is_set_apart(tmp_path: Path) -> None:
    """ptxas -O1 and up may drop a negation fused into a three-way min/max (seed
    5631703): a failure that the build with ``-Xptxas -O0`` does not show is keyed
    ``ptxas:``, still a failure; one it shows too keeps its key."""
    path = tmp_path / "p.c"
    path.write_text(generate(1011).text)
    assert _gcc(path, tmp_path / "ref").returncode == 0
    (tmp_path / "ref.out").write_text(_run(tmp_path / "ref").stdout)
    fake = tmp_path / "nvcc"
    fake.write_text('#!/bin/sh\ncase "$*" in *"-Xptxas -O0"*) good=1;; *) good=0;; esac\n'
                    'while [ "$1" != "-o" ]; do shift; done\n'
                    f'if [ $good = 1 ]; then printf \'#!/bin/sh\\ncat {tmp_path}/ref.out\\n\''
                    ' > "$2"; else printf \'#!/bin/sh\\nexit 3\\n\' > "$2"; fi\n'
                    'chmod +x "$2"\n')
    fake.chmod(0o755)
    stages = ("reference", "compile", "gpu")
    outcome = run_file(path, tmp_path / "a", stages=stages, gpu=True, nvcc=str(fake))
    assert (outcome.cls, outcome.key) == ("gpu", "ptxas: run: exit N")
    both = run_file(path, tmp_path / "b", stages=stages, gpu=True,
                    nvcc=_fake_nvcc(tmp_path, "exit 3"))
    assert (both.cls, both.key) == ("gpu", "run: exit N")


@pytest.mark.gpu
@pytest.mark.skipif(not (shutil.which("nvcc") and gpu_present()), reason="no CUDA GPU")
def test_the_ptxas_min_max_miscompilation_is_told_apart(tmp_path: Path) -> None:
    """Seed 5631703 matches in the emulation and on the GPU built with ptxas -O0; with
    ptxas's optimiser a thread ran past its loop bound (CUDA 13.0, sm_90).  Where
    ptxas is fixed the program matches."""
    path = tmp_path / "p.c"
    path.write_text(generate(5631703).text)
    outcome = run_file(path, tmp_path / "w", stages=("reference", "compile", "gpu"))
    assert outcome.cls == "match" or all(
        f["key"].startswith("ptxas: ") for f in outcome.failures), outcome.log[-3000:]


def test_outputs_that_hang_on_libm_ulps_are_not_judged(tmp_path: Path) -> None:
    """Seed 5621040 feeds cos of a value near 7.5e7 back into its arguments: one ulp of
    cos becomes 2% of an output, so the GPU's libm (2 ulps) printed another value
    than glibc's.  Its reference rebuilt with every cos an ulp off differs from
    itself too, so such a difference is not judged; a program whose output does not
    depend on those ulps is still judged."""
    path = tmp_path / "p.c"
    path.write_text(generate(5621040).text)
    header = tmp_path / "nudge.h"
    header.write_text(NUDGE)
    assert _gcc(path, tmp_path / "nudged", "-include", str(header)).returncode == 0
    nudged = _run(tmp_path / "nudged").stdout
    (tmp_path / "nudged.out").write_text(nudged)
    stages = ("reference", "compile", "gpu")
    outcome = run_file(path, tmp_path / "a", stages=stages, gpu=True,
                       nvcc=_fake_nvcc(tmp_path, f"cat {tmp_path / 'nudged.out'}"))
    assert outcome.cls == "match" and "not judged" in outcome.detail
    wrong = nudged.replace("\n0\n", "\n1\n", 1)
    assert wrong != nudged
    (tmp_path / "wrong.out").write_text(wrong)
    stable = tmp_path / "stable.c"      # the same arrays, no cos: every ulp is judged
    stable.write_text(path.read_text().replace("cos(", "fabs("))
    outcome = run_file(stable, tmp_path / "b", stages=stages, gpu=True,
                       nvcc=_fake_nvcc(tmp_path, f"cat {tmp_path / 'wrong.out'}"))
    assert outcome.cls == "gpu" and outcome.key == "mismatch"


@pytest.mark.gpu
@pytest.mark.skipif(not (shutil.which("nvcc") and gpu_present()), reason="no CUDA GPU")
@pytest.mark.parametrize("seed", [1011, 5400004, 5620001])
def test_seeds_on_the_gpu(seed: int, tmp_path: Path) -> None:
    """A plain nest, a contraction nest on the tensor cores and a program of narrow
    integer types print on the GPU what gcc's build prints."""
    path = tmp_path / f"{seed}.c"
    path.write_text(generate(seed).text)
    outcome = run_file(path, tmp_path / "w", stages=("reference", "compile", "gpu"))
    assert outcome.cls == "match" and "gpu" in outcome.seconds, outcome.log[-3000:]
