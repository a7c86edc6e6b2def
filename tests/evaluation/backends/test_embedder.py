"""The embedded all-MiniLM-L6-v2 sentence embedder."""

import numpy as np
import pytest

pytestmark = pytest.mark.models


def test_embeddings_are_unit_float32_rows(embedder):
    vectors = embedder.embed(["A man is eating food.", "A man eats a meal.", "Stocks fell."])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(embedder):
    anchor, paraphrase, unrelated = embedder.embed(
        ["The cat sleeps on the sofa.", "A cat is napping on the couch.", "Interest rates rose."]
    )
    assert anchor @ paraphrase > anchor @ unrelated + 0.3
