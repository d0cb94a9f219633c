"""Packaging: what an installed polycu needs ships inside the package, and the
command line says what polycu is (``--version``, ``--help``)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import polycu
from polycu.cli import COMMANDS, main
from polycu.frontend.preprocess import FAKELIBC
from polycu.runtime.emulate import INCLUDE_DIR

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(polycu.__file__).resolve().parent


def test_version_is_the_metadata_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"polycu {polycu.__version__}\n"
    assert metadata.version("polycu") == polycu.__version__


def test_help_shows_the_plain_form_first_then_the_commands(capsys) -> None:
    assert main(["--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "usage: polycu FILE.c -o OUT.cu [options]"
    assert any("`polycu FILE.c -o OUT.cu` writes OUT.cu" in line for line in lines[:8])
    listed = [line.split()[0] for line in lines[lines.index("commands:"):]
              if line.startswith("    ") and line.split()[0] in COMMANDS]
    assert listed == ["compile", "emulate", "check", "bench", "device", "tune"]
    assert lines.index("commands:") < lines.index("options:")


def test_python_m_polycu_is_the_command(tmp_path) -> None:
    run = subprocess.run([sys.executable, "-m", "polycu", "--version"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, f"polycu {polycu.__version__}\n", "")


def test_run_time_data_lives_inside_the_package() -> None:
    assert FAKELIBC.is_relative_to(PACKAGE) and (FAKELIBC / "stdio.h").is_file()
    assert INCLUDE_DIR.is_relative_to(PACKAGE) and (INCLUDE_DIR / "polycu_emu.h").is_file()


@pytest.mark.slow
def test_the_wheel_ships_the_headers_and_installs_outside_the_source_tree(tmp_path) -> None:
    """Build the wheel from a copy of what the build reads (so neither a stale
    ``build/`` nor the source tree can stand in for package data), install it into
    a directory of its own and compile the example from elsewhere with that copy."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "polycu",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.o"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w",
                    str(tmp_path / "dist"), str(source)], check=True, timeout=120)
    (wheel,) = (tmp_path / "dist").glob("polycu-*.whl")
    info = f"polycu-{polycu.__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = archive.read(f"{info}/METADATA").decode()
    assert {"polycu/fakelibc/stdio.h", "polycu/fakelibc/sys/types.h",
            "polycu/runtime/include/polycu_emu.h", "polycu/runtime/native_child.py",
            f"{info}/licenses/LICENSE"} <= names
    assert f"Version: {polycu.__version__}\n" in meta
    assert "License-Expression: MIT\n" in meta and "License-File: LICENSE\n" in meta
    assert (source / "LICENSE").read_text().startswith("MIT License")

    target = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(target),
                    str(wheel)], check=True, timeout=120)
    work = tmp_path / "elsewhere"
    work.mkdir()
    program = ("import sys, polycu.cli; "
               f"assert polycu.cli.__file__.startswith({str(target)!r}), polycu.cli.__file__; "
               f"sys.exit(polycu.cli.main([{str(ROOT / 'examples' / 'gemm.c')!r}, "
               "'-o', 'gemm.cu']))")
    run = subprocess.run([sys.executable, "-c", program], cwd=work, capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(target)})
    assert (run.returncode, run.stderr) == (0, "")
    assert "__global__" in (work / "gemm.cu").read_text()
    assert (work / "gemm.kernels.json").is_file()
