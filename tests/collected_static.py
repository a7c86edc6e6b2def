"""Static files collected the way setup.sh collects them, once per test session, and the
settings that make pages and WhiteNoise use them (the other tests name source files: see
tests/conftest.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test.utils import override_settings

COLLECTED_STORAGE = {"BACKEND": "crux_app.static_files.CollectedStaticFilesStorage"}


def collected_settings(root: Path, storages: dict) -> dict:
    """Settings under which pages name the collected, hashed files served from ``root``."""
    return {"STATIC_ROOT": root, "STORAGES": {**storages, "staticfiles": COLLECTED_STORAGE}}


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory) -> Iterator[Path]:
    """A STATIC_ROOT filled by ``collectstatic`` with the production storage (about 5 s)."""
    from django.conf import settings

    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(**collected_settings(root, settings.STORAGES)):
        call_command("collectstatic", "--noinput", verbosity=0)
    assert (root / "staticfiles.json").is_file()
    yield root


@pytest.fixture
def serve_collected_static(collected_static: Path, settings) -> Path:
    """Pages name, and WhiteNoise serves, the collected files for this test."""
    for name, value in collected_settings(collected_static, settings.STORAGES).items():
        setattr(settings, name, value)
    return collected_static
