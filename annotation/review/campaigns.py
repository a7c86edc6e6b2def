"""Making a review campaign from a disagreement queue: its adjudicated judge and its items
(texts snapshotted, candidate labels grouped and shuffled per item)."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.campaigns.setup import unique_slug
from annotation.labels.collection import ItemRef, LabelSet
from annotation.labels.item_ref import Label
from annotation.labels.sources import stored_source
from annotation.models import ReviewCampaign, ReviewItem
from annotation.review.queue import QueueItem, option_order
from annotation.review.selection import QueueChoice, build_queue
from annotation.task_types.registry import judgment_item
from crux_app.models import Collection, GeneratedOutput, Judge, Passage, SubQuestion, Topic

OPTION_LETTERS = "ABCDEFGHI"


class EmptyQueue(ValueError):
    pass


def adjudicated_judge_name(slug: str) -> str:
    return f"adjudicated:{slug}"


def create_review_campaign(
    collection: Collection,
    name: str,
    choice: QueueChoice,
    *,
    show_sources: bool = False,
    guidelines_md: str = "",
    reviewers: Iterable[AbstractBaseUser] = (),
    created_by: AbstractBaseUser | None = None,
) -> ReviewCampaign:
    """The campaign, its adjudicated judge and one item per disagreement of the queue
    (EmptyQueue when the choices find none; UnknownJudges / ValueError for bad choices)."""
    built = build_queue(collection, choice)
    if not built.items:
        raise EmptyQueue(
            f"no disagreements of {choice.task_type} among {', '.join(built.judges) or 'nobody'}"
            " with these choices"
        )
    with transaction.atomic():
        slug = unique_slug(name, ReviewCampaign, "review")
        judge = Judge.objects.create(
            name=adjudicated_judge_name(slug),
            kind=Judge.Kind.ADJUDICATED,
            prompt_version=f"review campaign {name}"[:100],
        )
        campaign = ReviewCampaign.objects.create(
            name=name,
            slug=slug,
            collection=collection,
            task_type=choice.task_type,
            kind=choice.kind,
            sampling=choice.sampling,
            show_sources=show_sources,
            guidelines_md=guidelines_md,
            selection={
                **choice.as_record(),
                "judges": list(built.judges),
                # Machine judges of a method's review label source have no Judge row: their kind
                # is kept here for the verdict.
                "judge_kinds": {j: built.labels.kinds[j] for j in built.judges},
            },
            n_disagreements=built.n_disagreements,
            judge=judge,
            created_by=created_by,
        )
        campaign.reviewers.add(*reviewers)
        payloads = _payloads(choice.task_type, [i.ref for i in built.items])
        ReviewItem.objects.bulk_create(
            _item(campaign, position, item, built.labels, payloads[item.ref], choice.seed)
            for position, item in enumerate(built.items)
        )
    return campaign


def candidates(
    labels: dict[str, Label], rationales: dict[str, str], seed: int, key: str
) -> list[dict]:
    """The distinct labels as options, each with the judges who gave it and their rationales,
    in a per-item shuffled order (option A is nobody's in particular)."""
    grouped: dict[Label, list[str]] = {}
    for judge, label in sorted(labels.items()):
        grouped.setdefault(label, []).append(judge)
    distinct = sorted(grouped, key=lambda v: (str(type(v)), v))
    shown = [distinct[i] for i in option_order(len(distinct), seed, key)]
    return [
        {
            "label": label,
            "judges": grouped[label],
            "rationales": [rationales[j] for j in grouped[label] if rationales.get(j)],
        }
        for label in shown
    ][: len(OPTION_LETTERS)]


def _item(
    campaign: ReviewCampaign,
    position: int,
    item: QueueItem,
    found: LabelSet,
    payload: dict,
    seed: int,
) -> ReviewItem:
    ref: ItemRef = item.ref
    return ReviewItem(
        campaign=campaign,
        key=item.key,
        topic_id=ref.topic_id,
        subquestion_id=ref.subquestion_id,
        passage_id=ref.passage_id,
        output_id=ref.output_id,
        position=position,
        gap=item.gap,
        inclusion=item.inclusion,
        labels=item.labels,
        candidates=candidates(item.labels, found.rationales.get(item.key, {}), seed, item.key),
        payload={**payload, "key": item.key},
    )


def _payloads(task_type: str, refs: list[ItemRef]) -> dict[ItemRef, dict]:
    """What the reviewer reads for each item: the request, the sub-question, the passage or
    the report (tasks 1-2), or the question, gold answers, answer and reference (tasks 3-4);
    a task whose labels a method stores reads the method's own (``ReviewLabelSource.payloads``)."""
    source = stored_source(task_type)
    if source is not None and source.payloads is not None:
        return source.payloads(refs)
    topics = Topic.objects.in_bulk({r.topic_id for r in refs})
    subquestions = SubQuestion.objects.in_bulk({r.subquestion_id for r in refs} - {None})
    passages = Passage.objects.in_bulk({r.passage_id for r in refs} - {None})
    output_ids = {r.output_id for r in refs} | {r.reference_output_id for r in refs}
    outputs = GeneratedOutput.objects.in_bulk(output_ids - {None})
    item_field = judgment_item(task_type)
    out = {}
    for ref in refs:
        topic = topics[ref.topic_id]
        payload = {"topic": topic.external_id, "request": topic.request}
        if item_field:
            sq = subquestions[ref.subquestion_id]
            payload.update(position=sq.position, subquestion=sq.text)
        if item_field == "passage":
            passage = passages[ref.passage_id]
            payload.update(passage_id=passage.external_id, text=passage.text)
        elif ref.output_id is not None:
            output = outputs[ref.output_id]
            payload.update(output_id=output.external_id, text=output.text)
        if not item_field:
            payload["gold_answers"] = list(topic.gold_answers or [])
            reference = outputs.get(ref.reference_output_id)
            payload["reference"] = reference.text if reference else ""
        out[ref] = payload
    return out


def is_judgment_task(campaign: ReviewCampaign) -> bool:
    return judgment_item(campaign.task_type) is not None
