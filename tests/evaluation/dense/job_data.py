"""A small QA collection for DENSE's Django tests, and the rule-based models to run it on."""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Job, Passage, Run, RunEntry, Topic
from evaluation.dense.job import KIND, DenseJobParams, DenseModels, run_dense_job
from tests.evaluation.dense.doubles import RuleGenerator, WordEmbedder
from tests.evaluation.dense.test_dense_engine import C1, C2, C3, QUESTION, REPHRASES
from tests.evaluation.dense.test_dense_pipeline import C4
from tests.evaluation.seper.seper_doubles import WordNLI


@dataclass
class DenseData:
    collection: Collection
    run: Run
    capital: Topic  # uncertain under the top-3 [C1, C2, C3]
    cheese: Topic  # certain under [C2]
    passages: list[Passage]


def make_dense_data() -> DenseData:
    collection = Collection.objects.create(name="dense-qa", kind=Collection.Kind.QA)
    capital = Topic.objects.create(
        collection=collection, external_id="q1", request=QUESTION, gold_answers=["Paris"]
    )
    cheese = Topic.objects.create(
        collection=collection, external_id="q2", request="Is cheese tasty?", gold_answers=["yes"]
    )
    passages = Passage.objects.bulk_create(
        Passage(collection=collection, external_id=f"p{i}", text=text)
        for i, text in enumerate([C1, C2, C3, C4])
    )
    run = Run.objects.create(collection=collection, name="bm25")
    entries = [RunEntry(run=run, topic=capital, passage=p, rank=i + 1, score=1.0 / (i + 1))
               for i, p in enumerate(passages)]  # fmt: skip
    entries.append(RunEntry(run=run, topic=cheese, passage=passages[1], rank=1, score=1.0))
    RunEntry.objects.bulk_create(entries)
    return DenseData(collection, run, capital, cheese, passages)


class RuleModels:
    """DenseModels on the rule-based doubles, counting how often each is loaded."""

    def __init__(self) -> None:
        self.generator = RuleGenerator(REPHRASES)
        self.nli = WordNLI()
        self.embedder = WordEmbedder()
        self.loads = 0

    def _load(self, model):
        self.loads += 1
        return model

    def models(self) -> DenseModels:
        return DenseModels(
            generator_id=self.generator.model_id,
            nli_id=self.nli.model_id,
            embedder_id=self.embedder.model_id,
            load_generator=lambda: self._load(self.generator),
            load_nli=lambda: self._load(self.nli),
            load_embedder=lambda: self._load(self.embedder),
        )


def run_job(data: DenseData, models: DenseModels, **params) -> Job:
    config = DenseJobParams(run_id=data.run.pk, **{"k": 3, "pool": 4, **params})
    job = Job.objects.create(
        kind=KIND, params=config.as_params(data.run), collection=data.collection
    )
    return run_dense_job(job, models)
