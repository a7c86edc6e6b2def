"""Webhooks in the admin, read-only: endpoints (never their secrets), events and their
deliveries with every attempt. Endpoints are made and changed on the researcher pages.

Each staff account sees (and may delete) only its own endpoints, their deliveries and the
events sent to them; a superuser every one (``OwnerScopedAdmin``). An event may go to several
owners' endpoints, so only a superuser deletes events."""

from django.contrib import admin
from django.http import HttpRequest

from crux_app.owner_admin import OwnerScopedAdmin

from .models import Attempt, Delivery, Endpoint, Event


class ReadOnlyAdmin(OwnerScopedAdmin):
    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


@admin.register(Endpoint)
class EndpointAdmin(ReadOnlyAdmin):
    list_display = ["url", "collection", "active", "created_by", "created_at"]
    exclude = ["secret"]
    owner_field = "created_by"


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["type", "key", "collection", "created_at"]
    list_filter = ["type"]
    owner_field = "deliveries__endpoint__created_by"

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser and super().has_delete_permission(request, obj)


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = ["number", "started_at", "status_code", "duration_ms", "error", "response_excerpt"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ["event", "endpoint", "state", "attempts", "next_attempt_at", "finished_at"]
    list_filter = ["state"]
    inlines = [AttemptInline]
    owner_field = "endpoint__created_by"
