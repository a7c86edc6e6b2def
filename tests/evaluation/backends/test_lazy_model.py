"""LazyModel: nothing is loaded until first use, once, and only the recorded model is kept."""

from dataclasses import dataclass

import pytest

from evaluation.backends.lazy_model import LazyModel


@dataclass
class Model:
    model_id: str


def test_loads_on_first_use_only_once():
    calls = []

    def load() -> Model:
        calls.append(1)
        return Model("org/gen")

    lazy = LazyModel("generator", "org/gen", load)
    assert not lazy.loaded and calls == []
    first = lazy.get()
    assert lazy.get() is first and lazy.loaded and calls == [1]


def test_a_different_model_is_refused_naming_both():
    lazy = LazyModel("NLI model", "org/nli", lambda: Model("org/other"))
    message = "loaded NLI model 'org/other' is not the job's NLI model 'org/nli'"
    with pytest.raises(ValueError, match=message):
        lazy.get()
    assert not lazy.loaded
