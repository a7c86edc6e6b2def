"""The nugget post-editing task (issue 27, section 5): the answer's strict parsing and replay of
each operation, gold and attention checks, items and exports, and adopting an annotator's
edited lists into the collection (labels of unchanged nuggets kept, all or nothing, dry run).
"""

import json

import pytest

from annotation.task_types.answers import (
    AnswerError,
    answer_summary,
    answer_to_draft,
    parse_answer,
)
from evaluation.nuggets.post_edit_answers import MAX_NUGGETS, MAX_OPERATIONS
from evaluation.nuggets.post_edit_task import KEY

pytestmark = pytest.mark.django_db

PAYLOAD = {
    "topic": "t1",
    "query": "why do tides happen",
    "nuggets": [
        {"position": 0, "text": "The moon  pulls the oceans", "importance": "vital"},
        {"position": 1, "text": "The sun also raises tides", "importance": "vital"},
        {"position": 2, "text": "Spring tides follow full moons", "importance": "okay"},
    ],
    "passages": [],
}


def n(text: str, importance: str = "vital") -> dict:
    return {"text": text, "importance": importance}


def op(kind: str, positions: list, before: list, after: list, at_ms: int = 0) -> dict:
    return {"op": kind, "positions": positions, "before": before, "after": after, "at_ms": at_ms}


def original() -> list[dict]:
    return [n(x["text"], x["importance"]) for x in PAYLOAD["nuggets"]]


def fields(nuggets: list, history: list) -> dict:
    return {"edits": json.dumps({"nuggets": nuggets, "history": history})}


def parse(nuggets: list, history: list, payload: dict = PAYLOAD) -> dict:
    return parse_answer(KEY, fields(nuggets, history), payload)


# ---- each operation ------------------------------------------------------------------------


def test_the_unchanged_list_is_an_answer_and_keeps_the_stored_texts_exactly():
    answer = parse([n("The moon pulls the oceans"), *original()[1:]], [])
    # The stored text (two spaces) stays as it is: adoption sees the nugget as unchanged.
    assert answer == {"nuggets": original(), "history": []}
    assert answer_summary(KEY, answer) == "3 nuggets (2 vital), unchanged"


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        (
            op(
                "edit",
                [1],
                [n("The sun also raises tides")],
                [n("  The sun  raises smaller tides ")],
            ),
            [
                "The moon  pulls the oceans",
                "The sun raises smaller tides",
                "Spring tides follow full moons",
            ],
        ),
        (
            op(
                "merge",
                [0, 1],
                [n("The moon pulls the oceans"), n("The sun also raises tides")],
                [n("The moon and the sun raise tides")],
            ),
            ["The moon and the sun raise tides", "Spring tides follow full moons"],
        ),
        (
            op(
                "split",
                [2],
                [n("Spring tides follow full moons", "okay")],
                [n("Spring tides are high", "okay"), n("They follow full moons", "okay")],
            ),
            [
                "The moon  pulls the oceans",
                "The sun also raises tides",
                "Spring tides are high",
                "They follow full moons",
            ],
        ),
        (
            op("add", [3], [], [n("Neap tides are weak", "okay")]),
            [
                "The moon  pulls the oceans",
                "The sun also raises tides",
                "Spring tides follow full moons",
                "Neap tides are weak",
            ],
        ),
        (
            op("add", [0], [], [n("Tides rise and fall twice a day")]),
            [
                "Tides rise and fall twice a day",
                "The moon  pulls the oceans",
                "The sun also raises tides",
                "Spring tides follow full moons",
            ],
        ),
        (
            op("delete", [1], [n("The sun also raises tides")], []),
            ["The moon  pulls the oceans", "Spring tides follow full moons"],
        ),
    ],
    ids=["edit", "merge", "split", "add-at-end", "add-at-start", "delete"],
)
def test_each_operation_replays_to_the_submitted_list(operation, expected):
    final = [
        n(" ".join(t.split()), "okay" if "Spring" in t or "Neap" in t or "They" in t else "vital")
        for t in expected
    ]
    answer = parse(final, [operation])
    assert [x["text"] for x in answer["nuggets"]] == expected
    assert answer["history"][0]["op"] == operation["op"]
    assert answer["history"][0]["positions"] == operation["positions"]
    assert answer_summary(KEY, answer).endswith("1 edit")


def test_relabelling_and_a_history_of_several_operations_in_time_order():
    history = [
        op(
            "importance",
            [2],
            [n("Spring tides follow full moons", "okay")],
            [n("Spring tides follow full moons", "vital")],
            100,
        ),
        op("delete", [0], [n("The moon pulls the oceans")], [], 900),
        op("edit", [0], [n("The sun also raises tides")], [n("The sun raises tides too")], 900),
    ]
    final = [n("The sun raises tides too"), n("Spring tides follow full moons")]
    answer = parse(final, history)
    assert answer["nuggets"] == final
    assert [h["op"] for h in answer["history"]] == ["importance", "delete", "edit"]
    assert [h["at_ms"] for h in answer["history"]] == [100, 900, 900]
    assert answer["history"][0]["before"] == [n("Spring tides follow full moons", "okay")]
    # The draft of an answer is the same answer: an undone item comes back as it was left.
    assert parse_answer(KEY, answer_to_draft(KEY, answer), PAYLOAD) == answer
    assert answer_summary(KEY, answer) == "2 nuggets (2 vital), 3 edits"


# ---- strict parsing --------------------------------------------------------------------------

RELABEL = op(
    "importance", [0], [n("The moon pulls the oceans")], [n("The moon pulls the oceans", "okay")]
)


