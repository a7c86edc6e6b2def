"""Code and tests name no path outside the repository: a user's clone has nothing beside it.

Two ways a path escapes: a folder derived from ``__file__`` (``parents[N]``, ``.parent``
chains, nested ``os.path.dirname``) that climbs above the repository root, and a literal
string naming a place outside it (an absolute path into another checkout, or ``../``
leading out of the tree)."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {".venv", ".git", "var", "node_modules", "__pycache__", "staticfiles"}
# Literal strings that name a place beside the checkout (the old shared-samples folder, a
# workspace's absolute paths) or climb out of the tree from wherever they are read.
OUTSIDE = re.compile(
    r"(^|[\s\"'=(])(\.\./)+(shared|samples|seeds)\b|/work/|\bshared/(samples|seeds)\b"
)


def _files(*suffixes: str) -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if path.is_file() and path.suffix in suffixes and not parts & SKIPPED_DIRS:
            found.append(path)
    return sorted(found)


def _is_file_path(node: ast.AST) -> bool:
    """``__file__``, ``Path(__file__)`` or ``Path(__file__).resolve()``."""
    if isinstance(node, ast.Name):
        return node.id == "__file__"
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in {"resolve", "absolute"}:
            return _is_file_path(node.func.value)
        if isinstance(node.func, ast.Name) and node.func.id == "Path" and node.args:
            return _is_file_path(node.args[0])
    return False


def _levels_up(node: ast.AST) -> int | None:
    """How many folders above the file's own folder an expression built on ``__file__`` names
    (0 = the file's folder), or None when it is not such an expression."""
    if _is_file_path(node):
        return -1  # the file itself; its first .parent is its folder
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _levels_up(node.value)
        return None if inner is None else inner + 1
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "parents"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, int)
    ):
        inner = _levels_up(node.value.value)
        return None if inner is None else inner + 1 + node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "dirname"
        and node.args
    ):
        inner = _levels_up(node.args[0])
        return None if inner is None else inner + 1
    return None


def escaping_file_paths(path: Path, root: Path = ROOT) -> list[str]:
    """``file:line`` of every folder derived from ``__file__`` that lies above the root."""
    depth = len(path.relative_to(root).parent.parts)  # folders between the root and the file
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        levels = _levels_up(node)
        if levels is not None and levels > depth:
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_folder_derived_from_file_climbs_above_the_repository():
    found = [hit for path in _files(".py") for hit in escaping_file_paths(path)]
    assert found == [], "paths outside the repository: " + ", ".join(found)


def test_no_literal_names_a_place_outside_the_repository():
    found = []
    for path in _files(".py", ".sh", ".toml", ".cfg", ".ini", ".yml", ".yaml", ".html", ".js"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line) and path != Path(__file__):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("source", "location", "escapes"),
    [
        ("X = Path(__file__).resolve().parents[2] / 'shared'", "tests/conftest.py", True),
        ("X = Path(__file__).resolve().parents[1] / 'fixtures'", "tests/conftest.py", False),
        ("X = Path(__file__).parent.parent.parent.parent", "tests/a/b.py", True),
        ("X = Path(__file__).parent.parent.parent", "tests/a/b.py", False),
        ("X = Path(__file__).parent.parent", "tests/a/b.py", False),
        ("X = os.path.dirname(os.path.dirname(__file__))", "manage.py", True),
        ("X = os.path.dirname(__file__)", "manage.py", False),
    ],
)
def test_the_check_sees_a_climb_above_the_root(tmp_path, source, location, escapes):
    target = tmp_path / location
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source + "\n")
    assert bool(escaping_file_paths(target, root=tmp_path)) is escapes


@pytest.mark.parametrize(
    ("line", "outside"),
    [
        ('SAMPLES = ROOT / "../shared/samples"', True),
        ("cat /work/shared/PRODUCT.md", True),
        ('p = parent / "shared" / "samples"', False),
        ('DATA = HERE / "data" / "crux_labeling"', False),
    ],
)
def test_the_check_sees_a_literal_outside_path(line, outside):
    assert bool(OUTSIDE.search(line)) is outside
