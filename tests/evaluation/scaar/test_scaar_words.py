"""SCAAR's sentences, words and token-to-word alignment (Appendix B) on hand-made tokens."""

import math

import pytest

from evaluation.scaar.method.words import (
    Span,
    align_words,
    split_sentences,
    split_words,
    token_spans,
    word_probability,
)


def texts(text, spans):
    return [s.of(text) for s in spans]


def test_sentences_end_at_terminal_punctuation_followed_by_space_or_a_line_break():
    text = ' Paris is big. Is it old? Yes!\nIt is (very) old." Next one'
    assert texts(text, split_sentences(text)) == [
        "Paris is big.", "Is it old?", "Yes!", 'It is (very) old."', "Next one",
    ]  # fmt: skip


def test_decimal_points_and_empty_text_do_not_split_sentences():
    assert texts("It costs 3.5 dollars.", split_sentences("It costs 3.5 dollars.")) == [
        "It costs 3.5 dollars."
    ]
    assert split_sentences("") == [] and split_sentences("  \n ") == []


def test_words_are_whitespace_pieces_with_punctuation_attached():
    text = "Scott Derrickson is an American film director."
    assert texts(text, split_words(text)) == [
        "Scott", "Derrickson", "is", "an", "American", "film", "director.",
    ]  # fmt: skip
    assert texts(text, split_words(text, Span(6, 19))) == ["Derrickson", "is"]


def test_multi_token_words_get_the_window_of_their_tokens():
    tokens = ["Scott", " Der", "rick", "son", " is", " an", " Amer", "ican", "."]
    words = split_words("".join(tokens))
    aligned = align_words(tokens, words)
    assert [(w.text, w.first_token, w.last_token) for w in aligned] == [
        ("Scott", 0, 0), ("Derrickson", 1, 3), ("is", 4, 4), ("an", 5, 5), ("American.", 6, 8),
    ]  # fmt: skip
    assert [w.n_tokens for w in aligned] == [1, 3, 1, 1, 3]


def test_whitespace_only_tokens_belong_to_no_word():
    tokens = ["Yes", ".", "\n\n", "No", " ", " way"]
    aligned = align_words(tokens, split_words("".join(tokens)))
    assert [(w.text, w.first_token, w.last_token) for w in aligned] == [
        ("Yes.", 0, 1), ("No", 3, 3), ("way", 5, 5),
    ]  # fmt: skip


def test_a_token_straddling_two_words_belongs_to_both():
    tokens = ["ab", "c d", "ef"]  # the middle token ends word 1 and starts word 2
    aligned = align_words(tokens, split_words("abc def"))
    assert [(w.text, w.first_token, w.last_token) for w in aligned] == [
        ("abc", 0, 1), ("def", 1, 2),
    ]  # fmt: skip


def test_empty_pieces_of_a_multibyte_character_join_the_token_that_completes_it():
    # The tokenizer split "ü" in two byte tokens: the first decodes to nothing on its own.
    tokens = ["Caf", "é", "", " ü", "ber"]
    aligned = align_words(tokens, split_words("".join(tokens)))
    assert [(w.text, w.first_token, w.last_token) for w in aligned] == [
        ("Café", 0, 1), ("über", 2, 4),
    ]  # fmt: skip


def test_word_probability_is_the_geometric_mean_of_its_token_probabilities():
    tokens = [" Der", "rick", "son"]
    word = align_words(tokens, split_words("".join(tokens)))[0]
    logprobs = [math.log(0.5), math.log(0.8), math.log(1.0)]
    assert word_probability(logprobs, word) == pytest.approx((0.5 * 0.8 * 1.0) ** (1 / 3))
    # The paper's Appendix D example: tokens 0.64 and 1.0 give 0.8 at word level.
    two = align_words(["ab", "c"], split_words("abc"))[0]
    assert word_probability([math.log(0.64), 0.0], two) == pytest.approx(0.8)


def test_misaligned_inputs_are_rejected_with_a_clear_message():
    with pytest.raises(ValueError, match="not inside the 3-character text"):
        align_words(["abc"], [Span(0, 5)])
    word = align_words(["ab", "c"], split_words("abc"))[0]
    with pytest.raises(ValueError, match="only 1 log-probs"):
        word_probability([0.0], word)


def test_token_spans_are_cumulative():
    assert token_spans(["a", "", "bc"]) == [Span(0, 1), Span(1, 1), Span(1, 3)]
