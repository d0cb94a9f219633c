"""Preprocessing with polycu's fakelibc and parsing with pycparser (polycu.frontend)."""
from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast

from polycu.diagnostics import Location, PolycuError
from polycu.frontend.parse import parse
from polycu.frontend.preprocess import FAKELIBC, Preprocessed, preprocess, preprocess_text

REPO = Path(__file__).resolve().parents[1]
POLYBENCH = REPO / "polybench"

HEADERS = sorted(p.relative_to(FAKELIBC).as_posix() for p in FAKELIBC.rglob("*.h"))

# Uses at least one name from every header, in the ways a numerical harness does.
ALL_HEADERS_PROGRAM = "\n".join(f"#include <{h}>" for h in HEADERS) + r"""
static double now(void) {
  struct timeval tv;
  struct timespec ts;
  struct rusage usage;
  struct rlimit lim;
  struct sched_param sp;
  gettimeofday(&tv, NULL);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  getrusage(RUSAGE_SELF, &usage);
  getrlimit(RLIMIT_STACK, &lim);
  sp.sched_priority = sched_get_priority_max(SCHED_FIFO);
  sched_setscheduler(0, SCHED_FIFO, &sp);
  (void)time(NULL);
  (void)clock();
  return tv.tv_sec + tv.tv_usec * 1.0e-6 + ts.tv_nsec / (double)CLOCKS_PER_SEC
         + omp_get_wtime();
}

static int logf_all(FILE *out, const char *fmt, ...) {
  va_list ap, copy;
  int n;
  va_start(ap, fmt);
  va_copy(copy, ap);
  n = vfprintf(out, fmt, ap) + va_arg(copy, int);
  va_end(copy);
  va_end(ap);
  return n;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atoi(argv[1]) : 16;
  long m = strtol("42", NULL, 10);
  double *a = (double *)malloc(n * sizeof(double));
  float *b = (float *)calloc(n, sizeof *b);
  void *p = NULL;
  int64_t big = INT64_MAX;
  uint32_t small = UINT32_C(7);
  intptr_t ip = (intptr_t)a;
  ptrdiff_t d = &a[1] - &a[0];
  bool ok = true;
  alignas(16) double v = M_PI;
  char buf[64];
  int i;
  assert(a != NULL && ok);
  static_assert(sizeof(int) == 4, "int is 32 bits");
  if (posix_memalign(&p, 64, n * sizeof(double)) != 0 || errno == ENOMEM)
    exit(EXIT_FAILURE);
  memset(a, 0, n * sizeof(double));
  memcpy(p, a, n * sizeof(double));
  srand(42);
  for (i = 0; i < (int)n; i++) {
    a[i] = sqrt(fabs(sin(i) * cos(i))) + exp(-i) * pow(2.0, i) + log(1.0 + i)
           + floor(i / 2.0) + ceil(i / 3.0) + fmin(i, 3) + fmax(i, 4)
           + (double)rand() / RAND_MAX;
    b[i] = sqrtf(expf(powf(2.0f, (float)i))) + fabsf(-1.0f) + floorf(0.5f) + logf(2.0f);
    if (isnan(a[i]) || isinf(a[i]) || a[i] > DBL_MAX || b[i] > FLT_MAX)
      a[i] = NAN;
  }
  if (fabs(a[0] - v) < DBL_EPSILON || a[0] == HUGE_VAL || a[0] == INFINITY)
    puts("edge");
  snprintf(buf, sizeof buf, "%" PRId64 " %d", big, INT_MAX);
  if (strcmp(buf, "") == 0 || strlen(buf) > 10 || isdigit(buf[0]))
    fprintf(stderr, "%s %ld %u %ld %td\n", buf, m, small, (long)ip, d);
  printf("%f %zu %ld %d\n", now(), n, sysconf(_SC_NPROCESSORS_ONLN), omp_get_max_threads());
  logf_all(stdout, "%d\n", EOF);
  free(memalign(16, 8));
  free(p);
  free(b);
  free(a);
  return EXIT_SUCCESS;
}
"""


