"""The ``nuggets`` job: machine judging for the nugget method, one of three tasks per job.

- ``create``: nuggets for the topics that have none, from each topic's top judged passages
  (qrels grade, else the best CRUX rating), iterative as AutoNuggetizer, then importance;
- ``assign``: every stored answer x its topic's nuggets the judge has not assigned yet
  (3 or 2 grades, greedy or distribution mode);
- ``support``: every (sentence, cited passage) pair the judge has not graded yet (0/1/2).

Idempotent: what a judge (model id + prompt version) has stored is skipped, so a re-run with
everything stored loads no model. Batches of topics, answers or sentences run as shards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db.models import Max

from crux_app.dataio.results import ImportResult
from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.models import GeneratedOutput, Job, Judge, Judgment, Passage, PassageQrel, Topic
from evaluation.backends.base import Generator
from evaluation.backends.lazy_model import LazyModel
from evaluation.nuggets.engine import create_nuggets, label_importance, label_prompts
from evaluation.nuggets.file_records import NuggetLine
from evaluation.nuggets.imports import store_nuggets
from evaluation.nuggets.method.prompts import (
    ASSIGNMENT_DIGITS,
    PROMPT_VERSION,
    SENTENCE_DIGITS,
    assignment_prompt,
    sentence_support_prompt,
)
from evaluation.nuggets.models import (
    AnswerSentence,
    Nugget,
    NuggetAssignment,
    NuggetPassageRating,
    SentenceSupport,
)
from evaluation.nuggets.params import NuggetJobParams

KIND = "nuggets"


@dataclass(frozen=True)
class NuggetModels:
    judge_id: str
    load_judge: Callable[[], Generator]


def judge_version(params: NuggetJobParams) -> str:
    """The prompt version a judge is stored under: the wording, the scheme and the mode."""
    parts = [PROMPT_VERSION, params.task]
    if params.task == "assign":
        parts.append(f"{params.grades}g")
    if params.distribution:
        parts.append("dist")
    return "-".join(parts)


def llm_judge(model_id: str, prompt_version: str) -> Judge:
    judge, _ = Judge.objects.get_or_create(
        kind=Judge.Kind.LLM,
        model_id=model_id,
        prompt_version=prompt_version,
        defaults={"name": Judge.llm_name(model_id, prompt_version)},
    )
    return judge


def top_passages(topic: Topic, limit: int) -> list[Passage]:
    """The topic's best judged passages with text: qrels grade first, then CRUX ratings, then
    the nugget-passage ratings (a collection judged only for its nuggets has those alone)."""
    sources = (  # (rows, the column whose best value ranks a passage)
        (PassageQrel.objects.filter(topic=topic, grade__gt=0), "grade"),
        (Judgment.objects.filter(topic=topic, passage__isnull=False, rating__gt=0), "rating"),
        (NuggetPassageRating.objects.filter(nugget__topic=topic, rating__gt=0), "rating"),
    )
    ids: list[int] = []
    for rows, column in sources:
        if len(ids) >= limit:
            break
        ranked = (
            rows.filter(passage__has_text=True)
            .values("passage_id")
            .annotate(best=Max(column))
            .order_by("-best", "passage_id")
        )
        ids += [row["passage_id"] for row in ranked if row["passage_id"] not in ids]
    passages = Passage.objects.in_bulk(ids[:limit])
    return [passages[pk] for pk in ids[:limit]]


def planned(job: Job, params: NuggetJobParams) -> list[int]:
    if params.task == "create":
        topics = Topic.objects.filter(collection=job.collection, nuggets__isnull=True)
        if job.topic_id:
            topics = topics.filter(pk=job.topic_id)
        ids = list(topics.order_by("external_id").values_list("pk", flat=True))
        return ids[: params.max_items] if params.max_items else ids
    if params.task == "assign":
        outputs = GeneratedOutput.objects.filter(
            collection=job.collection, sentences__isnull=False, topic__nuggets__isnull=False
        ).distinct()
        if job.topic_id:
            outputs = outputs.filter(topic_id=job.topic_id)
        ids = list(outputs.order_by("external_id").values_list("pk", flat=True))
        return ids[: params.max_items] if params.max_items else ids
    sentences = AnswerSentence.objects.filter(output__collection=job.collection).exclude(
        citations=[]
    )
    if job.topic_id:
        sentences = sentences.filter(output__topic_id=job.topic_id)
    ids = list(sentences.order_by("output_id", "position").values_list("pk", flat=True))
    return ids[: params.max_items] if params.max_items else ids


class NuggetBatch:
    def __init__(self, job: Job, params: NuggetJobParams, models: NuggetModels) -> None:
        self.job, self.params = job, params
        self.judge_row = llm_judge(models.judge_id, judge_version(params))
        self._judge = LazyModel("judge", models.judge_id, models.load_judge)

    @property
    def judge(self) -> Generator:
        return self._judge.get()

    def process(self, ids: Sequence[int]) -> dict[str, int]:
        return {"create": self.create, "assign": self.assign, "support": self.support}[
            self.params.task
        ](ids)

    def create(self, topic_ids: Sequence[int]) -> dict[str, int]:
        made = 0
        for topic in Topic.objects.filter(pk__in=topic_ids, nuggets__isnull=True):
            texts = [p.text for p in top_passages(topic, self.params.passages)]
            if not texts:
                continue
            nuggets = create_nuggets(self.judge, topic.request, texts, self.params.window)
            importance = label_importance(
                self.judge, topic.request, nuggets, self.params.distribution
            )
            lines = [NuggetLine(t, i) for t, i in zip(nuggets, importance, strict=True)]
            store_nuggets(topic.pk, lines, ImportResult(format="nuggets", collection=""))
            made += len(lines)
        return {"nuggets created": made}

    def assign(self, output_ids: Sequence[int]) -> dict[str, int]:
        done = set(
            NuggetAssignment.objects.filter(
                judge=self.judge_row, output_id__in=output_ids
            ).values_list("output_id", "nugget_id")
        )
        items = []
        for output in GeneratedOutput.objects.filter(pk__in=output_ids).select_related("topic"):
            answer = " ".join(output.sentences.order_by("position").values_list("text", flat=True))
            for nugget in Nugget.objects.filter(topic_id=output.topic_id).order_by("position"):
                if (output.pk, nugget.pk) not in done:
                    items.append((output, nugget, answer))
        prompts = [
            assignment_prompt(o.topic.request, answer, n.text, self.params.grades)
            for o, n, answer in items
        ]
        labels = label_prompts(
            self.judge, prompts, ASSIGNMENT_DIGITS[self.params.grades], self.params.distribution
        )
        rows = [
            NuggetAssignment(
                judge=self.judge_row,
                nugget=n,
                output=o,
                assignment=str(label.label),
                distribution=label.distribution,
                raw_output=label.raw_output,
            )
            for (o, n, _), label in zip(items, labels, strict=True)
            if label.label is not None
        ]
        NuggetAssignment.objects.bulk_create(rows, ignore_conflicts=True)
        return {"assigned": len(rows), "unparsable": len(items) - len(rows)}

    def support(self, sentence_ids: Sequence[int]) -> dict[str, int]:
        done = set(
            SentenceSupport.objects.filter(
                judge=self.judge_row, sentence_id__in=sentence_ids
            ).values_list("sentence_id", "passage_id")
        )
        items = []
        for sentence in AnswerSentence.objects.filter(pk__in=sentence_ids):
            context = {
                c.position: c.passage for c in sentence.output.context.select_related("passage")
            }
            for index in dict.fromkeys(sentence.citations):
                passage = context.get(index)
                if (
                    passage is not None
                    and passage.has_text
                    and (sentence.pk, passage.pk) not in done
                ):
                    items.append((sentence, passage))
        prompts = [sentence_support_prompt(s.text, p.text) for s, p in items]
        labels = label_prompts(self.judge, prompts, SENTENCE_DIGITS, self.params.distribution)
        rows = [
            SentenceSupport(
                judge=self.judge_row,
                sentence=s,
                passage=p,
                grade=int(label.label),
                raw_output=label.raw_output,
            )
            for (s, p), label in zip(items, labels, strict=True)
            if label.label is not None
        ]
        SentenceSupport.objects.bulk_create(rows, ignore_conflicts=True)
        return {"graded": len(rows), "unparsable": len(items) - len(rows)}


def run_nugget_job(job: Job, models: NuggetModels) -> Job:
    with fail_job_on_error(job):
        params = NuggetJobParams.from_params(job.params)
        ids = planned(job, params)
        if not ids:
            raise ValueError(f"collection {job.collection.name!r} has nothing to {params.task}")
        size = params.batch_size
        batches = [ids[i : i + size] for i in range(0, len(ids), size)]
        run_batches(job, batches, NuggetBatch(job, params, models).process)
    job.refresh_from_db()
    return job
