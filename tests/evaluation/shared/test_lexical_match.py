"""Lexical answer matching: SQuAD-style normalisation, exact match and whole-word containment."""

import pytest

from evaluation.shared.lexical_match import exact_match, lexical_match, normalize_answer


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Pacific Ocean.", "pacific ocean"),
        ("  An  apple, a DAY! ", "apple day"),
        ("Jane   Austen's", "jane austens"),
        ("“Théâtre” — l'Odéon", "théâtre lodéon"),  # Unicode punctuation goes too
        ("theatre", "theatre"),  # only whole-word articles are dropped
        ("", ""),
    ],
)
def test_normalize_answer(text, normalized):
    assert normalize_answer(text) == normalized


def test_exact_match_compares_normalised_strings_against_any_gold():
    assert exact_match("The yen", ["Japanese yen", "yen"])
    assert exact_match("PARIS!", ["Paris"])
    assert not exact_match("The capital is Paris", ["Paris"])
    assert not exact_match("", ["Paris"])


def test_lexical_match_finds_a_gold_inside_the_answer_as_whole_words():
    assert lexical_match("The capital of France is Paris.", ["Paris"])
    assert lexical_match("Spiders have eight legs", ["8", "eight"])
    assert lexical_match("it was Leonardo da Vinci", ["Leonardo da Vinci"])
    assert not lexical_match("da Vinci", ["Leonardo da Vinci"])  # the gold is not inside
    assert not lexical_match("concatenate", ["cat"])  # not a whole word
    assert not lexical_match("anything at all", ["The"])  # an empty gold matches nothing
    assert not lexical_match("", ["Paris"])
