"""Algorithm 2 on constructed embeddings and token counts."""

import numpy as np
import pytest

from evaluation.dense.method.chunking import semantic_chunks, semantic_groups, split_sentences

# Unit vectors: s0 ~ s1 (cos 0.8), s1 vs s2 orthogonal, s2 == s3.
E = np.array([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])


def test_merges_consecutive_similar_sentences():
    assert semantic_groups(E, [5, 5, 5, 5], tau=0.6, max_tokens=100) == [[0, 1], [2, 3]]


def test_threshold_is_inclusive_and_compares_neighbours_only():
    assert semantic_groups(E, [1, 1, 1, 1], tau=0.8, max_tokens=100) == [[0, 1], [2, 3]]
    assert semantic_groups(E, [1, 1, 1, 1], tau=0.81, max_tokens=100) == [[0], [1], [2, 3]]


def test_token_limit_opens_a_new_chunk():
    # s0 + s1 = 10 tokens fits 10; s2 + s3 = 12 does not.
    assert semantic_groups(E, [4, 6, 6, 6], tau=0.6, max_tokens=10) == [[0, 1], [2], [3]]


def test_single_and_empty_documents():
    assert semantic_groups(E[:1], [3]) == [[0]]
    assert semantic_groups(np.zeros((0, 3)), []) == []


def test_chunk_texts_and_sentence_split():
    text = 'Mercury is closest. It is small! Is Neptune far? "Yes." Far away\nNew line'
    assert split_sentences(text) == [
        "Mercury is closest.",
        "It is small!",
        "Is Neptune far?",
        '"Yes."',
        "Far away",
        "New line",
    ]
    sentences = ["A one.", "A two.", "B three.", "B four."]
    assert semantic_chunks(sentences, E, [1, 1, 1, 1]) == ["A one. A two.", "B three. B four."]


def test_mismatched_inputs_are_refused():
    with pytest.raises(ValueError, match="embeddings for 3 sentences"):
        semantic_groups(E, [1, 1, 1])
    with pytest.raises(ValueError, match="2 token counts for 4 sentences"):
        semantic_chunks(["a", "b", "c", "d"], E, [1, 1])
