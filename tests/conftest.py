"""Shared fixtures: accounts with roles, paths to the shared CRUX samples."""

import os
from pathlib import Path

import pytest

from crux_app.roles import ANNOTATOR, RESEARCHER, add_role
from tests.model_fixtures import (  # noqa: F401  (session-scoped model fixtures)
    embedded_generator,
    embedder,
    llm_nli,
    model_cache_dir,
    tiny_nli_factory,
)

SAMPLES = (
    Path(os.environ.get("CRUX_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
    / "samples"
    / "crux_labeling"
)


@pytest.fixture
def crux_sample_dir() -> Path:
    assert SAMPLES.is_dir(), f"shared CRUX sample folder missing at {SAMPLES}"
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
