from django.contrib import admin

from evaluation.nuggets.models import (
    AnswerSentence,
    Nugget,
    NuggetAssignment,
    NuggetEdit,
    NuggetPassageRating,
    SentenceSupport,
)


@admin.register(Nugget)
class NuggetAdmin(admin.ModelAdmin):
    list_display = ("topic", "position", "importance", "text")
    list_filter = ("importance",)
    raw_id_fields = ("topic", "subquestion")


@admin.register(AnswerSentence)
class AnswerSentenceAdmin(admin.ModelAdmin):
    list_display = ("output", "position", "text", "citations")
    raw_id_fields = ("output",)


@admin.register(NuggetAssignment)
class NuggetAssignmentAdmin(admin.ModelAdmin):
    list_display = ("judge", "nugget", "output", "assignment")
    list_filter = ("judge", "assignment")
    raw_id_fields = ("nugget", "output")


@admin.register(NuggetPassageRating)
class NuggetPassageRatingAdmin(admin.ModelAdmin):
    list_display = ("judge", "nugget", "passage", "rating")
    list_filter = ("judge", "rating")
    raw_id_fields = ("nugget", "passage")


@admin.register(SentenceSupport)
class SentenceSupportAdmin(admin.ModelAdmin):
    list_display = ("judge", "sentence", "passage", "grade")
    list_filter = ("judge", "grade")
    raw_id_fields = ("sentence", "passage")


@admin.register(NuggetEdit)
class NuggetEditAdmin(admin.ModelAdmin):
    list_display = ("topic", "campaign", "user", "sequence", "op", "applied_at")
    list_filter = ("op",)
    raw_id_fields = ("topic", "assignment", "user")
