"""The running-job banner (crux_app.jobs.feeding): ``{% running_jobs "leaderboard" c.pk %}`` or
``{% running_jobs "crux-matrix" c.pk topic.pk %}`` says which pending or running jobs are still
filling the page; ``{% active_jobs "key" c.pk as jobs %}`` gives them to the template."""

from django import template

from crux_app.jobs.feeding import ActiveJob
from crux_app.jobs.feeding import active_jobs as feeding_jobs

register = template.Library()


@register.inclusion_tag("_partials/running_jobs.html")
def running_jobs(page: str, collection_pk: int, topic_pk: int | None = None) -> dict:
    return {"jobs": feeding_jobs(page, collection_pk, topic_pk), "page": page}


@register.simple_tag
def active_jobs(page: str, collection_pk: int, topic_pk: int | None = None) -> list[ActiveJob]:
    return feeding_jobs(page, collection_pk, topic_pk)
