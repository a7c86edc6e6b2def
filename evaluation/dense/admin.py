from django.contrib import admin

from evaluation.dense.models import DenseLabel, DenseResult


@admin.register(DenseResult)
class DenseResultAdmin(admin.ModelAdmin):
    list_display = ("topic", "run", "k", "dse", "uncertain", "correct", "generator", "nli")
    list_filter = ("uncertain", "k", "generator", "nli")
    search_fields = ("topic__external_id", "answer", "final_answer")
    raw_id_fields = ("topic", "run")


@admin.register(DenseLabel)
class DenseLabelAdmin(admin.ModelAdmin):
    list_display = ("judge", "result", "kind", "i", "j", "value", "machine_decision")
    list_filter = ("kind", "value")
    raw_id_fields = ("judge", "result")
