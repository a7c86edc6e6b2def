"""Webhooks in the admin, read-only: endpoints (never their secrets), events and their
deliveries with every attempt. Endpoints are made and changed on the researcher pages."""

from django.contrib import admin

from .models import Attempt, Delivery, Endpoint, Event


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:  # noqa: ANN001 (Django's signature)
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


@admin.register(Endpoint)
class EndpointAdmin(ReadOnlyAdmin):
    list_display = ["url", "collection", "active", "created_by", "created_at"]
    exclude = ["secret"]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["type", "key", "collection", "created_at"]
    list_filter = ["type"]


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