def _find(node: c_ast.Node, kind: type, pred=lambda n: True) -> list[c_ast.Node]:
    """All nodes of a type under ``node`` (pre-order) that satisfy ``pred``."""
    found = [node] if isinstance(node, kind) and pred(node) else []
    for _, child in node.children():
        found += _find(child, kind, pred)
    return found


def _function(ast: c_ast.FileAST, name: str) -> c_ast.FuncDef:
    (fn,) = [e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == name]
    return fn


def _located_error(exc_info: pytest.ExceptionInfo[PolycuError]) -> Location:
    diag = exc_info.value.first
    assert diag.severity == "error"
    assert diag.location is not None
    return diag.location


def test_fakelibc_has_every_header_the_frontend_promises() -> None:
    expected = {"stdio.h", "stdlib.h", "string.h", "math.h", "stdint.h", "stddef.h",
                "stdbool.h", "assert.h", "time.h", "sys/time.h", "sys/types.h", "unistd.h",
                "float.h", "limits.h", "stdarg.h", "errno.h", "ctype.h", "omp.h", "sched.h",
                "sys/resource.h", "malloc.h", "inttypes.h", "stdalign.h"}
    assert expected <= set(HEADERS)


@pytest.mark.parametrize("header", HEADERS)
def test_each_header_alone_parses_and_is_idempotent(header: str) -> None:
    ast = parse(preprocess_text(f"#include <{header}>\n#include <{header}>\nint x;\n", "one.c"))
    assert ast.ext[-1].name == "x"
    assert ast.ext[-1].coord.file == "one.c"


def test_all_headers_together_parse_with_real_prototypes() -> None:
    ast = parse(preprocess_text(ALL_HEADERS_PROGRAM, "all.c"))
    decls = {e.name: e for e in ast.ext if isinstance(e, c_ast.Decl)}
    # Real prototypes, not K&R stubs: parameter types are there to check against.
    memcpy_params = decls["memcpy"].type.args.params
    assert [p.name for p in memcpy_params] == ["s1", "s2", "n"]
    assert decls["sqrtf"].type.type.type.names == ["float"]
    assert isinstance(decls["printf"].type.args.params[-1], c_ast.EllipsisParam)
    assert decls["stderr"].storage == ["extern"]
    main = _function(ast, "main")
    assert main.coord.file == "all.c"
    # Standard functions stay calls by their own names (isnan included).
    called = {c.name.name for c in _find(main, c_ast.FuncCall)}
    assert {"sqrt", "sqrtf", "isnan", "posix_memalign", "snprintf", "malloc"} <= called
    # assert() vanishes into ((void)0); constants such as M_PI are literals.
    assert "assert" not in called
    assert _find(main, c_ast.Constant, lambda c: c.value == "3.14159265358979323846")


