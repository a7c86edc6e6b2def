"""The agreement page's "Review these disagreements" link: the page's selection (its judges,
and the disagreement filter's task, topic and gap) as the query of the new review campaign
form, which opens pre-filled with it. The page lists disagreements between a person and a
machine judge, or between two people when no machine judge is chosen: the form's kind says
the same."""

from __future__ import annotations

from collections.abc import Sequence

from django.http import QueryDict

from crux_app.models import Collection
from evaluation.agreement.label_tables import Rater

# The new review campaign form's kinds of disagreement (annotation.review.queue.KINDS).
PERSON_VS_MACHINE = "annotator_machine"
BETWEEN_PEOPLE = "annotators"


def review_query(
    collection: Collection,
    judges: Sequence[str],
    raters: Sequence[Rater],
    filters: dict[str, object] | None,
) -> str:
    """The form's query for the page's ``judges`` (none: every judge of ``raters``) and its
    valid disagreement ``filters`` (the filter form's cleaned data; None when invalid)."""
    query = QueryDict(mutable=True)
    query["collection"] = str(collection.pk)
    if judges:
        query.setlist("judges", list(judges))
    chosen = [r for r in raters if not judges or r.name in judges]
    query["kind"] = PERSON_VS_MACHINE if any(r.is_machine for r in chosen) else BETWEEN_PEOPLE
    filters = filters or {}
    if filters.get("task"):
        query["task_type"] = str(filters["task"])
    topic = filters.get("topic")
    if topic is not None:
        query["topics"] = topic.external_id
    if filters.get("gap") is not None:
        query["min_gap"] = f"{filters['gap']:g}"
    return query.urlencode()
