"""The "Judge vs people" page's links: on the collection page, and on the leaderboard and
agreement pages (places of ``crux_app.page_links`` those pages render). Called from
``JudgeReportConfig.ready``."""

from crux_app.page_links import PageLink, register_link

TITLE = "Do two judges rank the runs alike? Kendall tau, tau-AP and PPI estimates"


def register() -> None:
    from evaluation.judge_report.api import register_api

    register_api()
    register_link(
        PageLink("judge_report", "Judge vs people", "judge-report", "collection", 35, title=TITLE)
    )
    # The cross-method pages' own places: they list the links registered for them.
    for place in ("leaderboard", "agreement"):
        register_link(
            PageLink(
                f"judge_report-{place}",
                "Judge vs people",
                "judge-report",
                place,
                35,
                title=TITLE,
                collection_url=True,
            )
        )
