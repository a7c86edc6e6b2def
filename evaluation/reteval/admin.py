from django.contrib import admin

from evaluation.reteval.models import Comparison, RetEvalResult


@admin.register(Comparison)
class ComparisonAdmin(admin.ModelAdmin):
    list_display = ("rag_output", "reference", "judge", "prompt_version", "verdict")
    list_filter = ("judge", "prompt_version", "verdict")
    raw_id_fields = ("rag_output", "reference")


@admin.register(RetEvalResult)
class RetEvalResultAdmin(admin.ModelAdmin):
    list_display = ("topic", "run", "k", "judge", "recall", "verdict", "category")
    list_filter = ("run", "k", "judge", "category")
    raw_id_fields = ("topic", "run", "rag_output", "job")
