from django.apps import AppConfig


class ScaarConfig(AppConfig):
    name = "scaar"
    verbose_name = "SCAAR word contributions"
