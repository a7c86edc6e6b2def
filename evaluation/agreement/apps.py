"""The agreement page's declaration: its link on the collection page and its API endpoint."""

from crux_app.method_config import Declaration, PluginConfig


class AgreementConfig(PluginConfig):
    name = "evaluation.agreement"
    label = "agreement"
    verbose_name = "Human vs machine agreement"

    def declare(self) -> Declaration:
        from crux_app.page_links import PageLink
        from evaluation.agreement.api import api_endpoints

        return Declaration(
            page_links=(
                PageLink(
                    "agreement", "Agreement", "agreement", "collection", after=("leaderboard",)
                ),
            ),
            api_endpoints=api_endpoints(),
        )
