"""The ensemble judges of a collection, what each combines and whether it is stale, for pages
that list judges: ``{% load judge_ensembles %}{% ensemble_notes collection.pk %}``."""

from django import template

from crux_app.judge_ensembles import ensemble_statuses
from crux_app.models import Collection

register = template.Library()


@register.inclusion_tag("_partials/ensemble_notes.html")
def ensemble_notes(collection_pk: int) -> dict:
    collection = Collection.objects.filter(pk=collection_pk).first()
    statuses = ensemble_statuses(collection) if collection is not None else {}
    return {"ensembles": sorted(statuses.values(), key=lambda s: s.name)}
