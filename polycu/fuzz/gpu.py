"""What the fuzzer's GPU stage needs besides the run itself: whether there is a GPU,
nvcc's flags, and a test of whether a program's output hangs on the last bits of its
math library.

CUDA's ``sin``, ``exp``, ``pow``, ... are accurate to an ulp or two, as glibc's are,
but not the same ulps.  A program that feeds a transcendental value back into a
large argument (``x = c - s * cos(x)`` with ``s`` near 1e8) amplifies one ulp into any
value: the GPU's output then differs from gcc's with nothing wrong in polycu.  Such a
program is recognised by its own reference: rebuilt with every result of those
functions moved one ulp (``NUDGE``), it prints other values too.  Functions that
IEEE rounds exactly on both sides (``sqrt``, ``fabs``, ``floor``, ``fmod``, ...) are
left alone.
"""
from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

#: nvcc's build of the whole program: no FMA contraction, as gcc builds the reference
#: (-ffp-contract=off), and -fno-ivopts as for the reference (fuzz/run.py)
GPU_BUILD = ("-O3", "-arch=sm_90", "--fmad=false", "-w", "-Xcompiler",
             "-fno-ivopts,-ffp-contract=off")

#: The same without ptxas's optimiser.  ptxas (CUDA 12.8 to 13.3 at least, -O1 and up)
#: may fuse a negation into a three-way integer min/max (VIMNMX3, VIADDMNMX on sm_90)
#: and drop it, so a loop bound is wrong (fuzz seed 5631703: a thread runs one
#: iteration past its bound and reads 2^32 elements away; also pytorch/pytorch#190973).
#: A GPU failure that this build does not show is reported as ptxas's.
PTXAS_O0 = (*GPU_BUILD, "-Xptxas", "-O0")

#: the math functions whose results may differ by ulps between glibc and CUDA
INEXACT = ("sin", "cos", "tan", "exp", "log", "tanh", "cbrt", "log1p", "pow", "atan2",
           "hypot", "expm1", "log2", "log10", "exp2", "atan", "asin", "acos", "sinh", "cosh")

#: a header forced before the program: each such call's result one ulp up
NUDGE = "#include <math.h>\n" + "".join(
    f"#define {f}(...) nextafter(({f})(__VA_ARGS__), INFINITY)\n"
    f"#define {f}f(...) nextafterf(({f}f)(__VA_ARGS__), INFINITY)\n" for f in INEXACT)


@functools.cache
def gpu_present() -> bool:
    """Whether ``nvidia-smi -L`` lists a GPU (CI has none: the GPU stage is skipped)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and "GPU" in done.stdout


def uses_inexact_math(text: str) -> bool:
    """Whether a program's text calls one of ``INEXACT`` (or its float form)."""
    return any(f"{f}(" in text or f"{f}f(" in text for f in INEXACT)


def nudge_flags(header: Path) -> list[str]:
    """gcc's flags that force ``NUDGE`` (written to ``header``) before the program."""
    header.write_text(NUDGE)
    return ["-include", str(header)]