def test_defines_and_includes_and_coordinates_point_into_the_user_files(tmp_path: Path) -> None:
    kdir = tmp_path / "kern"
    kdir.mkdir()
    (kdir / "kern.h").write_text("#ifndef N\n# define N 100\n#endif\n#define DATA_TYPE double\n")
    main = kdir / "kern.c"
    main.write_text(
        "#include <stdio.h>\n"
        "#include <math.h>\n"
        "#include <kern.h>\n"
        "static DATA_TYPE A[N][N];\n"
        "void kernel(int n) {\n"
        "  int i,   j;\n"
        "#pragma scop\n"
        "  for (i = 0; i < N; i++)\n"
        "    for (j = 0;   j < n; j++)\n"
        "\tA[i][j] =  sqrt(A[j][i]) + N;\n"
        "  #pragma endscop\n"
        "}\n")
    pre = preprocess(str(main), defines=["N=10"], includes=[str(kdir)])
    assert pre.source == str(main)
    ast = parse(pre)
    arr = [e for e in ast.ext if getattr(e, "name", None) == "A"][0]
    assert arr.type.dim.value == "10"
    assert arr.type.type.type.type.names == ["double"]
    assert (arr.coord.file, arr.coord.line, arr.coord.column) == (str(main), 4, 18)
    body = _function(ast, "kernel").body.block_items
    assert [type(s) for s in body] == [c_ast.Decl, c_ast.Decl, c_ast.Pragma, c_ast.For,
                                       c_ast.Pragma]
    j = body[1]
    assert (j.coord.line, j.coord.column) == (6, 12)  # cpp collapsed "i,   j"
    assert [p.string for p in body if isinstance(p, c_ast.Pragma)] == ["scop", "endscop"]
    # pycparser places a pragma at its text, "endscop" here.
    assert (body[4].coord.line, body[4].coord.column) == (11, 11)
    inner = body[3].stmt
    cond = inner.cond
    assert (cond.coord.line, cond.coord.column) == (9, 19)  # "j < n" after 3 spaces
    assign = inner.stmt
    assert (assign.coord.line, assign.coord.column) == (10, 2)  # after a tab
    plus = assign.rvalue
    assert plus.right.value == "10"
    # The macro N expanded to a shorter token: later tokens keep their columns.
    call = plus.left
    assert (call.coord.line, call.coord.column) == (10, 13)
    # Without -D the local header's default applies.
    assert "100" in preprocess(str(main), includes=[str(kdir)]).text


def test_define_undefine_follow_gcc() -> None:
    src = "#ifdef N\nint defined_n = N;\n#else\nint undefined_n;\n#endif\nint one = M;\n"
    names = lambda pre: [e.name for e in parse(pre).ext]  # noqa: E731
    assert names(preprocess_text(src, "d.c", defines=["N=7", "M"])) == ["defined_n", "one"]
    assert "defined_n = 7" in preprocess_text(src, "d.c", defines=["N=7", "M"]).text
    assert "one = 1" in preprocess_text(src, "d.c", defines=["M"]).text  # -DM means M=1
    assert names(preprocess_text(src, "d.c", defines=["N=10", "M=2"], undefines=["N"])) == [
        "undefined_n", "one"]
    # Target macros can be undefined like any predefined macro; GCC's own are absent.
    probe = "#if defined(__linux__) && !defined(__GNUC__) && !defined(linux)\nint ok;\n#endif\n"
    assert [e.name for e in parse(preprocess_text(probe, "p.c")).ext] == ["ok"]
    assert parse(preprocess_text(probe, "p.c", undefines=["__linux__"])).ext == []


def test_include_order_user_dirs_before_fakelibc_and_quote_includes_next_to_the_file(
        tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "which.h").write_text("int from_first;\n")
    (second / "which.h").write_text("int from_second;\n")
    (second / "stdbool.h").write_text("int user_stdbool;\n")
    (tmp_path / "near.h").write_text("int near;\n")
    src = '#include "near.h"\n#include <which.h>\n#include <stdbool.h>\n'
    pre = preprocess_text(src, str(tmp_path / "virtual.c"), includes=[str(first), str(second)])
    assert [e.name for e in parse(pre).ext] == ["near", "from_first", "user_stdbool"]
    pre = preprocess_text(src, str(tmp_path / "virtual.c"), includes=[str(second), str(first)])
    assert [e.name for e in parse(pre).ext] == ["near", "from_second", "user_stdbool"]


def test_redefinition_warning_is_reported_not_fatal() -> None:
    pre = preprocess_text("#define X 1\n#define X 2\nint x = X;\n", "w.c")
    assert "x = 2" in pre.text
    warning = pre.diagnostics[0]
    assert warning.severity == "warning"
    assert "redefined" in warning.message
    assert warning.location == Location("w.c", 2)  # gcc gives no column here
    assert pre.diagnostics[1].severity == "note"
    assert pre.diagnostics[1].location == Location("w.c", 1)


