"""The GPU runner's host side, without a GPU: replaying a host control tree,
argument types, statistics and the rotation of input copies."""
from __future__ import annotations

import numpy as np
import pytest

from polycu.diagnostics import PolycuError
from polycu.runtime.pycuda_run import DeviceProgram
from polycu.runtime.replay import Launch, evaluate, numpy_type, replay
from polycu.runtime.timing import Samples, copies_for


def _e(c: str) -> dict[str, str]:
    return {"c": c}   # the runtimes evaluate the C text (polycu.runtime.cexpr)


# A jacobi-1d-like tree: a time loop launching two kernels, the second only
# when the grid is large enough, and a last kernel after the loop.
TREE = [
    {"for": "h0", "lb": _e("0"), "ub": _e("tsteps - 1"), "step": 1, "body": [
        {"launch": "k0", "grid": [_e("polycu_floord(n - 3, 32) + 1")], "block": [32],
         "args": ["n", "h0", "A", "B"]},
        {"if": _e("n >= 40"), "then": [
            {"launch": "k1", "grid": [_e("polycu_floord(n - 3, 32) + 1"), _e("2")],
             "block": [32, 2], "args": ["n", "h0", "B", "A"]}]},
    ]},
    {"for": "h1", "lb": _e("n - 1"), "ub": _e("n + 3"), "step": _e("2"), "body": [
        {"launch": "k2", "grid": [_e("polycu_max(h1 - n, 1)")], "block": [64, 1, 1],
         "args": ["h1"]}]},
]


def _record(tree, env):
    launches: list[Launch] = []
    count = replay(tree, env, launches.append)
    assert count == len(launches)
    return launches


def test_replay_follows_loops_conditions_and_grids():
    launches = _record(TREE, {"tsteps": 3, "n": 70})
    names = [(l.kernel, l.env["h0"] if l.kernel != "k2" else l.env["h1"])
             for l in launches]
    assert names == [("k0", 0), ("k1", 0), ("k0", 1), ("k1", 1), ("k0", 2), ("k1", 2),
                     ("k2", 69), ("k2", 71), ("k2", 73)]
    first = launches[1]
    assert first.grid == (3, 2) and first.block == (32, 2, 1)
    assert first.args == ("n", "h0", "B", "A")
    assert first.env["n"] == 70 and first.env["tsteps"] == 3
    assert [l.grid for l in launches[-3:]] == [(1,), (1,), (3,)]


def test_replay_skips_false_branches_and_empty_grids():
    launches = _record(TREE, {"tsteps": 2, "n": 20})
    assert [l.kernel for l in launches] == ["k0", "k0", "k2", "k2", "k2"]
    # n = 2: k0's grid floord(n - 3, 32) + 1 = 0 blocks, so it is not launched.
    assert [l.kernel for l in _record(TREE, {"tsteps": 5, "n": 2})] == ["k2"] * 3
    assert _record(TREE, {"tsteps": 0, "n": 20})[0].kernel == "k2"


def test_replay_binds_host_values_before_the_grid():
    # As codegen describes a launch: the kernel's h0 is bound to an expression of
    # the host iterator, and the grid may depend on h0.
    tree = [{"for": "c0", "lb": _e("1"), "ub": _e("n"), "step": 2, "body": [
        {"launch": "k", "bind": {"h0": _e("2 * c0 + 1")}, "grid": [_e("h0 / 4"), 1, 1],
         "block": [32, 4, 1], "args": ["n", "h0"]}]}]
    launches = _record(tree, {"n": 6})
    assert [(l.env["c0"], l.env["h0"], l.grid) for l in launches] == [
        (3, 7, (1, 1, 1)), (5, 11, (2, 1, 1))]  # c0 = 1 gives h0 = 3: an empty grid


def test_replay_else_branch():
    tree = [{"if": _e("n > 5"), "then": [{"launch": "a", "grid": [1], "block": [1],
                                          "args": []}],
             "else": [{"launch": "b", "grid": [1], "block": [1], "args": []}]}]
    assert [l.kernel for l in _record(tree, {"n": 6})] == ["a"]
    assert [l.kernel for l in _record(tree, {"n": 5})] == ["b"]


def test_replay_rejects_malformed_trees():
    with pytest.raises(PolycuError, match="unknown node"):
        replay([{"while": 1}], {}, lambda launch: None)
    with pytest.raises(PolycuError, match="non-positive step"):
        replay([{"for": "h", "lb": 0, "ub": 3, "step": 0, "body": []}], {}, lambda l: None)
    with pytest.raises(PolycuError, match="cannot evaluate"):
        evaluate(_e("m + 1"), {"n": 1})


def test_expressions_use_floor_division_and_no_builtins():
    assert evaluate(_e("polycu_floord(n - 7, 4)"), {"n": 0}) == -2  # floor, as isl's floord
    assert evaluate(7, {}) == 7
    with pytest.raises(PolycuError):
        evaluate(_e("__import__('os')"), {})


