"""Build and run the PolyBench suite of ``polybench/`` on the CPU with gcc.

In:  kernels (``find_kernels`` finds them under a tree laid out like PolyBench's:
``<category>/<name>/<name>.c``), a dataset, compiler flags.
Out: binaries (``build_kernel``), what they print (``run_kernel``), the arrays of a
``POLYBENCH_DUMP_ARRAYS`` dump (``parse_dump``), the time of a ``POLYBENCH_TIME``
run (``parse_time``), and for a whole suite (``run_suite``) the gzip dumps and the
``timings_<DATASET>.csv``/``.json`` files (``write_timings``).

Why here: ``polycu bench`` builds its CPU baselines with these functions, the tests
check the suite and its references with them, and ``scripts/polybench_cpu.py`` is
the command line over them.  The harness (``polybench/utilities``) is the one of
polycu's source tree (``POLYBENCH_ROOT``), as it always was.
"""
from __future__ import annotations

import concurrent.futures
import csv
import gzip
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

#: polycu's source tree (this file is polycu/bench/cpu.py)
REPO_ROOT = Path(__file__).resolve().parents[2]
POLYBENCH_ROOT = REPO_ROOT / "polybench"
UTILITIES_DIR = POLYBENCH_ROOT / "utilities"
DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

# Dumps must not depend on the host: without this, gcc on targets with a
# fused multiply-add (aarch64, or x86 with -march=native) contracts a*b+c
# and the last bits of results, hence sometimes printed digits, change.
DUMP_CFLAGS = ("-ffp-contract=off",)

_DUMP_BEGIN = "==BEGIN DUMP_ARRAYS=="
_DUMP_END = "==END   DUMP_ARRAYS=="
# The name is matched lazily and pinned by the closing line, because a
# dump may put its first value right after the name (the original trisolv
# prints its line breaks after the values: "begin dump: x0.00 ").
_ARRAY_RE = re.compile(r"begin dump: (\S+?)(.*?)\nend   dump: \1\n", re.S)


class BuildError(RuntimeError):
    """gcc failed; the message carries the command and its diagnostics."""


class RunError(RuntimeError):
    """A kernel binary exited with a non-zero status or timed out."""


@dataclass(frozen=True)
class Kernel:
    """One benchmark: ``polybench/<category>/<name>/<name>.c``."""

    name: str
    category: str
    source: Path

    @property
    def directory(self) -> Path:
        return self.source.parent


@dataclass(frozen=True)
class BuildResult:
    binary: Path
    command: tuple[str, ...]
    diagnostics: str  # gcc's stderr: empty when the build is warning-free


@dataclass(frozen=True)
class RunResult:
    stdout: str
    stderr: str


def find_kernels(root: Path = POLYBENCH_ROOT) -> list[Kernel]:
    """All kernels under ``root``, sorted by category then name.

    A kernel is a ``<name>.c`` inside a directory called ``<name>``; the
    harness in ``utilities/`` is not one.
    """
    kernels = []
    for source in root.rglob("*.c"):
        directory = source.parent
        if source.stem != directory.name or directory == root / "utilities":
            continue
        if directory == root:  # root is the kernel's own directory
            category = directory.parent.name
        else:
            category = directory.parent.relative_to(root).as_posix()
        kernels.append(Kernel(source.stem, category, source))
    return sorted(kernels, key=lambda k: (k.category, k.name))


def build_kernel(
    kernel: Kernel,
    dataset: str,
    out_dir: Path,
    *,
    defines: Sequence[str] = (),
    cflags: Sequence[str] = ("-O3",),
    openmp: bool = False,
    cc: str = "gcc",
    tag: str = "",
) -> BuildResult:
    """Compile ``kernel`` with the harness for ``dataset``.

    ``defines`` are macro names (``POLYBENCH_TIME``) or ``NAME=value``
    pairs; the binary is ``out_dir/<name>_<dataset><tag>``.  Raises
    BuildError when gcc fails.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {DATASETS}")
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = out_dir / f"{kernel.name}_{dataset}{tag}"
    command = [
        cc, *cflags,
        *(["-fopenmp"] if openmp else []),
        "-I", str(UTILITIES_DIR), "-I", str(kernel.directory),
        f"-D{dataset}_DATASET", *(f"-D{d}" for d in defines),
        str(UTILITIES_DIR / "polybench.c"), str(kernel.source),
        "-o", str(binary), "-lm",
    ]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(command)}\n{proc.stderr}")
    return BuildResult(binary, tuple(command), proc.stderr)


def run_kernel(binary: Path, timeout: float | None = None) -> RunResult:
    """Run a kernel binary; raises RunError on failure or timeout."""
    try:
        proc = subprocess.run([str(binary)], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RunError(f"{binary} timed out after {timeout} s") from exc
    if proc.returncode != 0:
        raise RunError(f"{binary} exited with status {proc.returncode}\n{proc.stderr}")
    return RunResult(proc.stdout, proc.stderr)


def parse_dump(text: str) -> dict[str, list[float]]:
    """The arrays of a ``POLYBENCH_DUMP_ARRAYS`` dump, in dump order.

    Checks the framing strictly (markers, matching begin/end names, nothing
    between arrays) so that a malformed dump is an error, not an empty
    result.
    """
    start = text.find(_DUMP_BEGIN + "\n")
    end = text.rfind(_DUMP_END + "\n")
    if start < 0 or end < start:
        raise ValueError("no ==BEGIN/END DUMP_ARRAYS== section")
    body = text[start + len(_DUMP_BEGIN) + 1:end]
    arrays: dict[str, list[float]] = {}
    position = 0
    while position < len(body):
        match = _ARRAY_RE.match(body, position)
        if match is None:
            raise ValueError(f"malformed dump near: {body[position:position + 60]!r}")
        name, values = match.group(1), match.group(2)
        if name in arrays:
            raise ValueError(f"array {name} dumped twice")
        arrays[name] = [float(token) for token in values.split()]
        position = match.end()
    if not arrays:
        raise ValueError("dump contains no array")
    return arrays


def parse_time(stdout: str) -> float:
    """The time printed by ``polybench_print_instruments`` (last line)."""
    lines = stdout.strip().splitlines()
    if not lines:
        raise ValueError("kernel printed no time")
    return float(lines[-1])


def write_dump(path: Path, dump: str) -> None:
    """gzip ``dump`` to ``path`` reproducibly (no name, zero mtime)."""
    with open(path, "wb") as raw, gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0) as packed:
        packed.write(dump.encode())


def read_dump(path: Path) -> str:
    with gzip.open(path, "rt") as packed:
        return packed.read()


class Progress:
    """A plain-text progress bar on stderr, safe to update from threads."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.width, self.done = total, width, 0
        self._lock = threading.Lock()

    def step(self, label: str) -> None:
        with self._lock:
            self.done += 1
            filled = self.width * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (self.width - filled)
            end = "\n" if self.done == self.total else ""
            sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label:<28}{end}")
            sys.stderr.flush()


