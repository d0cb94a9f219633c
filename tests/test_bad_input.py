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


# -- the command line -----------------------------------------------------------------
# Each bad command line a new user might type: its exit status (2: argparse could not
# parse it, 1: a value, path or input is wrong) and its one located line on stderr.

TINY = """\
void copy(int n, double A[n], double B[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = B[i];
#pragma endscop
}
"""

COMMAND_LINES = [
    ([], 2, "polycu: error: no input file (usage: polycu [compile] FILE.c... [-o OUT.cu] "
            "[options]; 'polycu --help' lists the commands)"),
    (["{dir}/missing.c"], 1, "{dir}/missing.c: error: no such file"),
    (["{dir}"], 1, "{dir}: error: is a directory, not a C file"),
    (["emulate", "{dir}"], 1, "{dir}: error: is a directory, not a C file"),
    (["bench", "{dir}/missing"], 1, "{dir}/missing: error: no such file or directory"),
    (["{src}", "--bogus"], 2,
     "--bogus: error: unknown option; 'polycu compile --help' lists the options"),
    (["emulate", "{src}", "--max-parm", "3"], 2,
     "--max-parm: error: unknown option; did you mean --max-param?"),
    (["{src}", "--dataset", "LARGE"], 2,
     "--dataset: error: unknown option; --dataset is an option of check, bench, tune, not of "
     "compile"),
    (["{src}", "--tile-size", "abc"], 2, "--tile-size: error: invalid int value: 'abc'"),
    (["{src}", "-o"], 2, "-o: error: expected one argument"),
    (["check", "{src}", "--dataset", "HUGE"], 2, "--dataset: error: invalid choice: 'HUGE' "
     "(choose from 'MINI', 'SMALL', 'MEDIUM', 'LARGE', 'EXTRALARGE')"),
    (["emulate"], 2, "polycu emulate: error: the following arguments are required: FILE.c"),
    (["device", "extra"], 1, "extra: error: no such file"),
    (["emulate", "{src}", "--seed", "-1"], 1,
     "--seed: error: --seed must be an integer from 0 to 4294967295, not -1"),
    (["emulate", "{src}", "--seed", "4294967296"], 1,
     "--seed: error: --seed must be an integer from 0 to 4294967295, not 4294967296"),
    (["emulate", "{src}", "--max-param", "0"], 1,
     "--max-param: error: --max-param must be a positive integer, not 0"),
    (["{src}", "--tile-size", "0"], 1,
     "--tile-size: error: --tile-size must be a positive integer, not 0"),
    (["{src}", "--ctx", "garbage"], 1,
     "--ctx: error: not an isl set: 'garbage' (expected e.g. '[n] -> { : n >= 32 }')"),
    (["{src}", "-o", "{out}", "--sizes", "garbage"], 1, "--sizes: error: not an isl union "
     "map: 'garbage' (expected e.g. '{ kernel[0] -> tile[32,32]; kernel[i] -> block[16,8] }')"),
    (["{src}", "-o", "{src}"], 1,
     "{src}: error: the output '{src}' would overwrite the input; name another with -o"),
    (["{src}", "-o", "{dir}/link.cu"], 1,
     "{src}: error: the output '{dir}/link.cu' would overwrite the input; name another "
     "with -o"),
    (["{src}", "-o", "{dir}/missing/x.cu"], 1,
     "-o: error: cannot write '{dir}/missing/x.cu': '{dir}/missing' is not a directory"),
    (["{src}", "-o", "{dir}"], 1,
     "-o: error: cannot write '{dir}': it is a directory (-o names the output file)"),
    (["{src}", "-o", "/proc/polycu-test.cu"], 1,
     "-o: error: cannot write '/proc/polycu-test.cu': No such file or directory"),
]


@pytest.mark.parametrize("argv,status,message", COMMAND_LINES,
                         ids=[" ".join(c[0]) or "(none)" for c in COMMAND_LINES])
def test_bad_command_line(tmp_path, capsys, argv: list[str], status: int,
                          message: str) -> None:
    source = tmp_path / "copy.c"
    source.write_text(TINY)
    (tmp_path / "link.cu").hardlink_to(source)
    names = {"{src}": source, "{dir}": tmp_path, "{out}": tmp_path / "copy.cu"}

    def fill(text: str) -> str:  # not str.format: the isl examples hold braces
        for key, value in names.items():
            text = text.replace(key, str(value))
        return text

    assert main([fill(a) for a in argv]) == status
    assert capsys.readouterr().err == fill(message) + "\n"
    assert source.read_text() == TINY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.c", "link.cu"]
