"""generate_checked / first_samples: a backend's misaligned answer stops the batch."""

import pytest

from evaluation.backends.base import Generation, GenerationParams
from evaluation.backends.checked_generation import first_samples, generate_checked


class Canned:
    """A generator returning fixed result lists, whatever it is asked."""

    model_id = "test/canned"

    def __init__(self, results: list[list[str]]) -> None:
        self.results = results

    def generate(self, prompts, params):
        return [[Generation(text) for text in row] for row in self.results]


def test_one_result_per_prompt_with_the_asked_number_of_samples():
    two = GenerationParams(num_samples=2)
    results = generate_checked(Canned([["a", "b"], ["c", "d"]]), ["p", "q"], two)
    assert [[g.text for g in row] for row in results] == [["a", "b"], ["c", "d"]]
    assert [
        g.text for g in first_samples(Canned([["x"], ["y"]]), ["p", "q"], GenerationParams())
    ] == [
        "x",
        "y",
    ]


def test_missing_results_or_samples_name_the_model_and_the_counts():
    with pytest.raises(ValueError, match="judge 'test/canned' returned 1 results for 2 prompts"):
        first_samples(Canned([["x"]]), ["p", "q"], GenerationParams(), role="judge")
    with pytest.raises(ValueError, match="returned 0 samples for prompt 1, expected 1"):
        first_samples(Canned([["x"], []]), ["p", "q"], GenerationParams())
    with pytest.raises(ValueError, match="returned 1 samples for prompt 0, expected 3"):
        generate_checked(Canned([["x"]]), ["p"], GenerationParams(num_samples=3))
