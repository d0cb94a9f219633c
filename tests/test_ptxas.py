"""The PTX shape of a known ptxas defect (``polycu/runtime/ptxas.py``) and the warning
``polycu emulate``'s nvcc check gives where a kernel has it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polycu.driver import compile_file
from polycu.fuzz import generate
from polycu.options import Options
from polycu.runtime.nvcc import nvcc_check
from polycu.runtime.ptxas import chains, suspects


def test_the_scan_finds_a_negation_feeding_a_min_max_chain() -> None:
    """runtime/ptxas.py: the PTX shape of seed 5631703's kernel (cicc's
    bound: a neg into max into max), not a lone max of a negation."""
    body = ("\tneg.s32 \t%r105, %r104;\n\tmax.s32 \t%r106, %r103, %r105;\n"
            "\tsub.s32 \t%r107, %r17, %r159;\n\tmax.s32 \t%r108, %r106, %r107;\n")
    ptx = f".visible .entry k0(\n)\n{{\n{body}}}\n.visible .entry k1(\n)\n{{\n" \
          "\tneg.s32 \t%r1, %r2;\n\tmax.s32 \t%r3, %r4, %r1;\n\tadd.s32 \t%r5, %r3, 1;\n}\n"
    assert chains(ptx) == {"k0": 1, "k1": 0}



def test_suspects_are_the_kernels_with_a_chain() -> None:
    ptx = (".visible .entry a(\n)\n{\n\tneg.s64 \t%rd1, %rd2;\n\tmin.s64 \t%rd3, %rd1, %rd4;\n"
           "\tmin.s64 \t%rd5, %rd3, %rd6;\n}\n.visible .entry b(\n)\n{\n\tmax.s32 \t%r1, "
           "%r2, %r3;\n}\n")
    assert suspects(ptx) == ("a",)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_check_names_the_kernel_of_seed_5631703(tmp_path: Path) -> None:
    """Seed 5631703's kernel has two chains (nvcc 13.0); a matrix product none.  The
    emulation's report says so in its nvcc line, a warning, not a failure."""
    path = tmp_path / "p.c"
    path.write_text(generate(5631703).text)
    check = nvcc_check(compile_file(str(path), Options(run_on="gpu")).cuda)
    assert (check.status, check.suspects) == ("ok", ("kernel_scop0_kernel0",))
    assert not check.failed and "warning: kernel kernel_scop0_kernel0: its PTX has the " \
        "shape of a known ptxas defect" in check.describe()
    clean = tmp_path / "g.c"
    clean.write_text("void g(int n, double A[50][50], double B[50][50], double C[50][50])\n{\n"
                     "#pragma scop\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)"
                     "\n      for (int k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];\n"
                     "#pragma endscop\n}\n")
    other = nvcc_check(compile_file(str(clean), Options(run_on="gpu")).cuda)
    assert (other.status, other.suspects) == ("ok", ()) and "warning" not in other.describe()
