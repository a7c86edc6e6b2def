from django.contrib import admin

from evaluation.scaar.models import ScaarAnalysis


@admin.register(ScaarAnalysis)
class ScaarAnalysisAdmin(admin.ModelAdmin):
    list_display = ["output", "collection", "generator", "n_sentences", "n_retrievals"]
    list_filter = ["collection", "generator", "embedder", "logprob_source"]
    raw_id_fields = ["output", "collection", "topic"]
