"""Every option of polycu in one declarative table.

Each row says the flag, its type, default and help, which sub-commands accept it,
and whether it has PPCG's spelling and meaning (``ppcg=True``).  The command line
(``cli.py``) and the library (``Options(...)``) are both built from this table, so
an option exists in exactly one place.  Integer rows also carry their valid range and
``--ctx`` its syntax, so ``Options(...)`` and the command line refuse a bad value up
front, located at the option, before any phase turns it into a crash.
"""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import islpy as isl

from .diagnostics import Location, error

COMPILE, CHECK, EMULATE, BENCH, DEVICE, TUNE = \
    "compile", "check", "emulate", "bench", "device", "tune"
ALL = (COMPILE, CHECK, EMULATE, BENCH, TUNE)


@dataclass(frozen=True)
class Option:
    """One row of the table. ``kind`` is 'flag', 'int', 'str', 'append' or 'bool' (--x/--no-x)."""

    flag: str
    kind: str
    default: Any
    help: str
    commands: tuple[str, ...] = ALL
    short: str | None = None
    metavar: str | None = None
    ppcg: bool = False
    choices: tuple[str, ...] | None = None
    minimum: int | None = None
    """Smallest valid value of an 'int' option (None: unbounded)."""
    maximum: int | None = None
    """Largest valid value of an 'int' option (None: unbounded)."""
    syntax: Callable[[str], str | None] | None = None
    """For a 'str' option: what is wrong with a value (None when it is well formed)."""
    const: str | None = None
    """For a 'str' option whose value may be left out: the value it then takes."""

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def check(self, value: Any) -> None:
        """Raise a PolycuError located at the option when ``value`` is not valid for it."""
        if value is None:
            return
        if self.kind == "int" and not _in_range(value, self.minimum, self.maximum):
            raise error(f"{self.flag} must be {_range_text(self.minimum, self.maximum)}, "
                        f"not {value}", Location(self.flag))
        if self.syntax is not None:
            problem = self.syntax(value)
            if problem is not None:
                raise error(problem, Location(self.flag))


def _in_range(value: Any, minimum: int | None, maximum: int | None) -> bool:
    return isinstance(value, int) and (minimum is None or value >= minimum) and \
        (maximum is None or value <= maximum)


