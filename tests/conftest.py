"""Shared fixtures: accounts with roles, the CRUX labeling test data folder; the caller's
``CELERY_*`` environment variables are forgotten for the whole session."""

import os
import runpy
from pathlib import Path

import pytest
from django.conf import settings

from crux_app.roles import ANNOTATOR, RESEARCHER, add_role
from tests.collected_static import (  # noqa: F401  (collectstatic once per session)
    collected_static,
    serve_collected_static,
)
from tests.model_fixtures import (  # noqa: F401  (session-scoped model fixtures)
    embedded_generator,
    embedder,
    llm_nli,
    model_cache_dir,
    tiny_nli_factory,
)
from tests.model_server import (  # noqa: F401  (session-scoped model servers)
    logprob_served_model,
    served_model,
)

# The browser and real-worker fixtures, for tests in any folder (each such test carries the
# ``browser`` or ``worker`` marker: tests/architecture/test_test_markers.py).
pytest_plugins = ["tests.browser_fixtures", "tests.worker_fixtures"]

# Original text in the CRUX labeling platform's layout, with the real release's quirks; the
# repository holds it, so a fresh clone runs every test.
SAMPLES = Path(__file__).resolve().parent / "data" / "crux_labeling"


def pytest_configure(config: pytest.Config) -> None:
    forget_callers_celery_environment()
    name_static_files_by_their_source_names()


def name_static_files_by_their_source_names() -> None:
    """Pages name static files by their source names during tests, whatever collectstatic left
    in STATIC_ROOT: the live server serves static files through the finders, which know no
    hashed names, and a developer's stale collected copies must not change what a test loads.
    tests/crux_app/test_static_files.py switches the collected storage on for its own folder."""
    from django.test.utils import override_settings

    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    override_settings(STORAGES={**settings.STORAGES, "staticfiles": plain}).enable()


def forget_callers_celery_environment() -> None:
    """Remove every ``CELERY_*`` variable from this process's environment and give the Celery
    settings derived from them the values the settings give without them.

    A shell that exported ``CELERY_BROKER_URL`` (or ``CELERY_TASK_ALWAYS_EAGER``, or the demo's
    filesystem transport) would otherwise change where tests send tasks, whether they run them
    in-process, and what worker subprocesses inherit; Celery itself also prefers the broker and
    backend variables over the app's configuration. pytest-django has read the settings before
    any conftest is imported, so they are evaluated again here.
    """
    leaked = sorted(name for name in os.environ if name.startswith("CELERY_"))
    for name in leaked:
        del os.environ[name]
    if leaked:
        from crux_app.settings import jobs as job_settings  # the Celery settings' module

        clean = runpy.run_module(job_settings.__name__)
        for name, value in clean.items():
            if name.startswith("CELERY_"):
                setattr(settings, name, value)


@pytest.fixture
def crux_sample_dir() -> Path:
    return SAMPLES


@pytest.fixture
def researcher(django_user_model):
    user = django_user_model.objects.create_user("rita", password="research-pass-1")
    add_role(user, RESEARCHER)
    return user


@pytest.fixture
def annotator(django_user_model):
    user = django_user_model.objects.create_user("anna", password="annotate-pass-1")
    add_role(user, ANNOTATOR)
    return user


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client
