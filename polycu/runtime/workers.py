"""Pools of workers that check and time: one per GPU of a host, or Ray actors.

In:  a recipe (a picklable callable that builds a worker's state where the worker
     runs: an evaluator with its own CUDA context and its own reference run), how
     many workers (``--gpus``, ``--workers-per-gpu``) and where (``--ray``).
Out: ``Workers``: ``map(function, items)`` runs ``function(state, item)`` on the
     workers and yields the results in the order of ``items``, whoever ran what, so
     that what a caller decides from them never depends on how the work was spread.

One interface, three transports (docs/scale-out.md):

* one worker and no Ray: the state lives in this process, as before the pools;
* local: ``concurrent.futures`` processes, spawned (no CUDA context inherited),
  each pinned to one GPU by ``CUDA_VISIBLE_DEVICES``, set before its recipe runs,
  one pool a GPU (a lane: ``map`` may pin an item to one), fed by list scheduling;
* Ray: one actor per worker (``num_gpus=1`` for a GPU worker, which Ray pins to its
  GPU; one CPU otherwise), fed in order by ``ray.util.ActorPool``.

Several workers may share a GPU (``--workers-per-gpu``; Ray: a fraction of a GPU
each): they take turns for what runs on it (``turns``), so one compiles, builds
its reference and runs nvcc while another checks or times, and no timing has
another worker's kernels in it.

A recipe rebuilds its state where it runs (a SCoP's isl objects do not pickle),
so a worker on another host needs only the files and polycu.
"""
from __future__ import annotations

import abc
import concurrent.futures
import multiprocessing
import os
import pickle
import shutil
import subprocess
import sys
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..diagnostics import Location, Reporter, error

#: How to get Ray, said where ``--ray`` is given without it.
RAY_INSTALL = "pip install 'polycu[ray]'"

Recipe = Callable[[], Any]
Task = Callable[[Any, Any], Any]


class Workers(abc.ABC):
    """Workers holding a state each; ``map`` keeps the order of its items."""

    count = 1
    label = "this process"
    lanes = 1       # groups of workers an item may be sent to (one a GPU)

    @abc.abstractmethod
    def map(self, function: Task, items: Iterable[Any],
            lanes: Sequence[int | None] | None = None) -> Iterator[Any]:
        """``function(state, item)`` of each item, on some worker, in item order.
        ``lanes[i]``, where given and not None, is the group of workers (``lanes``:
        local GPUs, in order) item ``i`` must run in; other transports have one."""

    def close(self) -> None:
        """Stop the workers (their states are lost)."""

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcess(Workers):
    """The one worker, in this process: polycu's behaviour without ``--gpus``."""

    def __init__(self, recipe: Recipe):
        self.state = recipe()

    def map(self, function: Task, items: Iterable[Any],
            lanes: Sequence[int | None] | None = None) -> Iterator[Any]:
        return (function(self.state, item) for item in items)


class LocalWorkers(Workers):
    """Spawned processes of this host, the i-th pinned to the i-th of ``devices``
    (None: no GPU to pin, the emulation's CPU workers), in one pool a GPU (a lane).

    All of them start at once and build their states side by side: ``count`` first
    tasks that wait for each other (``_ready``) make the executors, which spawn on
    demand, start every process, and hold each until all have their state, so the
    tasks that follow find every worker ready."""

    def __init__(self, recipe: Recipe, count: int, devices: Sequence[str] | None):
        context = multiprocessing.get_context("spawn")
        started, body = context.Barrier(count), pickle.dumps(recipe)
        gpus = list(dict.fromkeys(devices or ()))       # each GPU once, in order
        self.count, self.lanes = count, max(len(gpus), 1)
        share = f"{count // len(gpus)} on each of " if devices and len(gpus) < count else ""
        self.label = f"{count} processes" + (f", {share}GPUs {','.join(gpus)}" if devices
                                             else "")
        self.sizes = [list(devices).count(g) for g in gpus] if devices else [count]
        self.pools = [concurrent.futures.ProcessPoolExecutor(
            size, mp_context=context, initializer=_start, initargs=(gpu, started, body))
            for gpu, size in zip(gpus or [""], self.sizes)]
        for pool, size in zip(self.pools, self.sizes):
            for _ in range(size):
                pool.submit(_ready)

    def map(self, function: Task, items: Iterable[Any],
            lanes: Sequence[int | None] | None = None) -> Iterator[Any]:
        items = list(items)
        if lanes is not None:       # a lane no pool has is any pool, as elsewhere
            lanes = [lane if lane is not None and lane < len(self.pools) else None
                     for lane in lanes]
        return _scheduled(self.sizes, len(items), lanes,
                          lambda pool, i: self.pools[pool].submit(_apply, function, items[i]))

    def close(self) -> None:
        for pool in self.pools:
            pool.shutdown(cancel_futures=True)


