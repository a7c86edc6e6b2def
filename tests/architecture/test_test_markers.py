"""Every test that drives Chromium or starts a real celery worker carries its marker, wherever
it lives, and no other test carries one: ``-m browser``, ``-m worker`` and
``-m "not browser and not worker"`` then select exactly those tests.

Read from the source (ast), as pytest finds fixtures: a test uses the browser when the fixtures
it requests (its arguments, ``usefixtures`` and the autouse fixtures it sees), and the fixtures
those request, reach ``browser`` of tests/browser_fixtures.py; a worker when they reach
``start_worker`` of tests/worker_fixtures.py. A fixture is looked up in the test's module, then
the conftest.py files from its folder up to tests/, then the root conftest's plugins."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# marker -> (the module defining the fixture it marks, that fixture)
MARKED_FIXTURES = {
    "browser": (TESTS / "browser_fixtures.py", "browser"),
    "worker": (TESTS / "worker_fixtures.py", "start_worker"),
}


@dataclass
class Fixture:
    module: Path
    name: str
    requests: set[str]
    autouse: bool


@dataclass
class FoundTest:
    module: Path
    name: str
    line: int
    requests: set[str]
    marks: set[str]


@dataclass
class Module:
    path: Path
    fixtures: dict[str, Fixture] = field(default_factory=dict)
    tests: list[FoundTest] = field(default_factory=list)
    imports: list[tuple[Path, str]] = field(default_factory=list)  # (source module, name)
    plugins: list[Path] = field(default_factory=list)  # pytest_plugins


def _module_path(dotted: str) -> Path:
    return TESTS.parent.joinpath(*dotted.split(".")).with_suffix(".py")


def _mark_names(node: ast.AST) -> set[str]:
    """The name of every ``pytest.mark.<name>`` in an expression."""
    return {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute)
        and isinstance(sub.value, ast.Attribute)
        and sub.value.attr == "mark"
    }


def _strings(node: ast.AST) -> list[str]:
    return [
        s.value for s in ast.walk(node) if isinstance(s, ast.Constant) and isinstance(s.value, str)
    ]


def _marks_and_requests(expressions: list[ast.expr]) -> tuple[set[str], set[str], set[str]]:
    """Marker names, ``usefixtures`` names and ``parametrize`` argument names of decorators or
    a ``pytestmark`` value."""
    marks, used, parametrized = set(), set(), set()
    for expression in expressions:
        marks |= _mark_names(expression)
        for call in ast.walk(expression):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            if call.func.attr == "usefixtures":
                used |= {name for arg in call.args for name in _strings(arg)}
            elif call.func.attr == "parametrize" and call.args:
                names = _strings(call.args[0])
                parametrized |= {n.strip() for joined in names for n in joined.split(",")}
    return marks, used, parametrized


def _fixture_decorator(function: ast.FunctionDef) -> ast.expr | None:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "fixture":
            return decorator
    return None


def _arguments(function: ast.FunctionDef) -> set[str]:
    args = function.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return names - {"self", "cls"}


def _keyword(decorator: ast.expr, name: str) -> ast.expr | None:
    if isinstance(decorator, ast.Call):
        return next((k.value for k in decorator.keywords if k.arg == name), None)
    return None


def _read_functions(module: Module, body: list[ast.stmt], outer: list[ast.expr]) -> None:
    """Fixtures and tests of a module or class body; ``outer`` are the enclosing marks."""
    pytestmark = [
        statement.value
        for statement in body
        if isinstance(statement, ast.Assign)
        and any(getattr(t, "id", None) == "pytestmark" for t in statement.targets)
    ]
    for statement in body:
        if isinstance(statement, ast.ClassDef) and statement.name.startswith("Test"):
            _read_functions(
                module, statement.body, [*outer, *pytestmark, *statement.decorator_list]
            )
        if not isinstance(statement, ast.FunctionDef):
            continue
        decorator = _fixture_decorator(statement)
        if decorator is not None:
            renamed = _keyword(decorator, "name")
            name = renamed.value if isinstance(renamed, ast.Constant) else statement.name
            autouse = _keyword(decorator, "autouse")
            module.fixtures[name] = Fixture(
                module.path,
                name,
                _arguments(statement),
                isinstance(autouse, ast.Constant) and autouse.value is True,
            )
        elif statement.name.startswith("test"):
            marks, used, parametrized = _marks_and_requests(
                [*outer, *pytestmark, *statement.decorator_list]
            )
            requests = (_arguments(statement) - parametrized) | used
            module.tests.append(
                FoundTest(module.path, statement.name, statement.lineno, requests, marks)
            )


def read_module(path: Path) -> Module:
    module = Module(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module:
            base = statement.module
            if statement.level:
                package = ".".join(path.relative_to(TESTS.parent).parent.parts)
                for _ in range(statement.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{statement.module}"
            for alias in statement.names:
                module.imports.append((_module_path(base), alias.name))
        if isinstance(statement, ast.Assign) and any(
            getattr(t, "id", None) == "pytest_plugins" for t in statement.targets
        ):
            module.plugins = [_module_path(name) for name in _strings(statement.value)]
    _read_functions(module, tree.body, [])
    return module


class FixtureIndex:
    """Every module of tests/, and the fixtures each test reaches."""

    def __init__(self, root: Path = TESTS) -> None:
        self.root = root
        paths = [p for p in root.rglob("*.py") if "__pycache__" not in p.parts]
        self.modules = {path: read_module(path) for path in paths}
        for module in self.modules.values():  # imported fixtures are the module's own
            for source, name in module.imports:
                fixture = self.modules.get(source, Module(source)).fixtures.get(name)
                if fixture is not None:
                    module.fixtures.setdefault(name, fixture)
        root_conftest = self.modules.get(root / "conftest.py", Module(root / "conftest.py"))
        self.plugins = [self.modules[p] for p in root_conftest.plugins if p in self.modules]

    def scope(self, path: Path) -> list[Module]:
        """Where pytest looks for a fixture requested by a test of this module, in order."""
        chain = [self.modules[path]]
        folder = path.parent
        while folder == self.root or self.root in folder.parents:
            if (conftest := self.modules.get(folder / "conftest.py")) is not None:
                chain.append(conftest)
            folder = folder.parent
        return [*chain, *self.plugins]

    def reached(self, test: FoundTest) -> set[tuple[Path, str]]:
        """(module, name) of every fixture the test sets up, directly or through others."""
        chain = self.scope(test.module)
        autouse = {name for module in chain for name, f in module.fixtures.items() if f.autouse}
        seen: set[tuple[Path, str]] = set()
        pending = [(name, 0) for name in test.requests | autouse]
        while pending:
            name, start = pending.pop()
            for index in range(start, len(chain)):
                fixture = chain[index].fixtures.get(name)
                if fixture is None:
                    continue
                if (fixture.module, name) not in seen:
                    seen.add((fixture.module, name))
                    for request in fixture.requests:
                        # A fixture requesting its own name gets the one it overrides.
                        pending.append((request, index + 1 if request == name else 0))
                break
        return seen

    def tests(self) -> list[FoundTest]:
        return [
            test
            for path, module in sorted(self.modules.items())
            if path.name.startswith("test_") or path.stem.endswith("_test")
            for test in module.tests
        ]


def marker_mismatches(index: FixtureIndex) -> tuple[list[str], dict[str, int]]:
    """Tests whose marker and fixtures disagree, and how many tests use each marked fixture."""
    problems, users = [], dict.fromkeys(MARKED_FIXTURES, 0)
    for test in index.tests():
        reached = index.reached(test)
        where = f"{test.module.relative_to(index.root.parent)}:{test.line} {test.name}"
        for marker, (module, fixture) in MARKED_FIXTURES.items():
            uses = (module, fixture) in reached
            users[marker] += uses
            if uses and marker not in test.marks:
                problems.append(f"{where} uses {fixture} without pytest.mark.{marker}")
            if marker in test.marks and not uses:
                problems.append(f"{where} is marked {marker} but never sets up {fixture}")
    return problems, users


def test_browser_and_worker_tests_carry_their_markers_and_no_other_test_does():
    problems, users = marker_mismatches(FixtureIndex())
    assert problems == []
    assert users["browser"] > 0 and users["worker"] > 0  # the fixtures were found at all


def test_the_markers_follow_fixtures_through_other_fixtures_and_conftests(tmp_path):
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["tests.browser_fixtures"]\n'
        "import pytest\n"
        "@pytest.fixture\n"
        "def signed_in(page):\n"
        "    return page\n"
    )
    (tmp_path / "test_pages.py").write_text(
        "import pytest\n"
        "pytestmark = [pytest.mark.browser]\n"
        "def test_through_a_conftest_fixture(signed_in):\n"
        "    pass\n"
        "@pytest.mark.parametrize('page', [1])\n"
        "def test_a_parameter_hides_the_fixture(page):\n"
        "    pass\n"
    )
    index = FixtureIndex(tmp_path)
    browser_fixtures = read_module(TESTS / "browser_fixtures.py")
    index.modules[browser_fixtures.path] = browser_fixtures
    index.plugins = [browser_fixtures]

    problems, users = marker_mismatches(index)

    assert users == {"browser": 1, "worker": 0}
    assert [p.split(" ", 1)[1] for p in problems] == [
        "test_a_parameter_hides_the_fixture is marked browser but never sets up browser"
    ]
