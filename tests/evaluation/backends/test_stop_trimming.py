"""Cutting generated tokens at EOS and stop strings, on a toy vocabulary."""

from evaluation.backends.stop_trimming import trim_generation

VOCAB = {1: "Par", 2: "is", 3: ".", 4: "\n", 5: "Next", 6: ".\n", 0: "<eos>"}


def decode(ids):
    return "".join(VOCAB[i] for i in ids)


def test_no_stop_keeps_everything():
    out = trim_generation([1, 2, 3], decode, ("\n",), {0})
    assert (out.keep, out.text, out.stopped) == (3, "Paris.", False)


def test_eos_ends_the_generation():
    out = trim_generation([1, 2, 0, 5], decode, (), {0})
    assert (out.keep, out.text, out.stopped) == (2, "Paris", True)


def test_first_of_several_stop_strings_wins():
    out = trim_generation([1, 2, 3, 4, 5], decode, ("Next", "\n"), {0})
    assert (out.keep, out.text, out.stopped) == (3, "Paris.", True)


def test_stop_inside_a_token_drops_that_token_so_text_matches_tokens():
    out = trim_generation([1, 2, 6, 5], decode, ("\n",), {0})
    assert (out.keep, out.text, out.stopped) == (2, "Paris", True)


def test_stop_at_the_start_keeps_nothing():
    out = trim_generation([4, 1], decode, ("\n",), {0})
    assert (out.keep, out.text, out.stopped) == (0, "", True)