def _range_text(minimum: int | None, maximum: int | None) -> str:
    """'a positive integer', 'an integer from 0 to 4294967295', ..."""
    if maximum is None:
        return {None: "an integer", 0: "a non-negative integer",
                1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
    if minimum is None:
        return f"an integer <= {maximum}"
    return f"an integer from {minimum} to {maximum}"


def _isl_set_syntax(text: str) -> str | None:
    """Why ``--ctx`` text is not an isl set (None when it parses)."""
    try:
        isl.Set(text)
    except isl.Error:
        return f"not an isl set: '{text}' (expected e.g. '[n] -> {{ : n >= 32 }}')"
    return None


def _workers_syntax(text: str) -> str | None:
    """Why a ``--gpus`` value is neither a positive number nor 'all'."""
    if text == "all" or (text.isdigit() and int(text) > 0):
        return None
    return f"--gpus must be a positive integer or 'all', not '{text}'"


def _ray_syntax(text: str) -> str | None:
    """Why a ``--ray`` value is no Ray address: a file name right after a bare --ray
    is taken for its address, so this says where the flag goes."""
    if re.fullmatch(r"local|auto|(ray://)?[\w.-]+:\d+", text):
        return None
    return (f"not a Ray address: '{text}' (local, auto, HOST:PORT or ray://HOST:PORT; "
            "a bare --ray goes after the files)")


OPTIONS: tuple[Option, ...] = (
    # -- preprocessing, like gcc ------------------------------------------------
    Option("--define", "append", [], "define a macro (NAME or NAME=VALUE), like gcc -D",
           short="-D", metavar="NAME[=VALUE]", commands=(*ALL, DEVICE)),
    Option("--include-dir", "append", [], "add a directory to the include path, like gcc -I",
           short="-I", metavar="DIR", commands=(*ALL, DEVICE)),
    Option("--undefine", "append", [], "undefine a macro, like gcc -U", short="-U",
           metavar="NAME", commands=(*ALL, DEVICE)),
    # -- SCoP extraction ----------------------------------------------------------
    Option("--auto-scop", "bool", None,
           "find static control parts automatically (default: on when the file has no "
           "#pragma scop)"),
    Option("--ctx", "str", None, "extra constraints on the parameters, as an isl set, "
           "e.g. '[n] -> { : n >= 32 }'", ppcg=True, metavar="ISL_SET",
           syntax=_isl_set_syntax),
    # -- dumps --------------------------------------------------------------------
    Option("--dump-scop", "flag", False, "print the polyhedral model of each SCoP and stop",
           commands=(COMPILE,)),
    Option("--dump-deps", "flag", False, "print the dependences of each SCoP and stop",
           commands=(COMPILE,)),
    Option("--private-memory", "bool", True, "keep array elements one thread reuses "
           "across a loop in registers, one per lane of its register tile "
           "(docs/memory.md)", ppcg=True),
    Option("--shared-memory", "bool", True, "read what a block reads across a loop "
           "through tiles in shared memory (docs/memory.md)", ppcg=True),
    Option("--tensor-cores", "bool", True, "run the kernels that are contractions of "
           "doubles (W[i][j] += s * X[i][k] * Y[k][j]) on the FP64 tensor cores, four "
           "products of k at a time (docs/memory.md)"),
    Option("--async-copies", "bool", True, "load shared tiles with cp.async, global "
           "to shared memory without a register, so that every copy of a strip is in "
           "flight at once, and give kernels of at most one warp per SM tiles that hide "
           "their loads' latency (docs/memory.md)"),
    Option("--min-staged-bytes", "int", 256 * 1024, "with --async-copies, the arrays "
           "larger than this that a kernel running on one thread, or on at most one "
           "warp an SM, reads in a loop are read from strips copied ahead (smaller ones "
           "stay in the L1 cache; docs/memory.md)", minimum=0, metavar="BYTES"),
    Option("--carried-values", "bool", True, "keep in registers what a thread's "
           "recurrence stored one or two steps before and reads back "
           "(p[i][j] = f(p[i][j - 1])), proven with isl to be the value it reads; memory "
           "still gets every store (docs/memory.md)"),
    Option("--ordered-reductions", "bool", True, "run a kernel whose inner loop sums "
           "into one double or integer cell a row (y[i] += A[i][k] * x[k]) with many "
           "threads a row that compute its terms side by side, one thread adding them in "
           "C's order: the same value, the loads in parallel (docs/memory.md)"),
    Option("--parallel-reductions", "bool", False, "run a kernel whose inner loop sums "
           "into one cell a row (y[i] += A[i][k] * x[k]) with many threads a row, adding "
           "their partial sums in a tree: the terms are added in another order, so "
           "floating-point results differ by rounding (docs/memory.md)"),
    Option("--memory", "append", [], "where an array lives, overriding the cost model: "
           "K:ARRAY=KIND with K a kernel number or '*' and KIND read-only, global, "
           "texture, constant, texture-2d, surface, register or shared (e.g. "
           "'0:A=texture'; refused where illegal); ARRAY '*' gives every array in "
           "device memory that path where it is legal ('*:*=texture')",
           metavar="K:ARRAY=KIND"),
    Option("--single-block", "bool", True, "run a SCoP of many small launches (time "
           "steps of a small stencil, the steps of a triangular solve) as one launch of "
           "one block whose threads share each former launch, when the cost model "
           "estimates it at least 1.5 times as fast (docs/schedule.md)"),
    Option("--resident-grid", "bool", True, "run a SCoP whose kernels launch from host "
           "loops (a stencil's time steps) as one cooperative launch that keeps a band of "
           "rows of every array it writes in each block's shared memory across all of "
           "them, where the rows' owners can run every write and the bands fit on chip "
           "(docs/memory.md, 'Resident grids'; on an H100 at LARGE 1.63x the launches "
           "on jacobi-2d, 2.06x on fdtd-2d)"),
    Option("--resident-sync", "str", "auto", "how a resident grid's phases end "
           "while its bands are on chip: each block waits for every block (grid, a "
           "cooperative grid barrier) or only for the flags of the two blocks whose rows "
           "it reads (neighbours); auto, polycu's pick, is neighbours (on an H100 at "
           "LARGE, with the two flags polled at once, 1.04x of grid on jacobi-2d and "
           "1.07x on fdtd-2d); docs/memory.md, 'Resident grids'",
           choices=("auto", "neighbours", "grid")),
    Option("--resident-blocks", "int", 132, "blocks a resident grid is planned for (one an "
           "SM: an H100 SXM or H200 has 132); the launch keeps the bands on chip only where "
           "the device holds them all", minimum=1, maximum=65535, metavar="N"),
    Option("--run-on", "str", "auto", "where each SCoP runs: auto asks the cost model "
           "(the GPU program's kernels, copies and allocations against the original loop "
           "nest on one CPU core, at the sizes the arrays' extents allow) and leaves a SCoP "
           "whose GPU estimate is over twice the CPU's as its original C code on the host "
           "(docs/schedule.md, 'CPU or GPU'); gpu or cpu decides for every SCoP",
           choices=("auto", "gpu", "cpu")),
    Option("--max-shared-memory", "int", 48 * 1024, "bytes of shared memory a block "
           "may use for its tiles", ppcg=True, minimum=0, maximum=227 * 1024,
           metavar="BYTES"),
    Option("--dump-memory", "flag", False, "print where each array of each kernel lives "
           "(global, shared, registers, ...) and why, and stop", commands=(COMPILE,)),
    # -- scheduling (polycu/schedule) -------------------------------------------
    Option("--dump-schedule", "flag", False, "print the ranked schedule candidates and the "
           "chosen schedule tree (isl YAML) of each SCoP and stop", commands=(COMPILE,)),
    Option("--save-schedule", "str", None, "write the chosen schedule tree (isl YAML) to FILE "
           "(FILE.k.ext for the k-th SCoP, k > 0)", ppcg=True, metavar="FILE"),
    Option("--load-schedule", "str", None, "use the schedule tree in FILE instead of "
           "computing one (it is re-marked and proven legal first)", ppcg=True,
           metavar="FILE"),
    Option("--reschedule", "bool", True, "compute new schedules with isl's scheduler "
           "(--no-reschedule keeps only the original order)", ppcg=True),
    Option("--fusion", "str", "all", "fusion strategies tried with isl's scheduler: max, "
           "smart, min or all of them", choices=("all", "max", "smart", "min")),
    Option("--index-set-split", "bool", True, "also try isl's schedule of statements cut "
           "where their dependences inside a sequential outer loop lie on a hyperplane "
           "(floyd-warshall's row and column k), each piece scheduled on its own"),
    Option("--expand-scalars", "bool", True, "also try schedules of the SCoP with each "
           "scalar or array whose live ranges stay inside loop iterations replaced by a "
           "temporary array indexed by those loops (ludcmp's w, doitgen's sum; final "
           "values copied back), where that adds parallelism"),
    Option("--concurrent-kernels", "bool", True, "launch consecutive kernels that "
           "write nothing the others read or write side by side on streams of their "
           "own (bicg's two matrix-vector products), outside host loops"),
    Option("--dependent-launches", "bool", True, "launch each kernel so that it may "
           "start while the launch before it in its stream still runs (Hopper's "
           "programmatic dependent launch); its first statement waits until that launch "
           "has finished and its writes are visible, so only the launch's latency overlaps"),
    Option("--relayout", "bool", True, "also try the best schedule's SCoP with each array "
           "whose index moves diagonally from one thread to the next (a wavefront's: "
           "seidel-2d's A[i + 1][j - 2]) stored along a basis in which it moves to the "
           "next element (A'[2i + j][i]), copied in and out by kernels"),
    Option("--relax-reductions", "bool", False, "also try schedules that run reduction "
           "updates in parallel (lowered with atomics) where that adds parallelism; off by "
           "default because atomics add in a nondeterministic order, so results are no "
           "longer reproducible bit for bit"),
    Option("--schedule-max-operations", "int", 20_000_000, "isl operation budget for "
           "scheduling one SCoP; when exceeded the candidates found so far (the identity "
           "at least) are kept, with a warning (0: no limit)", metavar="N", minimum=0),
    Option("--fitted-cost", "bool", True, "rank the schedule candidates with the cost "
           "model `polycu device --fit` fitted for the present GPU ($POLYCU_DEVICE, else "
           "the first nvidia-smi lists) when there is one; else, or with --no-fitted-cost, "
           "with polycu's own constants (docs/explore.md)"),
    Option("--schedule", "str", None, "compile the candidate of this name, as "
           "--dump-schedule lists it (e.g. isl-minfuse; one name of a merged "
           "'a=b' entry is enough), instead of the best-ranked one", metavar="NAME"),
    Option("--tile-size", "int", 32, "default tile size of every band member", ppcg=True,
           metavar="N", minimum=1),
    Option("--sizes", "str", None, "per-kernel sizes, e.g. '{ kernel[0] -> tile[32,32]; "
           "kernel[i] -> block[16,8] }'", ppcg=True, metavar="ISL_MAP"),
    Option("--isl-schedule-outer-coincidence", "bool", None, "isl: require the outermost "
           "band member to be coincident where possible (polycu default: on)", ppcg=True),
    Option("--isl-schedule-maximize-band-depth", "bool", None, "isl: make bands as deep as "
           "possible (polycu default: on)", ppcg=True),
    Option("--isl-schedule-maximize-coincidence", "bool", None, "isl: maximize the number of "
           "coincident members per band (polycu default: off)", ppcg=True),
    Option("--isl-schedule-serialize-sccs", "bool", None, "isl: one loop nest per strongly "
           "connected component (overrides --fusion)", ppcg=True),
    Option("--isl-schedule-whole-component", "bool", None, "isl: schedule whole components "
           "at once (overrides --fusion)", ppcg=True),
    Option("--isl-schedule-treat-coalescing", "bool", None, "isl: avoid schedules whose "
           "coefficients prevent loop coalescing (polycu default: on)", ppcg=True),
    Option("--isl-schedule-separate-components", "bool", None, "isl: schedule the "
           "components of the dependence graph separately (polycu default: off)", ppcg=True),
    Option("--isl-schedule-carry-self-first", "bool", None, "isl: carry self-dependences "
           "first when a band must carry dependences (polycu default: on)", ppcg=True),
    Option("--isl-schedule-max-coefficient", "int", None, "isl: bound on schedule "
           "coefficients (-1: none; polycu default: 1024)", ppcg=True, metavar="N",
           minimum=-1),
    Option("--isl-schedule-max-constant-term", "int", None, "isl: bound on schedule "
           "constant terms (-1: none)", ppcg=True, metavar="N", minimum=-1),
    Option("--isl-schedule-algorithm", "str", None, "isl: scheduling algorithm",
           ppcg=True, choices=("isl", "feautrier")),
    # -- output -------------------------------------------------------------------
    Option("--output", "str", None, "output file (default: input name with .cu)",
           commands=(COMPILE,), short="-o", metavar="FILE"),
    # -- running, checking, timing (polycu/runtime, polycu/bench/) ---------------
    Option("--dataset", "str", None, "PolyBench dataset: compile with -D<DATASET>_DATASET "
           "and give each parameter p the value of its size macro P (bench: LARGE if not "
           "given)", commands=(CHECK, BENCH, TUNE),
           choices=("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")),
    Option("--param", "append", [], "fix a parameter's value (NAME=VALUE); the others come "
           "from --dataset or are chosen up to --max-param", commands=(CHECK, EMULATE, TUNE),
           metavar="NAME=VALUE"),
    Option("--max-param", "int", 37, "largest value chosen for a parameter that nothing "
           "fixes", commands=(CHECK, EMULATE, TUNE), metavar="N", minimum=1),
    Option("--seed", "int", None, "seed of the random inputs (default: a fresh one, "
           "printed)", commands=(CHECK, EMULATE, BENCH, TUNE), metavar="N", minimum=0,
           maximum=2**32 - 1),
    Option("--fmad", "bool", False, "check and time the build that contracts a*b+c into "
           "FMAs (nvcc's default, what `nvcc -O3` makes of polycu's output; cuBLAS uses "
           "them too) instead of the one that rounds like the CPU reference; the check "
           "keeps its tolerance", commands=(CHECK, BENCH, TUNE)),
    Option("--repeat", "int", 10, "timed runs per kernel (median and spread reported)",
           commands=(BENCH, TUNE), metavar="N", minimum=1),
    Option("--out", "str", None, "directory of the reports (default: out/bench-<DATASET>; "
           "tune: out/tune-<DATASET>, every configuration evaluated)",
           commands=(BENCH, TUNE), metavar="DIR"),
    Option("--cpu-baseline", "bool", True, "also time the unchanged program built with "
           "gcc -O3, one thread and automatically parallelised", commands=(BENCH,)),
    Option("--init", "str", None, "fill the SCoP's arrays with this function of the "
           "program (e.g. PolyBench's init_array, its arguments matched by name) instead "
           "of random values", commands=(CHECK, BENCH, TUNE), metavar="FUNCTION"),
    Option("--cpu-times", "str", None, "take the one-thread gcc -O3 baseline from this "
           "timings JSON of scripts/polybench_cpu.py (measured there in parallel) instead "
           "of timing each kernel here; the autoparallelised baseline is then skipped",
           commands=(BENCH,), metavar="FILE"),
    Option("--history", "str", None, "the results.json of an earlier bench: its seconds "
           "per kernel order the kernels longest first, and the kernels that held a GPU "
           "longest are spread over the GPUs by them (with several workers)",
           commands=(BENCH,), metavar="FILE"),
    # -- tuning (polycu/tune) ----------------------------------------------------
    Option("--tuned", "flag", False, "compile each SCoP with the configuration `polycu "
           "tune` found best for it (read from --tune-cache; the options it sets are "
           "printed at the top of the .cu); a SCoP never tuned keeps the defaults, "
           "with a note", commands=(COMPILE, CHECK, EMULATE, BENCH)),
    Option("--tune-cache", "str", None, "the JSON cache of tuned configurations "
           "(default: $POLYCU_TUNE_CACHE, else ~/.cache/polycu/tuned.json)",
           commands=(COMPILE, CHECK, EMULATE, BENCH, TUNE), metavar="FILE"),
    Option("--strategy", "str", "auto", "how to search: every configuration "
           "(exhaustive), a random sample (random), or the defaults' neighbourhood "
           "searched outward from the best found so far (local); auto: exhaustive when "
           "the space fits --max-configs, else local", commands=(TUNE,),
           choices=("auto", "exhaustive", "random", "local")),
    Option("--reorder-reductions", "flag", False, "let the search also try tree "
           "reductions (--parallel-reductions), which add a row's terms in another order: "
           "their results differ from the original's by rounding and must pass the same "
           "check as every configuration", commands=(TUNE,)),
    Option("--retune", "flag", False, "search again even when the cache holds a winner "
           "for the SCoP at this size on this device (by default that winner is reported "
           "and nothing is built); the cache keeps the faster of the two winners",
           commands=(TUNE,)),
    Option("--max-configs", "int", 40, "configurations evaluated at most per SCoP",
           commands=(TUNE,), metavar="N", minimum=1),
    Option("--budget", "int", 600, "seconds of search per SCoP at most (the "
           "configurations under way are finished)", commands=(TUNE,), metavar="SECONDS",
           minimum=1),
    Option("--evaluator", "str", "gpu", "what checks and times a configuration: the GPU "
           "(PyCUDA; times with CUDA events) or the CPU emulation (checks only; its "
           "times are the emulation's, for testing the search without a GPU)",
           commands=(TUNE,), choices=("gpu", "emulate")),
    Option("--jobs", "int", 4, "configurations compiled at once (polycu and nvcc in "
           "worker processes), which is also the size of a search batch, measured by the "
           "--gpus workers at once (so give at least as many jobs as workers)",
           commands=(TUNE, DEVICE), metavar="N", minimum=1),
    # -- workers (polycu/runtime/workers.py, docs/scale-out.md) ------------------
    Option("--gpus", "str", "1", "workers that check and time at once (tune: the "
           "configurations of a search batch, bench: the kernels), one process per GPU of "
           "this host, each pinned to its GPU; 'all': every GPU (with --evaluator emulate: "
           "CPU processes, 'all' being every core); with --ray, Ray actors of one GPU "
           "each, 'all' every GPU of the cluster", commands=(BENCH, TUNE),
           metavar="N|all", syntax=_workers_syntax),
    Option("--workers-per-gpu", "int", 1, "bench: worker processes on each of the --gpus "
           "GPUs; they take turns for what runs on the GPU (checks, timings, cuBLAS), so "
           "one compiles and builds its reference while another runs, and no timing holds "
           "another's kernels", commands=(BENCH,), metavar="N", minimum=1),
    Option("--ray", "str", None, "run the --gpus workers as actors of the Ray cluster "
           "at ADDRESS (auto: the running one; local, or no address: start one on this "
           "host); without Ray installed, says how to install it and runs here",
           commands=(BENCH, TUNE), metavar="ADDRESS", syntax=_ray_syntax, const="local"),
    Option("--refresh", "flag", False, "measure the device again even when its ceilings "
           "are cached", commands=(DEVICE,)),
    Option("--fit", "flag", False, "fit the cost model's constants to the times of "
           "`polycu tune --out` files (each configuration rebuilt, compile only), store "
           "them for the device they were measured on and print the rank correlation "
           "of its estimates with the times, in-sample and held out (docs/explore.md)",
           commands=(DEVICE,)),
)


def check_values(values: Mapping[str, Any]) -> None:
    """Check every option value in ``values`` (keyed by ``dest``; others are ignored)
    against its row: the first invalid one is a PolycuError located at its flag."""
    for opt in OPTIONS:
        if opt.dest in values:
            opt.check(values[opt.dest])


def add_to_parser(parser: argparse.ArgumentParser, command: str) -> None:
    """Add every option that ``command`` accepts to an argparse parser."""
    for opt in OPTIONS:
        if command not in opt.commands:
            continue
        names = [opt.short, opt.flag] if opt.short else [opt.flag]
        if opt.kind == "flag":
            parser.add_argument(*names, action="store_true", default=opt.default, help=opt.help)
        elif opt.kind == "bool":
            parser.add_argument(opt.flag, action=argparse.BooleanOptionalAction,
                                default=opt.default, help=opt.help)
        elif opt.kind == "append":
            parser.add_argument(*names, action="append", default=list(opt.default),
                                metavar=opt.metavar, help=opt.help)
        else:
            optional = {"nargs": "?", "const": opt.const} if opt.const is not None else {}
            parser.add_argument(*names, type=int if opt.kind == "int" else str,
                                default=opt.default, metavar=opt.metavar, choices=opt.choices,
                                help=opt.help, **optional)


class Options:
    """Option values for the library API: ``Options(tile_size=16)``; defaults from the table.

    A value the table does not allow (``Options(seed=-1)``) raises PolycuError located
    at its flag, as on the command line."""

    def __init__(self, **values: Any):
        known = {opt.dest: opt for opt in OPTIONS}
        for key in values:
            if key not in known:
                raise TypeError(f"unknown polycu option '{key}'")
        check_values(values)
        for dest, opt in known.items():
            default = list(opt.default) if isinstance(opt.default, list) else opt.default
            object.__setattr__(self, dest, values.get(dest, default))

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> "Options":
        known = {opt.dest for opt in OPTIONS}
        return cls(**{k: v for k, v in vars(ns).items() if k in known})

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Options are immutable; use replace()")

    def replace(self, **changes: Any) -> "Options":
        values = {opt.dest: getattr(self, opt.dest) for opt in OPTIONS}
        values.update(changes)
        return Options(**values)

    def __repr__(self) -> str:
        fields = ", ".join(f"{o.dest}={getattr(self, o.dest)!r}" for o in OPTIONS)
        return f"Options({fields})"
