"""Admin pages of rows that belong to a collection: a staff account that is not a superuser sees
the rows of the collections its workspaces hold (``Collection.objects.visible_to``), changes and
deletes only those it may write, and picks only those in forms; another workspace's row is "not
found", as on the researcher pages. A superuser sees every row.

Django's model permissions say what a staff account may do to a kind of row; this says which
rows, as ``crux_app.owner_admin.OwnerScopedAdmin`` does for rows owned by one account.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import ForeignKey, Model, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest

from crux_app.access import workspaces_of
from crux_app.models import (
    Collection,
    GeneratedOutput,
    Passage,
    Run,
    SubQuestion,
    Topic,
    Workspace,
)

# The rows a form may point at, by the path to their collection's id: a non-superuser picks
# (or types the id of, in a raw-id field) only rows of collections it may write.
PICKED_BY_COLLECTION = {
    Collection: "pk",
    Topic: "collection",
    Passage: "collection",
    Run: "collection",
    GeneratedOutput: "collection",
    SubQuestion: "topic__collection",
}


class WorkspaceScopedAdmin(admin.ModelAdmin):
    # The lookup path from a row to its collection's id ("pk" for a collection itself).
    collection_path: str = "collection"

    def collections(self, request: HttpRequest, *, write: bool = False) -> QuerySet[Collection]:
        return Collection.objects.visible_to(request.user, write=write)

    def _scoped(self, rows: QuerySet[Any], request: HttpRequest, *, write: bool = False):
        ids = self.collections(request, write=write).values("pk")
        return rows.filter(**{f"{self.collection_path}__in": ids})

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        return rows if request.user.is_superuser else self._scoped(rows, request)

    def may_write(self, request: HttpRequest, obj: Model | None) -> bool:
        """Whether the account may change or delete ``obj`` (None: the kind of row)."""
        if obj is None or request.user.is_superuser:
            return True
        rows = type(obj)._base_manager.filter(pk=obj.pk)
        return self._scoped(rows, request, write=True).exists()

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        seen = obj is None or self.get_queryset(request).filter(pk=obj.pk).exists()
        return super().has_view_permission(request, obj) and seen

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_change_permission(request, obj) and self.may_write(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_delete_permission(request, obj) and self.may_write(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        # The bulk action deletes what the list shows, which includes read-only rows.
        if not all(self.has_delete_permission(request, obj) for obj in queryset):
            raise PermissionDenied("You may not delete some of these rows.")
        super().delete_queryset(request, queryset)

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        """A relation's filter lists only the related rows the account's rows point at (the
        default lists every collection, every run: other workspaces' names)."""
        filters = list(super().get_list_filter(request))
        if request.user.is_superuser:
            return filters
        return [
            (f, admin.RelatedOnlyFieldListFilter) if self._is_relation(f) else f for f in filters
        ]

    def _is_relation(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        model = self.model
        for part in name.split("__"):
            field = model._meta.get_field(part)
            if not field.is_relation:
                return False
            model = field.related_model
        return True

    def formfield_for_foreignkey(
        self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField:
        target = db_field.related_model
        if not request.user.is_superuser:
            if target in PICKED_BY_COLLECTION:
                ids = self.collections(request, write=True).values("pk")
                path = PICKED_BY_COLLECTION[target]
                kwargs["queryset"] = target._default_manager.filter(**{f"{path}__in": ids})
            elif target is Workspace:
                kwargs["queryset"] = workspaces_of(request.user, write=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class SuperuserOnlyAdmin(admin.ModelAdmin):
    """Rows no workspace holds (workspaces, their members, annotators' profiles): superusers
    only (managers use the members page)."""

    def has_module_permission(self, request) -> bool:  # noqa: ANN001
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser
