"""The agreement page's link on the collection page (called from ``AgreementConfig.ready``)."""

from crux_app.page_links import PageLink, register_link


def register() -> None:
    register_link(PageLink("agreement", "Agreement", "agreement", "collection", 30))
