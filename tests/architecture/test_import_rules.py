"""The import rules of ARCHITECTURE.md, checked with ``ast`` over the source tree.

Floors: ``crux_app`` (1); ``annotation``, ``evaluation.backends``, ``evaluation.shared`` (2);
the cross-method apps that declare registry entries without being a method (a ``PluginConfig``:
``agreement``, ``leaderboard``, ``answers``, ``judge_report``; 3: they know no method); one
folder per method (4): every ``evaluation/<name>`` whose app is a ``MethodConfig``, installed or
declared in its ``apps.py``, so a new method is checked the day its folder exists. A ``method``
folder, of a method or of a floor-3 app, is pure.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest
from django.apps import apps

from crux_app.method_config import MethodConfig, PluginConfig

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("crux_app", "annotation", "evaluation")
# Production code looked at for import circles: the packages above and the API's and webhooks'.
CIRCLE_PACKAGES = (*PACKAGES, "api", "webhooks")


def declared_methods(root: Path) -> set[str]:
    """The ``evaluation/<name>`` folders whose ``apps.py`` defines a ``MethodConfig`` subclass
    (read with ast: a folder not yet in ``INSTALLED_APPS`` is a method all the same)."""
    found = set()
    for path in sorted((root / "evaluation").glob("*/apps.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in tree.body:
            bases = [getattr(b, "id", getattr(b, "attr", "")) for b in getattr(node, "bases", [])]
            if isinstance(node, ast.ClassDef) and "MethodConfig" in bases:
                found.add(path.parent.name)
    return found


def installed(kind: type) -> set[str]:
    """The installed apps under ``evaluation`` whose config is a ``kind``."""
    return {
        c.name.removeprefix("evaluation.")
        for c in apps.get_app_configs()
        if isinstance(c, kind) and c.name.startswith("evaluation.")
    }


METHODS = tuple(sorted(installed(MethodConfig) | declared_methods(ROOT)))
FLOOR_3 = tuple(sorted(installed(PluginConfig) - installed(MethodConfig)))
# What a method's pure part and evaluation/shared may not import.
IMPURE = ("django", "torch", "transformers", "celery", "annotation")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    return {
        module_name(path): path
        for package in packages
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


def _in_functions(tree: ast.Module) -> set[int]:
    """ids of the nodes inside function bodies (imported when called, not with the module)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for child in node.body:
                inside.update(id(n) for n in ast.walk(child))
    return inside


