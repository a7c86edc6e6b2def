"""A hand-made QA collection for the SePer job and page tests, and the scripted models."""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Job, Passage, Run, Topic
from evaluation.seper.job import KIND, SeperModels
from tests.crux_app.factories import make_collection, make_qrels, make_run
from tests.evaluation.seper.seper_doubles import ScriptedGenerator, WordNLI

GOLD_TEXT = "Pride and Prejudice was written by Jane Austen."
NOISE_TEXT = "The novel is long and Charles Dickens liked it."
FILLER_TEXT = "Bath is a town in England."
QUESTION = "Who wrote Pride and Prejudice?"

# Script keys are matched in order: the gold passage's text wins over the others, and the bare
# question (no context) comes last. Two of four no-context samples name the gold answer.
SCRIPT = {
    "written by Jane Austen": [("Jane Austen", [-0.1])],
    "Charles Dickens liked": [("Charles Dickens", [-0.1])],
    "Bath is a town": [("Jane Austen", [-0.1]), ("Bath", [-0.1])],
    QUESTION: [("Jane Austen", [-0.1]), ("Charles Dickens", [-0.1])],
}
PARAMS = {"k": 2, "n_samples": 4, "temperature": 1.0, "seed": 0}


@dataclass
class SeperData:
    collection: Collection
    topic: Topic
    no_gold: Topic
    gold: Passage
    noise: Passage
    filler: Passage
    run: Run


def seper_collection() -> SeperData:
    """One QA topic (the run ranks noise, gold, filler; gold is its qa_gold passage) and one
    topic without gold answers, which SePer skips."""
    collection = make_collection("qa-seper", kind=Collection.Kind.QA)
    topic = Topic.objects.create(
        collection=collection, external_id="q1", request=QUESTION, gold_answers=["Jane Austen"]
    )
    no_gold = Topic.objects.create(collection=collection, external_id="q2", request="Why?")
    gold, noise, filler = (
        Passage.objects.create(collection=collection, external_id=f"d{i}", text=text)
        for i, text in enumerate([GOLD_TEXT, NOISE_TEXT, FILLER_TEXT])
    )
    make_qrels(topic, {gold: 1}, source="qa_gold")
    run = make_run(collection, "bm25", topic, [noise, gold, filler])
    return SeperData(collection, topic, no_gold, gold, noise, filler, run)


class CountingModels:
    """SeperModels on a fresh scripted generator and word-overlap NLI, counting the loads."""

    def __init__(self) -> None:
        self.generator = ScriptedGenerator(SCRIPT)
        self.nli = WordNLI()
        self.loads = 0

    def models(self) -> SeperModels:
        return SeperModels(
            generator_id=self.generator.model_id,
            nli_id=self.nli.model_id,
            load_generator=self._load_generator,
            load_nli=lambda: self.nli,
        )

    def _load_generator(self) -> ScriptedGenerator:
        self.loads += 1
        return self.generator


def seper_job(data: SeperData, **params) -> Job:
    return Job.objects.create(
        kind=KIND,
        collection=data.collection,
        params={"run_id": data.run.pk, **PARAMS, **params},
    )
