"""The placement value and the placement phase.

A kernel ``K`` touches the arrays ``R_K ∪ W_K`` (read, written) less the scalars each
of its threads keeps private (``Kernel.private``: local variables, not memory).
``place`` gives each of them one ``Choice``; ``format_placement`` says them in
words (``--dump-memory``).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..gpu.kernel import GpuProgram, Kernel
from ..model import Array, Scop
from .registers import Promotion, promotions, thread_order, with_copies

GLOBAL = "global"
PARAMETER = "parameter"
REGISTER = "register"
#: The kinds of memory code generation can print: device memory, a kernel parameter
#: (a scalar passed by value, in the launch's constant parameter space), and a
#: register of each thread (in device memory between the thread's uses).
KINDS = (GLOBAL, PARAMETER, REGISTER)


@dataclass(frozen=True)
class Choice:
    """Where one array lives in one kernel, and why."""

    array: str
    kind: str
    reason: str


@dataclass(frozen=True)
class KernelPlacement:
    """The choices of one kernel, one per array it touches, in the SCoP's array order,
    and the arrays kept in registers with the thread's order including their copies
    (None when there are none)."""

    kernel: str
    choices: tuple[Choice, ...]
    registers: tuple[Promotion, ...] = ()
    order: isl.UnionMap | None = None

    def of(self, array: str) -> Choice:
        for choice in self.choices:
            if choice.array == array:
                return choice
        raise KeyError(f"kernel {self.kernel} does not touch array {array}")


@dataclass(frozen=True, eq=False)
class Placement:
    """A GPU program with the memory of every array of every kernel chosen."""

    program: GpuProgram
    kernels: tuple[KernelPlacement, ...]

    def kernel(self, name: str) -> KernelPlacement:
        for placed in self.kernels:
            if placed.kernel == name:
                return placed
        raise KeyError(name)


def place(program: GpuProgram, private_memory: bool = False) -> Placement:
    """Every array of every kernel where it lives: with ``private_memory``
    (--private-memory) a register where one thread reuses one element of it across a
    loop (registers.py), a parameter for a scalar the SCoP only reads, global memory
    otherwise."""
    return Placement(program, tuple(_kernel(program, k, private_memory)
                                    for k in program.kernels))


# A scalar no statement of the SCoP writes keeps one value in every kernel: it
# travels by value, in the parameters of each launch.
def passed_by_value(scop: Scop, array: Array) -> bool:
    """Whether ``array`` is a scalar that the SCoP only reads."""
    return array.is_scalar and not any(a.array == array.name
                                       for s in scop.statements for a in s.writes)


def _kernel(program: GpuProgram, kernel: Kernel, private_memory: bool) -> KernelPlacement:
    used = (kernel.reads | kernel.writes) - kernel.private
    in_memory = frozenset(name for name in used
                          if not passed_by_value(program.scop, program.scop.array(name)))
    registers = promotions(program, kernel, in_memory) if private_memory else ()
    promoted = {p.array: p for p in registers}
    choices = []
    for array in program.scop.arrays:
        if array.name not in used:
            continue
        if passed_by_value(program.scop, array):
            choices.append(Choice(array.name, PARAMETER,
                                  "a scalar the SCoP never writes: passed by value"))
            continue
        role = "read and written" if {array.name} <= kernel.reads & kernel.writes else \
            "written" if array.name in kernel.writes else "read"
        if array.name in promoted:
            depth = promoted[array.name].depth
            choices.append(Choice(array.name, REGISTER, f"{role}; one element per thread "
                                  f"for each value of the first {depth} schedule "
                                  "dimension(s), reused below them"))
            continue
        why = "no reuse by one thread that a register can hold" if private_memory else \
            "registers are off (--private-memory turns them on)"
        choices.append(Choice(array.name, GLOBAL, f"{role}; {why}"))
    order = with_copies(thread_order(program, kernel), registers) if registers else None
    return KernelPlacement(kernel.name, tuple(choices), registers, order)


def format_placement(placement: Placement) -> str:
    """``--dump-memory``: one line per kernel and array: where it lives and why."""
    scop = placement.program.scop
    lines = [f"# memory placement of SCoP {scop.name}"]
    for placed in placement.kernels:
        lines.append(f"{placed.kernel}:")
        for choice in placed.choices:
            lines.append(f"  {choice.array}: {choice.kind} ({choice.reason})")
        if not placed.choices:
            lines.append("  (no array)")
    return "\n".join(lines) + "\n"
