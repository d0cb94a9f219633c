"""Sizes for ``polycu check`` and ``polycu bench``, and which build is checked (the GPU
part is in test_gpu_runtime.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import polybench_facts as FACTS  # scripts/, on the path by conftest.py
import pytest

import polycu
from polycu import cli
from polycu.diagnostics import PolycuError
from polycu.options import Options
from polycu.cli import parse_assignments
from polycu.runtime import check
from polycu.runtime.cexpr import c_integer
from polycu.runtime.check import check_target, targets
from polycu.runtime.parameters import dataset_parameters, scop_parameters
from polycu.runtime.timing import Samples, Timing
from polycu.runtime.reference import build_reference

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


# -- the build that is checked is the build that is timed --------------------------------

JACOBI = str(REPO / FACTS.BY_NAME["jacobi-1d"].path)


class HostProgram:
    """A stand-in for ``pycuda_run.DeviceProgram`` without a GPU: it runs the kernels'
    job with the CPU reference and, like an FMA-contracted build of an ill-conditioned
    kernel (gramschmidt at LARGE), is 1 % off unless nvcc got ``--fmad=false``
    (always, when ``wrong``)."""

    built: list["HostProgram"] = []
    scops: dict[str, polycu.Scop] = {}
    wrong = False

    def __init__(self, description, params, host, *, options=(), fmad=True):
        self.exact = ("--fmad=false" in options or not fmad) and not HostProgram.wrong
        self.scop = HostProgram.scops[description["name"]]
        self.params, self.host = dict(params), host
        self.timed = False
        HostProgram.built.append(self)

    @staticmethod
    def prebuild(description, options=()):
        """Nothing is built ahead on the host."""

    def run(self):
        data = {name: array.copy() for name, array in self.host.items()}
        build_reference(self.scop)(self.params, data)
        for array in data.values():
            if not self.exact and array.dtype.kind == "f":
                array *= 1.01
        return data

    def time(self, repeat=10, warmup=2, budget_s=10.0):
        self.timed = True
        once = Samples((1e-3,))
        return Timing(once, once, once, launches=1, copies=1, method="stream")


@pytest.fixture
def host_programs(monkeypatch):
    """``check`` builds HostPrograms instead of GPU programs."""
    monkeypatch.setattr(check, "DeviceProgram", HostProgram)
    monkeypatch.setattr(HostProgram, "built", [])
    monkeypatch.setattr(HostProgram, "wrong", False)
    scop = polycu.load(JACOBI, includes=[UTILITIES], defines=["MINI_DATASET"])[0]
    monkeypatch.setattr(HostProgram, "scops", {scop.name: scop})
    return HostProgram


def test_the_program_returned_for_timing_is_the_one_checked(host_programs):
    (target,) = targets(JACOBI, Options(include_dir=[UTILITIES]), dataset="MINI")
    checked = check_target(target, seed=3)
    assert checked.report.ok, checked.report.format()
    assert host_programs.built == [checked.program]   # one build: checked, then timed
    assert checked.program.exact                      # built with --fmad=false
