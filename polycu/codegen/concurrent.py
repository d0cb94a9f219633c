"""Kernels side by side: consecutive launches that touch none of each other's writes.

In:  a host control tree (``host.control_tree``) and the launched kernels
     (``host.launched``: their arguments, with C types).
Out: the same tree where a run of such launches outside host loops (each maybe under
     ``if``s: ``launch_of``) is one node ``{"concurrent": [node, ...]}``; the host
     function launches the first on the default stream and each other on a side
     stream of its own, forked from the default stream before them and joined into
     it after them (``fork``, ``join``).

Two launches A and B may run in any order, or at once, when neither writes a device
buffer the other reads or writes:

    writes(A) & (reads(B) | writes(B)) = {}   and   writes(B) & (reads(A) | writes(A)) = {}

read from the kernels' arguments: a device pointer without ``const`` may be written
(a kernel gets ``const`` exactly for the arrays it does not write, ``kernel.py``),
one with ``const`` is only read; values passed by value are copies.  Buffers are
separate allocations, so names decide.  Left alone: launches inside host loops (a
fork and a join every time step add host calls to steps that are often
launch-bound: not measured; the time loops of fdtd-2d, adi, jacobi-2d and heat-3d
have no such pair), kernels with texture, surface or constant objects, or that
touch an array with objects elsewhere (the copies that keep objects and buffers in
step run around a launch on the default stream: ``objects.before_launch``), and
single-block programs.  A group holds at most ``MAX_GROUP`` launches; a launch
dependent on one of its group ends it.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

#: Launches of one group (the default stream and up to three side streams:
#: ``polycu_streams`` of ``HELPERS`` holds three).
MAX_GROUP = 4

HELPERS = r"""
#ifndef POLYCU_EMULATE
/* Side streams for kernels that run beside the default stream's (codegen/concurrent.py):
   non-blocking, so that only the fork and join events order them. */
struct polycu_streams {
  cudaStream_t side[3];
  cudaEvent_t fork, join[3];
};
inline cudaError_t polycu_streams_create(polycu_streams *s, int n)
{
  cudaError_t e = cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming);
  for (int i = 0; i < n && e == cudaSuccess; i++) {
    e = cudaStreamCreateWithFlags(&s->side[i], cudaStreamNonBlocking);
    if (e == cudaSuccess)
      e = cudaEventCreateWithFlags(&s->join[i], cudaEventDisableTiming);
  }
  return e;
}
/* The first n side streams wait for the work the default stream has queued. */
inline cudaError_t polycu_fork(polycu_streams *s, int n)
{
  cudaError_t e = cudaEventRecord(s->fork, 0);
  for (int i = 0; i < n && e == cudaSuccess; i++)
    e = cudaStreamWaitEvent(s->side[i], s->fork, 0);
  return e;
}
/* The default stream waits for the work queued on the first n side streams. */
inline cudaError_t polycu_join(polycu_streams *s, int n)
{
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < n && e == cudaSuccess; i++) {
    e = cudaEventRecord(s->join[i], s->side[i]);
    if (e == cudaSuccess)
      e = cudaStreamWaitEvent(0, s->join[i], 0);
  }
  return e;
}
inline void polycu_streams_destroy(polycu_streams *s, int n)
{
  for (int i = 0; i < n; i++) {
    (void)cudaStreamDestroy(s->side[i]);
    (void)cudaEventDestroy(s->join[i]);
  }
  (void)cudaEventDestroy(s->fork);
}
#endif
"""


def grouped(nodes: Sequence[Mapping[str, Any]], kernels: Mapping[str, Mapping[str, Any]]
            ) -> list[Mapping[str, Any]]:
    """``nodes`` (the top level of a host tree) with each run of two or more
    consecutive independent launches made one concurrent node, also under ``if``s
    and loops that run once (not in host loops)."""
    out: list[Mapping[str, Any]] = []
    group: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []     # (node, its kernel)

    def flush() -> None:
        nodes = [node for node, _ in group]
        out.extend([{"concurrent": nodes}] if len(nodes) > 1 else nodes)
        group.clear()

    for node in nodes:
        if "if" in node:            # run once, like the top level
            node = {**node, "then": grouped(node["then"], kernels),
                    **({"else": grouped(node["else"], kernels)} if "else" in node else {})}
        elif node.get("degenerate"):
            node = {**node, "body": grouped(node["body"], kernels)}
        launch = launch_of(node)
        kernel = kernels.get(launch["launch"]) if launch is not None else None
        if kernel is None or kernel.get("single_block") or kernel.get("objects") \
                or any(kernel.get("buffers", {}).values()):
            flush()
            out.append(node)
            continue
        if len(group) == MAX_GROUP or not all(_independent(kernel, other)
                                               for _, other in group):
            flush()
        group.append((node, kernel))
    flush()
    return out


def launch_of(node: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The launch a node of a group makes: the node itself, or the one launch under
    ``if``s without ``else`` (the guards of a kernel's parameters: ``if (m >= 1)``)."""
    if "launch" in node:
        return node
    if "if" in node and "else" not in node and len(node["then"]) == 1:
        return launch_of(node["then"][0])
    return None


def _buffers(kernel: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """The device buffers ``kernel`` reads only, and those it may write."""
    pointers = [a for a in kernel["args"] if a["role"] == "array"]
    written = {a["name"] for a in pointers if not a["type"].startswith("const ")}
    return {a["name"] for a in pointers} - written, written


def _independent(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether neither kernel writes a buffer the other uses (module doc)."""
    reads_a, writes_a = _buffers(a)
    reads_b, writes_b = _buffers(b)
    return not writes_a & (reads_b | writes_b) and not writes_b & (reads_a | writes_a)


def side_streams(nodes: Sequence[Mapping[str, Any]]) -> int:
    """Side streams the host function needs: one fewer than its largest group."""
    return max((len(n["concurrent"]) - 1 if "concurrent" in n else
                side_streams([*n.get("then", ()), *n.get("else", ()), *n.get("body", ())])
                for n in nodes), default=0)


def stream(g: int) -> str:
    """The stream of a group's g-th launch: the default stream, then side streams."""
    return f"polycu_sides.side[{g - 1}]" if g else "0"


def fork(group: int) -> str:
    """The line that makes the side streams of a group of ``group`` launches wait for
    what the default stream has queued."""
    return f"POLYCU_CHECK(polycu_fork(&polycu_sides, {group - 1}));"


def join(group: int) -> str:
    """The line that makes the default stream wait for the group's side streams."""
    return f"POLYCU_CHECK(polycu_join(&polycu_sides, {group - 1}));"


def created(sides: int) -> list[str]:
    """Lines that create ``sides`` side streams and their events (none for 0)."""
    return [] if not sides else [
        "polycu_streams polycu_sides;",
        f"POLYCU_CHECK(polycu_streams_create(&polycu_sides, {sides}));"]


def destroyed(sides: int) -> list[str]:
    """Lines that destroy them, after the default stream has joined them."""
    return [] if not sides else [f"polycu_streams_destroy(&polycu_sides, {sides});"]
