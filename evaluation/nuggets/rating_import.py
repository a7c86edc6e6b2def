"""Import one judge's nugget-passage ratings (0-5, CRUX's answerability scale with the nugget
as the sub-question): what the "where lost" view reads to tell a retrieval miss from a
generation drop. Nuggets are matched by topic and text, passages by docid (created without
text when missing); a re-import replaces the judge's ratings of the file's nuggets."""

from __future__ import annotations

from crux_app.dataio.collection_store import CollectionStore
from crux_app.dataio.errors import ImportFailure
from crux_app.dataio.results import ImportResult
from crux_app.models import Judge
from evaluation.nuggets.file_records import PassageRating, read_ratings
from evaluation.nuggets.judged_import import JudgedImport
from evaluation.nuggets.models import Nugget, NuggetPassageRating


def _write_ratings(
    store: CollectionStore,
    judge_row: Judge,
    ratings: list[PassageRating],
    label: str,
    result: ImportResult,
) -> None:
    nuggets = {
        (n.topic_id, n.text): n
        for n in Nugget.objects.filter(topic__collection=store.collection).order_by("-position")
    }
    result.add("passages created", store.ensure_passages(r.docid for r in ratings))
    rows = []
    for rating in ratings:
        topic_id = store.topic_ids.get(rating.qid)
        if topic_id is None:
            raise ImportFailure(label, rating.line, f"unknown topic '{rating.qid}'")
        nugget = nuggets.get((topic_id, rating.nugget))
        if nugget is None:
            raise ImportFailure(
                label,
                rating.line,
                f"topic '{rating.qid}' has no nugget {rating.nugget[:80]!r}",
            )
        rows.append(
            NuggetPassageRating(
                judge=judge_row,
                nugget=nugget,
                passage_id=store.passage_ids[rating.docid],
                rating=rating.rating,
            )
        )
    NuggetPassageRating.objects.filter(
        judge=judge_row, nugget__in={row.nugget_id for row in rows}
    ).delete()
    NuggetPassageRating.objects.bulk_create(rows)
    result.add("ratings", len(rows))


import_nugget_ratings = JudgedImport("nugget-ratings", read_ratings, _write_ratings)
