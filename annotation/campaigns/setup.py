"""Creating a campaign with its items, gold items and attention checks; gold answers from CSV.

Everything a creation writes happens in one transaction: a campaign whose item selection fails
leaves nothing behind.
"""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Model
from django.utils.text import slugify

from annotation.labels.post_editing import SUGGESTING_KINDS
from annotation.models import Campaign, CampaignItem
from annotation.queue.selection import ItemSpec, SelectionError, select_items
from annotation.task_types.answers import AnswerError, parse_gold_value
from annotation.task_types.attention_checks import build_attention_checks
from annotation.task_types.registry import task_type
from crux_app.client_input import SHOWN_CHARS, InputRefused, whole_number
from crux_app.models import Judge, Judgment

BATCH = 2000

# Bounds of a campaign's counts (the form's fields use them too). A campaign is at most
# MAX_ITEMS items in all (regular, gold and attention checks); bench/annotate.py runs on 100,000.
MAX_ITEMS = 200_000
MAX_ATTENTION_CHECKS = 100
MAX_GOLD_ITEMS = 1_000
MAX_OVERLAP = 20
MAX_CONTROL_INTERVAL = 1_000
MAX_QC_MIN_ANSWERS = 1_000
MIN_RESERVATION_SECONDS = 30
MAX_RESERVATION_SECONDS = 7 * 24 * 3600
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class SelectionOptions:
    mode: str
    sample_size: int | None = None
    seed: int = 0
    crux_judge: Judge | None = None
    tau: int = 3
    gold_judge: Judge | None = None
    gold_count: int = 0
    attention_count: int = 0
    output_ids: tuple[int, ...] | None = None  # tasks 2-4: only these outputs


class GoldUploadError(ValueError):
    """A gold CSV that cannot be applied; the message names the line and column."""


def unique_slug(name: str, model: type[Model] = Campaign, fallback: str = "campaign") -> str:
    """A slug of ``name`` no ``model`` row has yet (``-2``, ``-3`` … appended where taken)."""
    base = slugify(name)[:70] or fallback
    slug, n = base, 2
    while model.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def create_campaign(
    campaign: Campaign,
    options: SelectionOptions,
    invited: Iterable[AbstractBaseUser] = (),
) -> Campaign:
    """Save ``campaign`` (unsaved, its settings filled in) with the items ``options`` pick.

    SelectionError (naming the form field) for counts beyond the bounds above, whatever the
    caller: the form checks them too, but the reteval command and scripts call this directly.
    """
    check_bounds(campaign, options)
    with transaction.atomic():
        specs = select_items(
            campaign.collection,
            campaign.task_type,
            options.mode,
            sample_size=options.sample_size,
            seed=options.seed,
            judge=options.crux_judge,
            tau=options.tau,
            output_ids=options.output_ids,
        )
        if len(specs) + options.attention_count > MAX_ITEMS:
            raise SelectionError(
                "selection_mode",
                f"this selection gives {len(specs) + options.attention_count:,} items; a "
                f"campaign holds at most {MAX_ITEMS:,} (sample them, or pick fewer outputs)",
            )
        if not campaign.slug:
            campaign.slug = unique_slug(campaign.name)
        campaign.selection = {
            "mode": options.mode,
            "sample_size": options.sample_size,
            "seed": options.seed,
            "crux_judge": options.crux_judge.name if options.crux_judge else None,
            "tau": options.tau,
            "gold_judge": options.gold_judge.name if options.gold_judge else None,
            "gold_count": options.gold_count,
            "attention_count": options.attention_count,
            "output_ids": list(options.output_ids) if options.output_ids is not None else None,
            "items": len(specs),
        }
        campaign.save()
        campaign.invited.set(invited)
        items = add_items(campaign, specs)
        if options.gold_judge is not None and options.gold_count:
            mark_gold_from_judge(
                campaign, items, options.gold_judge, options.gold_count, options.seed
            )
        if campaign.suggestion_judge_id is not None:
            check_suggestion_judge(campaign, items)
        if options.attention_count:
            add_attention_checks(campaign, options.attention_count, options.seed)
    return campaign