def test_missing_header_is_located_at_the_include(tmp_path: Path) -> None:
    main = tmp_path / "m.c"
    main.write_text("#include <stdio.h>\n\n  #include \"nowhere.h\"\nint x;\n")
    with pytest.raises(PolycuError) as info:
        preprocess(str(main))
    assert _located_error(info) == Location(str(main), 3, 12)
    assert "nowhere.h" in info.value.first.message
    assert str(info.value).startswith(f"{main}:3:12: error: nowhere.h")


def test_missing_header_inside_a_header_names_the_header_and_the_include_chain(
        tmp_path: Path) -> None:
    (tmp_path / "outer.h").write_text("int outer;\n#include <inner.h>\n")
    with pytest.raises(PolycuError) as info:
        preprocess_text("int a;\n#include \"outer.h\"\n", str(tmp_path / "m.c"))
    assert _located_error(info) == Location(str(tmp_path / "outer.h"), 2, 10)
    notes = info.value.diagnostics[1:]
    assert [(n.severity, n.location) for n in notes] == [
        ("note", Location(str(tmp_path / "m.c"), 2))]


def test_error_directive_and_unterminated_conditional_are_located() -> None:
    with pytest.raises(PolycuError) as info:
        preprocess_text("int a;\n\n#error  size not set\n", "e.c")
    assert _located_error(info) == Location("e.c", 3, 2)
    assert "size not set" in info.value.first.message
    with pytest.raises(PolycuError) as info:
        preprocess_text("#ifdef N\nint a;\n", "u.c")
    assert _located_error(info) == Location("u.c", 1)
    assert "unterminated" in info.value.first.message


def test_bad_command_line_macro_and_missing_file_and_missing_cpp_are_polycu_errors(
        tmp_path: Path) -> None:
    with pytest.raises(PolycuError) as info:
        preprocess_text("int a;\n", "c.c", defines=["=3"])
    assert info.value.first.location == Location("<command-line>")
    with pytest.raises(PolycuError) as info:
        preprocess(str(tmp_path / "absent.c"))
    assert info.value.first.location == Location(str(tmp_path / "absent.c"))
    with pytest.raises(PolycuError) as info:
        preprocess_text("int a;\n", "c.c", cpp=str(tmp_path / "no-such-cpp"))
    assert "cannot run the C preprocessor" in info.value.first.message


def test_other_preprocessor_works_when_named() -> None:
    pre = preprocess_text("#include <limits.h>\nint m = INT_MAX;\n", "g.c", cpp="gcc -E")
    assert parse(pre).ext[0].init.value == "2147483647"


@pytest.mark.parametrize("src, line, column, words", [
    ("int f(void) {\n  int x = 1 +;\n  return x;\n}\n", 2, 14, "Invalid expression"),
    ("int f(void) {\n  int x = 1\n  return x;\n}\n", 3, 3, "return"),
    ("int f(void) {\n  int x = 1;\n", 2, 12, "end of input"),
    ("#include <stdio.h>\nint g(void) {\n    printf(\"%d\"  ,, 1);\n}\n", 3, 19,
     "Invalid expression"),
])
def test_syntax_errors_are_located(src: str, line: int, column: int, words: str) -> None:
    with pytest.raises(PolycuError) as info:
        parse(preprocess_text(src, "s.c"))
    assert _located_error(info) == Location("s.c", line, column)
    assert words in info.value.first.message


def test_syntax_error_in_a_macro_expansion_points_at_the_use() -> None:
    src = "#define BAD (1 +)\nint f(void) {\n  int y = 2;\n  return y * BAD;\n}\n"
    with pytest.raises(PolycuError) as info:
        parse(preprocess_text(src, "mac.c"))
    loc = _located_error(info)
    assert (loc.file, loc.line) == ("mac.c", 4)


