"""A launch sequence captured into a CUDA graph (cuda-bindings), for timing.

In:  a ``pycuda_run.DeviceProgram`` (its ``stream`` and ``execute``) and one set of
     its device buffers.
Out: a ``Graph`` whose launch replays the program's control tree on its stream:
     its launches, and the side streams of concurrent groups forked from and joined
     into that stream (``DeviceProgram.launcher``), which the capture follows.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..diagnostics import error


class NoGraph(Exception):
    """Why a launch sequence could not be captured into a graph."""


class Graph:
    """A launch sequence captured from a stream into a CUDA graph (cuda-bindings)."""

    def __init__(self, program: Any, driver: Any, graph: Any, executable: Any):
        self.program, self.driver = program, driver
        self.graph, self.executable = graph, executable

    @classmethod
    def capture_all(cls, program: Any,
                    sets: Sequence[Mapping[str, Any]]) -> tuple[list["Graph"], str]:
        """One graph per set of allocations, or none and the reason when one fails."""
        graphs: list[Graph] = []
        try:
            for allocations in sets:
                graphs.append(cls.capture(program, allocations))
        except Exception as exc:  # noqa: BLE001 - any failure means: time the stream
            for done in graphs:
                done.destroy()
            return [], f"{type(exc).__name__}: {exc}"
        return graphs, ""

    @classmethod
    def capture(cls, program: Any, allocations: Mapping[str, Any]) -> "Graph":
        """Capture one replay of the control tree (raises NoGraph when it cannot)."""
        try:
            from cuda.bindings import driver as cu
        except ImportError as exc:
            raise NoGraph("cuda-bindings is not installed") from exc
        stream = cu.CUstream(program.stream.handle)
        mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        status, = cu.cuStreamBeginCapture(stream, mode)
        if status != cu.CUresult.CUDA_SUCCESS:
            raise NoGraph(f"cuStreamBeginCapture: {status}")
        try:
            program.execute(allocations)
        finally:
            status, graph = cu.cuStreamEndCapture(stream)
        if status != cu.CUresult.CUDA_SUCCESS:
            raise NoGraph(f"cuStreamEndCapture: {status}")
        status, executable = cu.cuGraphInstantiate(graph, 0)
        if status != cu.CUresult.CUDA_SUCCESS:
            cu.cuGraphDestroy(graph)
            raise NoGraph(f"cuGraphInstantiate: {status}")
        return cls(program, cu, graph, executable)

    def launch(self) -> None:
        status, = self.driver.cuGraphLaunch(self.executable,
                                            self.driver.CUstream(self.program.stream.handle))
        if status != self.driver.CUresult.CUDA_SUCCESS:
            raise error(f"cuGraphLaunch failed: {status}")

    def destroy(self) -> None:
        self.driver.cuGraphExecDestroy(self.executable)
        self.driver.cuGraphDestroy(self.graph)
