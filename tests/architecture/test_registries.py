"""One registry pattern: job kinds, page links, leaderboard columns and agreement sources are
filled from each method's declaration (its ``MethodConfig``); the shared code that reads them
names no method."""

import ast
import re
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import reverse

from crux_app.jobs.catalog import CATALOG, demo_kinds
from crux_app.method_config import MethodConfig, PluginConfig
from crux_app.page_links import _LINKS
from evaluation.agreement.sources import sources
from evaluation.leaderboard.columns import groups

ROOT = Path(__file__).resolve().parents[2]
# The installed methods, found by their config's type (a new method is checked from its first
# day), and answer generation, which starts jobs from its own pages as methods do.
METHOD_APPS = tuple(c.label for c in apps.get_app_configs() if isinstance(c, MethodConfig))
JOB_APPS = (*METHOD_APPS, "answers")
FLOOR_3 = tuple(
    c.label
    for c in apps.get_app_configs()
    if isinstance(c, PluginConfig)
    and not isinstance(c, MethodConfig)
    and c.name.startswith("evaluation.")
)
# The shared floors: the ground floor, the API, annotation and the cross-method apps.
SHARED_PACKAGES = ("crux_app", "api", "annotation", *(f"evaluation/{a}" for a in FLOOR_3))


def _app_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "evaluation" else None


def _url_owners() -> dict[str, str]:
    """Each URL name served by an app under ``evaluation`` -> that app's label."""
    from django.urls import get_resolver

    def walk(patterns):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                yield from walk(p.url_patterns)
            elif p.name:
                yield p.name, _app_of(p.callback.__module__)

    return {name: app for name, app in walk(get_resolver().url_patterns) if app}


# A job app's URL names (``crux-topic``, ``dense-collection``, ...): shared code names none.
METHOD_URLS = {name: app for name, app in _url_owners().items() if app in JOB_APPS}


def _shared_files() -> list[str]:
    """Every module and template of the shared floors and every root template (a method's own
    templates live in its folder: tests/architecture/test_app_files.py)."""
    files = [
        str(path.relative_to(ROOT))
        for package in SHARED_PACKAGES
        for suffix in ("*.py", "*.html")
        for path in sorted((ROOT / package).rglob(suffix))
        if "migrations" not in path.parts
    ]
    templates = sorted((ROOT / "templates").rglob("*.html"))
    return files + [str(p.relative_to(ROOT)) for p in templates]


SHARED = _shared_files()


