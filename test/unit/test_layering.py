"""The package is a strict layering (ARCHITECTURE.md, "Layers"): every import,
at module level, inside a function or under TYPE_CHECKING, points to the same
layer or a lower one, and the import graph has no cycle.

The graph is read with `ast` from the sources, so an import hidden in a function
counts like any other."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vyre"

# Bottom up. An entry names a package and every module below it, or, written
# "=name", that one module only (a package's __init__, not its submodules). A
# module belongs to the entry that names it alone, else to the first entry that
# is it or a package above it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("vyre.dialects",),
    ("vyre.cli", "vyre.context", "vyre.progress", "vyre.text", "vyre.wire"),
    ("vyre.ir",),
    ("vyre.validation",),
    ("vyre.ops",),
    ("vyre.validate",),
    ("vyre.transforms",),
    ("vyre.lowering",),
    ("vyre.fingerprint", "vyre.pipeline"),
    ("vyre.runtime",),
    ("vyre.kernels", "vyre.tensor"),
    ("=vyre.ops",),
    ("vyre.testing", "vyre.conform"),
    ("vyre.targets", "vyre.tools", "vyre.universe", "vyre.installation", "vyre.__main__", "=vyre"),
)


def _modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _layer(module: str) -> int:
    for level, entries in enumerate(LAYERS):
        if f"={module}" in entries:
            return level
    for level, entries in enumerate(LAYERS):
        for prefix in entries:
            if module == prefix or module.startswith(prefix + "."):
                return level
    raise AssertionError(f"module {module} is in no layer: add it to LAYERS and ARCHITECTURE.md")


def _imports(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported vyre module, line) for every import statement of the module."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        else:
            continue
        found.extend((target, node.lineno) for target in targets if target in modules)
    return found


@cache  # parsed once per process: every check reads the same sources
def _graph() -> dict[str, list[tuple[str, int]]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_every_import_points_down_the_layers() -> None:
    upward = [
        f"{module}:{line} imports {target} (layer {_layer(module)} -> {_layer(target)})"
        for module, edges in _graph().items()
        for target, line in edges
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_the_import_graph_has_no_cycle() -> None:
    graph = {module: {target for target, _ in edges if target != module} for module, edges in _graph().items()}
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        state[start] = 1
        while stack:
            node, pending = stack[-1]
            if not pending:
                state[node] = 2
                stack.pop()
                continue
            child = pending.pop()
            if state.get(child) == 1:
                cycle = [name for name, _ in stack][[name for name, _ in stack].index(child) :]
                pytest.fail(f"import cycle: {' -> '.join([*cycle, child])}")
            if child not in state:
                state[child] = 1
                stack.append((child, sorted(graph[child])))


def test_the_op_library_facade_is_above_the_kernel_ops() -> None:
    """`vyre.ops` itself (the façade) sits above `vyre.kernels`; its submodules
    stay below validation, and no module below the façade imports it."""
    assert _layer("vyre.ops") > _layer("vyre.kernels") > _layer("vyre.runtime")
    assert _layer("vyre.ops.registry") < _layer("vyre.validate")
    below = [
        f"{module}:{line}"
        for module, edges in _graph().items()
        for target, line in edges
        if target == "vyre.ops" and _layer(module) < _layer("vyre.ops")
    ]
    assert below == []


def test_the_checks_see_function_level_imports() -> None:
    """The graph includes an import inside a function body (a known one)."""
    edges = dict.fromkeys(target for target, _ in _graph()["vyre.runtime.api"])
    assert "vyre.runtime.wgpu_backend" in edges