def _scheduled(sizes: Sequence[int], count: int, lanes: Sequence[int | None] | None,
               submit: Callable[[int, int], concurrent.futures.Future]) -> Iterator[Any]:
    """The results of items ``0..count-1``, in order, each submitted (``submit(pool,
    item)``) when a worker of a pool it may run in is free: list scheduling in the
    items' order over pools of ``sizes`` workers, the pools taken in turn so that the
    first items spread over every GPU; ``lanes[i]`` pins item ``i`` to a pool."""
    pending = list(range(count))
    free, running, done = list(sizes), {}, {}
    turn = following = 0
    while following < count:
        while pending:      # fill every free worker an item may go to
            pools = [(turn + k) % len(sizes) for k in range(len(sizes))]
            found = next(((pool, i) for pool in pools if free[pool] for i in pending
                          if lanes is None or lanes[i] in (None, pool)), None)
            if found is None:
                break
            pool, i = found
            pending.remove(i)
            free[pool] -= 1
            turn = pool + 1
            running[submit(pool, i)] = (pool, i)
        if following in done:
            yield done.pop(following).result()
            following += 1
            continue
        finished, _ = concurrent.futures.wait(running, return_when="FIRST_COMPLETED")
        for future in finished:
            pool, i = running.pop(future)
            free[pool] += 1
            done[i] = future


_STATE: Any = None
_FAILED: BaseException | None = None
_STARTED: Any = None


def _start(device: str, started: Any, recipe: bytes) -> None:
    """A local worker's start: its GPU first (CUDA reads the variable when it
    initialises), then its state; a failing recipe fails each task with its error."""
    global _STATE, _FAILED, _STARTED
    if device:
        os.environ["CUDA_VISIBLE_DEVICES"] = device
    _STARTED = started
    try:
        _STATE = pickle.loads(recipe)()
    except Exception as exc:  # noqa: BLE001 - raised again by every task, in the command
        _FAILED = exc


def _ready() -> None:
    """The first task of each worker: wait until every worker has its state (a
    failed one's error comes with its tasks)."""
    _STARTED.wait()


def _apply(function: Task, item: Any) -> Any:
    if _FAILED is not None:
        raise _FAILED
    return function(_STATE, item)


class _Actor:
    """A Ray actor's body: the state its recipe builds, and the tasks on it."""

    def __init__(self, recipe: Recipe):
        self.state = recipe()

    def apply(self, function: Task, item: Any) -> Any:
        return function(self.state, item)


class RayWorkers(Workers):
    """``count`` actors of the Ray cluster this process is connected to."""

    def __init__(self, ray: ModuleType, recipe: Recipe, count: int, gpu: bool,
                 per_gpu: int = 1):
        from ray.util import ActorPool
        kind = ray.remote(num_gpus=1 / per_gpu if gpu else 0, num_cpus=1)(_Actor)
        self.ray, self.count = ray, count * per_gpu
        self.label = f"{self.count} Ray actors" + (
            (" of one GPU each" if per_gpu == 1 else f", {per_gpu} sharing each GPU")
            if gpu else "")
        self.actors = [kind.remote(recipe) for _ in range(self.count)]
        self.pool = ActorPool(self.actors)

    def map(self, function: Task, items: Iterable[Any],
            lanes: Sequence[int | None] | None = None) -> Iterator[Any]:
        return self.pool.map(lambda actor, item: actor.apply.remote(function, item), items)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


