"""``api/`` is floor 1: it never imports ``evaluation`` (methods mount their endpoints through
``api.registry``), and the client package imports nothing of the server."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(str(path.relative_to(ROOT)), a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.append((str(path.relative_to(ROOT)), node.module))
    return found


def test_api_never_imports_evaluation():
    bad = [(f, m) for f, m in _imports(ROOT / "api") if m.split(".")[0] == "evaluation"]
    assert not bad


def test_client_imports_only_its_dependencies():
    allowed = {"httpx", "pandas", "tqdm", "crux_client", "__future__"}
    stdlib = {"os", "time", "io", "json", "collections", "typing", "urllib"}
    bad = [
        (f, m)
        for f, m in _imports(ROOT / "client" / "crux_client")
        if m.split(".")[0] not in allowed | stdlib
    ]
    assert not bad
