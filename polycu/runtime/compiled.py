"""What the runtimes run: a C file compiled by polycu, with the SCoPs it was compiled from.

In:  a C file and the options to compile it with.
Out: ``Compiled``: the file's SCoPs (``driver.load_scops``: the originals, which the
     CPU reference, the parameter choice and the inputs are made from) and polycu's
     output for them (``driver.compile_scops``: the .cu and the kernel description,
     which the emulation and the GPU run), paired SCoP by SCoP.

Compiling happens here once per file; ``emulate``, ``check`` and ``bench`` take the
result.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..codegen import Generated
from ..diagnostics import Reporter
from ..driver import compile_scops, load_scops
from ..model import Scop
from ..options import Options


@dataclass(frozen=True, eq=False)
class Compiled:
    """A C file's SCoPs and polycu's output for them."""

    path: str
    options: Options
    scops: tuple[Scop, ...]
    generated: Generated

    @property
    def description(self) -> Mapping[str, Any]:
        return self.generated.description

    def pairs(self) -> list[tuple[Scop, Mapping[str, Any]]]:
        """Each SCoP with its entry in the kernel description."""
        by_name = {s.name: s for s in self.scops}
        return [(by_name[entry["name"]], entry) for entry in self.description["scops"]]


def compile_program(path: str, options: Options | None = None,
                    reporter: Reporter | None = None) -> Compiled:
    """Compile ``path`` with polycu and keep the SCoPs it was compiled from."""
    options = options or Options()
    scops = tuple(load_scops(path, options))
    return Compiled(path, options, scops, compile_scops(path, scops, options, reporter))