def _named_urls(path: str) -> set[str]:
    """The method URL names a file names: a Python string that is one, or a template's
    ``{% url 'name' %}``."""
    text = (ROOT / path).read_text()
    if path.endswith(".html"):
        return set(re.findall(r"{%\s*url\s+['\"]([\w-]+)['\"]", text)) & set(METHOD_URLS)
    strings = {
        node.value
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    return strings & set(METHOD_URLS)


def test_every_method_is_an_app_that_declares_what_it_registers():
    assert {"crux", "seper", "dense", "scaar", "reteval"} <= set(METHOD_APPS)
    assert isinstance(apps.get_app_config("answers"), PluginConfig)
    assert "answers" not in METHOD_APPS
    for label in METHOD_APPS:
        config = apps.get_app_config(label)
        assert config.name == f"evaluation.{label}"
        assert type(config).declare is not PluginConfig.declare, label
        # No registration module beside the declaration.
        assert not (ROOT / "evaluation" / label / "registrations.py").exists(), label


def test_the_registries_hold_every_method():
    assert {"judge_answerability", "generate_answers", "seper", "dense", "scaar", "reteval"} <= set(
        CATALOG
    )
    # The quick demo jobs first, SCAAR after the LLM-retEval answers it needs, the slow LLM
    # judge last: no kind names what comes after it.
    assert [k.name for k in demo_kinds()] == [
        "judge_embedding",
        "seper",
        "dense",
        "reteval",
        "scaar",
        "judge_answerability",
    ]
    assert groups()[0].key == "crux"  # CRUX's own metrics are a registered group, first
    keys = {c.key for g in groups() for c in g.columns}
    assert {"coverage", "alpha_ndcg", "delta_seper", "dense_uncertain_share", "llm_reteval"} <= keys
    assert {"passage_rating", "report_coverage", "answer_equivalence", "failure_category"} <= {
        s.key for s in sources()
    }


def test_every_task_name_is_a_registered_celery_task():
    from crux_app.celery import app

    app.loader.import_default_modules()
    for kind in CATALOG.values():
        assert kind.task_name in app.tasks, kind.name


@pytest.mark.django_db
def test_every_page_link_resolves():
    for link in _LINKS.values():
        args = [1] if link.place == "collection" or link.collection_url else [1, 2]
        assert reverse(link.url_name, args=args)


@pytest.mark.django_db
def test_every_method_sums_itself_up_on_the_topic_page():
    from django.template.loader import get_template

    from crux_app.jobs.catalog import CATALOG
    from crux_app.topic_summaries import registered_summaries

    entries = {e.key: e for e in registered_summaries()}
    assert {"crux", "seper", "dense", "scaar", "reteval"} <= set(entries)
    for entry in entries.values():
        assert entry.job_kind in CATALOG, entry.key
        assert entry.template.startswith(f"evaluation/{entry.key}/"), entry.key
        get_template(entry.template)
        assert reverse(entry.start_url_name, args=[1])
        assert reverse(entry.page_url_name, args=[1, 2] if entry.page_takes_topic else [1])


def test_shared_files_and_method_urls_are_found_from_the_installed_apps():
    assert {"crux-topic", "dense-collection", "nuggets-collection"} <= set(METHOD_URLS)
    assert {"agreement", "leaderboard", "judge_report"} <= set(FLOOR_3)
    assert "evaluation/agreement/views.py" in SHARED and "crux_app/page_links.py" in SHARED
    assert "templates/base.html" in SHARED
    assert "evaluation/leaderboard/templates/evaluation/leaderboard/leaderboard.html" in SHARED
    assert not [f for f in SHARED if f.startswith("evaluation/crux/")]


def test_shared_code_names_no_method():
    found = {}
    for path in SHARED:
        named = {n for n in _named_urls(path) if METHOD_URLS[n] != _app_of(path.replace("/", "."))}
        if named:
            found[path] = sorted(named)
    assert found == {}


def test_the_checker_finds_a_hard_coded_method_url(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "x.py").write_text('reverse("crux-topic", args=[1, 2])\n')
    (tmp_path / "x.html").write_text("<a href=\"{% url 'dense-collection' 1 %}\">x</a>\n")
    assert _named_urls("x.py") == {"crux-topic"}
    assert _named_urls("x.html") == {"dense-collection"}


@pytest.mark.parametrize("path", ["evaluation/agreement/sources.py", "crux_app/jobs/catalog.py"])
def test_registries_register_nothing_at_import(path):
    tree = ast.parse((ROOT / path).read_text())
    calls = [n for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    assert calls == []


def test_method_urls_follow_one_scheme():
    from django.urls import get_resolver

    def walk(patterns, prefix=""):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif p.name:
                yield p.name, prefix + str(p.pattern)

    names = dict(walk(get_resolver().url_patterns))
    assert "crux-topic" in names and "dense-collection" in names
    for label in JOB_APPS:
        for name, route in names.items():
            if not name.startswith(f"{label}-"):
                continue
            if "-topic" in name:
                assert route.startswith(f"collections/<int:collection_pk>/topics/<int:pk>/{label}/")
            else:
                assert re.match(rf"collections/<int:(collection_)?pk>/{label}/", route), name


def test_job_kinds_declare_their_queue_instead_of_a_task_name_prefix():
    from crux_app.jobs.status import task_queue

    for kind in CATALOG.values():
        assert kind.queue in ("gpu", "cpu"), kind.name
        assert task_queue(kind.task_name) == kind.queue, kind.name
    assert CATALOG["judge_embedding"].queue == "cpu"
    assert CATALOG["judge_answerability"].queue == "gpu"
    # A task that is no job kind's goes to the default queue.
    assert task_queue("crux_app.tasks.no_such_task") == "cpu"


def test_every_declared_need_names_a_registered_kind():
    for kind in CATALOG.values():
        assert set(kind.needs) <= set(CATALOG), kind.name


def test_a_key_declared_twice_fails_at_start_naming_both_apps():
    from crux_app.registry import DuplicateEntry, Registry

    registry = Registry("thing", key=lambda e: e)
    registry.register("x", owner="app 'first'")
    with pytest.raises(DuplicateEntry, match="thing 'x' is declared twice: by app 'first' and by"):
        registry.register("x", owner="app 'second'")
    # A second app declaring an installed method's job kind fails when its ready() runs.
    dense = apps.get_app_config("dense")
    copy = type(dense)("evaluation.dense", dense.module)
    copy.label = "dense_copy"
    with pytest.raises(DuplicateEntry, match="'dense' is declared twice: by app 'dense' and by"):
        copy.ready()
    assert CATALOG.owner("dense") == "app 'dense'"
