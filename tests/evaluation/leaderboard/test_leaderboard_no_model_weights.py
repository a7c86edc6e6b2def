"""The leaderboard counts passage tokens for density in the web process with the generator's
tokenizer alone: rendering it never builds a model (web processes never load model weights)."""

import pytest
from django.urls import reverse
from transformers import PreTrainedModel

from crux_app.models import Passage
from evaluation.backends import registry
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = [pytest.mark.django_db, pytest.mark.models]


@pytest.fixture
def default_tokenizer(settings, model_cache_dir):
    """The configured defaults: no TOKENIZER_MODEL, the embedded generator, no model server."""
    settings.TOKENIZER_MODEL = settings.GENERATOR_MODEL = settings.GENERATOR_API_BASE = ""
    settings.MODEL_CACHE_DIR = model_cache_dir
    registry.clear()
    yield
    registry.clear()


@pytest.fixture
def model_weights_refused(monkeypatch):
    """Building any transformers model raises: the fault "a web request loaded weights" cannot
    be observed otherwise (every Auto* class ends in PreTrainedModel.from_pretrained)."""

    def refuse(cls, *args, **kwargs):
        raise AssertionError(f"{cls.__name__}.from_pretrained: a page loaded model weights")

    monkeypatch.setattr(PreTrainedModel, "from_pretrained", classmethod(refuse))


def test_the_leaderboard_counts_tokens_with_a_tokenizer_and_builds_no_model(
    embedded_generator, default_tokenizer, model_weights_refused, researcher_client
):
    hand = make_hand_collection()
    response = researcher_client.get(reverse("leaderboard", args=[hand.collection.pk]))
    assert response.status_code == 200
    assert not [key for key in registry._instances if key[0] == "generator"]
    passages = Passage.objects.filter(collection=hand.collection, has_text=True)
    counted = dict(passages.values_list("text", "token_count"))
    assert counted and set(passages.values_list("token_count_tokenizer", flat=True)) == {
        EMBEDDED_GENERATOR_ID
    }
    # The same counts the generator itself gives (both are stored under its name).
    texts = list(counted)
    assert [counted[t] for t in texts] == embedded_generator.count_tokens(texts)


def test_a_process_that_holds_the_generator_counts_with_it(
    embedded_generator, default_tokenizer, monkeypatch
):
    monkeypatch.setitem(registry._instances, ("generator", ""), embedded_generator)
    assert registry.get_token_counter() is embedded_generator
