"""What a new campaign would be, before it is made: the new-campaign form's live preview.

The item count comes from the same selection as the creation (``select_keys``, which reads no
texts); the warnings say when the chosen overlap cannot be reached by the annotators invited,
or when the cap per annotator leaves labels missing. The campaign page shows the overlap
warning too, counting the annotators invited or already working.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.campaigns.setup import MAX_ITEMS, SelectionOptions
from annotation.quality.progress import overlap_warning
from annotation.queue.selection import SelectionError, select_keys
from crux_app.models import Collection


@dataclass(frozen=True)
class CampaignPreview:
    items: int = 0
    attention: int = 0
    gold: int = 0
    overlap: int = 1
    annotators: int = 0
    problem: str = ""  # why the selection gives no items, naming the field
    problem_field: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def labels_needed(self) -> int:
        return self.items * self.overlap


def cap_warning(cap: int | None, annotators: int, labels_needed: int) -> str:
    if cap is None or annotators == 0 or cap * annotators >= labels_needed:
        return ""
    return (
        f"A cap of {cap:,} items per annotator gives at most {cap * annotators:,} labels from "
        f"{annotators} annotators; the items need {labels_needed:,}."
    )


def preview_campaign(
    collection: Collection,
    task_type: str,
    options: SelectionOptions,
    *,
    overlap: int,
    cap: int | None = None,
    annotators: int = 0,
    prolific: bool = False,
) -> CampaignPreview:
    """The counts and warnings of a campaign made with these settings (nothing is written)."""
    try:
        keys = select_keys(
            collection,
            task_type,
            options.mode,
            sample_size=options.sample_size,
            seed=options.seed,
            judge=options.crux_judge,
            tau=options.tau,
            output_ids=options.output_ids,
        )
    except SelectionError as error:
        return CampaignPreview(
            overlap=overlap, annotators=annotators, problem=str(error), problem_field=error.field
        )
    items = len(keys)
    warnings = [
        overlap_warning(overlap, annotators, prolific),
        cap_warning(cap, annotators, items * overlap),
    ]
    if items + options.attention_count > MAX_ITEMS:
        warnings.append(
            f"{items + options.attention_count:,} items: a campaign holds at most "
            f"{MAX_ITEMS:,} (sample them)."
        )
    gold = min(options.gold_count, items) if options.gold_judge is not None else 0
    return CampaignPreview(
        items=items,
        attention=options.attention_count,
        gold=gold,
        overlap=overlap,
        annotators=annotators,
        warnings=tuple(w for w in warnings if w),
    )
