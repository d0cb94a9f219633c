"""The fitted cost model's constants, per device, and the ranking estimate they give.

In:  ``fitted.json`` in polycu's cache directory (beside ``devices.json``: the
     directory of ``runtime.native.cache_dir``), the present device's name
     (``$POLYCU_DEVICE``, else the first GPU ``nvidia-smi`` lists) and the options.
Out: ``estimate(options)``: a function from a candidate's ``GpuProgram`` to the
     fitted model's seconds (``memory.features``), or None when there is no fit
     for the present device (or ``--no-fitted-cost``): then the ranking is
     ``gpu.cost``'s, unchanged.

``polycu device --fit`` (``tune/fit.py``) writes the records; the driver reads them
when it ranks the candidates of an untuned compile.  A record is keyed by the name
the measurements were taken on (``Entry.device`` of the tuning files), so a fit
made on a CPU machine from an H100's measurements serves the H100.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Mapping

from .gpu.cost import representative_params
from .gpu.kernel import GpuProgram
from .memory import place
from .memory.features import FEATURES, features, predict
from .options import Options
from .schedule import MAX_OPERATIONS

Estimate = Callable[[GpuProgram], float]


def cache_path() -> Path:
    """``fitted.json`` in polycu's cache directory: $POLYCU_CACHE_DIR, else
    $XDG_CACHE_HOME/polycu, else ~/.cache/polycu (``runtime.native.cache_dir``'s
    rule, which this layer cannot import; a test keeps the two equal)."""
    root = os.environ.get("POLYCU_CACHE_DIR")
    if root:
        return Path(root) / "fitted.json"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "polycu" / "fitted.json"


def read(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The records by device name ({} when there is no readable file)."""
    try:
        data = json.loads((path or cache_path()).read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} \
        if isinstance(data, dict) else {}


def store(device: str, record: Mapping[str, Any], path: Path | None = None) -> Path:
    """Add or replace ``device``'s record (other devices' are kept); the file written."""
    path = path or cache_path()
    data = read(path)
    data[device] = dict(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


@functools.lru_cache(maxsize=1)
def _gpu_name() -> str | None:
    """The first GPU nvidia-smi lists (the name PyCUDA reports), or None."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if lines else None


def present_device() -> str | None:
    """The device compiles are for: $POLYCU_DEVICE, else the first GPU of nvidia-smi."""
    return os.environ.get("POLYCU_DEVICE") or _gpu_name()


def constants(path: Path | None = None) -> dict[str, float] | None:
    """The present device's fitted constants (seconds per unit of each feature), or
    None.  The device is looked up only when some fit exists."""
    records = read(path)
    if not records:
        return None
    record = records.get(present_device() or "")
    if record is None or list(record.get("features", ())) != list(FEATURES):
        return None         # no fit here, or one of another version's features
    return {name: float(record["constants"][name]) for name in FEATURES}


def estimate(options: Options) -> Estimate | None:
    """The fitted model's estimate of a candidate's program, placed as the options
    place it, at ``gpu.cost``'s representative parameter values; None without a fit
    for the present device or with --no-fitted-cost."""
    fitted = constants() if options.fitted_cost else None
    if fitted is None:
        return None

    def seconds(program: GpuProgram) -> float:
        placed = place(program, options.private_memory,
                       options.shared_memory and not program.single_block,
                       options.max_shared_memory, max_operations=MAX_OPERATIONS)
        return predict(fitted, features(placed, representative_params(program.scop)))
    return seconds
