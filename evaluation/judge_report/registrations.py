"""The "Judge vs people" page's link on the collection page (called from
``JudgeReportConfig.ready``)."""

from crux_app.page_links import PageLink, register_link


def register() -> None:
    register_link(
        PageLink(
            "judge_report",
            "Judge vs people",
            "judge-report",
            "collection",
            35,
            title="Do two judges rank the runs alike? Kendall tau, tau-AP and PPI estimates",
        )
    )
