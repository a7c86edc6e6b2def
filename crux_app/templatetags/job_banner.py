"""The running-job banner (crux_app.jobs.feeding): ``{% running_jobs "leaderboard" c.pk %}`` or
``{% running_jobs "crux-matrix" c.pk topic.pk %}`` says which pending or running jobs are still
filling the page; ``{% active_jobs "key" c.pk as jobs %}`` gives them to the template.
``{% data_freshness "leaderboard" collection "leaderboard-area" %}`` is the live banner
(crux_app.freshness): those jobs, the time of the page's data, and a refresh once it moved."""

from django import template

from crux_app.freshness import freshness
from crux_app.jobs.feeding import ActiveJob
from crux_app.jobs.feeding import active_jobs as feeding_jobs
from crux_app.models import Collection

register = template.Library()


@register.inclusion_tag("_partials/running_jobs.html")
def running_jobs(page: str, collection_pk: int, topic_pk: int | None = None) -> dict:
    return {"jobs": feeding_jobs(page, collection_pk, topic_pk), "page": page}


@register.simple_tag
def active_jobs(page: str, collection_pk: int, topic_pk: int | None = None) -> list[ActiveJob]:
    return feeding_jobs(page, collection_pk, topic_pk)


@register.inclusion_tag("_partials/data_freshness.html")
def data_freshness(
    page: str, collection: Collection, area: str, topic_pk: int | None = None
) -> dict:
    """The live banner of ``page``: ``collection`` as the view read it before computing the
    figures (its data version and time), ``area`` the id of the figures' element."""
    banner = freshness(page, collection, area, topic_pk)
    return {"freshness": banner, "poll_url": banner.url(collection.pk)}