def check_suggestion_judge(campaign: Campaign, items: Sequence[CampaignItem]) -> None:
    """SelectionError (field ``suggestion_judge``) unless the post-editing campaign's judge is a
    machine judge with labels on some of its items (a judge of another collection has none)."""
    judge = campaign.suggestion_judge
    if judge.kind not in SUGGESTING_KINDS:
        raise SelectionError(
            "suggestion_judge",
            f"judge '{judge.name}' is {judge.get_kind_display().lower()}, not a machine judge: "
            "only an LLM or ensemble judge's labels are shown as suggestions",
        )
    judge_answers = task_type(campaign.task_type).judge_answers
    if judge_answers is None:
        raise SelectionError(
            "suggestion_judge",
            f"task '{campaign.task_type}' cannot show a judge's labels as suggestions",
        )
    if not judge_answers(items, judge):
        raise SelectionError(
            "suggestion_judge",
            f"judge '{judge.name}' has no labels on these items of collection "
            f"'{campaign.collection.name}': there is nothing to suggest",
        )


def _out_of_bounds(value: int | None, low: int, high: int) -> bool:
    return value is not None and not low <= value <= high


def check_bounds(campaign: Campaign, options: SelectionOptions) -> None:
    """SelectionError for the first count of ``campaign`` / ``options`` out of its bounds."""
    bounds = [
        ("sample_size", options.sample_size, 1, MAX_ITEMS),
        ("seed", options.seed, 0, MAX_SEED),
        ("gold_count", options.gold_count, 0, MAX_GOLD_ITEMS),
        ("attention_count", options.attention_count, 0, MAX_ATTENTION_CHECKS),
        ("overlap", campaign.overlap, 1, MAX_OVERLAP),
        ("per_annotator_cap", campaign.per_annotator_cap, 1, MAX_ITEMS),
        ("control_interval", campaign.control_interval, 1, MAX_CONTROL_INTERVAL),
        ("qc_min_answers", campaign.qc_min_answers, 0, MAX_QC_MIN_ANSWERS),
    ]
    for field, value, low, high in bounds:
        if _out_of_bounds(value, low, high):
            raise SelectionError(field, f"{field} must be between {low:,} and {high:,}")


def add_items(campaign: Campaign, specs: Sequence[ItemSpec]) -> list[CampaignItem]:
    return CampaignItem.objects.bulk_create(
        (
            CampaignItem(
                campaign=campaign,
                kind=spec.kind,
                payload=spec.payload,
                topic_id=spec.topic_id,
                subquestion_id=spec.subquestion_id,
                passage_id=spec.passage_id,
                output_id=spec.output_id,
                reference_output_id=spec.reference_output_id,
            )
            for spec in specs
        ),
        batch_size=BATCH,
    )


def add_attention_checks(campaign: Campaign, count: int, seed: int) -> list[CampaignItem]:
    checks = build_attention_checks(campaign.task_type, count, seed)
    return CampaignItem.objects.bulk_create(
        CampaignItem(
            campaign=campaign,
            kind=CampaignItem.Kind.ATTENTION,
            payload=check.payload,
            is_attention_check=True,
            expected_answer=check.expected,
        )
        for check in checks
    )


def rating_judge_answers(items: Sequence[CampaignItem], judge: Judge) -> dict[int, dict]:
    """Item pk -> the judge's rating of the item's (sub-question, passage), where it has one."""
    labels = Judgment.objects.filter(judge=judge, rating__isnull=False)
    answers: dict[int, dict] = {}
    rated = {
        (sq, p): r
        for sq, p, r in labels.filter(task=Judgment.Task.PASSAGE_RATING).values_list(
            "subquestion_id", "passage_id", "rating"
        )
    }
    for item in items:
        rating = rated.get((item.subquestion_id, item.passage_id))
        if rating is not None:
            answers[item.pk] = {"rating": rating}
    return answers


