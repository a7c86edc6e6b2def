from django.contrib import admin

from . import models
from .data_version import DataVersionAdmin
from .workspace_admin import SuperuserOnlyAdmin, WorkspaceScopedAdmin
from .workspaces import may_manage


@admin.register(models.Collection)
class CollectionAdmin(WorkspaceScopedAdmin):
    """A non-superuser's collections are its workspaces'; only their managers delete one."""

    collection_path = "pk"
    list_display = ["name", "workspace", "kind", "created_at"]
    list_filter = ["workspace"]
    search_fields = ["name"]

    def has_delete_permission(self, request, obj=None) -> bool:  # noqa: ANN001 (Django's)
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or may_manage(request.user, obj.workspace))


class WorkspaceMemberInline(admin.TabularInline):
    model = models.WorkspaceMember
    extra = 0
    raw_id_fields = ["user"]


@admin.register(models.Workspace)
class WorkspaceAdmin(SuperuserOnlyAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]
    inlines = [WorkspaceMemberInline]


@admin.register(models.WorkspaceMember)
class WorkspaceMemberAdmin(SuperuserOnlyAdmin):
    list_display = ["workspace", "user", "role", "created_at"]
    list_filter = ["workspace", "role"]
    search_fields = ["user__username", "workspace__name"]
    raw_id_fields = ["user"]


@admin.register(models.Topic)
class TopicAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    list_display = ["external_id", "collection"]
    list_filter = ["collection"]
    search_fields = ["external_id", "request"]


@admin.register(models.SubQuestion)
class SubQuestionAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "topic__collection"
    list_display = ["topic", "position", "text", "is_placeholder"]
    list_filter = ["topic__collection"]
    search_fields = ["text", "topic__external_id"]
    raw_id_fields = ["topic"]


@admin.register(models.Passage)
class PassageAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    list_display = ["external_id", "collection", "has_text", "token_count"]
    list_filter = ["collection", "has_text"]
    search_fields = ["external_id", "text"]


@admin.register(models.Run)
class RunAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    list_display = ["name", "collection"]
    list_filter = ["collection"]


@admin.register(models.RunEntry)
class RunEntryAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "run__collection"
    list_display = ["run", "topic", "rank", "passage", "score"]
    list_filter = ["run"]
    raw_id_fields = ["topic", "passage"]


class OutputContextInline(admin.TabularInline):
    model = models.OutputContext
    raw_id_fields = ["passage"]
    extra = 0


@admin.register(models.GeneratedOutput)
class GeneratedOutputAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    list_display = ["external_id", "system", "kind", "topic", "generator"]
    list_filter = ["collection", "system", "kind"]
    search_fields = ["external_id", "text"]
    raw_id_fields = ["topic", "run"]
    inlines = [OutputContextInline]


@admin.register(models.Judge)
class JudgeAdmin(DataVersionAdmin):
    list_display = ["name", "kind", "model_id", "prompt_version", "user"]
    list_filter = ["kind"]


@admin.register(models.Judgment)
class JudgmentAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "topic__collection"
    list_display = ["judge", "task", "topic", "subquestion", "passage", "output", "rating"]
    list_filter = ["judge", "task"]
    raw_id_fields = ["topic", "subquestion", "passage", "output"]


@admin.register(models.CoverageLabel)
class CoverageLabelAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "output__collection"
    list_display = ["judge", "output", "coverage"]
    raw_id_fields = ["output"]


@admin.register(models.PassageQrel)
class PassageQrelAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "topic__collection"
    list_display = ["topic", "passage", "grade", "source"]
    raw_id_fields = ["topic", "passage"]


@admin.register(models.SubtopicQrel)
class SubtopicQrelAdmin(WorkspaceScopedAdmin, DataVersionAdmin):
    collection_path = "topic__collection"
    list_display = ["topic", "subquestion", "passage", "relevant"]
    raw_id_fields = ["topic", "subquestion", "passage"]


@admin.register(models.WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    """The workers' own reports (crux_app.jobs.heartbeat): read here, written by the workers."""

    list_display = ["hostname", "queues", "concurrency", "seen_at"]


class JobShardInline(admin.TabularInline):
    """A job's shards (crux_app.jobs.shards): written by the workers under their leases."""

    model = models.JobShard
    extra = 0
    can_delete = False
    fields = ["index", "state", "size", "done", "worker", "heartbeat_at", "stalled_worker"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001 (Django's signature)
        return False


class JobModelUsageInline(admin.TabularInline):
    """A job's model calls and tokens per role, as the workers counted them: read-only."""

    model = models.JobModelUsage
    extra = 0
    can_delete = False
    fields = ["role", "calls", "forward_tokens", "prompt_tokens", "completion_tokens"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001 (Django's signature)
        return False


@admin.register(models.Job)
class JobAdmin(WorkspaceScopedAdmin):
    list_display = ["id", "kind", "state", "done", "total", "collection", "created_at"]
    list_filter = ["kind", "state"]
    inlines = [JobShardInline, JobModelUsageInline]


# Ensemble judges (built by ``manage.py ensemble_judge``); builds are read-only.
class JudgeEnsembleMemberInline(admin.TabularInline):
    model = models.JudgeEnsembleMember
    extra = 0
    raw_id_fields = ["judge"]


@admin.register(models.JudgeEnsemble)
class JudgeEnsembleAdmin(admin.ModelAdmin):
    list_display = ["judge", "combiner", "min_members"]
    inlines = [JudgeEnsembleMemberInline]
    raw_id_fields = ["judge"]


@admin.register(models.EnsembleBuild)
class EnsembleBuildAdmin(WorkspaceScopedAdmin):
    list_display = ["ensemble", "collection", "built_at"]
    list_filter = ["collection"]
    readonly_fields = ["ensemble", "collection", "built_at", "member_fingerprints", "counts"]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(models.AuditEvent)
class AuditEventAdmin(WorkspaceScopedAdmin):
    """Read only: the trail is append-only (the database refuses changes too)."""

    collection_path = "collection_id"

    list_display = ("at", "kind", "username", "origin", "collection_id", "table", "row_id")
    list_filter = ("origin",)
    search_fields = ("kind", "username")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
