"""Adopt an annotator's post-edited nugget lists into the collection's nuggets.

Each topic's list is written through the import's path (``imports.store_nuggets``): a nugget
whose text is unchanged keeps its labels and sub-question link, an edited one loses them, new
ones are added and left-over ones removed; the history of each adopted answer is kept as
``NuggetEdit`` rows (the topic's nugget page lists them). All topics are written in one
transaction, or none: an answer that no longer parses, or a topic whose nuggets changed since
the campaign took its snapshot, refuses the whole adoption. A topic whose nuggets already are
the annotator's list is left as it is (adopting twice changes nothing). ``dry_run`` does all
of it and rolls it back, so its counts are what a real run would write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.task_types.answers import AnswerError
from crux_app.data_version import bump_before_writes
from crux_app.dataio.results import ImportResult
from evaluation.nuggets.file_records import NuggetLine
from evaluation.nuggets.imports import store_nuggets
from evaluation.nuggets.models import Nugget, NuggetEdit
from evaluation.nuggets.post_edit_answers import FIELD, parse_post_edit, snapshot
from evaluation.nuggets.post_edit_task import KEY

ADOPTED = "adopted"
ALREADY = "already adopted"
UNCHANGED = "unchanged"  # the annotator kept the list as it was


class AdoptionError(ValueError):
    """Nothing was adopted; the message names the argument or topic at fault."""


@dataclass(frozen=True)
class AdoptedTopic:
    topic: str
    assignment: int
    status: str  # ADOPTED or ALREADY
    operations: int


@dataclass
class Adoption:
    campaign: str
    annotator: str
    dry_run: bool
    topics: list[AdoptedTopic] = field(default_factory=list)  # by topic id
    result: ImportResult = field(default_factory=lambda: ImportResult("nugget-post-edits", ""))

    def summary(self) -> str:
        adopted = sum(t.status == ADOPTED for t in self.topics)
        counts = ", ".join(f"{n} {kind}" for kind, n in self.result.counts.items())
        verb = "would adopt" if self.dry_run else "adopted"
        return (
            f"{self.annotator}'s post-edits in '{self.campaign}': {verb} {adopted} topic(s), "
            f"{len(self.topics) - adopted} left as they are; {counts or 'nothing written'}"
        )


def _campaign(slug: str) -> Campaign:
    campaign = Campaign.objects.select_related("collection").filter(slug=slug).first()
    if campaign is None:
        raise AdoptionError(f"campaign: no campaign '{slug}'")
    if campaign.task_type != KEY:
        raise AdoptionError(
            f"campaign: '{slug}' is a {campaign.task_type} campaign, not nugget post-editing"
        )
    return campaign


def _latest_answers(campaign: Campaign, user, topic: str | None) -> list[Assignment]:
    """The annotator's latest submitted answer per topic (attention checks left out)."""
    rows = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, annotator=user, item__is_attention_check=False)
        .select_related("item__topic")
        .order_by("submitted_at", "id")
    )
    latest: dict[int, Assignment] = {}
    for assignment in rows:
        latest[assignment.item.topic_id] = assignment
    answers = sorted(latest.values(), key=lambda a: a.item.topic.external_id)
    if topic is not None:
        answers = [a for a in answers if a.item.topic.external_id == topic]
        if not answers:
            raise AdoptionError(f"topic: {user.username} has no submitted answer for '{topic}'")
    if not answers:
        raise AdoptionError(f"annotator: {user.username} has no submitted answer in this campaign")
    return answers


def _adopt_topic(assignment: Assignment, campaign: Campaign, adoption: Adoption, now) -> None:
    item, topic = assignment.item, assignment.item.topic
    where = f"topic '{topic.external_id}' (assignment {assignment.pk})"
    try:
        answer = parse_post_edit({FIELD: json.dumps(assignment.answer)}, item.payload)
    except AnswerError as error:
        raise AdoptionError(f"{where}: the stored answer does not parse: {error}") from None
    final = [(n["text"], n["importance"]) for n in answer["nuggets"]]
    current = list(
        Nugget.objects.filter(topic=topic).order_by("position").values_list("text", "importance")
    )
    if current == final:
        status = ALREADY if answer["history"] else UNCHANGED
        adoption.topics.append(AdoptedTopic(topic.external_id, assignment.pk, status, 0))
        return
    if current != snapshot(item.payload):
        raise AdoptionError(
            f"{where}: the topic's nuggets changed since the campaign was made; adopting "
            "would overwrite those changes"
        )
    store_nuggets(topic.pk, [NuggetLine(t, i) for t, i in final], adoption.result)
    NuggetEdit.objects.bulk_create(
        NuggetEdit(
            topic=topic,
            assignment=assignment,
            campaign=campaign.slug,
            user=assignment.annotator,
            sequence=sequence,
            op=op["op"],
            positions=op["positions"],
            before=op["before"],
            after=op["after"],
            at_ms=op["at_ms"],
            applied_at=now,
        )
        for sequence, op in enumerate(answer["history"])
    )
    adoption.result.add("operations recorded", len(answer["history"]))
    adoption.topics.append(
        AdoptedTopic(topic.external_id, assignment.pk, ADOPTED, len(answer["history"]))
    )


def adopt_nugget_edits(
    campaign: str, annotator: str, *, topic: str | None = None, dry_run: bool = False
) -> Adoption:
    """Write ``annotator``'s edited lists of ``campaign`` (one ``topic`` by external id, or
    all) into the collection's nuggets; AdoptionError, with nothing written, when one cannot."""
    found = _campaign(campaign)
    user = get_user_model().objects.filter(username=annotator).first()
    if user is None:
        raise AdoptionError(f"annotator: no account '{annotator}'")
    adoption = Adoption(found.slug, annotator, dry_run)
    adoption.result.collection = found.collection.name
    with transaction.atomic():
        bump_before_writes(found.collection_id)
        now = timezone.now()
        for assignment in _latest_answers(found, user, topic):
            _adopt_topic(assignment, found, adoption, now)
        if dry_run:
            transaction.set_rollback(True)
    return adoption
