"""The payment page of a campaign: each worker's decision (approve / reject / review, with the
reason), bonus, time on task and effective hourly pay, and the two Prolific files as they will
be downloaded, reviewed on the page before the download links (same choices)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from annotation.crowd.payment import PaymentParams, approvals_csv, bonus_file, payment_rows
from annotation.models import Campaign
from annotation.models.access import visible_or_404
from crux_app.parameters import declared_form
from crux_app.roles import ResearcherRequiredMixin

PaymentForm = declared_form(PaymentParams)
FILES = ("approvals", "bonuses")


def _params(request: HttpRequest) -> tuple[object, PaymentParams | None]:
    data = request.GET.copy()
    for name, parameter in PaymentParams.declared().parameters.items():
        data.setdefault(name, str(parameter.default))
    form = PaymentForm(data)
    if not form.is_valid():
        return form, None
    values = PaymentParams.declared().form_values(form.cleaned_data)
    return form, PaymentParams.from_params(values)


def _refused(form) -> HttpResponse:
    errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
    return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")


class CampaignPaymentView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, pk=pk)
        form, params = _params(request)
        if params is None:
            return render(
                request,
                "annotation/payment.html",
                {"campaign": campaign, "form": form, "rows": []},
                status=400,
            )
        rows = payment_rows(campaign, params)
        context = {
            "campaign": campaign,
            "form": form,
            "params": params,
            "rows": rows,
            "approvals": approvals_csv(rows),
            "bonuses": bonus_file(rows),
            "query": request.GET.urlencode(),
        }
        return render(request, "annotation/payment.html", context)


class CampaignPaymentFileView(ResearcherRequiredMixin, View):
    """``approvals.csv`` or ``bonuses.csv``: the files the payment page shows."""

    def get(self, request: HttpRequest, pk: int, name: str) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, pk=pk)
        if name not in FILES:
            raise Http404("no such payment file")
        form, params = _params(request)
        if params is None:
            return _refused(form)
        rows = payment_rows(campaign, params)
        text = approvals_csv(rows) if name == "approvals" else bonus_file(rows)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-{name}.csv"'
        return response
