"""Random stencils as resident grids (--resident-grid): seeded programs of a time loop
whose phases each write one array from shifted reads of the others (halos up to two
rows, columns shifted too, double, float, int and long elements, a read-only array
sometimes), emulated against gcc with the bands on chip (planned for the emulated
device's 4 blocks) and over device memory (planned for 7).  A program the plan
refuses keeps its launches and must match too; most must be resident."""
from __future__ import annotations

import random
import shutil

import pytest

from polycu.options import Options
from polycu.runtime.compiled import compile_program
from polycu.runtime.emulate import emulate_generated

SEEDS = range(2900, 2908)


def stencil(seed: int) -> str:
    """The C text of random stencil ``seed``."""
    rng = random.Random(seed)
    ctype = rng.choice(["double", "float", "int", "long"])
    rows, cols = rng.randint(12, 40), rng.randint(3, 24)
    names = ["A", "B", "C"][:rng.randint(2, 3)]
    read_only = rng.random() < 0.5
    params = ", ".join(f"{ctype} {n}[{rows}][{cols}]" for n in names)
    if read_only:
        params += f", const {ctype} R[{rows}][{cols}]"
    sources = names + (["R"] if read_only else [])
    lines = [f"void f(int T, {params})", "{", "#pragma scop",
             "  for (int t = 0; t < T; t++) {"]
    for target in names:
        terms = []
        for _ in range(rng.randint(2, 4)):
            array = rng.choice([n for n in sources if n != target])
            di, dj = rng.randint(-2, 2), rng.randint(-1, 1)
            i = f"i + {di}" if di > 0 else f"i - {-di}" if di < 0 else "i"
            j = f"j + {dj}" if dj > 0 else f"j - {-dj}" if dj < 0 else "j"
            weight = rng.choice(["1", "2", "3"]) if ctype in ("int", "long") \
                else rng.choice(["0.5", "0.25", "0.125"]) + ("f" if ctype == "float" else "")
            terms.append(f"{weight} * {array}[{i}][{j}]")
        body = " + ".join(terms)
        if ctype in ("int", "long"):
            body = f"({body}) % 1009 - t"
        lines += [f"    for (int i = 2; i < {rows - 2}; i++)",
                  f"      for (int j = 1; j < {cols - 1}; j++)",
                  f"        {target}[i][j] = {body};"]
    return "\n".join(lines + ["  }", "#pragma endscop", "}", ""])


@pytest.mark.parametrize("blocks", [4, 7])
def test_random_stencils(tmp_path, blocks: int) -> None:
    resident = 0
    for seed in SEEDS:
        path = tmp_path / f"stencil_{seed}.c"
        path.write_text(stencil(seed))
        options = Options(run_on="gpu", resident_grid=True, resident_blocks=blocks,
                          single_block=False, relayout=False)
        compiled = compile_program(str(path), options)
        (entry,) = compiled.description["scops"]
        resident += any(k.get("resident") for k in entry["kernels"])
        reports = emulate_generated(compiled.scops, compiled.description, seed=seed,
                                    nvcc=shutil.which("nvcc") is not None and seed == SEEDS[0])
        assert reports and all(r.ok for r in reports), \
            f"seed {seed}:\n{stencil(seed)}\n" + "\n".join(r.format() for r in reports)
    assert resident >= len(SEEDS) // 2, f"{resident} of {len(SEEDS)} resident"
