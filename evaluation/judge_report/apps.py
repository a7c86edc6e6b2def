"""The "Judge vs people" page's declaration: its links on the collection page and on the
leaderboard and agreement pages (places of ``crux_app.page_links`` those pages render), and its
API endpoint."""

from crux_app.method_config import Declaration, PluginConfig

TITLE = "Do two judges rank the runs alike? Kendall tau, tau-AP and PPI estimates"


class JudgeReportConfig(PluginConfig):
    name = "evaluation.judge_report"
    label = "judge_report"
    verbose_name = "Judge vs people: run rankings and prediction-powered estimates"

    def declare(self) -> Declaration:
        from crux_app.page_links import PageLink
        from evaluation.judge_report.api import api_endpoints

        return Declaration(
            page_links=(
                PageLink(
                    "judge_report",
                    "Judge vs people",
                    "judge-report",
                    "collection",
                    after=("agreement",),
                    title=TITLE,
                ),
                # The cross-method pages' own places: they list the links declared for them.
                *(
                    PageLink(
                        f"judge_report-{place}",
                        "Judge vs people",
                        "judge-report",
                        place,
                        title=TITLE,
                        collection_url=True,
                    )
                    for place in ("leaderboard", "agreement")
                ),
            ),
            api_endpoints=api_endpoints(),
        )
