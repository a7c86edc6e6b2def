"""Webhook pages (researchers only): the endpoints, a new one (its secret shown once, after a
redirect), an endpoint's delivery log with "send test event", and a delivery's attempts with
"redeliver".
Each researcher sees and changes only the endpoints they made; a superuser every one."""

from __future__ import annotations

import json

from django.contrib import messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.decorators import method_decorator
from django.views import View

from crux_app.list_paging import list_form, list_page, refused
from crux_app.response_compression import never_compress
from crux_app.roles import ResearcherRequiredMixin

from .events import redeliver, send_test_event
from .forms import ActiveForm, EndpointForm
from .models import Delivery, Endpoint

DELIVERIES_PER_PAGE = 50
NEW_SECRET_KEY = "webhooks.new_secret"


def _endpoints(request: HttpRequest) -> QuerySet[Endpoint]:
    """The account's own endpoints (every one for a superuser); another's answers 404."""
    return Endpoint.objects.visible_to(request.user)


def _deliveries(request: HttpRequest) -> QuerySet[Delivery]:
    return Delivery.objects.filter(endpoint__in=_endpoints(request))


class EndpointListView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        endpoints = (
            Endpoint.objects.visible_to(request.user)
            .select_related("collection", "created_by")
            .annotate(n_deliveries=Count("deliveries"))
        )
        return render(request, "webhooks/endpoint_list.html", {"endpoints": endpoints})


class EndpointCreateView(ResearcherRequiredMixin, View):
    """GET: the form. POST: a valid form makes the endpoint, keeps its secret in the session and
    redirects to the page that shows it once; an invalid one is shown again (400)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return render(request, "webhooks/endpoint_form.html", {"form": EndpointForm(who=request)})

    def post(self, request: HttpRequest) -> HttpResponse:
        form = EndpointForm(request.POST, who=request)
        if not form.is_valid():
            return render(request, "webhooks/endpoint_form.html", {"form": form}, status=400)
        data = form.cleaned_data
        endpoint = Endpoint.objects.create(
            url=data["url"],
            secret=data["secret"],
            collection=data["collection"],
            events=list(data["events"]),
            created_by=request.user,
        )
        # Post/redirect/get: a reload re-sends nothing. The secret waits in the session (a
        # server-side row, never a cookie or a message) until the next page pops it.
        request.session[NEW_SECRET_KEY] = {"endpoint": endpoint.pk, "secret": data["secret"]}
        return redirect("webhook-created", pk=endpoint.pk)


@method_decorator(never_compress, name="dispatch")  # shows a secret once: BREACH
class EndpointCreatedView(ResearcherRequiredMixin, View):
    """The new endpoint's secret, shown once (popped from the session); afterwards, or for
    another endpoint, the endpoint's page."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        endpoint = get_object_or_404(_endpoints(request).select_related("collection"), pk=pk)
        new = request.session.get(NEW_SECRET_KEY)
        if not new or new.get("endpoint") != endpoint.pk:
            return redirect("webhook-detail", pk=endpoint.pk)
        del request.session[NEW_SECRET_KEY]
        context = {"endpoint": endpoint, "secret": new.get("secret", "")}
        response = render(request, "webhooks/endpoint_created.html", context)
        response["Cache-Control"] = "no-store"
        return response


class EndpointDetailView(ResearcherRequiredMixin, View):
    """The endpoint and its delivery log, newest first, paged."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        endpoint = get_object_or_404(_endpoints(request).select_related("collection"), pk=pk)
        paging = list_form(request.GET)
        if (bad := refused(paging)) is not None:
            return bad
        deliveries = endpoint.deliveries.select_related("event").order_by("-created_at", "-id")
        listing = list_page(paging, deliveries, default_size=DELIVERIES_PER_PAGE)
        context = {"endpoint": endpoint, "listing": listing}
        return render(request, "webhooks/endpoint_detail.html", context)


class EndpointTestView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        endpoint = get_object_or_404(_endpoints(request), pk=pk)
        delivery = send_test_event(endpoint)
        messages.success(request, "Sent a test event; its attempts are listed below.")
        return redirect("webhook-delivery", pk=delivery.pk)


class EndpointActiveView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        endpoint = get_object_or_404(_endpoints(request), pk=pk)
        form = ActiveForm(request.POST)
        if (bad := refused(form)) is not None:
            return bad
        endpoint.active = form.cleaned_data["active"]
        endpoint.save(update_fields=["active"])
        state = "on: it receives new events" if endpoint.active else "off: no new events"
        messages.success(request, f"The webhook is {state}.")
        return redirect("webhook-detail", pk=endpoint.pk)


class EndpointDeleteView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        endpoint = get_object_or_404(_endpoints(request), pk=pk)
        endpoint.delete()
        messages.success(request, f"Deleted the webhook to {endpoint.url} and its delivery log.")
        return redirect("webhook-list")


class DeliveryDetailView(ResearcherRequiredMixin, View):
    """A delivery: the event's body and every attempt (status, response excerpt, error, time)."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        delivery = get_object_or_404(
            _deliveries(request).select_related("event", "endpoint", "endpoint__collection"),
            pk=pk,
        )
        context = {
            "delivery": delivery,
            "attempts": delivery.attempt_rows.order_by("-number"),
            "body": json.dumps(delivery.event.payload, indent=2, sort_keys=True),
        }
        return render(request, "webhooks/delivery_detail.html", context)


class DeliveryRedeliverView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        delivery = get_object_or_404(_deliveries(request), pk=pk)
        redeliver(delivery)
        messages.success(request, "Sending the event again, with a new series of attempts.")
        return redirect("webhook-delivery", pk=delivery.pk)
