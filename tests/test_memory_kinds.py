"""The calibration benchmark of the memory kinds (scripts/memory_kinds.cu, run on the
device by scripts/memory_kinds.sh): every kind and pattern is compiled for sm_90,
without spills that would time local memory instead of the kind."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVCC = shutil.which("nvcc")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_every_kind_and_pattern_compiles_without_spills(tmp_path):
    proc = subprocess.run([NVCC, "-O3", "-arch=sm_90", "-std=c++17", "-Xptxas", "-v", "-c",
                           "-o", str(tmp_path / "memory_kinds.o"),
                           str(ROOT / "scripts/memory_kinds.cu")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    entries = re.findall(r"Compiling entry function '(\w+)'", proc.stderr)
    assert len(entries) == 2 * 7 * 7          # double and float, 7 kinds, 7 patterns
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", proc.stderr)
    assert len(spills) == len(entries) and all(s == ("0", "0") for s in spills)