def test_columns_survive_comments_strings_and_continuations() -> None:
    src = ('int a = 1;   /* a comment\n'
           '   spanning lines */   int b  =  2;\n'
           'const char *s = "a  /* not a comment */  b";   int c;\n'
           'int d = 1 \\\n'
           '  + 2;  int e;\n')
    pre = preprocess_text(src, "c.c")
    ast = parse(pre)
    coords = {e.name: (e.coord.line, e.coord.column) for e in ast.ext}
    # (pycparser places a pointer declaration at its '*'.)
    assert coords == {"a": (1, 5), "b": (2, 28), "s": (3, 12), "c": (3, 52), "d": (4, 5),
                      "e": (5, 13)}
    # String contents are never re-spaced.
    assert ast.ext[2].init.value == '"a  /* not a comment */  b"'


MACRO_HEAVY = r"""
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define STR(x) #x
#define CAT(a, b) a ## b
#define SQ(x)   ((x)*(x))
int CAT(va, r1)  =  MAX(1,   2) +SQ( 3 ) ;   const char *s = STR(  a   +   b );
int   f(int n) { return MAX(n,
                            SQ(n))  *  2; }
"""


@pytest.mark.parametrize("src", [MACRO_HEAVY, ALL_HEADERS_PROGRAM], ids=["macros", "headers"])
def test_respacing_keeps_the_token_stream_cpp_produced(src: str) -> None:
    import subprocess

    from polycu.frontend.preprocess import _TOKEN_RE, _command

    raw = subprocess.run(_command(None, (), (), ()) + ["-iquote", ".", "-"],
                         input=f'#line 1 "r.c"\n{src}', capture_output=True, text=True,
                         check=True).stdout
    ours = preprocess_text(src, "r.c").text
    tokens = lambda text: [[m.group() for m in _TOKEN_RE.finditer(line)]  # noqa: E731
                           for line in text.split("\n")]
    assert tokens(ours) == tokens(raw)
    assert ours != raw  # the re-spacing did something


def test_preprocessed_is_a_frozen_value() -> None:
    pre = preprocess_text("int a;\n", "f.c")
    assert isinstance(pre, Preprocessed)
    with pytest.raises(AttributeError):
        pre.text = ""  # type: ignore[misc]


def _polybench_kernels() -> list[Path]:
    """Every polybench/**/<kernel>/<kernel>.c (the harness itself lives in utilities/)."""
    if not POLYBENCH.is_dir():
        return []
    return sorted(p for p in POLYBENCH.rglob("*.c") if p.parent.name == p.stem)


@pytest.mark.skipif(not _polybench_kernels(), reason="polybench/ has no kernels yet")
@pytest.mark.parametrize("c99_proto", [False, True], ids=["plain", "c99-proto"])
def test_every_polybench_kernel_preprocesses_and_parses(c99_proto: bool) -> None:
    utilities = POLYBENCH / "utilities"
    defines = ["POLYBENCH_USE_C99_PROTO"] if c99_proto else []
    failures = []
    for kernel in _polybench_kernels():
        try:
            ast = parse(preprocess(str(kernel), defines=defines,
                                   includes=[str(utilities), str(kernel.parent)]))
        except PolycuError as exc:
            failures.append(str(exc))
            continue
        pragmas = [p.string for p in _find(ast, c_ast.Pragma)]
        if pragmas.count("scop") != 1 or pragmas.count("endscop") != 1:
            failures.append(f"{kernel}: expected one scop/endscop pair, got {pragmas}")
        if not any(isinstance(e, c_ast.FuncDef) and e.coord.file == str(kernel)
                   for e in ast.ext):
            failures.append(f"{kernel}: no function definition located in the kernel file")
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(not (POLYBENCH / "utilities" / "polybench.c").is_file(),
                    reason="polybench/utilities/polybench.c is not there yet")
@pytest.mark.parametrize("defines", [[], ["POLYBENCH_TIME", "POLYBENCH_USE_C99_PROTO"]])
def test_polybench_harness_preprocesses_and_parses(defines: list[str]) -> None:
    harness = POLYBENCH / "utilities" / "polybench.c"
    ast = parse(preprocess(str(harness), defines=defines,
                           includes=[str(POLYBENCH / "utilities")]))
    assert any(isinstance(e, c_ast.FuncDef) and e.coord.file == str(harness) for e in ast.ext)
