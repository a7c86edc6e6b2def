from django.apps import AppConfig


class RetevalConfig(AppConfig):
    name = "reteval"
    verbose_name = "LLM-retEval retriever evaluation"
