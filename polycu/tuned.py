"""The cache of tuned configurations: what ``polycu tune`` found best, per SCoP.

In:  the JSON cache file (``--tune-cache``, ``$POLYCU_TUNE_CACHE`` or
     ``~/.cache/polycu/tuned.json``), a SCoP and the -D macros it is compiled with.
Out: the ``Entry`` to compile it with (``lookup``), or None; ``store`` merges new
     entries in.

An entry is keyed by a hash of the SCoP's model (its statements, domains, accesses
and original schedule: ``scop_key``; not its file name or lines), the problem size
it was tuned at and the device's name, so tuning one size or device never overwrites
another's winner.  Its configuration is a set of option values (``Entry.changes``,
option ``dest`` names) that replays exactly through the ordinary options, and its
flags are printed at the top of the generated .cu, so a tuned build can be redone
without the cache.  This module is read by the driver (``--tuned``); the search that
writes it is ``polycu/tune``.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from .diagnostics import Location, error
from .model import Scop, format_scop

VERSION = 1


@dataclass(frozen=True)
class Entry:
    """The winning configuration of one SCoP at one size on one device."""

    scop: str                      # the SCoP's name (kernel_gemm_scop0)
    key: str                       # scop_key
    source: str                    # the file it was tuned from
    defines: tuple[str, ...]       # the -D macros it was compiled with
    params: Mapping[str, int]      # the parameter values it was timed at
    device: str
    changes: Mapping[str, Any]     # option dest -> value
    kernel_s: float                # median kernel time of the winner
    default_s: float | None        # the same for polycu's defaults, in the same run
    evaluated: int = 0             # configurations checked and timed
    discarded: int = 0             # configurations that failed their check or build
    strategy: str = ""
    date: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def slot(self) -> str:
        """Where it lives in the cache: one winner per SCoP, size and device."""
        return slot_of(self.key, self.params, self.device)

    def flags(self) -> list[str]:
        """The command-line flags that reproduce the configuration."""
        return config_flags(self.changes)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["defines"], data["notes"] = list(self.defines), list(self.notes)
        data["params"], data["changes"] = dict(self.params), dict(self.changes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Entry":
        values = dict(data)
        values["defines"] = tuple(values.get("defines", ()))
        values["notes"] = tuple(values.get("notes", ()))
        return cls(**values)


def config_flags(changes: Mapping[str, Any]) -> list[str]:
    """``{'schedule': 'isl-minfuse', 'shared_memory': False}`` as
    ``['--schedule', 'isl-minfuse', '--no-shared-memory']``."""
    flags: list[str] = []
    for dest, value in sorted(changes.items()):
        flag = "--" + dest.replace("_", "-")
        if isinstance(value, bool):
            flags.append(flag if value else "--no-" + dest.replace("_", "-"))
        else:
            flags += [flag, str(value)]
    return flags


def scop_key(scop: Scop) -> str:
    """A hash of the SCoP's model without its file name and lines: the same loop nest
    in a copied or edited file keeps its key; any change to what it computes does
    not."""
    model = format_scop(scop).split("\n", 1)[1]
    return hashlib.sha256(f"{scop.function}\n{model}".encode()).hexdigest()[:16]


def slot_of(key: str, params: Mapping[str, int], device: str) -> str:
    """The cache slot of SCoP ``key`` tuned at ``params`` on ``device``."""
    sizes = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{key}|{sizes}|{device}"


def cache_path(given: str | None = None) -> Path:
    """--tune-cache, else $POLYCU_TUNE_CACHE, else ~/.cache/polycu/tuned.json."""
    if given:
        return Path(given)
    env = os.environ.get("POLYCU_TUNE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "polycu" / "tuned.json"


def read(path: Path) -> dict[str, Entry]:
    """The cache's entries by slot ({} when the file does not exist)."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        if data.get("version") != VERSION:
            raise ValueError(f"version {data.get('version')}, not {VERSION}")
        return {slot: Entry.from_json(e) for slot, e in data["entries"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise error(f"cannot read the tuning cache: {exc}", Location(str(path))) from None


def store(path: Path, entries: Sequence[Entry]) -> None:
    """Merge ``entries`` into the cache: a slot keeps the faster of its old and new
    winner (times of one device at one size compare), so merged runs of several
    workers or hosts agree with one run over all their configurations."""
    kept = read(path)
    for entry in entries:
        old = kept.get(entry.slot)
        if old is None or entry.kernel_s <= old.kernel_s:
            kept[entry.slot] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": VERSION,
            "entries": {slot: kept[slot].as_json() for slot in sorted(kept)}}
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    temporary.replace(path)


def lookup(entries: Mapping[str, Entry], scop: Scop,
           defines: Sequence[str]) -> tuple[Entry | None, str]:
    """The entry to compile ``scop`` with, and a sentence saying which and why.

    Of the entries of this SCoP, those tuned with the same -D macros come first
    (PolyBench's dataset macros fix its sizes), then the most recent."""
    key = scop_key(scop)
    mine = [e for e in entries.values() if e.key == key]
    if not mine:
        return None, f"SCoP '{scop.name}' was never tuned; it keeps the defaults"
    wanted = sorted(defines)
    same = [e for e in mine if sorted(e.defines) == wanted]
    chosen = max(same or mine, key=lambda e: e.date)
    sizes = ", ".join(f"{k}={v}" for k, v in sorted(chosen.params.items()))
    why = "" if same else " (no entry was tuned with these -D macros: the latest is used)"
    return chosen, (f"SCoP '{scop.name}': tuned on {chosen.device} at {sizes}{why}: "
                    f"{shlex.join(chosen.flags()) or '(the defaults)'}")