class _Recorder:
    """A DeviceProgram's launching state without PyCUDA: its launches are recorded."""

    def __init__(self, kernels, host):
        self.kernels, self.host, self.calls = kernels, host, []
        self.functions = {name: self for name in kernels}
        self.dependent, self.formats = None, {}
        self.streams, self.events = [], []
        self.stream = _Stream("stream", self.events)
        self._fork = _Event("fork", self.events)
        self._side_streams = [(_Stream(f"side{k}", self.events), _Event(f"join{k}", self.events))
                              for k in range(3)]

    def _sides(self, count):
        return self._side_streams[:count]

    _argument = DeviceProgram._argument

    def prepared_async_call(self, grid, block, stream, *values):
        self.calls.append((grid, block, values))
        self.streams.append(stream)

    # the objects of a set of buffers: no texture in this program
    def before(self, kernel, stream):
        pass

    def after(self, kernel):
        pass


def test_a_launch_site_works_out_its_arguments_once_and_converts_each_launch():
    kernels = {"k0": {"args": [{"name": "n", "role": "param", "type": "int"},
                                {"name": "h0", "role": "iterator", "type": "long"},
                                {"name": "A", "role": "array", "type": "double *"},
                                {"name": "B", "role": "array", "type": "double *"}]},
               "k1": {"args": [{"name": "n", "role": "param", "type": "int"},
                                {"name": "h0", "role": "iterator", "type": "long"},
                                {"name": "B", "role": "array", "type": "double *"},
                                {"name": "A", "role": "array", "type": "double *"}]},
               "k2": {"args": [{"name": "h1", "role": "iterator", "type": "unsigned"}]}}
    recorder = _Recorder(kernels, {})
    allocations = {"A": 4096, "B": 8192}
    allocations = type("Allocations", (dict,), {"objects": recorder})(allocations)
    launch, _ = DeviceProgram.launcher(recorder, allocations)
    assert replay(TREE, {"tsteps": 2, "n": 70}, launch) == 7
    grids = [(grid, values) for grid, _, values in recorder.calls]
    assert grids[1] == ((3, 2), (70, 0, 8192, 4096)) and grids[2][1] == (70, 1, 4096, 8192)
    assert [type(v) for v in grids[1][1]] == [np.int32, np.int64, int, int]
    assert [tuple(map(type, v)) for _, v in grids[-3:]] == [(np.uint32,)] * 3
    assert [int(v[0]) for _, v in grids[-3:]] == [69, 71, 73]
    with pytest.raises(PolycuError, match="argument 'h1' of k2 = -1 does not fit"):
        replay(TREE[1:], {"tsteps": 0, "n": 0}, launch)     # h1 from n - 1 = -1


class _Dependent:
    """runtime/dependent.py's launcher, recording."""

    def __init__(self):
        self.calls = []

    def launch(self, name, grid, block, stream, formats, values):
        self.calls.append((name, grid, formats, values, stream.name))


def test_dependent_kernels_are_launched_through_the_driver_api():
    """Kernels the description marks dependent go to runtime/dependent.py's launch with
    PyCUDA's format characters and the converted values, on the program's stream;
    the others to PyCUDA."""
    kernels = {"k0": {"args": [{"name": "n", "role": "param", "type": "int"},
                               {"name": "A", "role": "array", "type": "double *"}],
                      "dependent": True},
               "k2": {"args": [{"name": "h1", "role": "iterator", "type": "unsigned"}]}}
    tree = [{"launch": "k0", "grid": [_e("2")], "block": [32], "args": ["n", "A"]},
            {"launch": "k2", "grid": [_e("1")], "block": [64], "args": ["h1"]}]
    recorder = _Recorder(kernels, {})
    recorder.dependent, recorder.formats = _Dependent(), {"k0": ["i", "P"], "k2": ["I"]}
    allocations = type("Allocations", (dict,), {"objects": recorder})({"A": 4096})
    launch, _ = DeviceProgram.launcher(recorder, allocations)
    assert replay(tree, {"n": 70, "h1": 5}, launch) == 2
    assert recorder.dependent.calls == [("k0", (2,), ["i", "P"], [70, 4096], "stream")]
    assert [type(v) for v in recorder.dependent.calls[0][3]] == [np.int32, int]
    assert [(grid, values) for grid, _, values in recorder.calls] == [((1,), (5,))]


class _Event:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def record(self, stream):
        self.log.append(f"record {self.name} on {stream}")


class _Stream:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def wait_for_event(self, event):
        self.log.append(f"{self} waits for {event.name}")

    def __str__(self):
        return self.name


