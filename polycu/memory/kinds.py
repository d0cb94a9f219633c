"""The read-only path, textures, surfaces and constant memory: which of them may hold
an array of a kernel (proven with isl), and which one the calibrated model picks.

For an array ``A`` that a kernel ``K`` keeps in device memory (no register or shared
tile serves it), the kinds are:

* ``global``: plain loads and stores;
* ``read-only``: ``const T *__restrict__`` (loads through the read-only path),
  when ``K`` never writes ``A`` (the default then: the same code as before);
* ``texture``: a texture object over ``A``'s linear memory (``tex1Dfetch``; double
  fetched as ``int2``), when ``K`` never writes ``A``;
* ``texture-2d``: a texture object over a 2-D CUDA array (rows: every dimension
  but the last), copied from ``A`` before a launch when a kernel wrote ``A`` since
  the last copy (``codegen/objects.py``);
* ``surface``: a surface object over such an array, copied in before a launch and
  back before ``A``'s buffer is next used, when no value written in a launch of
  ``K`` is read in the same launch (the texture path does not see the launch's own
  writes);
* ``constant``: ``__constant__`` memory, copied as a 2-D texture's array is, when
  ``K`` never writes ``A``, every read of it is warp-uniform and it fits the 64 KB.

The model estimates, per kind, the time of ``K``'s accesses to ``A``: for each
access, its instances times the element size over the calibrated bandwidth of the
kind for the access's pattern and ``A``'s size (``calibration.py``), plus the
copies the kind needs.  A kind other than the default must win by ``MARGIN``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from ..diagnostics import error
from ..frontend.ctype import parse_type
from ..gpu.cost import box_size, representative_params
from ..gpu.kernel import GpuProgram, Kernel
from ..model import Array, Scop
from .calibration import bandwidth
from .warps import (in_one_launch, same_element, statement_accesses, warp_pattern,
                    warp_uniform)

GLOBAL = "global"
PARAMETER, REGISTER, SHARED = "parameter", "register", "shared"   # placement.py's
READ_ONLY = "read-only"
TEXTURE = "texture"
TEXTURE_2D = "texture-2d"
SURFACE = "surface"
CONSTANT = "constant"
#: The kinds this module decides between, in the order of preference on a tie.
PATHS = (READ_ONLY, GLOBAL, TEXTURE, CONSTANT, TEXTURE_2D, SURFACE)
#: The calibration column of each kind.
_COLUMN = {GLOBAL: "global", READ_ONLY: "ldg", TEXTURE: "tex1d", TEXTURE_2D: "tex2d",
           SURFACE: "surf2d", CONSTANT: "constant"}

#: The array of ``--memory K:*=KIND``: every array of the kernel in device memory
#: takes KIND where it is legal.
EVERY = "*"
#: Bytes of ``__constant__`` memory a program may use (CUDA's limit, per module).
CONSTANT_MEMORY = 64 * 1024
#: Texels of a texture over linear memory: tex1Dfetch takes an int, and an H100
#: fetches up to 2^28 (half of that keeps the index exact in any signed use).
MAX_TEXTURE_1D = 1 << 27
#: Width and height of a 2-D texture or surface on compute capability 9.0.
MAX_2D = (131072, 65536)
#: A device-to-device copy: GB/s (a copy reads and writes: 3.0 TB/s measured on an
#: H100 counts both) and seconds per call (like a launch).
COPY_BANDWIDTH = 1500.0
COPY_CALL = 4e-6
#: Seconds more a launch reading constant memory costs, however few its reads:
#: fdtd-2d's one read a thread of ``_fict_[t]`` there ran 0.54-0.69 us a launch slower
#: on an H100 (docs/results/memory_paths.md, session 12).
CONSTANT_LAUNCH = 0.6e-6
#: How much faster than the default kind another must be estimated to be chosen.
#: The calibration's best case for a texture, 1.07-1.18x for rows of doubles
#: strided across the threads, did not carry over to whole kernels: the nine
#: PolyBench kernels it chose textures for at 1.05 ran 0.95-1.0x as fast on an H100
#: (atax 0.471 -> 0.492 ms, adi 434.9 -> 458.8 ms; docs/results/memory_paths.md).
#: So on Hopper another kind must be estimated a quarter faster than the default.
MARGIN = 1.25

#: Element types a texture or surface holds (canonical C spelling): the texel type
#: each is fetched as.
TEXELS = {"double": "int2", "float": "float", "int": "int", "unsigned int": "unsigned int"}


def texel(array: Array) -> str | None:
    """The texel type of ``array``'s elements in any spelling (``unsigned`` is
    ``unsigned int``), or None when no texture or surface holds them."""
    ctype = parse_type(array.element_type)
    return TEXELS.get(ctype.name) if ctype is not None else None


@dataclass(frozen=True)
class Estimate:
    """One kind for one array of one kernel: its estimated seconds, or why it is
    not legal (``seconds`` None)."""

    kind: str
    seconds: float | None
    why: str = ""


@dataclass(frozen=True)
class Analysis:
    """What the model knows of an array of a kernel: each kind's estimate, the
    patterns of its accesses and its size."""

    estimates: tuple[Estimate, ...]
    patterns: tuple[str, ...]
    nbytes: float

    def of(self, kind: str) -> Estimate:
        return next(e for e in self.estimates if e.kind == kind)

    def best(self, default: str) -> str:
        """The cheapest legal kind; ``default`` unless another is ``MARGIN`` faster."""
        base = self.of(default).seconds
        legal = [e for e in self.estimates if e.seconds is not None]
        winner = min(legal, key=lambda e: (e.seconds, PATHS.index(e.kind)))
        if base is not None and winner.seconds * MARGIN >= base:
            return default
        return winner.kind


def element_bytes(array: Array) -> int:
    """The size of an element of ``array`` (LP64, as the frontend reads C types)."""
    ctype = parse_type(array.element_type)
    if ctype is None or ctype.bits == 80:      # long double: 16 bytes in memory
        return 16 if ctype is not None else 8
    return ctype.bits // 8


def extents(scop: Scop, array: Array) -> tuple[int, ...] | None:
    """The array's extents when they are constants (None otherwise)."""
    if array.extent_set is None or array.rank == 0:
        return None
    sizes = []
    for k in range(array.rank):
        top = array.extent_set.intersect_params(scop.context).dim_max(k)
        if top.n_piece() != 1 or not top.is_cst():
            return None
        sizes.append(top.get_pieces()[0][1].get_constant_val().to_python() + 1)
    return tuple(sizes)


