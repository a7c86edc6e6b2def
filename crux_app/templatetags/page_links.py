"""The links that methods registered for a shared page (crux_app.page_links):
``{% page_links "collection" collection_pk %}`` or ``{% page_links "topic" collection_pk topic %}``.
"""

from django import template

from crux_app.page_links import links_for

register = template.Library()


@register.inclusion_tag("_partials/page_links.html", takes_context=True)
def page_links(context, place: str, collection_pk: int, topic=None) -> dict:
    return {
        "links": links_for(place, collection_pk, topic, page=context.get("page")),
        "csrf_token": context.get("csrf_token"),
        "place": place,
    }
