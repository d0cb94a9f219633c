"""The edge rows of a resident band: each reference resolved where it lands.

In:  a ``ResidentGrid`` (``memory.resident``) whose ``reach`` gives, for each access of
     an aligned kernel, its row as the instance's owner row + ``e`` (one constant), and
     whose ``staged`` says whether the halo rows a phase reads are copied into the
     block's shared memory after its bands.
Out: the C that ``resident.py`` puts around an aligned phase's edge rows on chip: the
     copy of the halo rows (``halo_fill``), the pointers the references are renamed to
     (``edge_pointers``) and, for each edge row of the band, the name each reference
     reads or writes (``edge_names``).

Through the views (``polycu_band``), every reference of an edge row chose at run time
between the block's shared copy and device memory, a select and a generic load or
store each; in jacobi-2d on an H100 the two edge rows of a 10-row band took more of a
phase than its eight inner rows (NVIDIA Nsight Compute's stall samples).  But the row
of the band each reference lands in is known when the kernel is generated: position
``k`` of the ``2d`` edge rows is band row ``k`` (``k < d``) or ``R - 2d + k``, and a
reference of row offset ``e`` lands in band row ``k + e`` (resp. ``R - 2d + k + e``):
in ``[0, R)`` the shared copy, below 0 the rows above the band, from ``R`` on those
below.  Those rows are the neighbours' edge rows in device memory, or, ``staged``,
their copy in shared memory made when the phase starts (asynchronously with the
grid barrier, so that it lands while the inner rows run).
"""
from __future__ import annotations

from ..memory.resident import ResidentGrid

#: Element sizes a cp.async copy moves (``POLYCU_COPY_ASYNC``); others are copied by
#: the thread.
ASYNC_BYTES = (4, 8, 16)


def _in(name: str) -> str:
    return f"polycu_in_{name}"


def _above(name: str) -> str:
    return f"polycu_above_{name}"


def _below(name: str) -> str:
    return f"polycu_below_{name}"


def band_view(name: str) -> str:
    """The name of array ``name``'s ``polycu_band`` in the resident kernel."""
    return f"polycu_view_{name}"


def staged_halos(plan: ResidentGrid, kernel: str) -> dict[str, int]:
    """The arrays whose halo rows ``kernel``'s phase copies to shared memory, with d."""
    return plan.halos(kernel) if plan.staged else {}


# Halo cell c of array X (W cells a row, d rows a side) is cell first - dW + c of X
# for c < dW (the rows above the band), first + RW - dW + c for the others (below);
# those outside X (the first band's rows above, the last one's below) are never read.
def halo_fill(plan: ResidentGrid, kernel: str) -> list[str]:
    """Copies of the halo rows ``kernel`` reads into shared memory, by the block's
    threads, asynchronously where the element size allows (``POLYCU_COPY_WAIT`` and a
    barrier must come before the edge rows read them)."""
    arrays = {a.name: a for a in plan.arrays}
    lines = []
    for name, offset in plan.halo_offsets(kernel).items():
        array, d = arrays[name], plan.halos(kernel)[name]
        cells, band = d * array.row_cells, plan.rows * array.row_cells
        view, element = band_view(name), array.element
        target = f"reinterpret_cast<{element} *>(polycu_dynamic + {offset})[polycu_c]"
        source = f"{view}.global[polycu_i]"
        copy = f"POLYCU_COPY_ASYNC({target}, {source});" \
            if array.element_bytes in ASYNC_BYTES else f"{target} = {source};"
        lines += [f"for (int polycu_c = threadIdx.x; polycu_c < {2 * cells}; "
                  "polycu_c += blockDim.x) {",
                  f"  const long long polycu_i = {view}.first + (polycu_c < {cells} ? "
                  f"polycu_c - {cells} : polycu_c + {band - cells});",
                  f"  if (polycu_i >= 0 && polycu_i < {array.rows * array.row_cells}LL)",
                  f"    {copy}", "}"]
    return lines


def edge_pointers(plan: ResidentGrid, kernel: str, refs: dict[str, str]) -> list[str]:
    """The pointers ``edge_names`` renames references to: the shared copy of each array
    ``refs`` (the kernel's references to resident arrays: their arrays) touches, indexed
    like the array, and its staged halo rows above and below the band, indexed so too.
    Restrict where every one of ``refs`` is renamed (none then goes through a view that
    could alias them)."""
    qualifier = "__restrict__ " if set(refs) <= set(plan.reach.get(kernel, {})) else ""
    lines = []
    for array in plan.arrays:
        if array.name not in refs.values():
            continue
        name, view, element = array.name, band_view(array.name), array.element
        lines.append(f"{element} *{qualifier}const {_in(name)} = {view}.slab - {view}.first;")
        offset = plan.halo_offsets(kernel).get(name) if plan.staged else None
        if offset is None:
            continue
        cells = plan.halos(kernel)[name] * array.row_cells
        halo = f"reinterpret_cast<{element} *>(polycu_dynamic + {offset})"
        lines += [f"{element} *{qualifier}const {_above(name)} = "
                  f"{halo} + {cells} - {view}.first;",
                  f"{element} *{qualifier}const {_below(name)} = "
                  f"{halo} - {plan.rows * array.row_cells - cells} - {view}.first;"]
    return lines


def edge_names(plan: ResidentGrid, kernel: str, position: int, halo: int) -> dict[str, str]:
    """What each reference of ``kernel`` with a constant row offset reads or writes in
    edge row ``position`` of the ``2 halo`` (the module's docstring)."""
    row = position if position < halo else plan.rows - 2 * halo + position
    staged = staged_halos(plan, kernel)
    names = {}
    for ref, (array, e) in plan.reach.get(kernel, {}).items():
        at = row + e
        if 0 <= at < plan.rows:
            names[ref] = _in(array)
        elif array in staged:
            names[ref] = _above(array) if at < 0 else _below(array)
        else:
            names[ref] = f"{band_view(array)}.global"
    return names
