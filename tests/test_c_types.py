"""Enumerations (``polycu/frontend/enums.py``) and typedef names in casts
(``polycu/frontend/typenames.py``): valid C that polycu rejected ('N' is not
declared) or turned into kernels and CPU references that did not build.

Each program of ``tests/data/c_types/`` is built by gcc as written and by polycu
(emulated, and by nvcc where installed); both must print the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast, c_generator
from test_c_semantics import differential
from test_spelling import kernels_match

import polycu
from polycu.frontend.enums import lower_enums
from polycu.frontend.parse import parse
from polycu.frontend.preprocess import preprocess_text
from polycu.frontend.typenames import spell_type_names
from polycu.model import format_scop

PROGRAMS = Path(__file__).parent / "data" / "c_types"


def scop_of(text: str) -> polycu.Scop:
    (scop,) = polycu.load_text(text, "t.c")
    return scop


def test_enumeration_constants_are_their_values_and_types_gcc_s() -> None:
    scop = scop_of("""enum { N = 10, M = N * 3 - 1, K };
    enum pos { A0, A1 = 'b' - 'a' + 4 }; enum neg { B0 = -2, B1 };
    static enum pos P[40]; static enum neg Q[40]; static double X[40];
    void f(void) { int i;
    #pragma scop
    for (i = N; i < K; i++) { P[i] = A1; Q[i] = B1; X[i] = (double) sizeof(enum pos); }
    #pragma endscop
    }""")
    text = format_scop(scop)
    assert "    unsigned int P[40]\n    int Q[40]\n" in text
    assert "domain: { S0[i] : 10 <= i <= 29 }" in text
    assert "S0: P[i] = 5;" in text and "S1: Q[i] = -1;" in text
    assert "S2: X[i] = (double) 4UL;" in text      # sizeof, folded (frontend/sizes.py)


def test_a_unit_without_enumerations_or_typedefs_is_the_same_tree() -> None:
    tree = parse(preprocess_text("typedef struct { double x; } point; double A[2];\n"
                                 "void f(point p) { A[0] = p.x; }\n", "t.c"))
    assert lower_enums(tree, "t.c") is tree and spell_type_names(tree) is tree


def test_array_and_pointer_typedefs_are_written_as_their_declarators() -> None:
    tree = parse(preprocess_text(
        "typedef double vec3[3];\ntypedef vec3 mat3[3];\ntypedef float *fptr;\n"
        "static mat3 M[4];\nvoid f(fptr w, const fptr v) { vec3 t; t[0] = w[0] + v[0]; }\n",
        "t.c"))
    text = c_generator.CGenerator().visit(spell_type_names(tree))
    assert "static double M[4][3][3];" in text
    assert "void f(float *w, const fptr v)" in text      # a qualified one is left alone
    assert "double t[3];" in text


def test_spelling_leaves_the_input_unit_alone_and_shares_what_it_does_not_change() -> None:
    source = ("typedef double real;\ntypedef float *fptr;\nint g(int x);\n"
              "void f(real *a, fptr w) { a[0] = (real) w[0]; }\n")
    tree = parse(preprocess_text(source, "t.c"))
    before = c_generator.CGenerator().visit(tree)
    spelled = spell_type_names(tree)
    assert c_generator.CGenerator().visit(tree) == before
    text = c_generator.CGenerator().visit(spelled)
    assert "void f(double *a, float *w)" in text and "a[0] = (double) w[0];" in text
    g = next(e for e in tree.ext if getattr(e, "name", None) == "g")
    f = next(e for e in tree.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == "f")
    assert g in spelled.ext and f not in spelled.ext


@pytest.mark.parametrize("name", sorted(p.stem for p in PROGRAMS.glob("*.c")))
def test_programs_print_what_gcc_prints(tmp_path: Path, name: str) -> None:
    expected, actual = differential(tmp_path, name, (PROGRAMS / f"{name}.c").read_text())
    assert actual == expected
    assert len(expected.splitlines()) > 30


@pytest.mark.parametrize("name", sorted(p.stem for p in PROGRAMS.glob("*.c")))
def test_kernels_match_the_reference_on_random_inputs(name: str) -> None:
    kernels_match(PROGRAMS / f"{name}.c", 2028)
