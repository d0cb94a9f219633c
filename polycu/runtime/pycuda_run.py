"""Run generated CUDA on the GPU through PyCUDA: compile, launch, time.

In:  the kernel description of one SCoP (the JSON form written by
     ``polycu.codegen.description``), parameter values and host arrays.
Out: the arrays after the run, and ``timing.Timing`` (median and spread of N runs).

The device source is compiled with ``SourceModule(no_extern_c=True)`` for the
present device's ``-arch``.  Nothing of the generated host C code runs: the host
program it is printed from, in the description, is replayed from Python
(``replay``), so the buffers, copies and launches are exactly the host code's.

Timing uses CUDA events, after warm-up runs:

* kernel time: the launch sequence alone, data resident on the device.  When
  ``cuda.bindings`` is importable the sequence is captured once into a CUDA
  graph and the graph is timed (after one untimed launch that uploads it),
  which removes Python's launch overhead, one a compiled host would not pay;
  the graph is timed behind a gate (``gate``), so that the time the host takes
  to submit it, longer on a loaded host, is not in it; otherwise the Python
  replay itself is timed.  ``Timing.method`` says which;
* replay time: the Python replay on a stream (what ``polycu check`` pays);
* end-to-end time: copies of the inputs from pinned host memory, the launch
  sequence, copies of the outputs back.

When the arrays fit several times in L2, several device copies of them are
rotated, so that no run starts with its inputs already cached; every copy is
restored from a pristine one, untimed, before it is used again.

Kernels the description marks ``dependent`` (``--dependent-launches``) are launched
as dependent launches through cuda-bindings (``dependent``) where the device and the
bindings allow it, so that the graphs timed hold what the generated host code
launches; elsewhere as plain launches, which compute the same.

Kernel arguments are resolved by role: ``param`` and ``iterator`` values,
``array`` and ``scalar`` buffers (a scalar of non-pointer C type is passed by
value), ``texture`` and ``surface`` objects (``device_objects``: one set per set of
buffers, with the copies into CUDA arrays and constant memory around launches).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..diagnostics import error
from .dependent import DependentLaunches, available
from .device_objects import DeviceObjects
from .gate import Gate
from .graph import Graph
from .replay import (Buffer, Launch, buffers, by_value, host_values, index_type, is_pointer,
                     numpy_type, replay)
from .timing import Samples, Timing, copies_for

# A launch sequence longer than this is not captured into a graph (capturing costs
# one Python replay per rotated copy, about 25 us a launch: 2.5 s per copy here).
# floyd-warshall's 25,190 and doitgen's 42,000 launches at LARGE fit.
_MAX_GRAPH_LAUNCHES = 100_000


def _nvcc_arguments(description: Mapping[str, Any], options: Sequence[str]) -> dict[str, Any]:
    """PyCUDA's build arguments of ``description``'s device code, one set for
    ``DeviceProgram`` and its ``prebuild`` (the cache is keyed by them)."""
    from .device import arch_option
    return {"source": description["device_source"], "no_extern_c": True,
            "arch": arch_option(), "options": list(options) or None}


class DeviceProgram:
    """A SCoP's kernels compiled for the present device, at fixed parameter values.

    ``description`` is the JSON form of one SCoP's kernel description; ``host``
    maps every non-local array to its host numpy array (0-d for a scalar), as the
    CPU reference takes them; ``options`` are nvcc's (``check`` gives
    ``--fmad=false``).  Device buffers, copies in and out follow the description's
    ``arrays`` entries, as the generated host function does.
    """

    def __init__(self, description: Mapping[str, Any], params: Mapping[str, int],
                 host: Mapping[str, np.ndarray], *, options: Sequence[str] = ()):
        from .device import import_pycuda

        self.drv = import_pycuda()
        from pycuda.compiler import SourceModule

        self.description = description
        self.params = host_values(description, params)
        self.host = {name: np.require(a, requirements="C") for name, a in host.items()}
        self.buffers: dict[str, Buffer] = buffers(description, self.params)
        for item in self.buffers.values():
            moved = item.copy_in or item.copy_out
            if moved and (item.name not in self.host or self.host[item.name].size < item.count):
                raise error(f"array '{item.name}' has fewer elements on the host than the "
                            f"{item.count} the generated code copies")
        try:
            module = SourceModule(**_nvcc_arguments(description, options))
        except self.drv.CompileError as exc:
            raise error(f"nvcc rejected the generated device code of {description['name']}:"
                        f"\n{exc}") from exc
        self.module = module
        self.kernels = {k["name"]: k for k in description["kernels"]}
        self.functions = {}
        self.formats: dict[str, list[str]] = {}
        for name, kernel in self.kernels.items():
            function = module.get_function(name)
            self.formats[name] = [self._format(arg) for arg in kernel["args"]]
            function.prepare(self.formats[name])
            self.functions[name] = function
        # the dependent launches' own module (``dependent.py``), when they can run here
        # and the resident grids' cooperative launches (``dependent.py`` too)
        dependent = [name for name, k in self.kernels.items()
                     if k.get("dependent") or k.get("resident")]
        self.dependent = None
        if any(k.get("resident") for k in self.kernels.values()) and not available(self.drv):
            raise error("a resident grid (--resident-grid) is launched through cuda-bindings "
                        "on a device of compute capability 9.0 or later; compile with "
                        "--no-resident-grid to run it here")
        if dependent and available(self.drv):
            from pycuda.compiler import compile as nvcc
            self.dependent = DependentLaunches(nvcc(**_nvcc_arguments(description, options)),
                                               dependent)
        self.stream = self.drv.Stream()
        # the side streams of concurrent launches (launcher), and their fork
        self._side_streams: list[tuple[Any, Any]] = []
        self._fork = self.drv.Event(self.drv.event_flags.DISABLE_TIMING)

    @staticmethod
    def prebuild(description: Mapping[str, Any], options: Sequence[str] = ()) -> None:
        """nvcc's build of ``description``'s device code into PyCUDA's disk cache, with
        the constructor's very arguments, so that a ``DeviceProgram`` made later loads
        it at once: the build can then overlap other work, such as the CPU reference
        (the GIL is free while nvcc runs).  A source nvcc rejects is left for the
        constructor, which builds it again and says why."""
        from .device import import_pycuda

        drv = import_pycuda()
        from pycuda.compiler import compile as nvcc

        try:
            nvcc(**_nvcc_arguments(description, options))
        except drv.CompileError:
            pass

    @staticmethod
    def _format(arg: Mapping[str, Any]) -> str:
        if arg["role"] in ("texture", "surface"):
            return np.dtype(np.uint64).char       # cudaTextureObject_t, cudaSurfaceObject_t
        return "P" if is_pointer(arg["type"]) else np.dtype(numpy_type(arg["type"])).char

    def _flat(self, name: str) -> np.ndarray:
        """The first ``count`` elements of a host array, the part that travels."""
        return self.host[name].reshape(-1)[:self.buffers[name].count]

    # -- buffers ---------------------------------------------------------------------
    def allocate(self) -> "_Allocations":
        """One device allocation per buffer, filled with 0xff bytes (NaN, -1) so that
        a value the kernels read without its copy-in shows in the comparison, and
        the texture, surface and constant objects over them."""
        allocations = _Allocations()
        for name, item in self.buffers.items():
            allocations[name] = self.drv.mem_alloc(item.nbytes)
            self.drv.memset_d8(allocations[name], 0xFF, item.nbytes)
        try:
            allocations.objects = DeviceObjects(self.drv, self.dependent or self.module,
                                                self.description.get("objects", []),
                                                allocations)
        except BaseException:
            allocations.release()
            raise
        return allocations

    def copy_in(self, allocations: Mapping[str, Any]) -> None:
        for name, item in self.buffers.items():
            if item.copy_in:
                self.drv.memcpy_htod(allocations[name], self._flat(name))

    # -- launching -----------------------------------------------------------------------
    def _argument(self, spec: Mapping[str, Any], name: str, kernel: str,
                  allocations: "_Allocations") -> Callable[[Launch], Any]:
        """How a launch of ``kernel`` computes the argument ``spec`` named ``name`` at
        the launch site: a constant (a buffer, a scalar passed by value, an object),
        or a host value converted to the argument's type at each launch."""
        role, c_type = spec["role"], spec["type"]
        if role in ("param", "iterator"):
            what = f"argument '{spec['name']}' of {kernel}"
            return lambda launch: by_value(c_type, launch.env[name], what)
        if role in ("array", "scalar"):
            array = spec.get("array") or name
            value = int(allocations[array]) if is_pointer(c_type) else by_value(
                c_type, self.host[array].reshape(-1)[0], f"argument '{spec['name']}' of {kernel}")
        elif role in ("texture", "surface"):
            value = allocations.objects.handle(spec["name"])
        else:
            raise error(f"kernel argument '{spec['name']}' of {kernel} has role '{role}', "
                        "which the PyCUDA runtime does not support yet")
        return lambda _: value

    def launcher(self, allocations: "_Allocations"
                 ) -> tuple[Callable[[Launch], None], Callable[[list[Launch]], None]]:
        """``replay``'s callbacks: one launch on this program's stream, and a
        concurrent group, its first launch on that stream and each other on a side
        stream forked from it and joined back into it.  How each argument is found is
        worked out once per launch site (``_argument``): a replay may launch tens of
        thousands of times."""
        plans: dict[tuple[str, tuple[str, ...]], list[Callable[[Launch], Any]]] = {}

        def launch(item: Launch, stream: Any = None) -> None:
            plan = plans.get((item.kernel, item.args))
            if plan is None:
                specs = self.kernels[item.kernel]["args"]
                if len(specs) != len(item.args):
                    raise error(f"launch of {item.kernel} passes {len(item.args)} arguments, "
                                f"the kernel takes {len(specs)}")
                plan = plans[item.kernel, item.args] = [
                    self._argument(s, n, item.kernel, allocations)
                    for s, n in zip(specs, item.args)]
            kernel = self.kernels[item.kernel]
            allocations.objects.before(kernel, self.stream)
            values = [get(item) for get in plan]
            if kernel.get("resident"):
                self.dependent.resident(item.kernel, kernel["resident"], item.block,
                                        stream or self.stream, self.formats[item.kernel],
                                        values)
            elif self.dependent is not None and kernel.get("dependent"):
                self.dependent.launch(item.kernel, item.grid, item.block, stream or self.stream,
                                      self.formats[item.kernel], values)
            else:
                self.functions[item.kernel].prepared_async_call(
                    item.grid, item.block, stream or self.stream, *values)
            allocations.objects.after(kernel)

        def group(items: list[Launch]) -> None:
            sides = self._sides(len(items) - 1)
            self._fork.record(self.stream)
            for side, _ in sides:
                side.wait_for_event(self._fork)
            for item, (side, _) in zip(items, [(self.stream, None), *sides]):
                launch(item, side)
            for side, joined in sides:
                joined.record(side)
                self.stream.wait_for_event(joined)
        return launch, group

    def _sides(self, count: int) -> list[tuple[Any, Any]]:
        """``count`` side streams, each with the event the main stream joins it by
        (created once, on first use)."""
        while len(self._side_streams) < count:
            self._side_streams.append((self.drv.Stream(),
                                       self.drv.Event(self.drv.event_flags.DISABLE_TIMING)))
        return self._side_streams[:count]

    def execute(self, allocations: "_Allocations") -> int:
        """Replay the host control tree once on the stream; returns the launch count."""
        assert allocations.objects is not None
        allocations.objects.reset()
        launch, group = self.launcher(allocations)
        launches = replay(self.description["host"], self.params, launch,
                          index_type(self.description), group)
        allocations.objects.finish(self.stream)
        return launches

    def run(self) -> dict[str, np.ndarray]:
        """What the generated host function does: copy in, launch, copy out.

        Returns a copy of every host array with the copied-out part replaced by
        the device's values.
        """
        allocations = self.allocate()
        try:
            self.copy_in(allocations)
            self.execute(allocations)
            self.stream.synchronize()
            result = {name: a.copy() for name, a in self.host.items()}
            for name, item in self.buffers.items():
                if item.copy_out:
                    out = np.empty(item.count, dtype=item.dtype)
                    self.drv.memcpy_dtoh(out, allocations[name])
                    result[name].reshape(-1)[:item.count] = out
            return result
        finally:
            allocations.release()

    # -- timing ---------------------------------------------------------------------------
    def time(self, repeat: int = 10, warmup: int = 2, budget_s: float = 10.0, *,
             kernel_only: bool = False) -> Timing:
        """Median and spread of up to ``repeat`` runs after ``warmup`` runs (see module doc).

        Fewer runs are made (at least 3) when ``repeat`` of them would take longer
        than ``budget_s`` for one kind of time.  With ``kernel_only`` (``polycu tune``
        compares kernel times alone) the replay and end-to-end times are not taken.
        """
        drv = self.drv
        data_bytes = sum(item.nbytes for item in self.buffers.values())
        l2 = drv.Context.get_device().get_attribute(drv.device_attribute.L2_CACHE_SIZE)
        free, _ = drv.mem_get_info()
        pristine = self.allocate()
        self.copy_in(pristine)
        sets = [self.allocate()]
        pinned = {}
        for name, item in self.buffers.items():
            if item.copy_in or item.copy_out:
                pinned[name] = drv.pagelocked_empty(item.count, item.dtype)
                pinned[name][...] = self._flat(name)
        graphs: list[Graph] = []
        try:
            self._restore(pristine, sets[0])
            launches = self.execute(sets[0])
            self.stream.synchronize()
            self._restore(pristine, sets[0])
            note = f"{launches} launches (graphs are used for 1 to {_MAX_GRAPH_LAUNCHES})"
            if 0 < launches <= _MAX_GRAPH_LAUNCHES:
                graphs, note = self._captured(sets, pristine)
            # One run's time (the graph's, when there is one) decides whether the
            # copies rotate (copies_for); each copy has its own graph.
            gate = Gate(drv, self.stream) if graphs else None
            run_s = self._elapsed(graphs[0].launch if graphs else
                                  functools.partial(self.execute, sets[0]), gate)
            self._restore(pristine, sets[0])
            more = [self.allocate() for _ in range(copies_for(
                data_bytes, l2, free, run_s, _refill_seconds(drv)) - 1)]
            sets += more
            for allocations in more:
                self._restore(pristine, allocations)
            if graphs and more:
                captured, note = self._captured(more, pristine)
                graphs += captured
                if not captured:            # every copy is timed one way
                    for graph in graphs:
                        graph.destroy()
                    graphs = []
            replays = [functools.partial(self.execute, allocations) for allocations in sets]
            kernels = [g.launch for g in graphs] or replays

            def end_to_end(i: int) -> None:
                for name, item in self.buffers.items():
                    if item.copy_in:
                        drv.memcpy_htod_async(sets[i][name], pinned[name], self.stream)
                kernels[i]()
                for name, item in self.buffers.items():
                    if item.copy_out:
                        drv.memcpy_dtoh_async(pinned[name], sets[i][name], self.stream)

            runs = (lambda i: kernels[i](),) if kernel_only else \
                (lambda i: kernels[i](), lambda i: replays[i](), end_to_end)
            # Graphs are timed behind a gate (the GPU's time alone); the Python
            # replay and the end-to-end time hold the host's work by design.
            gates = [gate if graphs else None, None, None]
            measured = [self._measure(run, pristine, sets, repeat, warmup, budget_s, gate)
                        for run, gate in zip(runs, gates)]
            if kernel_only:
                measured += [None, None]
            return Timing(*measured, launches=launches, copies=len(sets),
                          method="graph" if graphs else "stream", note=note)
        finally:
            for graph in graphs:
                graph.destroy()
            for allocations in [pristine, *sets]:
                allocations.release()

    def _captured(self, sets: Sequence[Mapping[str, Any]], pristine: Mapping[str, Any]
                  ) -> tuple[list["Graph"], str]:
        """A graph of the launch sequence on each set (``Graph.capture_all``), each
        launched once, untimed (the first launch uploads a graph)."""
        graphs, note = Graph.capture_all(self, sets)
        for graph, allocations in zip(graphs, sets):
            graph.launch()
            self._restore(pristine, allocations)
        return graphs, note

    def _elapsed(self, run: Callable[[], Any], gate: Gate | None) -> float:
        """Seconds ``run`` takes on the stream (CUDA events; behind ``gate``, if any)."""
        start, end = self.drv.Event(), self.drv.Event()
        with gate.closed() if gate is not None else contextlib.nullcontext():
            start.record(self.stream)
            run()
            end.record(self.stream)
        end.synchronize()
        return end.time_since(start) / 1e3

    def _restore(self, pristine: Mapping[str, Any], allocations: Mapping[str, Any]) -> None:
        for name, item in self.buffers.items():
            self.drv.memcpy_dtod_async(allocations[name], pristine[name], item.nbytes,
                                       self.stream)

    def _measure(self, run: Callable[[int], None], pristine: Mapping[str, Any],
                 sets: Sequence[Mapping[str, Any]], repeat: int, warmup: int,
                 budget_s: float, gate: Gate | None = None) -> Samples:
        turn = 0

        def once() -> float:
            nonlocal turn
            i = turn % len(sets)
            turn += 1
            self.stream.synchronize()
            seconds = self._elapsed(functools.partial(run, i), gate)
            self._restore(pristine, sets[i])
            return seconds

        seconds = 0.0
        for _ in range(warmup):
            seconds = once()
            if seconds * repeat > budget_s:  # long runs need no more warming
                break
        if seconds * repeat > budget_s:
            repeat = max(3, int(budget_s / seconds))
        return Samples(tuple(once() for _ in range(max(repeat, 1))))


def _refill_seconds(drv: Any) -> float:
    """The time to fill the present device's L2 from its memory at peak bandwidth
    (double data rate: two transfers a memory clock over the bus)."""
    device = drv.Context.get_device()
    attribute = drv.device_attribute
    bandwidth = (2 * device.get_attribute(attribute.MEMORY_CLOCK_RATE) * 1e3
                 * device.get_attribute(attribute.GLOBAL_MEMORY_BUS_WIDTH) / 8)
    return device.get_attribute(attribute.L2_CACHE_SIZE) / bandwidth


class _Allocations(dict):
    """The device buffers of one run, by array name, with their objects."""

    objects: DeviceObjects | None = None

    def release(self) -> None:
        if self.objects is not None:
            self.objects.free()
        for allocation in self.values():
            allocation.free()
