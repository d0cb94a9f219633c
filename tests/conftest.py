"""Shared test set-up: the scripts of ``scripts/`` (the PolyBench facts, the CPU
suite runner, the table writer) import as plain modules in every test module, and
the ``emulated`` fixture runs a C source through polycu and the CPU emulator; every
test but the CPU placement's own compiles for the GPU (``gpu_placement``); under
pytest-xdist the workers share their tables of results (``session_work``)."""
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

SCRIPTS = str(Path(__file__).resolve().parent.parent / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)


@pytest.fixture(scope="session", autouse=True)
def session_work(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Under pytest-xdist, the directory where the workers share their tables
    (``session_work.py``): beside the workers' own, in the session's base."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import session_work
        session_work.directory = tmp_path_factory.getbasetemp().parent / "session_work"


@pytest.fixture(autouse=True)
def gpu_placement(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test compiles for the GPU (--run-on gpu by default) but those of the CPU
    placement itself (test_cpu_placement.py): the suite's programs are small, so the
    cost model would rightly leave many to the CPU, and they are there to test the
    GPU code.  (A polycu run in a subprocess passes --run-on gpu itself.)"""
    if request.module.__name__.endswith("test_cpu_placement"):
        return
    from polycu import options
    monkeypatch.setattr(options, "OPTIONS", tuple(
        replace(o, default="gpu") if o.flag == "--run-on" else o for o in options.OPTIONS))


@pytest.fixture
def printed_by_gcc(tmp_path: Path) -> Callable[[str, str], dict[str, tuple[str, list[str]]]]:
    """A function that builds C ``text`` with gcc (C99, -Wall -pedantic-errors,
    -fsanitize=undefined), runs it, asserts that it ran clean and returns the blocks it
    printed (``polycu.fuzz.outputs.parse_output``: name -> (type, values))."""
    def run(text: str, name: str) -> dict[str, tuple[str, list[str]]]:
        from polycu.fuzz.outputs import parse_output
        source, exe = tmp_path / f"{name}.c", tmp_path / name
        source.write_text(text)
        build = subprocess.run(["gcc", "-std=c99", "-O1", "-ffp-contract=off", "-Wall",
                                "-pedantic-errors", "-Werror=implicit-function-declaration",
                                "-fsanitize=undefined", "-fno-sanitize-recover=all",
                                str(source), "-lm", "-o", str(exe)],
                               capture_output=True, text=True, timeout=120)
        assert build.returncode == 0, build.stderr
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0 and "runtime error" not in ran.stderr, (name, ran.stderr)
        return {n: (t, values) for n, t, values in parse_output(ran.stdout)}
    return run


@pytest.fixture
def emulated(tmp_path: Path) -> Callable[[str, list[dict[str, int]]], Path]:
    """A function that writes C ``source`` to a file, emulates polycu's code for it at
    each parameter set of ``sizes`` against the original (CPU only, no nvcc; options
    as keywords) and returns the file."""
    def run(source: str, sizes: list[dict[str, int]], **values: object) -> Path:
        return emulate_with(tmp_path, source, [], sizes, **values)
    return run


@pytest.fixture
def emulated_with(tmp_path: Path) -> Callable[[str, list[str], list[dict[str, int]]], Path]:
    """``emulated`` with --memory overrides (``KERNEL:ARRAY=KIND`` items)."""
    def run(source: str, memory: list[str], sizes: list[dict[str, int]]) -> Path:
        return emulate_with(tmp_path, source, memory, sizes)
    return run


def emulate_with(tmp_path: Path, source: str, memory: list[str],
                 sizes: list[dict[str, int]], **values: object) -> Path:
    """``emulate_file`` at each parameter set, the file compiled once for all of them
    (the compiled program does not depend on the parameters: they are run-time
    values)."""
    from polycu.options import Options
    from polycu.runtime.compiled import compile_program
    from polycu.runtime.emulate import emulate_generated

    path = tmp_path / "emulated.c"
    path.write_text(source)
    compiled = compile_program(str(path), Options(memory=memory, **values))
    for params in sizes:
        (report,) = emulate_generated(compiled.scops, compiled.description, params=params,
                                      seed=sum(params.values()), nvcc=False)
        assert report.ok and not report.on_cpu, report.format()   # the GPU code compared
    return path
