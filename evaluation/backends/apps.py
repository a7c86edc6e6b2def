from django.apps import AppConfig


class BackendsConfig(AppConfig):
    name = "evaluation.backends"
    label = "backends"
    verbose_name = "Model backends"
