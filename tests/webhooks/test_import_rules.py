"""webhooks is on floor 1 beside crux_app (ARCHITECTURE.md): it imports crux_app, never
annotation or evaluation (annotation calls into it for campaign events)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("annotation", "evaluation")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
    return names


def test_webhooks_imports_no_higher_floor():
    files = sorted((ROOT / "webhooks").rglob("*.py"))
    assert len(files) > 5
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in _imported(path)
        if name.split(".")[0] in FORBIDDEN
    }
    assert found == set()
