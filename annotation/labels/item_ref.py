"""What a review item is in the shared tables: the reference the queue's loader
(``annotation/labels/collection.py``) and the methods' review label sources
(``annotation/labels/sources.py``) both use, kept apart so neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass

# A label as the review queue compares it: a rating, a category, yes/no.
Label = int | str


@dataclass(frozen=True)
class ItemRef:
    """What an item is in the shared tables (for the review payload and adjudicated labels)."""

    topic_id: int
    subquestion_id: int | None = None
    passage_id: int | None = None
    output_id: int | None = None
    reference_output_id: int | None = None
    # A method's own row the item is about, where the shared tables cannot name it (the nugget
    # of a nugget assignment); read by the method's review label source only.
    own_id: int | None = None