@dataclass
class KernelReport:
    kernel: Kernel
    samples: list[float]
    error: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


def _record_dump(kernel: Kernel, dataset: str, build_dir: Path, out_dir: Path,
                 openmp: bool, cc: str) -> None:
    build = build_kernel(kernel, dataset, build_dir, defines=["POLYBENCH_DUMP_ARRAYS"],
                         cflags=("-O3", *DUMP_CFLAGS), openmp=openmp, cc=cc, tag="_dump")
    dump = run_kernel(build.binary).stderr
    parse_dump(dump)  # refuse to store a malformed reference
    write_dump(out_dir / f"{kernel.name}_{dataset}.dump.gz", dump)


def _time_kernel(kernel: Kernel, dataset: str, build_dir: Path, repeat: int,
                 openmp: bool, cc: str) -> list[float]:
    build = build_kernel(kernel, dataset, build_dir, defines=["POLYBENCH_TIME"],
                         cflags=("-O3",), openmp=openmp, cc=cc, tag="_time")
    return [parse_time(run_kernel(build.binary).stdout) for _ in range(repeat)]


def run_suite(kernels: Iterable[Kernel], dataset: str, out_dir: Path, *,
              jobs: int = 1, repeat: int = 3, timing: bool = True,
              openmp: bool = False, cc: str = "gcc",
              on_step: Callable[[str], None] = lambda label: None) -> list[KernelReport]:
    """Record dumps (in parallel) then timings (one kernel at a time, so
    that concurrent runs do not disturb the measurements)."""
    kernels = list(kernels)
    out_dir.mkdir(parents=True, exist_ok=True)
    reports = {k: KernelReport(k, []) for k in kernels}
    with tempfile.TemporaryDirectory(prefix="polybench-build-") as tmp:
        build_dir = Path(tmp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_record_dump, k, dataset, build_dir, out_dir,
                                   openmp, cc): k for k in kernels}
            for future in concurrent.futures.as_completed(futures):
                kernel = futures[future]
                try:
                    future.result()
                except (BuildError, RunError, ValueError) as exc:
                    reports[kernel].error = str(exc)
                on_step(f"dump {kernel.name}")
        if timing:
            for kernel in kernels:
                if not reports[kernel].error:
                    try:
                        reports[kernel].samples = _time_kernel(
                            kernel, dataset, build_dir, repeat, openmp, cc)
                    except (BuildError, RunError, ValueError) as exc:
                        reports[kernel].error = str(exc)
                on_step(f"time {kernel.name}")
    return [reports[k] for k in kernels]


def write_timings(reports: Sequence[KernelReport], dataset: str, out_dir: Path) -> None:
    rows = [{"kernel": r.kernel.name, "category": r.kernel.category,
             "dataset": dataset, "median_s": r.median, "samples_s": r.samples,
             "error": r.error} for r in reports]
    (out_dir / f"timings_{dataset}.json").write_text(json.dumps(rows, indent=2) + "\n")
    with open(out_dir / f"timings_{dataset}.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["kernel", "category", "dataset", "median_s", "samples_s", "error"])
        for row in rows:
            median = "" if row["median_s"] is None else f"{row['median_s']:.6f}"
            samples = " ".join(f"{s:.6f}" for s in row["samples_s"])
            writer.writerow([row["kernel"], row["category"], dataset, median,
                             samples, row["error"].splitlines()[0] if row["error"] else ""])
