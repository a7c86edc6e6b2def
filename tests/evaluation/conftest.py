"""Fixtures shared by the method and page tests."""

import pytest

from tests.evaluation.crux.degenerate_collection import FlatCollection, make_flat_collection


@pytest.fixture
def flat(settings) -> FlatCollection:
    """A collection whose flat-llm judge gives (nearly) one rating to 4-29 of 30 items while a
    person rated every item; token counts by whitespace so that no tokenizer loads."""
    settings.TOKENIZER_MODEL = "whitespace"
    return make_flat_collection()
