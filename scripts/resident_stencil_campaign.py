"""A campaign of random resident stencils: the generator of tests/test_resident_random.py
over fresh seeds, compiled with --resident-grid (and any --resident-sync), emulated
against gcc; one line a seed (match or MISMATCH, resident or launches), failures in full.

    .venv/bin/python scripts/resident_stencil_campaign.py FIRST COUNT [SYNC [BLOCKS]] [--gpu]

With ``--gpu`` the kernels run on the GPU (``polycu check``: a real cooperative launch,
the flags and barriers of the CUDA helpers) instead of in the emulation.

The fuzz campaigns (scripts/fuzz.py) rarely make a program whose launches a resident
grid can take, so this is where the resident code paths meet random programs."""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_resident_random import stencil  # noqa: E402

from polycu.diagnostics import PolycuError  # noqa: E402
from polycu.options import Options  # noqa: E402
from polycu.runtime.check import check_file  # noqa: E402
from polycu.runtime.compiled import compile_program  # noqa: E402
from polycu.runtime.emulate import emulate_generated  # noqa: E402


def main(argv: list[str]) -> int:
    gpu = "--gpu" in argv
    argv = [a for a in argv if a != "--gpu"]
    first, count = int(argv[0]), int(argv[1])
    sync = argv[2] if len(argv) > 2 else "grid"
    blocks = int(argv[3]) if len(argv) > 3 else 4
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for seed in range(first, first + count):
            start = time.time()
            path = Path(work) / f"stencil_{seed}.c"
            path.write_text(stencil(seed))
            options = Options(run_on="gpu", resident_grid=True, resident_blocks=blocks,
                              resident_sync=sync, single_block=False, relayout=False)
            try:
                compiled = compile_program(str(path), options)
                reports = check_file(str(path), options, seed=seed) if gpu else \
                    emulate_generated(compiled.scops, compiled.description, seed=seed,
                                      nvcc=False)
            except PolycuError as error:
                failed += 1
                print(seed, "ERROR", error, flush=True)
                continue
            (entry,) = compiled.description["scops"]
            resident = any(k.get("resident") for k in entry["kernels"])
            ok = bool(reports) and all(r.ok for r in reports)
            failed += not ok
            print(seed, "match" if ok else "MISMATCH", "resident" if resident else "launches",
                  f"{time.time() - start:.1f} s", flush=True)
            if not ok:
                print(stencil(seed), "\n".join(r.format() for r in reports), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