# A value written in launch h of K and read in the same launch: write w and read r of
# one cell, w != r, with O(w) <=lex O(r) and O(w), O(r) equal in their first
# coordinates, h (O: the kernel order).  None such: the surface's reads see only
# values from before the launch.
def surface_hazard(scop: Scop, kernel: Kernel, name: str) -> isl.UnionMap | None:
    """The pairs (write time -> read time) that read back a value written in the
    same launch through a surface of ``name`` (empty: the surface is legal; None:
    the kernel has no order to prove it with)."""
    found = isl.UnionMap("{ }")
    listed = statement_accesses(scop, kernel, name)
    for ws, write in listed:
        for rs, read in listed:
            if not (write.is_write and read.is_read):
                continue
            pairs = same_element(kernel, ws, write, read)
            if ws is rs and not ws.loop:      # a loop may read back what it wrote
                pairs = pairs.subtract(isl.UnionMap.from_map(
                    isl.Map.identity(ws.domain.get_space().map_from_set())))
            if kernel.order is None:
                if pairs.is_empty():
                    continue
                return None
            for later in in_one_launch(kernel, pairs, strict=False):
                found = found.union(isl.UnionMap.from_map(later))
    return found


def _illegal(scop: Scop, kernel: Kernel, array: Array, kind: str, used: int,
             shape: tuple[int, ...] | None) -> str:
    """Why ``kind`` cannot hold ``array`` in ``kernel`` ('' when it can); ``used``
    bytes of constant memory are taken already."""
    written = array.name in kernel.writes
    if kind == GLOBAL:
        return ""
    if kind in (READ_ONLY, TEXTURE, TEXTURE_2D, CONSTANT) and written:
        return "the kernel writes it"
    if kind == READ_ONLY:
        return ""
    if array.member is not None:
        return f"a field of '{array.member.variable}', which the kernel reads in place"
    if shape is None:
        return "its extents are not constants"
    if texel(array) is None:
        return f"no texel type for {array.element_type}"
    count = 1
    for n in shape:
        count *= n
    if kind == TEXTURE and count > MAX_TEXTURE_1D:
        return f"{count} elements, more than a texture over linear memory fetches"
    if kind in (TEXTURE_2D, SURFACE):
        height = count // shape[-1]
        if shape[-1] > MAX_2D[0] or height > MAX_2D[1]:
            return f"{height}x{shape[-1]}: larger than a 2-D CUDA array"
    if kind == SURFACE:
        if array.name in {a.array for s in scop.statements if s.name in kernel.atomic
                          for a in s.writes}:
            return "the kernel updates it atomically"
        hazard = surface_hazard(scop, kernel, array.name)
        if hazard is None or not hazard.is_empty():
            return "a value written in a launch would be read back in the same launch"
    if kind == CONSTANT:
        nbytes = count * element_bytes(array)
        if used + nbytes > CONSTANT_MEMORY:
            return (f"{nbytes} bytes; {used} of the {CONSTANT_MEMORY} bytes of constant "
                    "memory are taken")
        if not warp_uniform(scop, kernel, array.name):
            return "the threads of a warp read different addresses"
    return ""


