"""The import rules of ARCHITECTURE.md, checked with ``ast`` over the source tree.

Floors: ``crux_app`` (1); ``annotation``, ``evaluation.backends``, ``evaluation.shared`` (2);
``evaluation.agreement``, ``evaluation.leaderboard``, ``evaluation.answers`` and
``evaluation.judge_report`` (3: they know no method; methods plug into them through registries);
one folder per method (4). A ``method`` folder, of a method or of a floor-3 app, is pure.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("crux_app", "annotation", "evaluation")
METHODS = ("crux", "seper", "dense", "scaar", "reteval")
FLOOR_3 = ("agreement", "leaderboard", "answers", "judge_report")
# What a method's pure part and evaluation/shared may not import.
IMPURE = ("django", "torch", "transformers", "celery", "annotation")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _type_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never run)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for child in node.body:
                guarded.update(id(n) for n in ast.walk(child))
    return guarded


def imports_of(path: Path, name: str, runtime_only: bool = False) -> set[str]:
    """Every module an import statement of the file names (relative imports resolved);
    ``runtime_only`` leaves out the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = _type_only(tree) if runtime_only else set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


MODULES = source_modules()
IMPORTS = {name: imports_of(path, name) for name, path in MODULES.items()}
# Circles are about what runs: type-only imports are part of the layering rules, not of this.
RUNTIME_IMPORTS = {name: imports_of(path, name, True) for name, path in MODULES.items()}


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def method_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "evaluation" and parts[1] in METHODS:
        return parts[1]
    return None


def is_pure(module: str) -> bool:
    parts = module.split(".")
    if under(module, "evaluation.shared"):
        return True
    floor_3 = len(parts) >= 2 and parts[0] == "evaluation" and parts[1] in FLOOR_3
    owner = method_of(module) is not None or floor_3
    return owner and len(parts) >= 3 and parts[2] == "method"


def violations() -> list[str]:
    found = []
    for module, targets in IMPORTS.items():
        for target in sorted(targets):
            low_floor = under(module, "crux_app") or under(module, "annotation")
            if low_floor and under(target, "evaluation"):
                found.append(f"{module} imports {target} (floor 1-2 imports evaluation)")
            impure = any(under(target, bad) for bad in IMPURE) or (
                under(target, "crux_app") and not under(target, "crux_app.vocabulary")
            )
            if is_pure(module) and impure:
                found.append(f"{module} imports {target} (a pure part imports {target})")
            own, other = method_of(module), method_of(target)
            if other is not None and own is not None and own != other:
                found.append(f"{module} imports {target} (another method)")
            top = module.split(".")[1] if module.startswith("evaluation.") else None
            if top in FLOOR_3 and other is not None:
                found.append(f"{module} imports {target} (floor 3 knows no method)")
            if under(module, "evaluation.shared") and (
                method_of(target) or any(under(target, f"evaluation.{p}") for p in FLOOR_3)
            ):
                found.append(f"{module} imports {target} (shared imports a higher floor)")
    return sorted(set(found))


def cycles() -> list[list[str]]:
    """Import circles between project modules at run time (Tarjan's strongly connected
    components)."""
    graph = {
        m: {t for t in targets if t in MODULES and t != m} for m, targets in RUNTIME_IMPORTS.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_checker_sees_the_tree():
    assert "evaluation.crux.method.coverage" in MODULES
    assert "evaluation.leaderboard.columns" in IMPORTS["evaluation.dense.registrations"]


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("crux_app.views.x", "from evaluation.crux import job", "floor 1-2 imports evaluation"),
        ("evaluation.dense.method.graph", "import torch", "a pure part imports torch"),
        ("evaluation.shared.x", "from django.db import models", "a pure part imports django"),
        ("evaluation.scaar.job", "from evaluation.dense.job import KIND", "another method"),
        ("evaluation.leaderboard.table", "from evaluation.crux import evaluate", "knows no method"),
        (
            "evaluation.judge_report.scores",
            "from evaluation.crux import evaluate",
            "knows no method",
        ),
        ("evaluation.judge_report.method.x", "from crux_app import models", "a pure part imports"),
    ],
)
def test_the_checker_flags_each_rule(module, source, expected, tmp_path, monkeypatch):
    path = tmp_path / "x.py"
    path.write_text(source + "\n")
    monkeypatch.setitem(IMPORTS, module, imports_of(path, module))
    assert any(expected in line for line in violations() if line.startswith(module + " "))


def test_the_checker_finds_a_circle(monkeypatch):
    imports = RUNTIME_IMPORTS
    monkeypatch.setitem(imports, "crux_app.roles", imports["crux_app.roles"] | {"crux_app.models"})
    monkeypatch.setitem(imports, "crux_app.models", imports["crux_app.models"] | {"crux_app.roles"})
    assert any({"crux_app.roles", "crux_app.models"} <= set(c) for c in cycles())


def test_no_import_breaks_the_layering():
    assert violations() == []


def test_no_import_circles():
    assert cycles() == []
