"""``POST /campaigns/<pk>/prolific/``: the study a campaign takes Prolific arrivals from, and
its places."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views import View

from annotation.campaigns.forms import ProlificStudyForm
from annotation.models import Campaign
from annotation.models.access import visible_or_404
from annotation.views.campaigns import CampaignDetailView
from crux_app.roles import ResearcherRequiredMixin


class CampaignProlificView(ResearcherRequiredMixin, View):
    """Bind the campaign to its Prolific study and set its places. A bad value is a 400: the
    campaign page with the reason, nothing changed."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, write=True, pk=pk)
        form = ProlificStudyForm(request.POST, instance=campaign)
        if not form.is_valid():
            for field, errors in form.errors.items():
                messages.error(request, f"{field}: {' '.join(errors)}")
            response = CampaignDetailView().get(request, campaign.pk)
            response.status_code = 400
            return response
        form.save()
        study = campaign.prolific_study_id or "no study: arrivals are refused"
        messages.success(request, f"Prolific study: {study}.")
        return redirect("campaign-detail", pk=campaign.pk)
