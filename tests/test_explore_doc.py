"""docs/explore.md runs: its Python blocks, in order, in one namespace, from the
repository's root (the asserts in them state the outcomes the page promises)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "explore.md"


def blocks() -> list[str]:
    """The ```python blocks of the page."""
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)


def test_the_page_has_the_steps() -> None:
    text = "\n".join(blocks())
    for step in ("polycu.candidates", "polycu.check_legality", "polycu.map_to_gpu",
                 "polycu.place", "polycu.compile", "polycu.measure", "features("):
        assert step in text


def test_the_python_blocks_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path))     # no fit: polycu's ranking
    namespace: dict[str, object] = {}
    for k, code in enumerate(blocks()):
        exec(compile(code, f"{PAGE}:block{k + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "isl-maxfuse | cost" in out
    assert "A: global (read; no reuse" in out and "ok " in out
