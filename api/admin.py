"""API tokens in the admin: who holds which, when last used, revoked or not (the token itself is
never stored; its digest is not shown)."""

from django.contrib import admin

from .models import ApiToken, ExportFile


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    fields = ["user", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False  # made on the account page or by manage.py create_api_token (shown once)


@admin.register(ExportFile)
class ExportFileAdmin(admin.ModelAdmin):
    """Files of asynchronous exports: made by export jobs, swept when they expire."""

    list_display = ["job", "filename", "rows", "size", "created_at", "expires_at"]
    readonly_fields = [
        "job", "path", "filename", "content_type", "rows", "size", "created_at", "expires_at"
    ]  # fmt: skip

    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False
