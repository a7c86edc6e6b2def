"""A model server URL with a user and password (``http://user:pass@host/v1``): the client still
gets the URL, but every message naming the server masks them."""

from __future__ import annotations

import pytest

from evaluation.backends.base import GenerationParams
from evaluation.backends.model.server import ModelServerError, ServerConfig, judge_server
from evaluation.backends.openai_generator import OpenAIGenerator
from tests.model_server import free_port

SECRET = "pw-never-shown-77"


def test_the_servers_description_masks_the_urls_credentials():
    config = ServerConfig(base_url=f"http://judge:{SECRET}@gpu-host:8000/v1", model="llama")
    assert config.where == "model server http://***@gpu-host:8000/v1 (model 'llama')"
    assert config.base_url.startswith(f"http://judge:{SECRET}@")  # what the client connects to


def test_an_unreachable_server_is_named_without_its_password():
    url = f"http://judge:{SECRET}@127.0.0.1:{free_port()}/v1"
    generator = OpenAIGenerator(ServerConfig(base_url=url, model="m", max_retries=0, timeout_s=2))
    with pytest.raises(ModelServerError) as error:
        generator.generate(["Hi"], GenerationParams(max_new_tokens=1))
    message = str(error.value)
    assert "http://***@127.0.0.1:" in message and "is unreachable" in message
    assert SECRET not in message and "judge:" not in message


def test_a_bad_api_base_setting_is_named_without_its_password(settings):
    settings.JUDGE_API_BASE = f"ftp://judge:{SECRET}@gpu-host/v1"
    settings.JUDGE_MODEL = "m"
    with pytest.raises(ModelServerError) as error:
        judge_server()
    assert "ftp://***@gpu-host/v1" in str(error.value) and SECRET not in str(error.value)
