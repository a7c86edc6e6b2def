"""The agreement page's link on the collection page (called from ``AgreementConfig.ready``)."""

from crux_app.page_links import PageLink, register_link


def register() -> None:
    from evaluation.agreement.api import register_api

    register_api()
    register_link(PageLink("agreement", "Agreement", "agreement", "collection", 30))
