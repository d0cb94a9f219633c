"""The shape of the code: imports follow the pipeline, no circles, small modules.

docs/architecture.md draws the layers; this test is what keeps the drawing true.
Every import counts, module-level or inside a function.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "polycu"

#: The layers, first to last: a module may import its own layer and earlier ones.
#: ``model`` is the vocabulary the frontend builds and every phase reads; the
#: driver calls the phases in order; the runtime, the benchmarks and the fuzzer
#: run what the driver compiled; the command line and the public API sit on top.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("polycu.diagnostics",),
    ("polycu.model",),
    ("polycu.frontend",),
    ("polycu.deps",),
    ("polycu.schedule",),
    ("polycu.gpu",),
    ("polycu.memory",),
    ("polycu.codegen",),
    ("polycu.options", "polycu.tuned", "polycu.fitted", "polycu.driver"),
    ("polycu.runtime",),
    ("polycu.bench", "polycu.fuzz", "polycu.tune"),
    ("polycu.cli", "polycu.__main__", "polycu"),
)

#: Lines a module may have without a reason written at its top.
MAX_LINES = 450
REASON = "Longer than 450 lines because"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    """The index of the layer ``module`` belongs to (the longest matching prefix)."""
    best, depth = None, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > depth:
                best, depth = index, len(name)
    assert best is not None, f"{module} is in no layer of tests/test_architecture.py"
    return best


def imports(module: str) -> set[str]:
    """The polycu modules ``module`` imports, wherever in its text."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in MODULES}
    return found - {module}


GRAPH = {module: imports(module) for module in MODULES}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_never_run_back_up_the_pipeline(module):
    late = sorted(m for m in GRAPH[module] if layer(m) > layer(module))
    assert not late, f"{module} (layer {layer(module)}) imports later phases: {late}"


def test_no_import_circle():
    state: dict[str, int] = {}          # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(GRAPH[module]):
            if other.startswith(module + "."):
                continue                    # a package re-exporting its own modules
            if state.get(other) == 1:
                cycle = path[path.index(other):] + [other] if other in path else [other]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if other not in state:
                visit(other, path + [other])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])


def test_the_phases_do_not_see_the_command_line():
    """Only the driver and later layers read ``Options``; a phase takes the few
    values it needs (``schedule.Strategy``, ``gpu.sizes.Sizes``)."""
    early = [m for m in MODULES if layer(m) < layer("polycu.driver")]
    assert not [m for m in early if "polycu.options" in GRAPH[m]]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.h")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_are_small_or_say_why(path):
    lines = path.read_text().splitlines()
    if len(lines) > MAX_LINES:
        assert any(REASON in line for line in lines[:40]), \
            f"{path.name} has {len(lines)} lines and no '{REASON} ...' near its top"
