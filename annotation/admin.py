"""Campaign, review and aggregation rows in the admin: a staff account that is not a superuser
sees those of the collections its workspaces hold (``crux_app.workspace_admin``)."""

from django.contrib import admin

from crux_app.workspace_admin import SuperuserOnlyAdmin, WorkspaceScopedAdmin

from .models import (
    AggregatedLabel,
    AggregationRun,
    AnnotatorProfile,
    Assignment,
    Campaign,
    CampaignItem,
    ReviewCampaign,
    ReviewDecision,
    ReviewItem,
    WorkerStop,
)


@admin.register(Campaign)
class CampaignAdmin(WorkspaceScopedAdmin):
    list_display = ["name", "collection", "task_type", "state", "overlap", "created_at"]
    list_filter = ["state", "task_type", "collection"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["invited"]


@admin.register(CampaignItem)
class CampaignItemAdmin(WorkspaceScopedAdmin):
    collection_path = "campaign__collection"
    list_display = ["id", "campaign", "kind", "is_gold", "is_attention_check", "annotations_done"]
    list_filter = ["campaign", "kind", "is_gold", "is_attention_check"]
    raw_id_fields = ["topic", "subquestion", "passage", "output", "reference_output"]


@admin.register(Assignment)
class AssignmentAdmin(WorkspaceScopedAdmin):
    collection_path = "campaign__collection"
    list_display = ["id", "campaign", "item", "annotator", "state", "submitted_at"]
    list_filter = ["campaign", "state"]
    raw_id_fields = ["item", "annotator"]


@admin.register(AnnotatorProfile)
class AnnotatorProfileAdmin(SuperuserOnlyAdmin):
    list_display = [
        "user",
        "source",
        "prolific_pid",
        "prolific_study_id",
        "prolific_entered_at",
        "created_at",
    ]
    list_filter = ["source"]
    search_fields = ["user__username", "prolific_pid"]


class ReadOnlyAdmin(WorkspaceScopedAdmin):
    """Review rows are made by the review pages and commands (an item's candidates and a
    decision's adjudicated judgment go together): the admin only shows them."""

    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


@admin.register(ReviewCampaign)
class ReviewCampaignAdmin(ReadOnlyAdmin):
    list_display = ["name", "collection", "task_type", "kind", "sampling", "state", "created_at"]
    list_filter = ["state", "task_type", "collection"]
    search_fields = ["name", "slug"]


@admin.register(ReviewItem)
class ReviewItemAdmin(ReadOnlyAdmin):
    collection_path = "campaign__collection"
    list_display = ["id", "campaign", "key", "gap", "inclusion"]
    list_filter = ["campaign"]
    raw_id_fields = ["topic", "subquestion", "passage", "output"]


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(ReadOnlyAdmin):
    collection_path = "campaign__collection"
    list_display = ["id", "campaign", "reviewer", "option", "decided_at"]
    list_filter = ["campaign"]
    raw_id_fields = ["item", "reviewer"]


@admin.register(AggregationRun)
class AggregationRunAdmin(ReadOnlyAdmin):
    """Made by ``aggregate_labels`` (page, command, API) with its judge's labels."""

    list_display = ["id", "judge", "collection", "task_type", "method", "n_items", "created_at"]
    list_filter = ["method", "task_type", "collection"]


@admin.register(AggregatedLabel)
class AggregatedLabelAdmin(ReadOnlyAdmin):
    collection_path = "run__collection"
    list_display = ["id", "run", "key", "label", "confidence", "n_labels"]
    list_filter = ["run"]
    raw_id_fields = ["run", "topic"]


@admin.register(WorkerStop)
class WorkerStopAdmin(ReadOnlyAdmin):
    collection_path = "campaign__collection"
    list_display = ["id", "campaign", "annotator", "reason", "detail"]
    list_filter = ["reason", "campaign"]
    raw_id_fields = ["campaign", "annotator"]
