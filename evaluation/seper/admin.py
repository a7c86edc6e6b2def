from django.contrib import admin

from evaluation.seper.models import AnswerEquivalenceDecision, AnswerEquivalenceLabel, SeperScore


@admin.register(SeperScore)
class SeperScoreAdmin(admin.ModelAdmin):
    list_display = ["topic", "context_kind", "passage", "run", "k", "generator", "seper_s"]
    list_filter = ["context_kind", "generator", "nli"]
    raw_id_fields = ["topic", "passage", "run"]


@admin.register(AnswerEquivalenceLabel)
class AnswerEquivalenceLabelAdmin(admin.ModelAdmin):
    list_display = ["topic", "judge", "cluster_index", "response_index", "equivalent"]
    list_filter = ["equivalent", "machine_decision", "judge"]
    search_fields = ["response_text"]
    raw_id_fields = ["judge", "topic", "subquestion", "seper_score"]


@admin.register(AnswerEquivalenceDecision)
class AnswerEquivalenceDecisionAdmin(admin.ModelAdmin):
    list_display = ["topic", "nli", "source", "equivalent"]
    list_filter = ["source", "nli"]
    search_fields = ["response_text"]
    raw_id_fields = ["topic", "subquestion", "output"]
