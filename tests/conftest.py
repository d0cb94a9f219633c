"""Shared test set-up: the scripts of ``scripts/`` (the PolyBench facts, the CPU
suite runner, the table writer) import as plain modules in every test module."""
import sys
from pathlib import Path

SCRIPTS = str(Path(__file__).resolve().parent.parent / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
