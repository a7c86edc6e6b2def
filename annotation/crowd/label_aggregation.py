"""Crowd labels aggregated into a judge: the labels of one task in a collection (read as the
review queue reads them, ``annotation/labels/collection.py``) combined by a crowd model
(``annotation/crowd/aggregation.py``) and stored as the judge ``aggregated:<name>``.

The aggregated labels are written where each task's labels live, so every page that reads a
judge reads this one: judgments for passage rating and report coverage, the method's own table
through its review label source for a declared task that keeps one (nugget assignments), and
``AggregatedLabel`` rows for answer equivalence and failure category (the review queue reads
those; ``annotation/labels/collection.py``). Every run also keeps its items (label, confidence,
labels seen) and its workers (skill, confusion matrix) in ``AggregationRun``/``AggregatedLabel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from annotation.crowd.aggregation import Aggregate, AggregationError, aggregate
from annotation.crowd.params import AggregationParams
from annotation.labels.collection import LabelSet, UnknownJudges, check_judges, collection_labels
from annotation.labels.item_ref import ItemRef
from annotation.labels.post_editing import post_edit_judge_name
from annotation.labels.sources import stored_source
from annotation.models import AggregatedLabel, AggregationRun, Assignment, Campaign
from annotation.quality.annotators import answer_units
from annotation.task_types.registry import judgment_item
from crux_app.data_version import bump_topics
from crux_app.models import Collection, GeneratedOutput, Judge, Judgment

PREFIX = "aggregated:"


@dataclass(frozen=True)
class AggregationResult:
    run: AggregationRun
    judge: Judge
    aggregate: Aggregate
    found: LabelSet
    keys: list[str]  # the items aggregated, sorted

    def as_json(self) -> dict[str, Any]:
        """The command's, page's and API's JSON (the shape of issue 38)."""
        return {
            "method": self.aggregate.method,
            "judge": self.judge.name,
            "n_items": len(self.keys),
            "items": item_rows(self.run),
            "workers": [
                {"judge": w["judge"], "skill": w["skill"], "n_labels": w["n_labels"]}
                for w in self.run.workers
            ],
        }


def aggregated_judge_name(name: str) -> str:
    return f"{PREFIX}{name}"


def default_name(collection: Collection, task: str, method: str) -> str:
    return slugify(f"{collection.name}-{task}-{method}")[:80]


def campaign_scope(collection: Collection, task: str, slug: str) -> tuple[set[str], set[str]]:
    """(item keys, judge names) of a campaign's submitted labels; AggregationError naming the
    campaign when it is not one of this collection and task."""
    campaign = Campaign.objects.filter(collection=collection, slug=slug).first()
    if campaign is None or campaign.task_type != task:
        raise AggregationError(f"campaign: no campaign {slug!r} of {task} on {collection.name}")
    rows = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, item__is_control=False)
        .values_list("annotator__username", "item__kind", "item__payload", "answer")
    )
    keys, judges = set(), set()
    for username, kind, payload, answer in rows:
        keys.update(key for _, key in answer_units(kind, payload or {}, answer or {}).values())
        judges.update({f"user:{username}", post_edit_judge_name(username)})
    return keys, judges


def chosen_labels(
    found: LabelSet, judges: Sequence[str], scope: tuple[set[str], set[str]] | None
) -> dict[str, dict[str, Any]]:
    """item key -> judge -> label of the chosen judges (default: every person; in a campaign,
    its annotators), on the campaign's items only when one is named."""
    if judges:
        check_judges(found, list(judges))
        chosen = set(judges)
    else:
        chosen = set(found.human_judges())
        if scope is not None:
            chosen = {j for j in found.kinds if j in scope[1]}
    out: dict[str, dict[str, Any]] = {}
    for key, by_judge in found.labels.items():
        if scope is not None and key not in scope[0]:
            continue
        mine = {j: label for j, label in by_judge.items() if j in chosen}
        if mine:
            out[key] = mine
    return out


