"""What a nugget import refuses at FILE:LINE rather than later (issue 34, section 5): a number
of more digits than Python converts (it gave a raw Python message without a place), and a
nugget longer than the post-editing workspace takes (it imported, and its post-editing item
could never be submitted). Nothing of the file is stored."""

import json

import pytest
from django.core.management import CommandError, call_command

from evaluation.nuggets.models import Nugget
from evaluation.nuggets.post_edit_answers import MAX_NUGGETS, MAX_TEXT_CHARS
from tests.evaluation.nuggets.nugget_files import NUGGETS

pytestmark = pytest.mark.django_db


def _import(tmp_path, lines: list[str]) -> None:
    path = tmp_path / "n.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    call_command("import_nuggets", "--collection", "tides", str(path))


def test_a_5000_digit_number_names_its_line(tmp_path):
    line = json.dumps({**NUGGETS[1], "qid": "QID"}).replace('"QID"', "9" * 5000)
    with pytest.raises(CommandError) as caught:
        _import(tmp_path, [json.dumps(NUGGETS[0]), line])
    assert "n.jsonl:2: a JSON integer of 5,000 digits (at most 100)" in str(caught.value)
    assert not Nugget.objects.exists()


def test_a_nugget_longer_than_post_editing_takes_is_refused_at_its_line(tmp_path):
    long = {**NUGGETS[1], "nuggets": [{"text": "word " * 200_000, "importance": "okay"}]}
    with pytest.raises(CommandError) as caught:
        _import(tmp_path, [json.dumps(NUGGETS[0]), json.dumps(long)])
    assert (
        f"n.jsonl:2: nuggets[0]: 'text' is 999,999 characters long, at most {MAX_TEXT_CHARS}"
    ) in str(caught.value)
    assert not Nugget.objects.exists()
    # The longest text it takes imports (white space runs count as one space, as when edited).
    fits = {**NUGGETS[1], "nuggets": [{"text": "x" * MAX_TEXT_CHARS + "   ", "importance": "okay"}]}
    _import(tmp_path, [json.dumps(fits)])
    assert Nugget.objects.get().text.startswith("x" * MAX_TEXT_CHARS)


def _listing(qid: str, count: int) -> str:
    nuggets = [{"text": f"fact number {i}", "importance": "okay"} for i in range(count)]
    return json.dumps({"qid": qid, "query": "q", "nuggets": nuggets})


def test_more_nuggets_than_post_editing_takes_are_refused_at_the_topics_line(tmp_path):
    with pytest.raises(CommandError) as caught:
        _import(tmp_path, [json.dumps(NUGGETS[0]), _listing("t9", MAX_NUGGETS + 1)])
    assert (f"n.jsonl:2: topic 't9' has {MAX_NUGGETS + 1} nuggets, at most {MAX_NUGGETS}") in str(
        caught.value
    )
    assert not Nugget.objects.exists()
    # A list as long as the workspace takes imports whole.
    _import(tmp_path, [_listing("t9", MAX_NUGGETS)])
    assert Nugget.objects.filter(topic__external_id="t9").count() == MAX_NUGGETS
