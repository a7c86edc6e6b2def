"""The page a judging job fills, linked from the job's page: the coverage matrix of its topic,
or the collection's leaderboard at the job's k under the job's judge (once that judge has rated
passages there: before, the leaderboard shows its default judge)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

from crux_app.models import Job, Judgment
from evaluation.leaderboard.forms import MAX_K


def judging_results_url(job: Job) -> str | None:
    if job.collection_id is None:
        return None
    if job.topic_id is not None:
        return reverse("crux-topic", args=[job.collection_id, job.topic_id])
    query: dict[str, object] = {}
    k = job.params.get("k")
    if isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= MAX_K:
        query["k"] = k
    judge = job.params.get("judge")
    if isinstance(judge, str) and _rated_passages(job, judge):
        query["judge"] = judge
    url = reverse("leaderboard", args=[job.collection_id])
    return f"{url}?{urlencode(query)}" if query else url


def judging_results_label(job: Job) -> str:
    if job.topic_id is not None:
        return "Coverage matrix of the topic"
    return "Leaderboard of the collection"


def _rated_passages(job: Job, judge: str) -> bool:
    return Judgment.objects.filter(
        judge__name=judge,
        topic__collection_id=job.collection_id,
        task=Judgment.Task.PASSAGE_RATING,
    ).exists()
