from django.apps import AppConfig


class DenseConfig(AppConfig):
    name = "dense"
    verbose_name = "DENSE uncertainty"
