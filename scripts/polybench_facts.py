"""Facts about the 30 PolyBench/C 4.2.1 kernels of ``polybench/``: size
parameters for each dataset, and closed forms of the operation count and of
the compulsory memory traffic in terms of those parameters.

``scripts/polybench_table.py`` renders them as ``docs/polybench.md``, and
``tests/test_polybench_flops.py`` checks every formula against counts taken
while the kernel actually runs, so the table cannot drift from the code.

Conventions (repeated at the top of the generated document):

* **Operations** are counted on ``DATA_TYPE`` values inside the SCoP: each
  binary ``+ - * /`` (compound assignments included), each ``sqrt``,
  ``exp`` and ``pow``, and each comparison ``< <= > >=`` (the select of a
  min/max: floyd-warshall, nussinov, the clamp in correlation).  Unary minus
  and conversions are free; loop and index arithmetic is not counted.  A
  min/max written ``a < b ? a : b`` re-evaluates ``b`` when it is selected;
  that recomputation is not counted again.
* **Elements** are the distinct array elements of ``DATA_TYPE`` the kernel
  reads or writes (arrays passed to the kernel; scalars and durbin's
  kernel-local scratch vector ``z`` are excluded).  Compulsory bytes are
  ``8 * elements`` (``sizeof(double)``) plus ``extra_bytes`` for arrays of
  another type (nussinov's ``char`` sequence).

Formulas are Python integer expressions over the parameter names; they hold
for every size at which all loops of the kernel run at least once (e.g.
N >= 3 for the stencils).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

# Machine model for the roofline column: NVIDIA H100 SXM, FP64 without
# tensor cores, and the copy bandwidth measured on it.
PEAK_FLOPS = 34e12
BANDWIDTH = 3.0e12
RIDGE = PEAK_FLOPS / BANDWIDTH  # flop/byte; ~11.3

DOUBLE_BYTES = 8


@dataclass(frozen=True)
class Kernel:
    """One benchmark: where it lives, its sizes and its cost formulas."""

    name: str
    category: str  # directory under polybench/, e.g. "linear-algebra/blas"
    params: tuple[str, ...]  # size macros, in the order of ``sizes``
    sizes: Mapping[str, tuple[int, ...]]  # dataset -> parameter values
    flops: str  # operation count, Python expression over ``params``
    elements: str  # distinct DATA_TYPE elements touched, same form
    check: tuple[int, ...]  # a small non-standard size the test also runs
    extra_bytes: str = "0"  # bytes of non-DATA_TYPE arrays touched
    note: str = ""
    default_type: str = "double"  # the original's DATA_TYPE default

    @property
    def path(self) -> str:
        """Source file, relative to the repository root."""
        return f"polybench/{self.category}/{self.name}/{self.name}.c"

    def size(self, dataset: str) -> dict[str, int]:
        return dict(zip(self.params, self.sizes[dataset]))

    def _eval(self, expr: str, size: Mapping[str, int]) -> int:
        missing = set(self.params) - set(size)
        if missing:
            raise ValueError(f"{self.name}: missing size parameters {sorted(missing)}")
        return int(eval(expr, {"__builtins__": {}}, dict(size)))  # noqa: S307 (our own formulas)

    def flop_count(self, size: Mapping[str, int]) -> int:
        return self._eval(self.flops, size)

    def element_count(self, size: Mapping[str, int]) -> int:
        return self._eval(self.elements, size)

    def bytes_touched(self, size: Mapping[str, int]) -> int:
        return DOUBLE_BYTES * self.element_count(size) + self._eval(self.extra_bytes, size)

    def intensity(self, dataset: str = "LARGE") -> float:
        """Arithmetic intensity (operations per compulsory byte)."""
        size = self.size(dataset)
        return self.flop_count(size) / self.bytes_touched(size)

    def bound(self, dataset: str = "LARGE") -> str:
        return "compute" if self.intensity(dataset) >= RIDGE else "memory"


def _k(name: str, category: str, params: str, sizes: list[tuple[int, ...]],
       flops: str, elements: str, check: tuple[int, ...], **extra: str) -> Kernel:
    return Kernel(name=name, category=category, params=tuple(params.split()),
                  sizes=MappingProxyType(dict(zip(DATASETS, sizes))),
                  flops=flops, elements=elements, check=check, **extra)


_SQUARE_SIZES = [(40,), (120,), (400,), (2000,), (4000,)]
_MN_SIZES = [(20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)]
_DATA_SIZES = [(28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000)]
_ATAX_SIZES = [(38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200)]

KERNELS: tuple[Kernel, ...] = (
    # -- datamining --------------------------------------------------------
    _k("correlation", "datamining", "M N", _DATA_SIZES,
       flops="N*M*M + 8*M*N + 4*M",
       elements="N*M + M*M + 2*M", check=(5, 9)),
    _k("covariance", "datamining", "M N", _DATA_SIZES,
       flops="2*M*N + M + M*(M+1)*(N+1)",
       elements="N*M + M*M + M", check=(5, 9)),
    # -- linear-algebra/blas -----------------------------------------------
    _k("gemm", "linear-algebra/blas", "NI NJ NK",
       [(20, 25, 30), (60, 70, 80), (200, 220, 240), (1000, 1100, 1200), (2000, 2300, 2600)],
       flops="NI*NJ + 3*NI*NJ*NK",
       elements="NI*NJ + NI*NK + NK*NJ", check=(7, 5, 6)),
    _k("gemver", "linear-algebra/blas", "N", _SQUARE_SIZES,
       flops="10*N*N + N",
       elements="N*N + 8*N", check=(7,)),
    _k("gesummv", "linear-algebra/blas", "N", [(30,), (90,), (250,), (1300,), (2800,)],
       flops="4*N*N + 3*N",
       elements="2*N*N + 3*N", check=(7,)),
    _k("symm", "linear-algebra/blas", "M N", _MN_SIZES,
       flops="5*N*M*(M-1)//2 + 6*M*N",
       elements="2*M*N + M*(M+1)//2", check=(6, 9),
       note="A: lower triangle only"),
    _k("syr2k", "linear-algebra/blas", "M N", _MN_SIZES,
       flops="N*(N+1)//2 + 3*M*N*(N+1)",
       elements="N*(N+1)//2 + 2*N*M", check=(6, 7),
       note="C: lower triangle only"),
    _k("syrk", "linear-algebra/blas", "M N", _MN_SIZES,
       flops="N*(N+1)//2 + 3*M*N*(N+1)//2",
       elements="N*(N+1)//2 + N*M", check=(5, 8),
       note="C: lower triangle only"),
    _k("trmm", "linear-algebra/blas", "M N", _MN_SIZES,
       flops="M*M*N",
       elements="M*N + M*(M-1)//2", check=(7, 5),
       note="A: strict lower triangle only"),
    # -- linear-algebra/kernels --------------------------------------------
    _k("2mm", "linear-algebra/kernels", "NI NJ NK NL",
       [(16, 18, 22, 24), (40, 50, 70, 80), (180, 190, 210, 220),
        (800, 900, 1100, 1200), (1600, 1800, 2200, 2400)],
       flops="3*NI*NJ*NK + NI*NL + 2*NI*NJ*NL",
       elements="NI*NJ + NI*NK + NK*NJ + NJ*NL + NI*NL", check=(4, 5, 6, 7)),
    _k("3mm", "linear-algebra/kernels", "NI NJ NK NL NM",
       [(16, 18, 20, 22, 24), (40, 50, 60, 70, 80), (180, 190, 200, 210, 220),
        (800, 900, 1000, 1100, 1200), (1600, 1800, 2000, 2200, 2400)],
       flops="2*NI*NJ*NK + 2*NJ*NL*NM + 2*NI*NJ*NL",
       elements="NI*NJ + NI*NK + NK*NJ + NJ*NL + NJ*NM + NM*NL + NI*NL",
       check=(3, 4, 5, 6, 7)),
    _k("atax", "linear-algebra/kernels", "M N", _ATAX_SIZES,
       flops="4*M*N",
       elements="M*N + 2*N + M", check=(7, 9)),
    _k("bicg", "linear-algebra/kernels", "M N", _ATAX_SIZES,
       flops="4*M*N",
       elements="N*M + 2*M + 2*N", check=(9, 7)),
    _k("doitgen", "linear-algebra/kernels", "NQ NR NP",
       [(8, 10, 12), (20, 25, 30), (40, 50, 60), (140, 150, 160), (220, 250, 270)],
       flops="2*NR*NQ*NP*NP",
       elements="NR*NQ*NP + NP*NP + NP", check=(4, 3, 5)),
    _k("mvt", "linear-algebra/kernels", "N", _SQUARE_SIZES,
       flops="4*N*N",
       elements="N*N + 4*N", check=(7,)),
    # -- linear-algebra/solvers --------------------------------------------
    _k("cholesky", "linear-algebra/solvers", "N", _SQUARE_SIZES,
       flops="N*(N+1)*(2*N+1)//6",
       elements="N*(N+1)//2", check=(7,),
       note="lower triangle only"),
    _k("durbin", "linear-algebra/solvers", "N", _SQUARE_SIZES,
       flops="(N-1)*(2*N+5)",
       elements="2*N", check=(7,),
       note="excludes the kernel-local scratch vector z (N elements)"),
    _k("gramschmidt", "linear-algebra/solvers", "M N", _MN_SIZES,
       flops="N*(3*M+1) + 2*M*N*(N-1)",
       elements="2*M*N + N*(N+1)//2", check=(9, 6),
       note="R: upper triangle only"),
    _k("lu", "linear-algebra/solvers", "N", _SQUARE_SIZES,
       flops="N*(N-1)*(4*N+1)//6",
       elements="N*N", check=(7,)),
    _k("ludcmp", "linear-algebra/solvers", "N", _SQUARE_SIZES,
       flops="N*(N-1)*(4*N+1)//6 + 2*N*(N-1) + N",
       elements="N*N + 3*N", check=(7,)),
    _k("trisolv", "linear-algebra/solvers", "N", _SQUARE_SIZES,
       flops="N*N",
       elements="N*(N+1)//2 + 2*N", check=(7,),
       note="L: lower triangle only"),
    # -- medley ------------------------------------------------------------
    _k("deriche", "medley", "W H",
       [(64, 64), (192, 128), (720, 480), (4096, 2160), (7680, 4320)],
       flops="32*W*H + 27",
       elements="4*W*H", check=(9, 7),
       note="27 operations compute the filter coefficients",
       default_type="float"),
    _k("floyd-warshall", "medley", "N", [(60,), (180,), (500,), (2800,), (5600,)],
       flops="2*N**3",
       elements="N*N", check=(7,),
       note="an add and a min per update",
       default_type="int"),
    _k("nussinov", "medley", "N", [(60,), (180,), (500,), (2500,), (5500,)],
       flops="(N**3 - N)//3 + (N-1)**2",
       elements="N*(N+1)//2 + N - 1", extra_bytes="N", check=(9,),
       note="table: upper triangle and first subdiagonal; seq: N bytes",
       default_type="int"),
    # -- stencils ----------------------------------------------------------
    _k("adi", "stencils", "TSTEPS N",
       [(20, 20), (40, 60), (100, 200), (500, 1000), (1000, 2000)],
       flops="34*TSTEPS*(N-2)**2 + 13",
       elements="2*N*(N-2) + 2*(N-1)*(N-2)", check=(3, 7),
       note="13 operations compute the coefficients"),
    _k("fdtd-2d", "stencils", "TMAX NX NY",
       [(20, 20, 30), (40, 60, 80), (100, 200, 240), (500, 1000, 1200), (1000, 2000, 2600)],
       flops="TMAX*(3*(NX-1)*NY + 3*NX*(NY-1) + 5*(NX-1)*(NY-1))",
       elements="3*NX*NY - 1 + TMAX", check=(3, 6, 8),
       note="ex[NX-1][0] is never touched"),
    _k("heat-3d", "stencils", "TSTEPS N",
       [(20, 10), (40, 20), (100, 40), (500, 120), (1000, 200)],
       flops="30*TSTEPS*(N-2)**3",
       elements="2*((N-2)**3 + 6*(N-2)**2)", check=(3, 6),
       note="grid edges and corners are never touched"),
    _k("jacobi-1d", "stencils", "TSTEPS N",
       [(20, 30), (40, 120), (100, 400), (500, 2000), (1000, 4000)],
       flops="6*TSTEPS*(N-2)",
       elements="2*N", check=(3, 11)),
    _k("jacobi-2d", "stencils", "TSTEPS N",
       [(20, 30), (40, 90), (100, 250), (500, 1300), (1000, 2800)],
       flops="10*TSTEPS*(N-2)**2",
       elements="2*(N*N - 4)", check=(3, 7),
       note="grid corners are never touched"),
    _k("seidel-2d", "stencils", "TSTEPS N",
       [(20, 40), (40, 120), (100, 400), (500, 2000), (1000, 4000)],
       flops="9*TSTEPS*(N-2)**2",
       elements="N*N", check=(3, 7)),
)

BY_NAME: Mapping[str, Kernel] = MappingProxyType({k.name: k for k in KERNELS})