def analyse_size(scop: Scop, array: Array) -> float:
    """The array's bytes (at ``gpu.cost``'s representative parameter values when its
    extents are not constants)."""
    nbytes = float(element_bytes(array))
    shape = extents(scop, array)
    if shape is not None:
        for n in shape:
            nbytes *= n
    elif array.extent_set is not None:
        nbytes *= box_size(array.extent_set.intersect_params(representative_params(scop)))
    return nbytes


def analyse(program: GpuProgram, kernel: Kernel, array: Array, used: int = 0) -> Analysis:
    """Each kind's estimated time for ``array``'s accesses in ``kernel`` (or why it is
    illegal) at representative parameter values (``gpu.cost``)."""
    scop = program.scop
    params = representative_params(scop)
    shape = extents(scop, array)
    size = element_bytes(array)
    nbytes = analyse_size(scop, array)
    found = statement_accesses(scop, kernel, array.name)
    counted = []
    for stmt, access in found:
        domain = kernel.domain.intersect(isl.UnionSet.from_set(stmt.domain))
        instances = sum(box_size(s.intersect_params(params))
                        for s in _sets(domain))
        counted.append((instances, warp_pattern(kernel, access)))
    launches = 1.0
    if kernel.host_ids:
        launches = max(1.0, box_size(kernel.launches.intersect_params(params)))
    # the host copies into a CUDA array or constant memory only after a kernel wrote
    # the buffer (codegen/objects.py): once in all where no kernel writes the array;
    # a surface's array goes back to the buffer before another kernel uses it, and
    # once at the end: twice in all where no other kernel uses the array
    fills = launches if any(array.name in k.writes for k in program.kernels) else 1.0
    shared = any(array.name in k.reads | k.writes for k in program.kernels if k is not kernel)
    back_and_forth = 2 * launches if shared else 2.0
    estimates = []
    for kind in PATHS:
        why = _illegal(scop, kernel, array, kind, used, shape)
        if why:
            estimates.append(Estimate(kind, None, why))
            continue
        seconds = 0.0
        for instances, pattern in counted:
            gbps = bandwidth(size, nbytes, pattern, _COLUMN[kind])
            if gbps is None:
                seconds = float("inf")
                break
            seconds += instances * size / (gbps * 1e9)
        # a surface the kernel only reads is copied in like a texture's, never back
        back = back_and_forth if array.name in kernel.writes else fills
        copies = {TEXTURE_2D: fills, SURFACE: back, CONSTANT: fills}.get(kind, 0.0)
        seconds += copies * (nbytes / (COPY_BANDWIDTH * 1e9) + COPY_CALL)
        seconds += launches * CONSTANT_LAUNCH if kind == CONSTANT else 0.0
        estimates.append(Estimate(kind, seconds))
    return Analysis(tuple(estimates), tuple(p for _, p in counted), nbytes)


