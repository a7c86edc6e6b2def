"""Builders for annotation tests: collections fit for each task type, campaigns, annotators."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from annotation.campaigns.setup import SelectionOptions, create_campaign
from annotation.models import Campaign
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from crux_app.models import Collection, GeneratedOutput, OutputContext, Passage, Topic
from crux_app.roles import ANNOTATOR, add_role
from tests.crux_app.factories import (
    make_collection,
    make_output,
    make_passages,
    make_qrels,
    make_run,
    make_topic,
)


def make_annotator(username: str, password: str | None = None):
    """An annotator account (no usable password unless one is given: hashing is slow)."""
    user = get_user_model().objects.create_user(username, password=password)
    add_role(user, ANNOTATOR)
    return user


def report_collection(name: str = "reports", *, n_passages: int = 4) -> Collection:
    """One topic with 3 sub-question positions (position 1 a placeholder), ``n_passages``
    passages ranked by a run, and two generated reports."""
    collection = make_collection(name)
    topic = make_topic(collection, "duc-1", n_subquestions=3, placeholders=[1])
    passages = make_passages(collection, "duc-1", n_passages)
    make_run(collection, "bm25", topic, passages)
    make_output(topic, "bm25", passages[:2], text="Floods hit the delta. Rain was heavy in June.")
    make_output(topic, "dense", passages[2:], text="The river rose after the monsoon season.")
    return collection


@dataclass
class QAData:
    collection: Collection
    topics: list[Topic]
    rag_answers: list[GeneratedOutput]
    semi_gold: list[GeneratedOutput]


def _answer(topic: Topic, system: str, text: str, passages: list[Passage]) -> GeneratedOutput:
    output = GeneratedOutput.objects.create(
        collection=topic.collection,
        topic=topic,
        external_id=f"{system}/{topic.external_id}",
        system=system,
        kind=GeneratedOutput.Kind.ANSWER,
        text=text,
    )
    OutputContext.objects.bulk_create(
        OutputContext(output=output, passage=p, position=i) for i, p in enumerate(passages)
    )
    return output


def qa_collection(name: str = "qa", n_topics: int = 2) -> QAData:
    """QA topics with gold answers, gold passages (qa_gold), a run, a RAG answer from its top
    2 and a semi-gold answer from the gold passage."""
    collection = make_collection(name, kind=Collection.Kind.QA)
    topics, rag, semi = [], [], []
    for i in range(n_topics):
        topic = make_topic(collection, f"q{i}", n_subquestions=1, request=f"Who wrote book {i}?")
        topic.gold_answers = [f"Author {i}", f"A. {i}"]
        topic.save(update_fields=["gold_answers"])
        passages = make_passages(collection, f"q{i}", 3)
        make_qrels(topic, {passages[0]: 1}, source="qa_gold")
        run = make_run(collection, f"bm25-{i}", topic, [passages[1], passages[0], passages[2]])
        rag_answer = _answer(topic, "rag:bm25@2", f"Someone {i}", [passages[1], passages[0]])
        rag_answer.run = run
        rag_answer.save(update_fields=["run"])
        topics.append(topic)
        rag.append(rag_answer)
        semi.append(_answer(topic, "semi-gold:t0.5#1", f"Author {i}", [passages[0]]))
    return QAData(collection, topics, rag, semi)


COLLECTION_FOR_TASK = {
    PASSAGE_RATING: lambda: report_collection(),
    REPORT_COVERAGE: lambda: report_collection(),
    ANSWER_EQUIVALENCE: lambda: qa_collection().collection,
    FAILURE_CATEGORY: lambda: qa_collection().collection,
}


def make_campaign(
    task_type: str = PASSAGE_RATING,
    *,
    collection: Collection | None = None,
    options: SelectionOptions | None = None,
    annotators=(),
    name: str | None = None,
    **settings,
) -> Campaign:
    """A campaign over every item of the task (or ``options``), with ``annotators`` invited."""
    collection = collection or COLLECTION_FOR_TASK[task_type]()
    campaign = Campaign(
        name=name or f"{task_type} campaign",
        collection=collection,
        task_type=task_type,
        guidelines_md="Read **carefully**.",
        **settings,
    )
    return create_campaign(campaign, options or SelectionOptions(mode="every"), annotators)
