"""A gate on a stream: the GPU waits until the host has enqueued what is timed.

In:  a PyCUDA stream whose next work is timed with CUDA events.
Out: ``Gate``: ``closed()``, a context manager that holds the stream with a kernel
     spinning on a flag in mapped host memory while the block enqueues the start
     event, the timed work and the end event, and opens it when the block ends.

Why: events time the GPU from the start event to the end event.  When the start
event runs on an idle GPU at once, the interval also holds the time the host takes
to enqueue the rest: a CUDA graph of thousands of launches takes it long to submit,
and longer when other processes load the host (benches that share a host, gcc's
CPU baselines beside the bench).  Behind the gate, the GPU reaches the start event
only once everything is enqueued, so the interval is the GPU's alone.  The spin
gives up after ``TIMEOUT_S`` (a host that never opens the gate does not hang the
GPU); a timing that waited that long is then a timing with the host in it, as
without the gate.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

#: Seconds the gate kernel holds the stream at most.
TIMEOUT_S = 2.0

_SOURCE = r"""
extern "C" __global__ void polycu_gate(const volatile int *open, unsigned long long ns)
{
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        if (*open)
            return;
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > ns)
            return;
        __nanosleep(1000);
    }
}
"""


class Gate:
    """The gate of one stream (one per ``DeviceProgram``: its module is loaded in
    the context the program runs in)."""

    def __init__(self, drv: Any, stream: Any):
        from pycuda.compiler import SourceModule
        from .device import arch_option
        self.drv, self.stream = drv, stream
        self.kernel = SourceModule(_SOURCE, no_extern_c=True,
                                   arch=arch_option()).get_function("polycu_gate")
        self.flag = drv.pagelocked_zeros(1, np.int32,
                                          mem_flags=drv.host_alloc_flags.DEVICEMAP)
        self.pointer = np.uintp(self.flag.base.get_device_pointer())

    @contextlib.contextmanager
    def closed(self) -> Iterator[None]:
        """Hold the stream for the block: what the block enqueues starts when it ends."""
        self.flag[0] = 0
        self.kernel(self.pointer, np.uint64(int(TIMEOUT_S * 1e9)), block=(1, 1, 1),
                    grid=(1, 1), stream=self.stream)
        try:
            yield
        finally:
            self.flag[0] = 1
