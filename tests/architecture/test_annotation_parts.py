"""The floors inside ``annotation``: its parts, declared once in ``annotation.PARTS`` (top first),
import only the parts after them, and no import circle joins two parts.

What lies in no part is the top (pages, routes, commands, ``apps.py``, the built-in task types'
declaration): it may import every part, and no part may import it. The migrations stand on the
floor of ``models``. Checked with ``ast`` over the tree, every import counted (in functions and
under ``TYPE_CHECKING`` too: a late import still runs up a floor).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

import annotation
from tests.architecture.test_import_rules import IMPORTS, ROOT, cycles, imports_of

PARTS: tuple[str, ...] = annotation.PARTS
TOP = "top"
# The folder whose modules stand on another part's floor.
FLOOR_OF = {"migrations": "models"}


def _migration_imports(root: Path = ROOT) -> dict[str, set[str]]:
    found = {}
    for path in sorted((root / "annotation" / "migrations").glob("*.py")):
        name = f"annotation.migrations.{path.stem}".removesuffix(".__init__")
        found[name] = imports_of(path, name)
    return found


ANNOTATION_IMPORTS = {
    **{m: t for m, t in IMPORTS.items() if m.startswith("annotation.")},
    **_migration_imports(),
}


def part_of(module: str, parts: tuple[str, ...] = PARTS, root: Path = ROOT) -> str | None:
    """The part of an ``annotation`` module, ``top`` for a module in no part; None for what is
    no module of ``annotation`` (another package, the package itself, a name it defines)."""
    pieces = module.split(".")
    if pieces[0] != "annotation" or len(pieces) < 2:
        return None
    name = FLOOR_OF.get(pieces[1], pieces[1])
    if name in parts:
        return name
    folder = root / "annotation"
    if (folder / name / "__init__.py").is_file() or (folder / f"{name}.py").is_file():
        return TOP
    return None


def floor(part: str, parts: tuple[str, ...] = PARTS) -> int:
    """Higher is lower down: the top is -1, the first part 0, the ground the last."""
    return -1 if part == TOP else parts.index(part)


def upward_imports(
    imports: Mapping[str, set[str]] | None = None,
    parts: tuple[str, ...] = PARTS,
    root: Path = ROOT,
) -> list[str]:
    """Every import of an ``annotation`` module that runs up a floor (``imports``: module ->
    what it imports; default the tree's)."""
    found = []
    for module, targets in (ANNOTATION_IMPORTS if imports is None else imports).items():
        own = part_of(module, parts, root)
        if own is None or own == TOP:
            continue
        for target in sorted(targets):
            other = part_of(target, parts, root)
            if other is not None and floor(other, parts) < floor(own, parts):
                found.append(f"{module} imports {target} (part {own} is below {other})")
    return found


def part_graph(
    imports: Mapping[str, set[str]] | None = None,
    parts: tuple[str, ...] = PARTS,
    root: Path = ROOT,
) -> dict[str, set[str]]:
    """Which parts (and the top) each part imports."""
    graph: dict[str, set[str]] = {part: set() for part in (TOP, *parts)}
    for module, targets in (ANNOTATION_IMPORTS if imports is None else imports).items():
        own = part_of(module, parts, root)
        if own is None:
            continue
        graph[own] |= {p for t in targets if (p := part_of(t, parts, root)) not in (None, own)}
    return graph


def test_every_part_is_declared_once_and_exists():
    assert len(set(PARTS)) == len(PARTS)
    assert PARTS[-1] == "task_types" and "models" in PARTS
    folder = ROOT / "annotation"
    for part in PARTS:
        package = folder / part / "__init__.py"
        assert package.is_file() or (folder / f"{part}.py").is_file(), part


@pytest.mark.parametrize("part", [p for p in PARTS if (ROOT / "annotation" / p).is_dir()])
def test_every_part_says_what_it_holds(part):
    source = (ROOT / "annotation" / part / "__init__.py").read_text()
    assert ast.get_docstring(ast.parse(source)), "a docstring saying what the part holds"


def test_the_checker_sees_the_parts():
    assert part_of("annotation.review.queue") == "review"
    assert part_of("annotation.migrations.0001_initial") == "models"
    assert part_of("annotation.views.workspace") == TOP
    assert part_of("annotation.PARTS") is None
    assert part_of("crux_app.models") is None
    assert "queue" in part_graph()["workspace"]


@pytest.mark.parametrize(
    ("module", "target", "expected"),
    [
        ("annotation.models.review", "annotation.review.queue", "part models is below review"),
        ("annotation.workspace.api", "annotation.views.workspace", "part workspace is below top"),
        (
            "annotation.migrations.0009_x",
            "annotation.labels.collection",
            "part models is below labels",
        ),
    ],
)
def test_the_checker_flags_an_import_up_a_floor(module, target, expected):
    imports = {**ANNOTATION_IMPORTS, module: {target}}
    assert any(expected in line for line in upward_imports(imports) if line.startswith(module))


def test_a_module_in_no_part_is_the_top(tmp_path):
    (tmp_path / "annotation" / "newpart").mkdir(parents=True)
    (tmp_path / "annotation" / "newpart" / "__init__.py").write_text('"""New."""\n')
    imports = {"annotation.queue.queue": {"annotation.newpart.x"}}
    assert upward_imports(imports, root=tmp_path) == [
        "annotation.queue.queue imports annotation.newpart.x (part queue is below top)"
    ]


def test_the_checker_finds_a_circle_between_parts():
    imports = {
        "annotation.crowd.control": {"annotation.quality.checks"},
        "annotation.quality.checks": {"annotation.crowd.control"},
    }
    assert ["crowd", "quality"] in cycles(part_graph(imports))


def test_no_part_imports_a_part_above_it():
    assert upward_imports() == []


def test_no_import_circle_joins_two_parts():
    assert cycles(part_graph()) == []
