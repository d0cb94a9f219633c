"""Turns on a GPU (``runtime.turns``): processes that share a GPU run on it one at a
time, so no timing holds another process's kernels.

CPU only: the turns are taken on a GPU name of the test's own, by real processes.
"""
from __future__ import annotations

import multiprocessing
import os
import time
import uuid
from pathlib import Path

from polycu.runtime import turns


def _hold(gpu: str, seconds: float, log: str) -> None:
    """Another process: its turn on ``gpu`` for ``seconds``; ``log`` says when it
    began holding the turn, then when it ended (each written whole: renamed into
    place, so a reader never sees the file empty)."""
    def write(text: str) -> None:
        Path(log + ".new").write_text(text)
        os.replace(log + ".new", log)
    with turns.turn(gpu):
        write(f"{time.time()}")
        time.sleep(seconds)
        write(f"{Path(log).read_text()} {time.time()}")


def test_a_turn_waits_for_the_other_process_to_end_its_own(tmp_path: Path) -> None:
    gpu = f"test-{uuid.uuid4().hex}"
    log = tmp_path / "other"
    other = multiprocessing.get_context("spawn").Process(target=_hold,
                                                         args=(gpu, 2.0, str(log)))
    other.start()
    deadline = time.time() + 30
    while not log.exists():                 # until the other holds its turn
        assert time.time() < deadline and other.is_alive()
        time.sleep(0.02)
    with turns.turn(f"{gpu}-other"):        # another GPU's turn does not wait
        assert len(log.read_text().split()) == 1
    before = turns.waited()
    with turns.turn(gpu):
        mine = time.time()
    other.join(10)
    assert other.exitcode == 0
    start, end = map(float, log.read_text().split())
    assert mine >= end > start              # this turn began after the other's ended
    assert turns.waited() - before > 0.3


def test_turns_nest_and_end_with_the_outer_one(tmp_path: Path) -> None:
    gpu = f"test-{uuid.uuid4().hex}"
    with turns.turn(gpu):
        with turns.turn(gpu):          # the same process: no wait on itself
            pass
    # released: another process takes the turn at once
    log = tmp_path / "other"
    other = multiprocessing.get_context("spawn").Process(target=_hold,
                                                         args=(gpu, 0.0, str(log)))
    other.start()
    other.join(20)
    assert other.exitcode == 0 and log.exists()


def test_the_lock_file_is_named_for_the_gpu() -> None:
    assert Path(turns.lock_path("0000:1B:00.0")).name == "polycu-gpu-0000_1B_00_0.lock"
    assert turns.this_gpu() == "none"       # no CUDA context in this process
