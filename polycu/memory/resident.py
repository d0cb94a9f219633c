"""Arrays resident in shared memory across a whole host program: one cooperative launch.

In:  a ``GpuProgram`` whose kernels launch from host loops (a stencil's time steps),
     mapped with one row a block along their first member (``BAND_SIZES``).
Out: a ``ResidentGrid`` (or None): the rows each block owns, the arrays it keeps in
     shared memory with the halo it reads of its neighbours', and who runs each kernel.

The host program becomes one launch of ``bands`` blocks (``codegen/resident.py``); each
launch of the host program is a phase, and a grid-wide barrier ends each phase as the
end of a launch did.  Block ``p`` owns rows ``[p R, p R + R)`` of every resident array
``X`` (its first subscript), holds them in shared memory for the whole launch, and runs
every instance that writes one of them (owner computes).  For kernel ``K`` with band
member ``m_0`` and an access ``S[i] -> X[a_0, ...]``:

* ``K`` is *aligned* when every write of a resident array has ``a_0 = m_0 + s`` for
  one constant ``s`` (the deltas ``{ a_0 - m_0 }`` of every write are ``{ s }``: isl's
  scheduler may shift a statement) and ``m_0`` is mapped with tiles of one row: block
  ``p`` runs the virtual blocks of rows ``[p R, p R + R)``, the instances with
  ``m_0 + s`` there;
* ``K`` is *fixed* at row ``c`` when every such write has ``a_0 = c``, one constant
  (fdtd-2d's ``ey[0][j]``): the owner of row ``c`` runs all of it;
* ``K`` is *free* when it touches no resident array: any block may run any of it.

Every read of a resident array lies within ``d_X`` rows of its instance's owner row
(``|a_0 - m_0 - s| <= d_X``, or ``|a_0 - c| <= d_X``).  After a phase that writes ``X``,
each block copies the first and last ``d_X`` rows of its band to device memory; the
barrier then makes them visible, so a read outside the band finds the neighbour's
value there, and a read inside it finds the block's own copy, which only the block
writes.  Kernels of one launch have no dependence between their threads (the mapping
proved it), so which of two copies a read of an element written in the same phase
sees does not matter, as it did not between a launch's blocks.

Every array a phase writes must be resident (a global array would be correct too,
but then nothing stays on chip), and the bands must fit in a block's shared memory:
``R = ceil(rows / blocks)`` for ``blocks`` the grid the model assumes (an H100 or
H200: 132 SMs, one block each), ``R * sum(cells of a row * element bytes) <=
RESIDENT_BYTES``.  At run time the host launches the bands on chip only where the
device holds them all at once; elsewhere the same kernel runs with every array in
device memory (``codegen/resident.py``).

For the edge rows' code (``codegen/halo.py``) the plan also keeps, per aligned kernel,
each access whose row is its instance's owner row + ``e`` for one constant ``e``
(``reach``: the deltas ``{ a_0 - m_0 }`` are ``{ s + e }``), and where the halo rows
some phase reads through them fit beside the bands (``halo_bytes``: the largest
phase's, ``d_X`` rows above and below for each array it reads so), they are
``staged``: copied into shared memory at the start of each phase.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping

import islpy as isl

from ..frontend.ctype import parse_type
from ..gpu.kernel import GpuProgram, Kernel
from ..model import WRITE
from .kinds import element_bytes, extents

#: Blocks the launch is planned for: one an SM of an H100 SXM or an H200.
RESIDENT_BLOCKS = 132
#: Shared memory a block may hold (Hopper's opt-in maximum, 227 KB).
RESIDENT_BYTES = 227 * 1024
#: The widest halo looked for, in rows.
MAX_HALO = 4
#: Sizes that map each kernel's first member with one row a block (``Sizes``'
#: per-kernel form by the number of mapped members; blocks in x, y, z order).
BAND_SIZES = {1: {"tile": (1,), "block": (1,)},
              2: {"tile": (1, 32), "block": (32, 1)},
              3: {"tile": (1, 8, 32), "block": (32, 8, 1)}}

ALIGNED = "aligned"
FREE = "free"


@dataclass(frozen=True)
class ResidentArray:
    """One array held in shared memory, a band of rows a block."""

    name: str
    element: str          # its C element type
    rows: int             # extent 0
    row_cells: int        # the product of the other extents
    element_bytes: int
    halo: int             # d: rows of a neighbour's band a phase reads


@dataclass(frozen=True)
class ResidentGrid:
    """The plan of one cooperative launch (the module's docstring)."""

    rows: int                                   # R, rows a block owns
    bands: int                                  # blocks of the launch
    arrays: tuple[ResidentArray, ...]
    owners: Mapping[str, str | int]             # kernel name: ALIGNED, FREE or a row
    shifts: Mapping[str, int] = field(default_factory=dict)   # aligned kernels' s
    neighbours: bool = False      # on chip, phases end with the neighbours' flags
    # aligned kernels' accesses (by ref) whose row is the instance's owner row + e, one
    # constant e: (array, e)
    reach: Mapping[str, Mapping[str, tuple[str, int]]] = field(default_factory=dict)
    staged: bool = False          # the halo rows a phase reads are copied to shared memory

    def offsets(self) -> tuple[int, ...]:
        """Where each array's band starts in a block's shared memory (16-byte aligned)."""
        found, at = [], 0
        for a in self.arrays:
            found.append(at)
            at += _aligned(self.rows * a.row_cells * a.element_bytes)
        return tuple(found)

    @property
    def band_bytes(self) -> int:
        """Shared memory of one block's bands, one of every resident array."""
        last = self.arrays[-1]
        return self.offsets()[-1] + self.rows * last.row_cells * last.element_bytes

    def halos(self, kernel: str) -> dict[str, int]:
        """d_X of each array ``kernel`` reads beyond its instances' rows through an
        access of constant row offset (``reach``): the rows a side its halo rows span."""
        found: dict[str, int] = {}
        for array, e in self.reach.get(kernel, {}).values():
            if e:
                found[array] = max(found.get(array, 0), abs(e))
        return found

    def _halo_sizes(self, kernel: str) -> dict[str, int]:
        """Bytes of ``kernel``'s halo rows of each array (d_X rows above and below,
        16-byte aligned), by array name."""
        arrays = {a.name: a for a in self.arrays}
        return {x: _aligned(2 * d * arrays[x].row_cells * arrays[x].element_bytes)
                for x, d in sorted(self.halos(kernel).items())}

    def halo_offsets(self, kernel: str) -> dict[str, int]:
        """Where ``kernel``'s halo rows of each array start in shared memory, after the
        bands: the rows above the band, then those below (``staged``)."""
        found, at = {}, _aligned(self.band_bytes)
        for array, size in self._halo_sizes(kernel).items():
            found[array] = at
            at += size
        return found

    def halo_bytes(self) -> int:
        """Shared memory the largest phase's halo rows take (the phases share it)."""
        return max((sum(self._halo_sizes(k).values()) for k in self.reach), default=0)

    @property
    def halos_on_chip(self) -> bool:
        """Whether some phase's halo rows are copied into shared memory."""
        return self.staged and self.halo_bytes() > 0

    @property
    def bytes(self) -> int:
        """Shared memory of one block: its band of every resident array, and the halo
        rows where they are staged."""
        if self.halos_on_chip:
            return _aligned(self.band_bytes) + self.halo_bytes()
        return self.band_bytes

    def describe(self) -> str:
        """The plan in one line, for the description's kernel entry."""
        halos = ", ".join(f"{a.name} (halo {a.halo})" for a in self.arrays)
        sync = "the two neighbouring blocks' flags" if self.neighbours else "a grid barrier"
        return (f"one cooperative launch of {self.bands} blocks, each holding {self.rows} "
                f"row(s) of {halos} in shared memory ({self.bytes} B), each phase ended "
                f"by {sync}")


def _aligned(size: int) -> int:
    """``size`` bytes rounded up to 16 (where the next piece of shared memory starts)."""
    return -(-size // 16) * 16


def _first(umap: isl.UnionMap) -> isl.UnionMap | None:
    """``S[i] -> [x_0]``: the first output of every map, its tuple unnamed (None where a
    map has no output: a scalar)."""
    result = None
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    for m in maps:
        n = m.dim(isl.dim_type.out)
        if n == 0:
            return None
        m = m.project_out(isl.dim_type.out, 1, n - 1).reset_tuple_id(isl.dim_type.out)
        part = isl.UnionMap.from_map(m)
        result = part if result is None else result.union(part)
    return result


def _within(values: isl.Set, centre: int, most: int) -> bool:
    """``values`` (a 1-D set) lies in ``[centre - most, centre + most]``."""
    box = isl.Set(f"{{ [d] : {centre - most} <= d <= {centre + most} }}")
    return values.is_subset(box.align_params(values.get_space()))


def _halo(values: isl.Set, centre: int) -> int | None:
    """The least ``d <= MAX_HALO`` with ``values`` within ``d`` of ``centre``."""
    return next((d for d in range(MAX_HALO + 1) if _within(values, centre, d)), None)


def _constant(values: isl.Set) -> int | None:
    """The one integer ``values`` holds for every parameter value, else None."""
    if values.is_empty():
        return None
    point = values.sample_point()
    c = point.get_coordinate_val(isl.dim_type.set, 0).to_python()
    return c if _within(values, c, 0) else None


def _accesses(program: GpuProgram, kernel: Kernel, arrays: frozenset[str]
              ) -> list[tuple[str, bool, isl.UnionMap, str]]:
    """(array, writes, S[i] -> [a_0] over the kernel's instances, ref) per access."""
    found = []
    for stmt in program.scop.statements:
        if stmt.name not in kernel.statements:
            continue
        for access in stmt.accesses:
            if access.array in arrays:
                rows = _first(isl.UnionMap.from_map(access.relation)
                              .intersect_domain(kernel.domain))
                found.append((access.array, access.kind == WRITE, rows, access.ref))
    return found


def _owner(program: GpuProgram, kernel: Kernel, arrays: frozenset[str],
           halos: dict[str, int], reach: dict[str, tuple[str, int]]
           ) -> tuple[str | int, int] | None:
    """How ``kernel`` is run (ALIGNED, FREE or its one row) and its shift ``s``,
    widening ``halos``, and for an aligned kernel the accesses whose row is the
    instance's owner row + e, one constant e, in ``reach``; None where it cannot be
    run by the rows' owners."""
    accesses = _accesses(program, kernel, arrays)
    if not accesses:
        return FREE, 0
    if not kernel.mapped or kernel.atomic or any(r is None for _, _, r, _ in accesses):
        return None
    first = kernel.mapped[0]
    member = _first(kernel.band) if first.member == 0 and first.tile == 1 else None
    if member is not None:
        pairs = member.reverse()
        deltas = {id(r): isl.Set.from_union_set(pairs.apply_range(r).deltas())
                  for _, _, r, _ in accesses}
        shifts = {_constant(deltas[id(r)]) for _, w, r, _ in accesses if w}
        if len(shifts) == 1 and None not in shifts:
            (shift,) = shifts
            for array, _, r, ref in accesses:
                row = _constant(deltas[id(r)])
                if row is not None:
                    reach[ref] = (array, row - shift)
            return _widened(halos, [(a, deltas[id(r)]) for a, _, r, _ in accesses], shift,
                            ALIGNED)
    rows = [_constant(isl.Set.from_union_set(r.range())) for _, w, r, _ in accesses if w]
    if not rows or rows[0] is None or any(c != rows[0] for c in rows):
        return None
    return _widened(halos, [(a, isl.Set.from_union_set(r.range()))
                            for a, _, r, _ in accesses], rows[0], rows[0])


def _widened(halos: dict[str, int], rows: list[tuple[str, isl.Set]], centre: int,
             owner: str | int) -> tuple[str | int, int] | None:
    """``owner`` (with its shift, for an aligned kernel) once every array's rows lie
    within a halo of ``centre``, ``halos`` widened to them; None where one does not."""
    for array, values in rows:
        d = _halo(values, centre)
        if d is None:
            return None
        halos[array] = max(halos.get(array, 0), d)
    return owner, centre if owner == ALIGNED else 0


def resident_grid(program: GpuProgram, blocks: int = RESIDENT_BLOCKS,
                  budget: int = RESIDENT_BYTES) -> ResidentGrid | None:
    """The plan of ``program`` as one cooperative launch with every array its phases
    write resident in shared memory, or None where it does not hold or fit."""
    scop = program.scop
    written = frozenset().union(*(k.writes for k in program.kernels)) - program.private
    shapes = {}
    for name in sorted(written):
        array = scop.array(name)
        ctype, shape = parse_type(array.element_type), extents(scop, array)
        if shape is None or array.member is not None or ctype is None \
                or ctype.bits not in (8, 16, 32, 64):
            return None
        shapes[name] = shape
    if not shapes:
        return None
    halos: dict[str, int] = {}
    owners, shifts, reach = {}, {}, {}
    for kernel in program.kernels:
        reach[kernel.name] = {}
        found = _owner(program, kernel, frozenset(shapes), halos, reach[kernel.name])
        if found is None:
            return None
        owners[kernel.name], shifts[kernel.name] = found
    reach = {k: v for k, v in reach.items() if owners[k] == ALIGNED}
    if ALIGNED not in owners.values():
        return None
    most = max(shape[0] for shape in shapes.values())
    rows = -(-most // blocks)
    arrays = tuple(ResidentArray(name, scop.array(name).element_type, shape[0],
                                 math.prod(shape[1:]), element_bytes(scop.array(name)),
                                 halos.get(name, 0))
                   for name, shape in shapes.items())
    grid = ResidentGrid(rows, -(-most // rows), arrays, owners, shifts, reach=reach)
    # a band of no rows further than d from its edges runs all through the views
    # (heat-3d: one plane a block, 4.3x slower than its launches on an H200)
    inner = rows > 2 * max(a.halo for a in arrays)
    if not (inner and 0 < grid.bytes <= budget):
        return None
    staged = replace(grid, staged=True)
    return staged if staged.halo_bytes() and staged.bytes <= budget else grid
