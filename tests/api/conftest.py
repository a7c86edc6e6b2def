"""API fixtures: a researcher's token and a client sending it; an annotator's browser session
(annotators hold no tokens)."""

import pytest
from crux_client import Client as ApiClient
from django.test import Client

from api.tokens import issue_token


class TokenClient(Client):
    """A test client whose every request carries ``Authorization: Bearer <token>``."""

    def __init__(self, token: str, **kwargs) -> None:
        super().__init__(HTTP_AUTHORIZATION=f"Bearer {token}", **kwargs)
        self.token = token


@pytest.fixture
def researcher_token(researcher) -> str:
    return issue_token(researcher, "tests")[1]


@pytest.fixture
def api(researcher_token) -> TokenClient:
    return TokenClient(researcher_token)


@pytest.fixture
def annotator_api(annotator) -> Client:
    """The annotator through the API with a browser session: API tokens are for researchers
    and reviewers only."""
    client = Client()
    client.force_login(annotator)
    return client


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


@pytest.fixture
def client_api(live_server, researcher, settings):
    """The Python client (client/) against a live server as the researcher; tasks run in the
    server's process (eager), as a worker would run them. Tests using it are transactional."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with ApiClient(live_server.url, issue_token(researcher, "live")[1]) as api:
        yield api
