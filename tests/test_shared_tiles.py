"""Shared tiles per reference group, scaled tiles, and the square sizes the driver
gives kernels fed from registers and shared tiles (polycu/memory/shared.py,
polycu/driver.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

import polycu
from polycu.codegen.cuda import layouts
from polycu.codegen.kernel import kernel_source
from polycu.driver import SQUARE, placement_of, program_of
from polycu.memory import format_placement, place
from polycu.options import Options
from polycu.runtime.emulate import emulate_scop, scop_translation_unit

ROOT = Path(__file__).resolve().parent.parent

GEMM = """
void gemm(int ni, int nj, int nk, SCALAR alpha, double beta, double C[90][100],
          double A[90][111], double B[110][100])
{
#pragma scop
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += BODY;
  }
#pragma endscop
}
"""


def load(tmp_path, body: str, scalar: str = "double"):
    source = tmp_path / "gemm.c"
    source.write_text(GEMM.replace("BODY", body).replace("SCALAR", scalar))
    return polycu.load(str(source))[0]


def emulate(scop, options: Options, params: dict[str, int]):
    from polycu.driver import compile_scops
    description = compile_scops(scop.location.file, [scop], options).description["scops"][0]
    cuda = scop_translation_unit(description)
    return cuda, emulate_scop(scop, cuda, description["host_function"], seed=11, nvcc=False,
                              params=params)


def kernel_lines(placement, scop) -> list[str]:
    (kernel,) = placement.program.kernels
    return [line.strip() for line in
            kernel_source(placement, kernel, layouts(scop)).splitlines()]


def test_a_tile_read_only_as_alpha_times_a_holds_the_products(tmp_path):
    scop = load(tmp_path, "alpha * A[i][k] * B[k][j]")
    program = program_of(scop)
    placement = place(program)
    (kernel,) = program.kernels
    a, b = sorted(placement.kernel(kernel.name).shared, key=lambda t: t.array)
    assert (a.array, a.scale, b.array, b.scale) == ("A", "alpha", "B", None)
    body = kernel_lines(placement, scop)
    assert "s0[((t0 + 8 * c8)) * 17 + t1] = alpha * A[((32 * b0 + t0 + 8 * c8)) * 111 + " \
        "(t1 + 16 * c3)];" in body
    assert "r0[c8][0] += (s0[((t0 + 8 * c8)) * 17 + c5]) * s1[c5 * 33 + t1];" in body
    assert "it holds alpha * A[..], multiplied once in the copy" in \
        placement.kernel(kernel.name).of("A").reason
    # the products are the ones C rounds: the results match to the last bit
    for n in (37, 64):
        _, report = emulate(scop, Options(), {"ni": n, "nj": n + 3, "nk": 29})
        assert report.ok and report.format().count(" 0 mismatches") >= 3, report.format()


@pytest.mark.parametrize("body,scalar", [
    ("alpha * A[i][k] * B[k][j]", "float"),            # alpha * A is a double product of a float
    ("alpha * (A[i][k] * B[k][j])", "double"),         # alpha * A is not computed at all
    ("alpha * A[i][k] * B[k][j] + A[i][k] * B[k][j]", "double"),   # A read unscaled too
])
def test_no_scaled_tile_unless_every_read_of_it_is_the_same_rounded_product(
        tmp_path, body, scalar):
    scop = load(tmp_path, body, scalar)
    placement = place(program_of(scop))
    assert all(t.scale is None for k in placement.kernels for t in k.shared)
    assert not any("= alpha * A[" in line for line in kernel_lines(placement, scop))


def test_references_whose_boxes_overlap_share_one_tile(tmp_path):
    # A[i][k] and A[i][k + 1]: one 32x17 box holds both (two 32x16 boxes would not
    # be smaller), so they share one tile
    scop = load(tmp_path, "(A[i][k] + A[i][k + 1]) * B[k][j]")
    placement = place(program_of(scop))
    (placed,) = placement.kernels
    tiles = [t for t in placed.shared if t.array == "A"]
    assert [(len(t.references), t.size) for t in tiles] == [(2, (32, 17))]
    _, report = emulate(scop, Options(), {"ni": 37, "nj": 40, "nk": 30})
    assert report.ok, report.format()


def test_a_kernel_fed_from_registers_and_tiles_gets_square_blocks(tmp_path):
    scop = load(tmp_path, "alpha * A[i][k] * B[k][j]")
    placement = placement_of(scop, Options(tensor_cores=False))   # a contraction else
    (kernel,) = placement.program.kernels
    assert [(m.tile, m.block) for m in sorted(kernel.mapped, key=lambda m: m.member)] == \
        [(SQUARE["tile"][0], SQUARE["block"][1]), (SQUARE["tile"][1], SQUARE["block"][0])]
    assert placement.kernel(kernel.name).lanes == (4, 2)
    _, report = emulate(scop, Options(tensor_cores=False), {"ni": 70, "nj": 45, "nk": 29})
    assert report.ok, report.format()


@pytest.mark.parametrize("options", [
    Options(memory=["*:B=global"]),                         # B read from global memory
    Options(sizes="{ kernel[i] -> block[32,8] }"),          # the user chose the sizes
    Options(tile_size=16),
    Options(shared_memory=False),
])
def test_other_kernels_keep_the_default_sizes(tmp_path, options):
    scop = load(tmp_path, "alpha * A[i][k] * B[k][j]")
    (kernel,) = placement_of(scop, options.replace(tensor_cores=False)).program.kernels
    assert all(m.block in (32, 8) or m.block == options.tile_size for m in kernel.mapped)
    assert max(m.tile for m in kernel.mapped) == options.tile_size


def test_polybench_syrk_dumps_its_tiles():
    options = Options(define=["LARGE_DATASET"], tensor_cores=False,
                      include_dir=[str(ROOT / "polybench/utilities")])
    source = ROOT / "polybench/linear-algebra/blas/syrk/syrk.c"
    scop = polycu.load(str(source), defines=options.define, includes=options.include_dir)[0]
    text = format_placement(placement_of(scop, options))
    assert "a 32x16 tile for A[i][k]" in text and "a 32x16 tile for A[j][k]" in text
    assert "it holds alpha * A[..]" in text
