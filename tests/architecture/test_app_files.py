"""One method, one home, templates and static files included: a method's (and a cross-method
app's) pages and scripts live in its folder, as its code does, so adding a method touches no
root folder. The root ``templates/`` and ``static/`` keep what the shared floors or several apps
use. The apps are found from the installed apps and the declared methods (no hand list)."""

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.staticfiles import finders

from crux_app.method_config import MethodConfig, PluginConfig
from tests.architecture.test_import_rules import declared_methods
from tests.project_files import ROOT, files_in, static_folders, template_folders

# The apps under evaluation/ that declare what they plug in: the methods and floor 3.
EVALUATION_APPS = [
    c
    for c in apps.get_app_configs()
    if isinstance(c, PluginConfig) and c.name.startswith("evaluation.")
]
# A method folder not yet in INSTALLED_APPS is held to the same rule.
EVALUATION_LABELS = sorted({c.label for c in EVALUATION_APPS} | declared_methods(ROOT))
ROOT_TEMPLATES = [f for f in template_folders() if f.is_relative_to(ROOT / "templates")]
ROOT_STATIC = [f for f in static_folders() if f.is_relative_to(ROOT / "static")]
STATIC_TAG = re.compile(r"{%\s*static\s+['\"]([^'\"]+)['\"]")


def test_the_apps_and_root_folders_are_found():
    assert {"crux", "seper", "dense", "scaar", "reteval", "nuggets"} <= set(EVALUATION_LABELS)
    assert {"agreement", "leaderboard", "judge_report", "answers"} <= set(EVALUATION_LABELS)
    assert ROOT_TEMPLATES == [ROOT / "templates"] and ROOT_STATIC == [ROOT / "static"]


def test_no_root_template_folder_belongs_to_an_app():
    found = [
        str((folder / "evaluation" / label).relative_to(ROOT))
        for folder in ROOT_TEMPLATES
        for label in EVALUATION_LABELS
        if (folder / "evaluation" / label).exists()
    ]
    assert found == [], "templates that belong in evaluation/<app>/templates/: " + ", ".join(found)


def test_each_app_keeps_its_templates_under_its_own_name():
    """``evaluation/<app>/templates/evaluation/<app>/``: no app's template can shadow another's
    (the loader takes the first app that has a name)."""
    for config in EVALUATION_APPS:
        folder = Path(config.path) / "templates"
        names = [name for name, _ in files_in([folder])] if folder.is_dir() else []
        assert all(name.startswith(f"evaluation/{config.label}/") for name in names), names
        if isinstance(config, MethodConfig):
            assert names, f"{config.label} has no templates in its folder"


def _template_owners() -> dict[str, set[str]]:
    """Static name -> who names it with ``{% static %}``: an evaluation app's label for a
    template in its folder, ``shared`` for a root template or another app's."""
    folders = {Path(c.path).resolve() / "templates": c.label for c in EVALUATION_APPS}
    owners: dict[str, set[str]] = {}
    for folder in template_folders():
        owner = folders.get(folder, "shared")
        for _, path in files_in([folder], "*.html"):
            for name in STATIC_TAG.findall(path.read_text(encoding="utf-8")):
                owners.setdefault(name, set()).add(owner)
    return owners


def misplaced_static(root_names: list[str], owners: dict[str, set[str]]) -> dict[str, str]:
    """Root static files that the templates of one evaluation app alone use -> that app."""
    found = {}
    for name in root_names:
        users = owners.get(name, set())
        if len(users) == 1 and users != {"shared"}:
            found[name] = next(iter(users))
    return found


def test_no_root_static_file_serves_one_app_alone():
    owners = _template_owners()
    assert owners["js/matrix.js"] == {"crux"}  # the scan reads the apps' templates
    root_names = [name for name, _ in files_in(ROOT_STATIC)]
    assert "js/plots.js" in root_names  # shared by agreement, the judge report and a partial
    assert misplaced_static(root_names, owners) == {}


@pytest.mark.parametrize(
    ("users", "misplaced"),
    [({"crux"}, True), ({"shared"}, False), ({"crux", "shared"}, False), (set(), False)],
)
def test_the_check_sees_a_root_file_of_one_app(users, misplaced):
    assert bool(misplaced_static(["js/x.js"], {"js/x.js": users})) is misplaced


def test_every_static_file_is_found_where_it_lives():
    """An app's files keep their URL (``js/matrix.js`` is ``/static/js/matrix.js`` from
    ``evaluation/crux/static/``); the finders, which collectstatic uses too, serve each name
    from its one file, so no two folders may hold the same name."""
    files = files_in(static_folders())
    assert any(path.is_relative_to(ROOT / "evaluation" / "crux") for _, path in files)
    names = [name for name, _ in files]
    assert sorted({n for n in names if names.count(n) > 1}) == []
    for name, path in files:
        assert Path(finders.find(name)).resolve() == path, name
