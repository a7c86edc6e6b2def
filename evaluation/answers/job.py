"""The ``generate_answers`` job: plan topic batches, generate the missing answers, store them.

Idempotent: each answer's external id is ``{system}/{topic}``, a batch generates only the
answers not stored yet, and storing is an update-or-create, so a retried job or a redelivered
task never duplicates an answer and never redoes model work that was already saved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_run
from crux_app.models import GeneratedOutput, Job, OutputContext, Run, Topic
from evaluation.answers.generation import (
    Answer,
    AnswerRequest,
    ContextPassage,
    PromptBuilder,
    answer_external_id,
    answer_system_name,
    build_answer_prompt,
    generate_answers,
    greedy_answer_params,
)
from evaluation.answers.params import AnswerJobParams
from evaluation.backends.base import GenerationParams, Generator

KIND = "generate_answers"


def run_answer_job(job: Job, generator_provider: Callable[[], Generator]) -> Job:
    """Run a generate_answers job; the generator is only asked for when an answer is missing."""
    with fail_job_on_error(job):
        config = AnswerJobParams.from_params(job.params)
        run = job_run(job, config.run_id)
        topics = Topic.objects.filter(collection=job.collection).order_by("external_id")
        if job.topic_id is not None:
            topics = topics.filter(pk=job.topic_id)
        topic_ids = list(topics.values_list("pk", flat=True))
        batches = [
            topic_ids[i : i + config.batch_size]
            for i in range(0, len(topic_ids), config.batch_size)
        ]
        answerer = TopicAnswerer(job, run, config, generator_provider)
        run_batches(job, batches, answerer.answer_batch)
    job.refresh_from_db()
    return job


class TopicAnswerer:
    """Answers one batch of topics of a job: skip stored answers, generate and store the rest.

    Another method may store its own answers under its own ``system`` name with its own
    ``build_prompt`` (LLM-retEval's Figure 2 prompt); both default to this job's.
    """

    def __init__(
        self,
        job: Job,
        run: Run | None,
        config: AnswerJobParams,
        generator_provider: Callable[[], Generator],
        *,
        system: str | None = None,
        build_prompt: PromptBuilder = build_answer_prompt,
    ) -> None:
        self.job = job
        self.collection = job.collection
        self.run = run
        self.config = config
        self.system = system or answer_system_name(run.name if run else None, config.k)
        self.build_prompt = build_prompt
        self.params: GenerationParams = greedy_answer_params(config.max_new_tokens)
        self._generator_provider = generator_provider
        self._generator: Generator | None = None

    @property
    def generator(self) -> Generator:
        # Loaded on first need: a re-run with every answer stored never touches a model.
        if self._generator is None:
            self._generator = self._generator_provider()
        return self._generator

    def answer_batch(self, topic_ids: Sequence[int]) -> dict[str, int]:
        topics = list(Topic.objects.filter(pk__in=topic_ids).order_by("external_id"))
        keys = {t.pk: answer_external_id(self.system, t.external_id) for t in topics}
        stored = set(
            GeneratedOutput.objects.filter(
                collection=self.collection, external_id__in=keys.values()
            ).values_list("external_id", flat=True)
        )
        missing = [t for t in topics if keys[t.pk] not in stored]
        if missing:
            requests = [self._request(t, keys[t.pk]) for t in missing]
            answers = generate_answers(requests, self.generator, self.params, self.build_prompt)
            self._store(missing, answers)
        return {"generated": len(missing), "already stored": len(topics) - len(missing)}

    def _request(self, topic: Topic, key: str) -> AnswerRequest:
        context: tuple[ContextPassage, ...] = ()
        if self.run is not None:
            entries = (
                self.run.entries.filter(topic=topic)
                .order_by("rank", "line_order")
                .select_related("passage")[: self.config.k]
            )
            # Passages without text cannot be shown to the model; they are left out of the
            # context (and recorded on the answer), not replaced by lower-ranked ones.
            context = tuple(
                ContextPassage(key=str(e.passage_id), text=e.passage.text)
                for e in entries
                if e.passage.has_text and e.passage.text.strip()
            )
        return AnswerRequest(key=key, question=topic.request, context=context)

    def _store(self, topics: Sequence[Topic], answers: Sequence[Answer]) -> None:
        model_id = self.generator.model_id
        with transaction.atomic():
            for topic, answer in zip(topics, answers, strict=True):
                generation = answer.generation
                output, _ = GeneratedOutput.objects.update_or_create(
                    collection=self.collection,
                    external_id=answer.request.key,
                    defaults={
                        "topic": topic,
                        "system": self.system,
                        "kind": GeneratedOutput.Kind.ANSWER,
                        "text": generation.text,
                        "generator": model_id,
                        "context_type": f"top-{self.config.k}" if self.run else "none",
                        "run": self.run,
                        "tokens": list(generation.tokens),
                        "token_logprobs": [float(lp) for lp in generation.token_logprobs],
                        "metadata": {
                            "question": answer.request.question,
                            "finish_reason": generation.finish_reason,
                            "token_ids": [int(t) for t in generation.token_ids],
                            "k": self.config.k if self.run else 0,
                            "job_id": self.job.pk,
                        },
                    },
                )
                output.context.all().delete()
                OutputContext.objects.bulk_create(
                    OutputContext(output=output, passage_id=int(p.key), position=i)
                    for i, p in enumerate(answer.request.context)
                )