def imports_of(
    path: Path, name: str, runtime_only: bool = False, module_level: bool = False
) -> set[str]:
    """Every module an import statement of the file names (relative imports resolved);
    ``runtime_only`` leaves out the imports under ``if TYPE_CHECKING:``, ``module_level`` the
    imports inside functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = _type_only(tree) if runtime_only else set()
    if module_level:
        skipped |= _in_functions(tree)
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
# The modules' structure: what each module names at its top (type-only imports included: two
# modules whose types need each other belong together), not what its functions import late.
MODULE_LEVEL_IMPORTS = {
    name: imports_of(path, name, module_level=True)
    for name, path in source_modules(CIRCLE_PACKAGES).items()
}


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def method_of(module: str, methods: tuple[str, ...] | set[str] = METHODS) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "evaluation" and parts[1] in methods:
        return parts[1]
    return None


def is_pure(module: str, methods: tuple[str, ...] | set[str] = METHODS) -> bool:
    parts = module.split(".")
    if under(module, "evaluation.shared"):
        return True
    floor_3 = len(parts) >= 2 and parts[0] == "evaluation" and parts[1] in FLOOR_3
    owner = method_of(module, methods) is not None or floor_3
    return owner and len(parts) >= 3 and parts[2] == "method"


def violations(
    imports: Mapping[str, set[str]] | None = None,
    methods: tuple[str, ...] | set[str] = METHODS,
) -> list[str]:
    """Every import that breaks a rule (``imports``: module -> what it imports; default the
    tree's; ``methods``: the method folders' names)."""
    found = []
    for module, targets in (IMPORTS if imports is None else imports).items():
        for target in sorted(targets):
            low_floor = under(module, "crux_app") or under(module, "annotation")
            if low_floor and under(target, "evaluation"):
                found.append(f"{module} imports {target} (floor 1-2 imports evaluation)")
            impure = any(under(target, bad) for bad in IMPURE) or (
                under(target, "crux_app") and not under(target, "crux_app.vocabulary")
            )
            if is_pure(module, methods) and impure:
                found.append(f"{module} imports {target} (a pure part imports {target})")
            # Within evaluation a pure part imports pure parts only: never its own engine.py
            # (or anything beside it that calls models) nor evaluation.backends.
            if (
                is_pure(module, methods)
                and under(target, "evaluation")
                and target != "evaluation"
                and not is_pure(target, methods)
            ):
                found.append(f"{module} imports {target} (a pure part imports model calls)")
            own, other = method_of(module, methods), method_of(target, methods)
            if other is not None and own is not None and own != other:
                found.append(f"{module} imports {target} (another method)")
            top = module.split(".")[1] if module.startswith("evaluation.") else None
            if top in FLOOR_3 and other is not None:
                found.append(f"{module} imports {target} (floor 3 knows no method)")
            if under(module, "evaluation.shared") and (
                method_of(target, methods) or any(under(target, f"evaluation.{p}") for p in FLOOR_3)
            ):
                found.append(f"{module} imports {target} (shared imports a higher floor)")
    return sorted(set(found))


def cycles(imports: Mapping[str, set[str]] | None = None) -> list[list[str]]:
    """Import circles between project modules (Tarjan's strongly connected components) of
    ``imports`` (module -> what it imports; default: what runs, ``RUNTIME_IMPORTS``)."""
    imports = RUNTIME_IMPORTS if imports is None else imports
    graph = {m: {t for t in targets if t in imports and t != m} for m, targets in imports.items()}
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
    assert "evaluation.leaderboard.columns" in IMPORTS["evaluation.dense.leaderboard_columns"]


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
        (
            "evaluation.dense.method.pipeline",
            "from evaluation.dense.engine import DenseEngine",
            "a pure part imports model calls",
        ),
        (
            "evaluation.dense.method.prompts",
            "from evaluation.backends.nli_llm_prompt import NLI_PROMPT",
            "a pure part imports model calls",
        ),
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


def test_the_methods_are_found_from_their_declarations():
    assert {"crux", "seper", "dense", "scaar", "reteval"} <= set(METHODS)
    assert {"agreement", "leaderboard", "answers", "judge_report"} <= set(FLOOR_3)
    assert not set(METHODS) & set(FLOOR_3)
    # A folder whose apps.py declares a method is installed (and an installed one declares).
    assert declared_methods(ROOT) == installed(MethodConfig)


def _synthetic_method(root: Path, files: dict[str, str]) -> dict[str, set[str]]:
    """A new method folder ``evaluation/newmethod`` under ``root`` (an apps.py declaring a
    ``MethodConfig``, and ``files``); returns its modules' imports."""
    folder = root / "evaluation" / "newmethod"
    (folder / "method").mkdir(parents=True)
    (folder / "apps.py").write_text(
        "from crux_app.method_config import MethodConfig\n\n\n"
        "class NewMethodConfig(MethodConfig):\n    name = 'evaluation.newmethod'\n"
    )
    imports = {}
    for relative, source in files.items():
        path = folder / relative
        path.write_text(source + "\n")
        name = "evaluation.newmethod." + relative.removesuffix(".py").replace("/", ".")
        imports[name] = imports_of(path, name)
    return imports


def test_a_new_method_folder_is_held_to_the_rules(tmp_path):
    imports = _synthetic_method(
        tmp_path,
        {
            "job.py": "from evaluation.crux.job import KIND",
            "method/score.py": "import django",
            "page.py": "from evaluation.leaderboard.columns import columns",
        },
    )
    methods = set(METHODS) | declared_methods(tmp_path)
    assert "newmethod" in methods
    found = violations(imports, methods)
    assert "evaluation.newmethod.job imports evaluation.crux.job (another method)" in found
    assert "evaluation.newmethod.method.score imports django (a pure part imports django)" in found
    # A method may import a cross-method app (floor 3): the page is no violation.
    assert not [line for line in found if line.startswith("evaluation.newmethod.page ")]
    # The same folder left undeclared would escape the method rule: discovery is what holds it.
    assert not [line for line in violations(imports, METHODS) if "another method" in line]


def test_a_folder_without_a_method_config_is_no_method(tmp_path):
    folder = tmp_path / "evaluation" / "helpers"
    folder.mkdir(parents=True)
    (folder / "apps.py").write_text(
        "from django.apps import AppConfig\n\n\nclass C(AppConfig):\n    pass\n"
    )
    assert declared_methods(tmp_path) == set()


def test_the_checker_finds_a_type_only_circle(monkeypatch):
    imports = dict(MODULE_LEVEL_IMPORTS)
    imports["crux_app.roles"] = imports["crux_app.roles"] | {"crux_app.models"}
    imports["crux_app.models"] = imports["crux_app.models"] | {"crux_app.roles"}
    assert any({"crux_app.roles", "crux_app.models"} <= set(c) for c in cycles(imports))


def test_module_level_imports_see_type_only_imports_and_skip_function_bodies(tmp_path):
    path = tmp_path / "x.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from crux_app.models import Topic\n"
        "def late():\n    from crux_app.roles import ANNOTATOR\n"
    )
    found = imports_of(path, "crux_app.x", module_level=True)
    assert "crux_app.models" in found
    assert "crux_app.roles" not in found


def test_no_import_circles_at_module_level():
    assert cycles(MODULE_LEVEL_IMPORTS) == []
