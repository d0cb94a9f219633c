"""Work the test session's workers share: each result computed by one worker.

The README's test command runs two pytest-xdist workers.  A module fixture that
computes a table (the 30 PolyBench kernels compiled, built by nvcc, emulated) runs
in every worker that gets one of its tests, and xdist spreads a module's tests
over both: each worker computed the whole table.  ``computed`` splits a table's
entries between the workers that ask for it: an entry is computed by whichever
worker first takes its lock (``flock``, released when the worker's file closes,
so a crashed worker leaves no stale lock), written beside it (pickled), and read
by the others.  A worker first takes every entry nobody holds, then waits for
the rest.  Without xdist (``directory`` unset) the entries are computed here.
"""
from __future__ import annotations

import concurrent.futures
import fcntl
import hashlib
import os
import pickle
from pathlib import Path
from typing import Callable, Hashable, Mapping, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: The directory all workers of this session share (set by conftest under xdist).
directory: Path | None = None
_PENDING = object()


def computed(table: str, jobs: Mapping[K, Callable[[], V]], threads: int = 1) -> dict[K, V]:
    """``{key: job()}``, each job run once in the session (by this worker or another
    one), ``threads`` at a time here (1 for jobs that call isl: not thread-safe).
    A job's value must pickle; a job that may fail returns its failure."""
    if directory is None:
        return _run(list(jobs), lambda key: jobs[key](), threads)
    folder = directory / table
    folder.mkdir(parents=True, exist_ok=True)

    def attempt(key: K, wait: bool) -> object:
        path = folder / hashlib.sha1(repr(key).encode()).hexdigest()
        done = path.with_suffix(".pickle")
        handle = os.open(path.with_suffix(".lock"), os.O_CREAT | os.O_RDWR)
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return _PENDING
            if done.exists():
                return pickle.loads(done.read_bytes())
            value = jobs[key]()
            partial = path.with_suffix(f".{os.getpid()}")
            partial.write_bytes(pickle.dumps(value))
            os.replace(partial, done)
            return value
        finally:
            os.close(handle)

    results = _run(list(jobs), lambda key: attempt(key, False), threads)
    waiting = [key for key, value in results.items() if value is _PENDING]
    results.update(_run(waiting, lambda key: attempt(key, True), threads))
    return results  # type: ignore[return-value]


def _run(keys: list[K], job: Callable[[K], object], threads: int) -> dict[K, object]:
    if threads <= 1:
        return {key: job(key) for key in keys}
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return dict(zip(keys, pool.map(job, keys)))
