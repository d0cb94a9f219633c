"""The bad-input corpus: every file yields its located diagnostic, exit status 1, no traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from polycu.cli import main

CORPUS = Path(__file__).parent / "bad_input"


def expectations() -> list[tuple[str, str, str]]:
    rows = []
    for line in (CORPUS / "EXPECTED.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, where, message = line.split("\t")
            rows.append((name, where, message))
    return rows


def test_corpus_is_complete():
    names = {row[0] for row in expectations()}
    assert names == {p.name for p in CORPUS.glob("*.c")}
    assert len(names) >= 30


@pytest.mark.parametrize("name,where,message", expectations(), ids=lambda v: str(v))
def test_located_diagnostic(name, where, message, capsys):
    path = CORPUS / name
    status = main(["--dump-scop", str(path)])
    err = capsys.readouterr().err
    assert status == 1
    assert "Traceback" not in err
    assert err.splitlines()[0] == f"{path}:{where}: error: {message}"