def test_a_concurrent_group_forks_side_streams_and_joins_them():
    """The first launch of a group on the program's stream, the others each on a
    side stream that waits for the fork event recorded before them; the program's
    stream then waits for each side stream's join event.  A group whose second
    member's guard is false launches the first alone."""
    kernels = {k: {"args": [{"name": "n", "role": "param", "type": "int"}]}
               for k in ("k0", "k1", "k2")}
    tree = [{"concurrent": [
        {"launch": "k0", "grid": [_e("1")], "block": [32], "args": ["n"]},
        {"if": _e("n >= 40"), "then": [
            {"launch": "k1", "grid": [_e("2")], "block": [32], "args": ["n"]}]},
        {"launch": "k2", "grid": [_e("3")], "block": [32], "args": ["n"]}]}]
    recorder = _Recorder(kernels, {})
    allocations = type("Allocations", (dict,), {"objects": recorder})({})
    launch, group = DeviceProgram.launcher(recorder, allocations)
    assert replay(tree, {"n": 70}, launch, group=group) == 3
    assert [grid for grid, _, _ in recorder.calls] == [(1,), (2,), (3,)]
    assert [str(s) for s in recorder.streams] == ["stream", "side0", "side1"]
    assert recorder.events == ["record fork on stream", "side0 waits for fork",
                               "side1 waits for fork", "record join0 on side0",
                               "stream waits for join0", "record join1 on side1",
                               "stream waits for join1"]
    recorder.calls.clear()
    recorder.streams.clear()
    assert replay(tree, {"n": 7}, launch, group=group) == 2
    assert [str(s) for s in recorder.streams] == ["stream", "side0"]
    assert replay(tree, {"n": 7}, launch) == 2      # no group: one after the other


def test_numpy_types_of_c_types():
    assert numpy_type("const int") is np.int32
    assert numpy_type("double *__restrict__") is np.float64
    assert numpy_type("unsigned char") is np.uint8
    assert numpy_type("long unsigned int") is np.uint64   # any order of the keywords
    assert numpy_type("long long int") is np.int64
    assert numpy_type("short int") is np.int16
    with pytest.raises(PolycuError, match="unsupported C type"):
        numpy_type("cudaTextureObject_t")


def test_kernel_arguments_take_their_declared_types_without_wrapping():
    from polycu.runtime.replay import by_value
    big = by_value("long", 2 ** 40, "argument 'm' of k")
    assert type(big) is np.int64 and big == 2 ** 40
    assert type(by_value("unsigned", 2 ** 32 - 1, "n")) is np.uint32
    assert type(by_value("const float", 0.5, "s")) is np.float32
    with pytest.raises(PolycuError, match=r"argument 'n' of k = 2147483648 does not fit its "
                                          r"type 'int' \(-2147483648\.\.2147483647\)"):
        by_value("int", 2 ** 31, "argument 'n' of k")
    with pytest.raises(PolycuError, match="does not fit its type 'unsigned'"):
        by_value("unsigned", -1, "n")


def test_host_expressions_keep_values_past_32_bits():
    # A long parameter of 5e9: launches, grids and element counts computed from it.
    n = 5_000_000_000
    assert evaluate(_e("(n - 1) / 256 + 1"), {"n": n}) == 19_531_250
    assert evaluate(_e("n * n"), {"n": n}) == n * n
    launches = _record([{"launch": "k", "grid": [_e("n / (1 << 20)")], "block": [256],
                         "args": ["n"]}], {"n": n})
    assert launches[0].grid == (4768,) and launches[0].env["n"] == n


def test_samples_statistics():
    s = Samples((3.0, 1.0, 2.0, 4.0, 100.0))
    assert s.median == 3.0
    # Quartiles 2 and 4 (inclusive method): spread (4 - 2) / 3.
    assert s.spread == pytest.approx(2 / 3)
    d = s.as_dict()
    assert (d["min_s"], d["max_s"], d["samples_s"]) == (1.0, 100.0, [3.0, 1.0, 2.0, 4.0, 100.0])
    assert Samples((5.0,)).spread == 0.0


def test_copies_rotate_only_data_that_fits_in_l2():
    l2, free = 50 << 20, 80 << 30
    assert copies_for(200 << 20, l2, free) == 1           # over 3 x L2: no rotation
    assert copies_for(100 << 20, l2, free) == 2 + 1       # 3 x L2 between two uses
    assert copies_for(10 << 20, l2, free) == 3 * 5 + 1
    assert copies_for(1 << 10, l2, free) == 32            # capped
    assert copies_for(10 << 20, l2, 40 << 20) == 2        # what memory allows


def test_a_run_a_thousand_times_an_l2_refill_needs_no_rotation():
    l2, free, refill = 50 << 20, 80 << 30, 12.5e-6     # an H200's L2 at 4 TB/s
    assert copies_for(10 << 20, l2, free, 0.0125, refill) == 16     # 1000 x: not over
    assert copies_for(10 << 20, l2, free, 0.0126, refill) == 1      # floyd-warshall: 78 ms
    assert copies_for(10 << 20, l2, free, 1.0) == 16                # refill unknown
