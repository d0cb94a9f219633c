"""Sizes for ``polycu check`` and ``polycu bench`` (the GPU part is in test_gpu_runtime.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import polybench_facts as FACTS  # scripts/, on the path by conftest.py
import pytest

import polycu
from polycu import cli
from polycu.diagnostics import PolycuError
from polycu.runtime.check import (c_integer, dataset_parameters, parse_assignments,
                                  scop_parameters)

REPO = Path(__file__).resolve().parent.parent
UTILITIES = str(REPO / "polybench" / "utilities")




@pytest.mark.parametrize("text, value", [
    ("1000 + 0", 1000), ("(2 * 7) / 4", 3), ("-7 / 2", -3), ("-7 % 2", -1), ("120UL", 120),
    ("((1300))", 1300)])
def test_c_integer(text, value):
    assert c_integer(text) == value


@pytest.mark.parametrize("text", ["N", "1.5", "2 ** 3", "1 / 0", "f(2)"])
def test_c_integer_refuses_anything_else(text):
    with pytest.raises((ValueError, SyntaxError)):
        c_integer(text)


@pytest.mark.parametrize("name", ["gemm", "2mm", "fdtd-2d", "doitgen", "deriche", "adi"])
@pytest.mark.parametrize("dataset", ["MINI", "LARGE"])
def test_dataset_sizes_are_the_size_macros(name, dataset):
    kernel = FACTS.BY_NAME[name]
    path = str(REPO / kernel.path)
    scop = polycu.load(path, includes=[UTILITIES], defines=[f"{dataset}_DATASET"])[0]
    values = dataset_parameters(path, scop.parameters, dataset, includes=[UTILITIES])
    assert values == {p: kernel.size(dataset)[p.upper()] for p in scop.parameters}


def test_sizes_precedence_and_errors(tmp_path):
    path = str(REPO / FACTS.BY_NAME["gemm"].path)
    scop = polycu.load(path, includes=[UTILITIES], defines=["SMALL_DATASET"])[0]
    sized = scop_parameters(scop, path, dataset="SMALL", overrides={"nj": 5},
                            includes=[UTILITIES])
    assert sized == {"ni": 60, "nj": 5, "nk": 80}
    assert scop_parameters(scop, path, dataset=None, overrides={"nj": 5}) is None
    with pytest.raises(PolycuError, match="not parameters of"):
        scop_parameters(scop, path, dataset=None, overrides={"n": 5})
    source = tmp_path / "k.c"
    source.write_text("void f(int n, double A[100]) {\n#pragma scop\n"
                      "for (int i = 0; i < n; i++) A[i] = 0.0;\n#pragma endscop\n}\n")
    other = polycu.load(str(source))[0]
    with pytest.raises(PolycuError, match="macro N does not expand to an integer"):
        dataset_parameters(str(source), other.parameters, "LARGE")


def test_param_assignments():
    assert parse_assignments(["n=100", " m = 2*3 "]) == {"n": 100, "m": 6}
    for bad in (["n"], ["n=x"], ["1n=3"]):
        with pytest.raises(PolycuError, match="--param expects NAME=INTEGER"):
            parse_assignments(bad)


def test_cli_without_pycuda_reports_a_diagnostic(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # as if not installed
    path = str(REPO / FACTS.BY_NAME["atax"].path)
    assert cli.main(["check", path, "-I", UTILITIES, "--dataset", "MINI"]) == 1
    assert "PyCUDA is not available" in capsys.readouterr().err
    assert cli.main(["device"]) == 1
    assert "PyCUDA is not available" in capsys.readouterr().err
