"""C identifiers that isl, C++ or CUDA reserve (``polycu/frontend/spelling.py``).

Valid C names such as ``new``, ``class``, ``max``, ``Floor``, ``threadIdx`` or the
type ``_Bool`` made polycu crash (isl could not parse the model's text) or emit
kernels nvcc could not compile.  Each program of ``tests/data/spelling/`` is built
by gcc as written and by polycu (emulated, and by nvcc where installed); both must
print the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast, c_generator
from test_c_semantics import differential

import polycu
from polycu.diagnostics import PolycuError
from polycu.driver import compile_file
from polycu.frontend.parse import parse
from polycu.frontend.preprocess import preprocess_text
from polycu.frontend.spelling import respell
from polycu.runtime.emulate import emulate_generated

PROGRAMS = Path(__file__).parent / "data" / "spelling"


def spellings(text: str) -> dict[str, str]:
    """C name -> model name for ``text``."""
    _, spelled = respell(parse(preprocess_text(text, "t.c")))
    return {c: model for model, c in spelled.renamed}


def test_reserved_names_declared_by_the_user_are_renamed_and_others_kept() -> None:
    text = """#include <math.h>
    struct class { double this; };
    typedef int template;
    static double new[4], Max[4], threadIdx[4], A[4];
    void f(int n, int mod, struct class c) { int max_; A[0] = floor(new[n] + c.this); }
    """
    assert spellings(text) == {"class": "class_", "this": "this_", "template": "template_",
                               "new": "new_", "Max": "Max_", "threadIdx": "threadIdx_",
                               "mod": "mod_"}


def test_a_new_spelling_steps_over_names_in_use() -> None:
    text = "double new[2], new_[2], new__[2];\nint f(int max, int max_) { return max; }\n"
    assert spellings(text) == {"new": "new___", "max": "max__"}


def test_a_unit_without_reserved_names_is_the_same_tree() -> None:
    tree = parse(preprocess_text("double A[2];\nvoid f(void) { A[0] = 1.0; }\n", "t.c"))
    same, spelled = respell(tree)
    assert same is tree and spelled.renamed == ()


def test_renaming_reaches_every_occurrence() -> None:
    tree = parse(preprocess_text("struct new { int new; };\nstruct new new;\n"
                                 "int f(void) { return new.new; }\n", "t.c"))
    renamed, _ = respell(tree)
    names: list[str] = []

    class Visitor(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            names.append(node.name)

        def visit_Decl(self, node: c_ast.Decl) -> None:
            names.append(node.name)
            self.generic_visit(node)

        def visit_Struct(self, node: c_ast.Struct) -> None:
            names.append(node.name)
            self.generic_visit(node)

    Visitor().visit(renamed)
    assert "new" not in names and names.count("new_") >= 5


def test_a_library_name_is_renamed_only_where_the_users_declaration_is_seen() -> None:
    """``int floor`` (a parameter) beside <math.h>'s ``floor``: the parameter and its
    uses become ``floor_``; the calls elsewhere and a field ``floor`` stay."""
    tree = parse(preprocess_text(
        "#include <math.h>\nstruct c { double floor; };\n"
        "void f(int floor, struct c s) { double x = s.floor + floor; }\n"
        "double g(double y) { return floor(y) + ceil(y); }\n"
        "double h(double floor);\n", "t.c"))
    renamed, spelled = respell(tree)
    assert spelled.renamed == (("floor_", "floor"),)
    text = c_generator.CGenerator().visit(renamed)
    assert "void f(int floor_, struct c s)" in text
    assert "double x = s.floor + floor_;" in text
    assert "return floor(y) + ceil(y);" in text
    assert "struct c\n{\n  double floor;\n}" in text


@pytest.mark.parametrize("name", sorted(p.stem for p in PROGRAMS.glob("*.c")))
def test_programs_print_what_gcc_prints(tmp_path: Path, name: str) -> None:
    """gcc's build of the original and polycu's program (kernels emulated; built by
    nvcc too where installed) print the same bytes."""
    expected, actual = differential(tmp_path, name, (PROGRAMS / f"{name}.c").read_text())
    assert actual == expected
    assert expected.count("@ ") >= 1 and len(expected.splitlines()) > 40


def kernels_match(path: Path, seed: int) -> None:
    """Every SCoP of ``path`` emulated against its original code on random inputs."""
    reports = emulate_generated(polycu.load(str(path)), compile_file(str(path)).description,
                                limit=37, seed=seed, nvcc=False)
    assert reports and all(r.ok for r in reports), "\n".join(r.format() for r in reports)


@pytest.mark.parametrize("name", sorted(p.stem for p in PROGRAMS.glob("*.c")))
def test_kernels_match_the_reference_on_random_inputs(name: str) -> None:
    kernels_match(PROGRAMS / f"{name}.c", 2027)


def test_the_host_program_calls_with_the_users_names(tmp_path: Path) -> None:
    """The .cu takes the new names; the host program, still C, passes the user's."""
    source = tmp_path / "k.c"
    source.write_text((PROGRAMS / "cxx_keywords.c").read_text())
    host = compile_file(str(source)).write(tmp_path / "k.cu").read_text()
    cuda = (tmp_path / "k.cu").read_text()
    assert ("kernel_scop0_gpu(n, friend, (double *)operator, (double *)&virtual, "
            "(struct class *)&object, (double *)new);") in host
    assert "extern void kernel_scop0_gpu(int, int, double *, double *, struct class *, " \
        "double *);" in host
    assert "if (sizeof(object) != sizeof(struct class))" in host
    assert ("void kernel_scop0_gpu(int n, int friend_, double *operator_, double *virtual_, "
            "struct class_ *object, double *new_)") in cuda


def test_diagnostics_name_the_users_identifier(tmp_path: Path) -> None:
    source = tmp_path / "d.c"
    source.write_text("#define N 16\nstatic long double new[N];\nvoid f(int n)\n{\n  int i;\n"
                      "#pragma scop\n  for (i = 0; i < n; i++)\n    new[i] = new[i] / 3;\n"
                      "#pragma endscop\n}\n")
    with pytest.raises(PolycuError) as info:
        polycu.load(str(source))
    assert f"{source}:8:" in str(info.value) and "'new' is a long double" in str(info.value)


def test_param_takes_the_users_name() -> None:
    """``--param min=3`` fixes the parameter the model calls ``min_``."""
    path = str(PROGRAMS / "cuda_names.c")
    (report,) = emulate_generated(polycu.load(path), compile_file(path).description,
                                  params={"min": 3, "n": 20}, seed=5, nvcc=False)
    assert report.ok and report.params == {"n": 20, "min_": 3, "blockDim_": report.params[
        "blockDim_"]}
    with pytest.raises(PolycuError, match=r"--param names min_x, not a parameter .* "
                                          r"\(blockDim, min, n\)"):
        emulate_generated(polycu.load(path), compile_file(path).description,
                          params={"min_x": 3}, nvcc=False)
