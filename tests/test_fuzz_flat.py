"""The differential tester's flat arrays (``polycu/fuzz/flat.py``): from seed
FLAT_FROM on, some arrays of two or three dimensions are passed as ``T *A`` with a
stride parameter per inner dimension and linearised subscripts; from POINTER_FROM
on, some of those references are written through pointers, from ALIAS_FROM on
through a second name of the array declared before the SCoP, and from STRUCT_FROM on
through a structure that holds the array and its strides.

Checked here: the seeds before FLAT_FROM keep their programs, the forms appear, the
programs are valid C whose printed integers are the interpreter's, the strides are
read back from the text (``stride_values``: ``polycu emulate`` falls back on the
program's own values), ``--only`` selects by feature, and (slow) programs through
every stage but the GPU.
"""
from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

import numpy as np
import pytest
from test_fuzz_integers import predicted_integers

from polycu.fuzz.campaign import select_seeds
from polycu.fuzz.features import features
from polycu.fuzz.flat import (ALIAS_FROM, FLAT_FROM, POINTER_FROM, STRUCT_FROM, stride_values,
                              strides)
from polycu.fuzz.generate import generate
from polycu.fuzz.run import run_file

#: sha256 (first 20 hex digits) of seeds' texts as the generator of session 39
#: (e6a4671) emitted them
OLD_TEXTS = {5623500: "6c931e80f015af886604", 5623999: "e4c5480dfda4d206db95"}
#: ... and flat seeds before POINTER_FROM as the generator of session 40 (fdbaee8) did
FLAT_TEXTS = {5627340: "6003d9bf0b9ad9ba6679", 5630700: "454ecc417b396564b935",
              # pointer forms, as the generator of session 41 before aliases (6978541)
              5631009: "6cee4a7a6630f3d785a5", 5631012: "01e39313d463350508cb",
              # second names, as the generator of e75db60 emitted them
              5635006: "281efbfdcaf08fb981a7", 5635007: "670baf879f14fef7b6a4"}


def test_seeds_before_flat_arrays_keep_their_programs() -> None:
    for seed, digest in OLD_TEXTS.items():
        fin = generate(seed)
        assert hashlib.sha256(fin.text.encode()).hexdigest()[:20] == digest, seed
        assert "array:flat" not in features(fin)


def test_flat_seeds_before_pointer_forms_keep_their_programs() -> None:
    for seed, digest in FLAT_TEXTS.items():
        fin = generate(seed)
        assert hashlib.sha256(fin.text.encode()).hexdigest()[:20] == digest, seed
        assert seed >= ALIAS_FROM or "array:alias" not in features(fin)
        assert "array:struct" not in features(fin)
        assert seed >= POINTER_FROM or "subscript:pointer" not in features(fin)


def test_pointer_forms_appear() -> None:
    seeds = select_seeds(POINTER_FROM, 200, "subscript:pointer")
    assert 10 <= len(seeds) <= 80
    joined = "\n".join(generate(s).text for s in seeds)
    assert re.search(r"\(\*\(\w+ \+ ", joined)                       # *(A + o)
    assert re.search(r"\(\w+ \+ \(ld1_\w+ \* [^;]*\)\[", joined)     # (A + ld1 * s0)[s1]


def test_only_selects_the_flat_seeds_and_every_form_appears() -> None:
    seeds = select_seeds(FLAT_FROM, 300, "array:flat")
    assert 15 <= len(seeds) <= 90           # about one program in eight
    texts = [generate(s).text for s in seeds]
    assert all(re.search(r" ld1_\w+[,)]", t) for t in texts)
    joined = "\n".join(texts)
    assert re.search(r"\(ld1_\w+ \* ", joined)                  # ld1 * s0
    assert re.search(r"\* ld1_\w+\) \* ld2_", joined)           # s0 * ld1 * ld2
    assert re.search(r"\) \* ld2_\w+\) \+", joined)             # (s0 * ld1 + s1) * ld2
    assert re.search(r"\(\w+ \*\) \w+[,)]", joined)             # main passes (T *) A


def test_second_names_appear_before_the_scop() -> None:
    seeds = select_seeds(ALIAS_FROM, 200, "array:alias")
    assert 5 <= len(seeds) <= 60
    texts = [generate(s).text for s in seeds]
    used = 0
    for text in texts:
        head, scop = text.split("\n  for", 1) if "#pragma scop" not in text else \
            text.split("#pragma scop", 1)
        names = re.findall(r"\n  \w+ \*(\w+_at) = (\w+) \+ [013];", head)
        assert names
        used += sum(alias in scop for alias, _ in names)
    assert used >= len(texts) // 2        # most second names have references
    assert re.search(r"\w+_at\[[^;]* - [13]\]", "\n".join(texts))        # A_at[o - c]


def test_structures_hold_flat_arrays_and_their_strides() -> None:
    seeds = select_seeds(STRUCT_FROM, 400, "array:struct")
    assert 5 <= len(seeds) <= 80
    joined = "\n".join(generate(s).text for s in seeds)
    assert re.search(r"typedef struct \{ (?:int|long) ld1; [\w ]+ \*data; \} mat_\w+;", joined)
    assert re.search(r"\w+_m\.data\[[^;]*\w+_m\.ld1", joined)          # A_m.data[... A_m.ld1
    assert re.search(r"mat_\w+ \*\w+_m_p = &\w+_m;", joined)
    assert re.search(r"\w+_m_p->data\[[^;]*\w+_m_p->ld1", joined)


@pytest.mark.parametrize("start, feature", [(FLAT_FROM, "array:flat"),
                                            (POINTER_FROM, "subscript:pointer"),
                                            (ALIAS_FROM, "array:alias"),
                                            (STRUCT_FROM, "array:struct")])
def test_flat_programs_are_valid_and_the_interpreter_agrees_with_gcc(
        printed_by_gcc, start: int, feature: str) -> None:
    compared = 0
    for seed in select_seeds(start, 120, feature)[:6]:
        fin = generate(seed)
        wrap = random.Random(f"polycu-fuzz-wrap:{seed}").random() < 1 / 6   # as emitted
        flat = strides(fin, wrap)
        drawn = {name: value for found in flat.values() for name, _, value in found}
        assert drawn and stride_values(fin.text) == drawn
        printed = printed_by_gcc(fin.text, f"p{seed}")
        for name, (ctype, values) in predicted_integers(fin).items():
            if name in flat:            # printed with its padding columns: drop them
                padded = [fin.extents[name][0]] + [v for _, _, v in flat[name]]
                rows = np.array(printed[name][1], dtype=object).reshape(padded)
                logical = rows[tuple(slice(0, e) for e in fin.extents[name])]
                assert list(logical.flatten()) == values, (seed, name)
            else:
                assert printed[name] == (ctype, values), (seed, name)
            compared += 1
    assert compared >= 3


@pytest.mark.slow
def test_flat_programs_match_gcc(tmp_path: Path) -> None:
    """Through polycu (read as rows), its emulation header, nvcc and ``polycu emulate``
    (seed 5627340: no chosen parameters keep its columns in their rows, so the
    emulation runs at the program's own values, strides included)."""
    for seed in (5627340, 5624002, 5624033):
        path = tmp_path / f"{seed}.c"
        path.write_text(generate(seed).text)
        out = run_file(path, tmp_path / str(seed), gpu=False)
        assert out.cls == "match", (seed, out.cls, out.stage, out.key, out.detail)