def _sets(domain: isl.UnionSet) -> list[isl.Set]:
    found: list[isl.Set] = []
    domain.foreach_set(found.append)
    return found


def default_kind(kernel: Kernel, array: Array) -> str:
    """What an array in device memory gets unless the model finds better."""
    return GLOBAL if array.name in kernel.writes else READ_ONLY


def forced(program: GpuProgram, kernel: Kernel, array: Array, kind: str, used: int) -> None:
    """Stops with a diagnostic when --memory forces an illegal ``kind``."""
    why = _illegal(program.scop, kernel, array, kind, used, extents(program.scop, array))
    if why:
        raise error(f"--memory {kernel.index}:{array.name}={kind}: {kind} memory cannot hold "
                    f"'{array.name}' in {kernel.name}: {why}", array.location)


def explain(analysis: Analysis, chosen: str) -> str:
    """The estimates in words: ``texture 18.3 us, read-only 19.5 us, ...; surface:
    the kernel writes it``."""
    legal = sorted((e for e in analysis.estimates if e.seconds is not None),
                   key=lambda e: e.seconds)
    said = ", ".join(f"{e.kind} {_time(e.seconds)}" for e in legal)
    illegal = "; ".join(f"no {e.kind}: {e.why}" for e in analysis.estimates
                        if e.seconds is None)
    patterns = "/".join(sorted(set(analysis.patterns))) or "no"
    return (f"{patterns} accesses to {_size(analysis.nbytes)}; estimated {said}"
            + (f"; {illegal}" if illegal else ""))


def _time(seconds: float) -> str:
    if seconds == float("inf"):
        return "(cannot hold it)"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def _size(nbytes: float) -> str:
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


@dataclass
class Constants:
    """Constant memory as a program fills it: ``taken`` bytes by earlier SCoPs of the
    file, then the arrays of this one (one copy per array, whichever kernels use it)."""

    taken: int = 0
    arrays: dict[str, int] = field(default_factory=dict)

    def used(self, besides: str) -> int:
        return self.taken + sum(n for a, n in self.arrays.items() if a != besides)


def choose(program: GpuProgram, kernel: Kernel, array: Array, override: str | None,
           constants: Constants, preferred: str | None = None) -> tuple[str, str]:
    """The kind of an array ``kernel`` keeps in device memory and why; ``override``
    a kind --memory forces (K:A=KIND), ``preferred`` one it asks for wherever legal
    (K:*=KIND); ``constants`` the constant memory so far (updated).  In a program
    that runs in one block, an array some phase writes is read plainly by every
    phase (the read-only path and the objects do not see the block's own writes)."""
    if program.single_block or program.resident:
        written = frozenset().union(*(k.writes for k in program.kernels))
        where = "in one block" if program.single_block else "as one launch"
        if array.name in written and program.resident:
            return GLOBAL, "the program runs as one launch whose blocks keep its rows in " \
                "their bands in shared memory (above); device memory before and after it"
        if array.name in written:
            return GLOBAL, f"the program runs {where}, whose phases write it"
        return READ_ONLY, f"the program runs {where}, which only reads it"
    used = constants.used(array.name)
    if override in PATHS:
        forced(program, kernel, array, override, used)
    analysis = analyse(program, kernel, array, used)
    default = default_kind(kernel, array)
    if override in PATHS:
        kind, why = override, "forced by --memory"
    elif preferred in PATHS and analysis.of(preferred).seconds is not None:
        kind, why = preferred, f"--memory {kernel.index}:{EVERY}={preferred}"
    else:
        kind = analysis.best(default)
        why = "the cheapest estimate" if kind != default else \
            "the default: no kind is estimated " + f"{int((MARGIN - 1) * 100)}% faster"
    if kind == CONSTANT:
        constants.arrays[array.name] = int(analysis.nbytes)
    return kind, f"{why}: {explain(analysis, kind)}"