def in_process(count: str, ray: str | None) -> bool:
    """Whether ``--gpus count --ray ray`` leaves the one worker in this process."""
    return ray is None and count == "1"


def open_workers(recipe: Recipe, *, count: str, gpu: bool, ray: str | None = None,
                 here: Recipe | None = None, per_gpu: int = 1) -> Workers:
    """The workers ``--gpus count``, ``--workers-per-gpu per_gpu`` and ``--ray ray``
    ask for (see the module doc); ``here`` builds the state of a worker in this
    process when the caller already holds what ``recipe`` would rebuild.  Workers
    that share a GPU take turns on it (``turns``): each compiles while another runs."""
    module = connect_ray(ray) if ray is not None else None
    if module is not None:
        return RayWorkers(module, recipe, _ray_count(module, count, gpu), gpu,
                          per_gpu if gpu else 1)
    if count == "1" and (per_gpu == 1 or not gpu):
        return InProcess(here or recipe)
    devices = local_gpus() if gpu else []
    number = (len(devices) if gpu else os.cpu_count() or 1) if count == "all" else int(count)
    if gpu and devices and number > len(devices):
        raise error(f"{number} GPU workers asked for, but this host has {len(devices)} "
                    f"GPUs ({','.join(devices)})", Location("--gpus"))
    if gpu and number == 0:
        raise error("no GPU found on this host (CUDA_VISIBLE_DEVICES and nvidia-smi -L "
                    "name none)", Location("--gpus"))
    if not gpu:
        return InProcess(here or recipe) if number == 1 else LocalWorkers(recipe, number, None)
    if number == 1 and per_gpu == 1:
        return InProcess(here or recipe)
    return LocalWorkers(recipe, number * per_gpu,
                        shared_gpus((devices or [str(i) for i in range(number)])[:number],
                                    per_gpu))


def shared_gpus(devices: Sequence[str], per_gpu: int) -> list[str]:
    """The GPU of each of ``per_gpu`` workers a GPU, the GPUs in turn (so that the
    first tasks, the longest, spread over every GPU)."""
    return [device for _ in range(per_gpu) for device in devices]


def connect_ray(address: str) -> ModuleType | None:
    """Ray, connected to ``address`` ('local' starts a cluster on this host; a
    connection made before is kept); None, after saying how to install it, where
    Ray is not installed."""
    try:
        import ray
    except ImportError:
        Reporter(stream=sys.stderr).warn(f"Ray is not installed ({RAY_INSTALL}); the "
                                         "workers run on this host", Location("--ray"))
        return None
    if not ray.is_initialized():
        extra = {"include_dashboard": False} if address == "local" else {}
        ray.init(address=address, **extra)
    return ray


def _ray_count(ray: ModuleType, count: str, gpu: bool) -> int:
    """``--gpus`` on Ray: a number, or every GPU (CPU, for the emulation) of the
    cluster; more than the cluster has is an error (the actors would wait forever
    for a GPU that never comes)."""
    resource = "GPU" if gpu else "CPU"
    has = int(ray.cluster_resources().get(resource, 0))
    number = has if count == "all" else int(count)
    if has == 0 or number > has:
        raise error(f"{number} workers of one {resource} asked for, but the Ray cluster "
                    f"has {has} {resource}s", Location("--gpus" if count != "1" else "--ray"))
    return number


def local_gpus() -> list[str]:
    """The GPUs of this host a worker may be pinned to: the entries of
    ``CUDA_VISIBLE_DEVICES`` where it is set, else the indices nvidia-smi lists
    (none without nvidia-smi: the caller numbers them itself)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip()]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    listed = subprocess.run([smi, "-L"], capture_output=True, text=True, check=False)
    return [str(i) for i, line in enumerate(listed.stdout.splitlines())
            if line.startswith("GPU ")]
