"""A topic with stored rows of every method (and a topic with none), for the topic page's
per-method summaries: the numbers below are what each summary must show.

Topic q1 ("Who wrote Frankenstein?", gold "Mary Shelley"), passages q1:0#0..3, two
sub-questions. bm25 ranks p0..p3, ``dense-run`` ranks p3, p2. Qrel: p0 required. The LLM judge
rates p0 5 and the others 1 for both sub-questions: at tau 3 both are answerable, bm25's top-10
covers both (1.00), dense-run's covers none (0.00).
SePer (latest setting g2/n): no context 0.20; p0 +0.70, p3 -0.10; bm25 top-2 +0.60; gold +0.75.
DENSE bm25 top-2: an old row (DSE 0.10), then the newest (DSE 0.90, uncertain, wrong answer,
chunks necessary / unnecessary / unnecessary). SCAAR: answer rag-bm25_q1, 2 of 3 sentences
trigger, FLARE 3, F1 0.20 -> 0.50. LLM-retEval bm25 top-2: Recall 1.00, verdict No, category D.
Nuggets: the answer misses the one vital nugget, which no passage supports (a retrieval miss).
"""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, GeneratedOutput, Judge, Passage, Run, Topic
from evaluation.dense.models import DenseResult
from evaluation.nuggets.models import Nugget, NuggetAssignment
from evaluation.reteval.models import RetEvalResult
from evaluation.scaar.models import ScaarAnalysis
from evaluation.seper.models import SeperScore
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_qrels,
    make_run,
    make_topic,
    rate_passages,
)


@dataclass
class SummaryTopics:
    collection: Collection
    topic: Topic  # every method stored something
    bare: Topic  # nothing stored, no gold answers, no outputs
    passages: list[Passage]
    bm25: Run
    other_run: Run
    judge: Judge
    answer: GeneratedOutput
    dense_newest: DenseResult
    scaar: ScaarAnalysis


def _seper(topic: Topic, n: int, kind: str, seper_s: float, delta: float | None, **where):
    return SeperScore.objects.create(
        key=f"{topic.pk}-{n}-{where.get('generator', 'g2')}",
        topic=topic,
        context_kind=kind,
        generator=where.pop("generator", "g2"),
        nli="n",
        params={"n_samples": 5},
        seper_s=seper_s,
        seper_h=seper_s,
        delta_s=delta,
        delta_h=delta,
        **where,
    )


def make_summary_topics() -> SummaryTopics:
    collection = make_collection("summaries", kind=Collection.Kind.QA)
    topic = make_topic(collection, "q1", n_subquestions=2, request="Who wrote Frankenstein?")
    topic.gold_answers = ["Mary Shelley"]
    topic.save()
    bare = make_topic(collection, "q2", n_subquestions=1)
    passages = make_passages(collection, "q1", 4)
    p = passages
    bm25 = make_run(collection, "bm25", topic, passages)
    other_run = make_run(collection, "dense-run", topic, [p[3], p[2]])
    make_qrels(topic, {p[0]: 3})
    judge = make_judge("llm-judge")
    rate_passages(judge, topic, passages, lambda position, index: 5 if index == 0 else 1)

    # An older setting first: the summary shows the latest one only.
    _seper(topic, 0, SeperScore.ContextKind.NONE, 0.5, None, generator="g1")
    _seper(topic, 1, SeperScore.ContextKind.NONE, 0.2, None)
    _seper(topic, 2, SeperScore.ContextKind.PASSAGE, 0.9, 0.7, passage=p[0])
    _seper(topic, 3, SeperScore.ContextKind.PASSAGE, 0.1, -0.1, passage=p[3])
    _seper(topic, 4, SeperScore.ContextKind.RUN, 0.8, 0.6, run=bm25, k=2)
    _seper(topic, 5, SeperScore.ContextKind.ORACLE, 0.95, 0.75)

    def dense(key: str, dse: float, uncertain: bool, labels: list[str]) -> DenseResult:
        return DenseResult.objects.create(
            key=key, topic=topic, run=bm25, k=2, generator="g", nli="n", dse=dse,
            uncertain=uncertain, correct=False, detail={"labels": labels},
        )  # fmt: skip

    dense("old", 0.1, False, ["certain"])
    newest = dense("new", 0.9, True, ["necessary", "unnecessary", "unnecessary"])

    answer = GeneratedOutput.objects.create(
        collection=collection, topic=topic, external_id="rag-bm25_q1", system="rag-bm25",
        text="Percy Shelley.", kind=GeneratedOutput.Kind.ANSWER,
    )  # fmt: skip
    scaar = ScaarAnalysis.objects.create(
        key="s1", output=answer, collection=collection, topic=topic, generator="g",
        embedder="e", logprob_source="stored", n_sentences=3, n_retrievals=2,
        flare_retrievals=3, score_metric="f1", score_before=0.2, score_after=0.5,
        detail={"sentences": [], "settings": {"theta0": 0.4}},
    )  # fmt: skip
    RetEvalResult.objects.create(
        topic=topic, run=bm25, k=2, judge="judge-x", prompt_version="v1", rag_output=answer,
        recall=1.0, precision=0.5, f1=2 / 3, verdict=False, n_no=1, category="D",
        category_reason="gold retrieved, answers differ",
    )  # fmt: skip
    # Nuggets: one vital nugget the answer leaves out, and no passage rated against it.
    nugget = Nugget.objects.create(
        topic=topic, position=0, text="Mary Shelley wrote Frankenstein", importance="vital"
    )
    NuggetAssignment.objects.create(
        judge=judge, nugget=nugget, output=answer, assignment="not_support"
    )
    return SummaryTopics(
        collection, topic, bare, passages, bm25, other_run, judge, answer, newest, scaar
    )