def coverage_judge_answers(items: Sequence[CampaignItem], judge: Judge) -> dict[int, dict]:
    """Item pk -> the judge's yes/no per sub-question of the report, where it judged them all."""
    labels = Judgment.objects.filter(judge=judge, rating__isnull=False)
    answers: dict[int, dict] = {}
    marks = {
        (sq, o): r
        for sq, o, r in labels.filter(task=Judgment.Task.REPORT_COVERAGE).values_list(
            "subquestion_id", "output_id", "rating"
        )
    }
    for item in items:
        questions = item.payload.get("questions", [])
        given = [marks.get((q["subquestion_id"], item.output_id)) for q in questions]
        if questions and all(g is not None for g in given):
            answers[item.pk] = {
                "answers": [
                    {"position": q["position"], "answerable": int(g >= 1)}
                    for q, g in zip(questions, given, strict=True)
                ]
            }
    return answers


def mark_gold_from_judge(
    campaign: Campaign, items: Sequence[CampaignItem], judge: Judge, count: int, seed: int
) -> int:
    """Make ``count`` items (drawn at random among those the judge labelled) gold items."""
    judge_answers = task_type(campaign.task_type).judge_answers
    if judge_answers is None:
        raise SelectionError(
            "gold_judge",
            "gold items from a judge exist for passage rating and report coverage; "
            "upload a gold CSV on the campaign page for this task",
        )
    answers = judge_answers(items, judge)
    if not answers:
        raise SelectionError("gold_judge", f"judge '{judge.name}' has no labels on these items")
    chosen = random.Random(seed).sample(sorted(answers), min(count, len(answers)))
    for pk in chosen:
        CampaignItem.objects.filter(pk=pk).update(is_gold=True, gold_answer=answers[pk])
    return len(chosen)


def apply_gold_csv(campaign: Campaign, text: str, filename: str = "gold.csv") -> int:
    """Set gold answers from a CSV with columns ``item`` (item id) and ``answer``.

    An empty answer removes the item's gold mark. All lines apply, or none; a line the csv
    module cannot read (a field over its 131,072-character limit) names its line.
    """
    reader = csv.DictReader(io.StringIO(text))
    try:
        updates = _gold_updates(campaign, reader, filename)
    except csv.Error as error:
        # DictReader.line_num counts rows read whole; its reader's counts the failing line too.
        raise GoldUploadError(
            f"{filename}, line {reader.reader.line_num}: {_csv_problem(error)}"
        ) from error
    with transaction.atomic():
        for pk, gold in updates.items():
            CampaignItem.objects.filter(pk=pk).update(is_gold=gold is not None, gold_answer=gold)
    return len(updates)


def _csv_problem(error: csv.Error) -> str:
    if "field limit" in str(error):
        # The limit stays the csv module's (process-wide); gold answers are a few characters.
        return (
            f"a field is longer than {csv.field_size_limit():,} characters; a gold CSV holds "
            "item ids and short answers"
        )
    return f"not readable as CSV ({error})"


def _gold_updates(
    campaign: Campaign, reader: csv.DictReader, filename: str
) -> dict[int, dict | None]:
    """Each listed item's parsed gold answer (None: remove its gold mark)."""
    missing = {"item", "answer"} - set(reader.fieldnames or [])
    if missing:
        raise GoldUploadError(f"{filename}: missing column(s) {', '.join(sorted(missing))}")
    items = campaign.items.filter(is_attention_check=False).in_bulk()
    updates: dict[int, dict | None] = {}
    for row in reader:
        where = f"{filename}, line {reader.line_num}"
        raw_id = (row.get("item") or "").strip()
        try:
            item = items[whole_number("item", raw_id)]
        except (InputRefused, KeyError):
            shown = raw_id[:SHOWN_CHARS] + ("..." if len(raw_id) > SHOWN_CHARS else "")
            raise GoldUploadError(
                f"{where}, column item: '{shown}' is not an item of this campaign"
            ) from None
        answer = (row.get("answer") or "").strip()
        try:
            updates[item.pk] = (
                parse_gold_value(campaign.task_type, answer, item.payload) if answer else None
            )
        except AnswerError as error:
            raise GoldUploadError(f"{where}, column answer: {error.message}") from error
    return updates
