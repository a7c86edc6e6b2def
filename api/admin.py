"""API tokens in the admin: who holds which, when last used, when it expires, revoked or not (the
token itself is never stored; its digest is not shown). A staff account sees and deletes only
its own tokens and the files of its own exports; a superuser every one."""

from django.contrib import admin

from crux_app.owner_admin import OwnerScopedAdmin

from .models import ApiToken, ExportFile


@admin.register(ApiToken)
class ApiTokenAdmin(OwnerScopedAdmin):
    list_display = [
        "name", "user", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at"
    ]  # fmt: skip
    list_filter = ["revoked_at"]
    fields = ["user", "name", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]
    readonly_fields = fields
    owner_field = "user"

    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False  # made on the account page or by manage.py create_api_token (shown once)


@admin.register(ExportFile)
class ExportFileAdmin(OwnerScopedAdmin):
    """Files of asynchronous exports: made by export jobs, swept when they expire."""

    owner_field = "job__created_by"
    list_display = ["job", "filename", "rows", "size", "created_at", "expires_at"]
    readonly_fields = [
        "job", "path", "filename", "content_type", "rows", "size", "created_at", "expires_at"
    ]  # fmt: skip

    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False