def _too_many_adds() -> dict:
    """The list grows to 61 nuggets, then one is deleted: 60 at the end, too many on the way."""
    history, nuggets = [], original()
    for i in range(MAX_NUGGETS - 2):
        history.append(op("add", [len(nuggets)], [], [n(f"extra {i}")]))
        nuggets.append(n(f"extra {i}"))
    history.append(op("delete", [len(nuggets) - 1], [nuggets.pop()], []))
    return fields(nuggets, history)


def _too_many_operations() -> dict:
    history = [
        RELABEL
        if i % 2 == 0
        else op(
            "importance",
            [0],
            [n("The moon pulls the oceans", "okay")],
            [n("The moon pulls the oceans")],
        )
        for i in range(MAX_OPERATIONS + 1)
    ]
    return fields(original(), history)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({}, "edits", "no edited list"),
        ({"edits": "  "}, "edits", "no edited list"),
        ({"edits": "{nope"}, "edits", "not JSON"),
        ({"edits": "[1, 2]"}, "edits", "must be an object"),
        (
            {"edits": json.dumps({"nuggets": [], "history": [], "extra": 1})},
            "edits",
            "unknown key(s) extra",
        ),
        ({"edits": json.dumps({"nuggets": []})}, "edits", "missing key(s) history"),
        (fields([], [op("delete", [0], [n("x")], [])]), "nuggets", "keep at least one"),
        (
            fields(original(), [op("rewrite", [0], [], [])]),
            "history[0].op",
            "unknown operation 'rewrite'",
        ),
        (fields(original(), [op(["edit"], [0], [], [])]), "history[0].op", "unknown operation"),
        (
            fields(original(), [op("edit", [0], [n("The moon pulls the oceans")], [n("   ")])]),
            "history[0].after[0].text",
            "is empty",
        ),
        (fields([n("")], []), "nuggets[0].text", "is empty"),
        (fields([n(5)], []), "nuggets[0].text", "must be text"),
        (fields([n("x", "high")], []), "nuggets[0].importance", "vital or okay, got 'high'"),
        (fields([{"text": "x"}], []), "nuggets[0]", "missing key(s) importance"),
        (fields([n("x" * 601)], []), "nuggets[0].text", "at most 600"),
        (fields(original() * 21, []), "nuggets", "holds 63 entries, at most 60"),
        (_too_many_adds(), "history[57]", "grows past 60 nuggets"),
        (_too_many_operations(), "history", "at most 400"),
        (
            fields(original(), [op("delete", [7], [n("x")], [])]),
            "history[0].positions",
            "outside the list",
        ),
        (
            fields(original(), [op("delete", [True], [n("x")], [])]),
            "history[0].positions[0]",
            "whole number",
        ),
        (
            fields(original(), [op("delete", [-1], [n("x")], [])]),
            "history[0].positions[0]",
            "whole number",
        ),
        (
            fields(original(), [op("delete", [0, 1], [n("x")], [])]),
            "history[0].positions",
            "takes 1 position",
        ),
        (
            fields(original(), [op("delete", [0], [n("Not this one")], [])]),
            "history[0].before",
            "does not match",
        ),
        (
            fields(original(), [op("delete", [0], [n("The moon pulls the oceans", "okay")], [])]),
            "history[0].before",
            "does not match",
        ),
        (
            fields(original(), [op("merge", [1, 0], [n("a"), n("b")], [n("c")])]),
            "history[0].positions",
            "increasing order",
        ),
        (
            fields(
                original(), [op("split", [0], [n("The moon pulls the oceans")], [n("only one")])]
            ),
            "history[0].after",
            "leaves 2 nugget(s)",
        ),
        (
            fields(
                original(),
                [
                    op(
                        "edit",
                        [0],
                        [n("The moon pulls the oceans")],
                        [n("The  moon pulls the oceans ")],
                    )
                ],
            ),
            "history[0].after",
            "does not change the text",
        ),
        (
            fields(
                original(),
                [op("edit", [0], [n("The moon pulls the oceans")], [n("Other", "okay")])],
            ),
            "history[0].after",
            "keeps the importance",
        ),
        (
            fields(
                original(),
                [
                    op(
                        "importance",
                        [0],
                        [n("The moon pulls the oceans")],
                        [n("The moon pulls the oceans")],
                    )
                ],
            ),
            "history[0].after",
            "does not change the importance",
        ),
        (
            fields(original(), [RELABEL, {**RELABEL, "at_ms": -1}]),
            "history[1].at_ms",
            "whole number",
        ),
        (
            fields(
                original(),
                [
                    {**RELABEL, "at_ms": 500},
                    op("delete", [0], [n("The moon pulls the oceans", "okay")], [], 20),
                ],
            ),
            "history[1].at_ms",
            "in the order they were done",
        ),
        (fields(original(), [{**RELABEL, "when": 1}]), "history[0]", "unknown key(s) when"),
        (fields(original()[:2], []), "nuggets", "not what its history"),
        (fields([n("Something else"), *original()[1:]], []), "nuggets", "not what its history"),
    ],
)
def test_a_bad_answer_is_refused_naming_its_field(data, field, words):
    with pytest.raises(AnswerError) as caught:
        parse_answer(KEY, data, PAYLOAD)
    assert caught.value.field == field
    assert words in caught.value.message


def test_an_oversized_or_deeply_nested_field_is_refused_not_crashed():
    with pytest.raises(AnswerError) as caught:
        parse_answer(KEY, {"edits": "[" * 100_000 + "]" * 100_000}, PAYLOAD)
    assert caught.value.field == "edits"
    with pytest.raises(AnswerError) as caught:
        parse_answer(KEY, {"edits": "[" * 1000 + "]" * 1000}, PAYLOAD)
    assert caught.value.field == "edits"
