from django.apps import AppConfig


class BackendsConfig(AppConfig):
    name = "evaluation.backends"
    label = "backends"
    verbose_name = "Model backends"

    def ready(self) -> None:
        from crux_app.jobs.runner import register_usage_source
        from evaluation.backends import token_usage

        register_usage_source(token_usage.take)
