"""Admin pages of the ensemble judges (crux_app's models, registered here because this app
builds them: ``manage.py ensemble_judge``). Builds are read-only: the command writes them."""

from django.contrib import admin

from crux_app.models import EnsembleBuild, JudgeEnsemble, JudgeEnsembleMember


class JudgeEnsembleMemberInline(admin.TabularInline):
    model = JudgeEnsembleMember
    extra = 0
    raw_id_fields = ["judge"]


@admin.register(JudgeEnsemble)
class JudgeEnsembleAdmin(admin.ModelAdmin):
    list_display = ["judge", "combiner", "min_members"]
    inlines = [JudgeEnsembleMemberInline]
    raw_id_fields = ["judge"]


@admin.register(EnsembleBuild)
class EnsembleBuildAdmin(admin.ModelAdmin):
    list_display = ["ensemble", "collection", "built_at"]
    list_filter = ["collection"]
    readonly_fields = ["ensemble", "collection", "built_at", "member_fingerprints", "counts"]

    def has_add_permission(self, request) -> bool:
        return False
