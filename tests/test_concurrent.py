"""Kernels side by side (--concurrent-kernels, codegen/concurrent.py): which launches
of a host tree are grouped, the host code that forks and joins their streams, the
option, and the emulation, which runs a group's launches in reverse order, so that a
group of dependent kernels computes something else."""
from __future__ import annotations

import re

import pytest

from polycu.bench import cpu as polybench_cpu
from polycu.codegen import concurrent
from polycu.driver import compile_file
from polycu.options import Options
from polycu.runtime.emulate import emulate_file

KERNELS = {k.name: k for k in polybench_cpu.find_kernels()}
# a launch in a concurrent group: its stream and kernel
ON = re.compile(r"POLYCU_LAUNCH(?:_NOSYNC)?(?:_AFTER)?_ON\(([^,]+), (\w+), polycu_grid")


def polybench(name: str, **values: object) -> Options:
    return Options(define=["MINI_DATASET"], run_on="gpu",
                   include_dir=[str(polybench_cpu.UTILITIES_DIR),
                                str(KERNELS[name].directory)], **values)


def _e(c: str) -> dict[str, str]:
    return {"c": c}


def _kernel(name: str, reads: tuple[str, ...], writes: tuple[str, ...],
            **more: object) -> dict:
    args = [{"name": "n", "role": "param", "type": "int"}]
    args += [{"name": a, "role": "array", "type": "const double *__restrict__"} for a in reads]
    args += [{"name": a, "role": "array", "type": "double *__restrict__"} for a in writes]
    return {"name": name, "args": args, **more}


def _launch(kernel: str) -> dict:
    return {"launch": kernel, "bind": {}, "grid": [_e("1")], "block": [32], "args": ["n"]}


KERNELS_OF_TREE = {k["name"]: k for k in (
    _kernel("k0", ("A", "x"), ("y",)),
    _kernel("k1", ("A", "v"), ("z",)),      # independent of k0: both only read A
    _kernel("k2", ("y",), ("w",)),          # reads k0's y
    _kernel("k3", ("B",), ("u",)),
    _kernel("k4", ("C",), ("t",), objects=["tex_C"]),   # a texture: left alone
    _kernel("k5", ("D",), ("s",)),
    _kernel("k10", ("E",), ("p",), buffers={"reads": ["E"], "writes": [], "surfaces": []}),
    _kernel("k6", ("D",), ("r",)),
    _kernel("k7", ("D",), ("q",)),
    _kernel("k8", ("D",), ("o",)),
    _kernel("k9", ("D",), ("m",)),
)}


def test_consecutive_independent_launches_are_grouped() -> None:
    tree = [_launch("k0"), {"if": _e("n >= 2"), "then": [_launch("k1")]}, _launch("k2"),
            _launch("k3"), _launch("k4"), *[_launch(f"k{i}") for i in range(5, 10)],
            _launch("k10"),
            {"for": "h0", "lb": _e("0"), "ub": _e("n"), "step": 1,
             "body": [_launch("k0"), _launch("k1")]}]
    got = concurrent.grouped(tree, KERNELS_OF_TREE)
    names = [[concurrent.launch_of(m)["launch"] for m in n["concurrent"]]
             if "concurrent" in n else n.get("launch", n.get("for")) for n in got]
    # k0 and k1 (under its guard); k2 needs k0's y, k3 joins it; k4 has an object;
    # k5..k9 fill a group of four and one is left; k10 reads an array with objects
    # elsewhere; the host loop is left alone
    assert names == [["k0", "k1"], ["k2", "k3"], "k4", ["k5", "k6", "k7", "k8"], "k9", "k10",
                     "h0"]
    assert got[-1]["body"] == tree[-1]["body"]
    assert concurrent.side_streams(got) == concurrent.MAX_GROUP - 1
    # under an if and a loop that runs once: grouped too
    once = [{"if": _e("n >= 1"), "then": [_launch("k0"), _launch("k1")]},
            {"for": "h1", "lb": _e("0"), "ub": _e("0"), "step": 1, "degenerate": True,
             "body": [_launch("k3"), _launch("k5"), _launch("k6")]}]
    got = concurrent.grouped(once, KERNELS_OF_TREE)
    assert [len(n["then"][0]["concurrent"]) if "if" in n else len(n["body"][0]["concurrent"])
            for n in got] == [2, 3]
    assert concurrent.side_streams(got) == 2


@pytest.mark.parametrize("name", ["bicg", "mvt"])
def test_two_matrix_vector_products_run_side_by_side(name: str) -> None:
    """bicg's s = A^T r and q = A p (mvt's x1 and x2) only read A: the first
    kernel on the default stream, the second on a side stream between a fork and a
    join; atax's y needs its tmp, so atax launches as before."""
    cuda = compile_file(str(KERNELS[name].source), polybench(name)).cuda
    launches = ON.findall(cuda)
    assert [stream for stream, _ in launches] == ["0", "polycu_sides.side[0]"]
    assert [kernel[-7:] for _, kernel in launches] == ["kernel0", "kernel1"]
    cuda = cuda[cuda.index('extern "C" void kernel_'):]         # the host function
    assert cuda.index("polycu_fork(&polycu_sides, 1)") < cuda.index(launches[0][1] + ",") \
        < cuda.index("polycu_join(&polycu_sides, 1)") \
        < cuda.index("polycu_streams_destroy(&polycu_sides, 1)")
    off = compile_file(str(KERNELS[name].source), polybench(name, concurrent_kernels=False))
    assert not ON.findall(off.cuda) and "polycu_fork(&" not in off.cuda
    atax = compile_file(str(KERNELS["atax"].source), polybench("atax")).cuda
    assert not ON.findall(atax) and "polycu_fork(&" not in atax


def test_a_group_of_dependent_kernels_is_caught_by_the_emulation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """atax grouped as if its kernels were independent: the emulation runs y's kernel
    before tmp's and y comes out wrong; grouped as polycu groups (not at all) it
    matches gcc, and bicg's real group matches too."""
    reports = emulate_file(str(KERNELS["bicg"].source), polybench("bicg"), seed=4, nvcc=False)
    assert reports and all(r.ok and not r.on_cpu for r in reports)
    monkeypatch.setattr(concurrent, "_independent", lambda a, b: True)
    wrong = compile_file(str(KERNELS["atax"].source), polybench("atax")).cuda
    assert [stream for stream, _ in ON.findall(wrong)] == ["0", "polycu_sides.side[0]"]
    (report,) = emulate_file(str(KERNELS["atax"].source), polybench("atax"), seed=4,
                             nvcc=False)
    assert not report.ok and any(a.name == "y" and a.mismatches for a in report.arrays), \
        report.format()
