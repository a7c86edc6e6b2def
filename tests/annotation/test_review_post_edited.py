"""Post-edited labels in the review queue: people's labels (never the machine side), but not
blind, so a queue over "every person" leaves them out unless they are named."""

import pytest

from annotation.labels.collection import collection_labels
from annotation.review.selection import QueueChoice, build_queue, chosen_judges
from crux_app.models import Judge, Judgment
from tests.annotation.review_data import disagreement_collection
from tests.crux_app.factories import make_judge

pytestmark = pytest.mark.django_db

# The post-editor kept gpt's rating everywhere but on p3 (gpt 3, post-editor 5).
POST_EDITED = [2, 4, 1, 5]


@pytest.fixture
def data():
    data = disagreement_collection()
    editor = make_judge("user:cid+post-edit", kind=Judge.Kind.POST_EDITED)
    subquestion = data.topic.subquestions.get()
    Judgment.objects.bulk_create(
        Judgment(
            judge=editor,
            topic=data.topic,
            subquestion=subquestion,
            passage=p,
            task=Judgment.Task.PASSAGE_RATING,
            rating=POST_EDITED[i],
        )
        for i, p in enumerate(data.passages)
    )
    return data


def test_a_post_editor_is_a_person_not_a_machine(data):
    labels = collection_labels(data.collection)
    assert labels.machines == frozenset({"gpt"})
    assert "user:cid+post-edit" not in labels.human_judges()


def test_every_person_leaves_post_edited_labels_out_unless_named(data):
    labels = collection_labels(data.collection)
    assert chosen_judges(labels, QueueChoice()) == ("user:ann", "user:bob")
    assert "user:cid+post-edit" not in chosen_judges(labels, QueueChoice(kind="machines"))
    named = QueueChoice(judges=("user:cid+post-edit", "gpt"), kind="annotator_machine")
    queue = build_queue(data.collection, named)
    # Only p3 differs between the post-editor and gpt; as a person vs a machine it is queued.
    assert [item.labels for item in queue.items] == [{"user:cid+post-edit": 5, "gpt": 3}]