def run_aggregation(
    collection: Collection, task: str, params: AggregationParams, judges: Sequence[str] = ()
) -> AggregationResult:
    """Aggregate and store; AggregationError / UnknownJudges name what is wrong."""
    found = collection_labels(collection, task)
    scope = campaign_scope(collection, task, params.campaign) if params.campaign else None
    name = params.name or default_name(collection, task, params.method)
    judge_name = aggregated_judge_name(name)
    if judge_name in judges:
        raise UnknownJudges(f"judges: {judge_name} is the judge being made")
    labels = chosen_labels(found, judges, scope)
    if not labels:
        raise AggregationError(f"no labels of {task} by the chosen judges in {collection.name}")
    model = aggregate(labels, params.method, seed=params.seed)
    workers = sorted(model.workers)
    with transaction.atomic():
        judge, _ = Judge.objects.get_or_create(
            name=judge_name, defaults={"kind": Judge.Kind.AGGREGATED}
        )
        if judge.kind != Judge.Kind.AGGREGATED:
            raise AggregationError(f"name: judge {judge_name} exists and is not aggregated")
        judge.prompt_version = f"{params.method} seed {params.seed}"[:100]
        judge.save(update_fields=["prompt_version"])
        run, _ = AggregationRun.objects.update_or_create(
            judge=judge,
            collection=collection,
            task_type=task,
            defaults={
                "method": params.method,
                "seed": params.seed,
                "campaign_slug": params.campaign,
                "judges": workers,
                "machines": sorted(w for w in workers if w in found.machines),
                "workers": [_worker_record(w, model) for w in workers],
                "n_items": len(model.labels),
            },
        )
        run.labels.all().delete()
        keys = sorted(model.labels)
        AggregatedLabel.objects.bulk_create(
            AggregatedLabel(
                run=run,
                key=key,
                topic_id=found.refs[key].topic_id,
                subquestion_id=found.refs[key].subquestion_id,
                passage_id=found.refs[key].passage_id,
                output_id=found.refs[key].output_id,
                reference_output_id=found.refs[key].reference_output_id,
                own_id=found.refs[key].own_id,
                label=_plain(model.labels[key]),
                confidence=round(model.confidence[key], 6),
                n_labels=model.n_labels[key],
            )
            for key in keys
        )
        _mirror(run, judge, collection, task)
    return AggregationResult(run, judge, model, found, keys)


def _plain(label: Any) -> Any:
    """A label as JSON (numpy integers from the models become ints)."""
    return label.item() if hasattr(label, "item") else label


def _worker_record(worker: str, model: Aggregate) -> dict[str, Any]:
    w = model.workers[worker]
    return {
        "judge": worker,
        "skill": round(w.skill, 4),
        "n_labels": w.n_labels,
        "confusion": {
            str(_plain(t)): {str(_plain(g)): round(p, 4) for g, p in row.items()}
            for t, row in w.confusion.items()
        },
    }


def _mirror(run: AggregationRun, judge: Judge, collection: Collection, task: str) -> None:
    """Write the run's labels where the task's labels live (replacing the judge's earlier
    labels of this collection and task)."""
    rows = list(run.labels.all())
    topics = {r.topic_id for r in rows}
    if judgment_item(task):
        old = Judgment.objects.filter(judge=judge, task=task, topic__collection=collection)
        topics |= set(old.values_list("topic_id", flat=True))
        old.delete()
        item_field = f"{judgment_item(task)}_id"
        Judgment.objects.bulk_create(
            Judgment(
                judge=judge,
                topic_id=r.topic_id,
                subquestion_id=r.subquestion_id,
                task=task,
                rating=int(r.label),
                raw_output=f"{run.method} confidence {r.confidence:.3f} of {r.n_labels} labels",
                **{item_field: getattr(r, item_field)},
            )
            for r in rows
            if r.subquestion_id is not None and getattr(r, item_field) is not None
        )
    else:
        source = stored_source(task)
        if source is not None and source.write_adjudicated and source.clear_adjudicated:
            topics |= source.clear_adjudicated(judge.pk, {collection.pk})
            for r in rows:
                item = SimpleNamespace(
                    payload={"nugget_id": r.own_id}, output_id=r.output_id, topic_id=r.topic_id
                )
                source.write_adjudicated(judge.pk, item, r.label, f"{run.method} {r.confidence}")
    bump_topics(topics)


def item_rows(run: AggregationRun) -> list[dict[str, Any]]:
    """The run's items as the JSON lists them: key, topic, the run (system) of an answer's
    item, the nugget's text of a nugget's item, label, confidence, labels seen."""
    rows = list(run.labels.select_related("topic").order_by("key"))
    systems = dict(
        GeneratedOutput.objects.filter(pk__in={r.output_id for r in rows} - {None}).values_list(
            "pk", "system"
        )
    )
    nuggets = _nugget_texts(run, rows)
    out = []
    for r in rows:
        item: dict[str, Any] = {"key": r.key, "topic": r.topic.external_id}
        if r.output_id is not None:
            item["run"] = systems.get(r.output_id, "")
        if r.own_id is not None:
            item["nugget"] = nuggets.get(r.own_id, "")
        item.update(label=r.label, confidence=round(r.confidence, 4), n_labels=r.n_labels)
        out.append(item)
    return out


def _nugget_texts(run: AggregationRun, rows: list[AggregatedLabel]) -> dict[int, str]:
    """own id -> its text, from the task's review label source's payloads (the reviewer's
    details: the nugget is the first)."""
    source = stored_source(run.task_type)
    refs = {r.own_id: r for r in rows if r.own_id is not None}
    if source is None or source.payloads is None or not refs:
        return {}
    wanted = {
        ItemRef(r.topic_id, r.subquestion_id, output_id=r.output_id, own_id=own): own
        for own, r in refs.items()
    }
    payloads = source.payloads(list(wanted))
    return {own: (payloads[ref].get("details") or [["", ""]])[0][1] for ref, own in wanted.items()}
