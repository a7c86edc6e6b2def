"""Researchers' campaign pages: list, create, progress, state changes, invites, gold, export."""

from __future__ import annotations

import io
from urllib.parse import urljoin

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from annotation.accounts import invite_annotator
from annotation.campaigns.forms import (
    AnnotatorExportForm,
    CampaignForm,
    CampaignItemsForm,
    CampaignPreviewForm,
    GoldUploadForm,
    InviteForm,
    ProlificStudyForm,
)
from annotation.campaigns.setup import GoldUploadError, apply_gold_csv, create_campaign
from annotation.exports import exports
from annotation.labels.post_editing import kept_share, notice
from annotation.models import Campaign
from annotation.models.access import visible_or_404
from annotation.prolific.admission import places
from annotation.quality.progress import ITEM_FILTERS, campaign_progress, item_page
from annotation.queue.selection import SelectionError
from annotation.task_types.names import task_label
from crux_app.access import may_write
from crux_app.list_paging import listing_of, refused
from crux_app.roles import ResearcherRequiredMixin

STATE_ACTIONS = {
    "pause": Campaign.State.PAUSED,
    "resume": Campaign.State.OPEN,
    "close": Campaign.State.CLOSED,
    "reopen": Campaign.State.OPEN,
}


class CampaignListView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        campaigns = Campaign.objects.visible_to(request).select_related("collection")
        rows = [(c, c.items.progress_summary(c.overlap)) for c in campaigns]
        return render(request, "annotation/campaign_list.html", {"rows": rows})


class CampaignCreateView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        form = CampaignForm(who=request)
        return render(request, "annotation/campaign_form.html", {"form": form})

    def post(self, request: HttpRequest) -> HttpResponse:
        form = CampaignForm(request.POST, who=request)
        if form.is_valid():
            campaign = form.save(commit=False)
            campaign.created_by = request.user
            try:
                create_campaign(campaign, form.selection_options(), form.cleaned_data["annotators"])
            except SelectionError as error:
                form.add_error(error.field if error.field in form.fields else None, str(error))
            else:
                messages.success(
                    request, f"Campaign created with {campaign.selection['items']} items."
                )
                return redirect("campaign-detail", pk=campaign.pk)
        return render(request, "annotation/campaign_form.html", {"form": form}, status=400)


class CampaignPreviewView(ResearcherRequiredMixin, View):
    """The new-campaign form's live preview (htmx): item count, labels needed, warnings. A
    field out of its bounds or of its type is a 400 naming it (shown in the same place)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        form = CampaignPreviewForm(request.GET, who=request)
        if not form.is_valid():
            context = {"errors": form.errors}
            return render(request, "annotation/_campaign_preview.html", context, status=400)
        context = {"preview": form.preview()}
        return render(request, "annotation/_campaign_preview.html", context)


class CampaignDetailView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        listed = CampaignItemsForm(request.GET)
        if bad := refused(listed):
            return bad
        rows = Campaign.objects.select_related("suggestion_judge")
        campaign = visible_or_404(request, rows, pk=pk)
        which = listed.which()
        number, text, size = listed.page_number(), listed.search_text(), listed.page_size()
        items = item_page(campaign, which, number, text, size)
        prolific_link = (
            urljoin(settings.SITE_URL, reverse("annotation-prolific", args=[campaign.slug]))
            + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
        )
        context = {
            "campaign": campaign,
            # A viewer of the workspace reads the campaign; its controls are for who may change.
            "may_change": may_write(request, campaign.collection),
            "task_label": task_label(campaign.task_type),
            "progress": campaign_progress(campaign),
            "items": items,
            "item_listing": listing_of(listed, items),
            "item_filter": which,
            "item_filters": ITEM_FILTERS,
            "platform_format": exports.platform_format(campaign),
            "prolific_link": prolific_link,
            "prolific_form": ProlificStudyForm(instance=campaign),
            "prolific_places": places(campaign) if campaign.prolific_enabled else None,
            "invite_form": InviteForm(),
            "gold_form": GoldUploadForm(),
            "workspace_url": reverse("annotation-workspace", args=[campaign.slug]),
            "post_edit_notice": notice(campaign),
            "kept": kept_share(campaign) if campaign.is_post_editing else None,
        }
        return render(request, "annotation/campaign_detail.html", context)


class CampaignStateView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, write=True, pk=pk)
        action = request.POST.get("action", "")
        if action not in STATE_ACTIONS:
            messages.error(request, f"action: unknown action '{action[:40]}'")
        else:
            campaign.state = STATE_ACTIONS[action]
            campaign.save(update_fields=["state"])
            messages.success(request, f"Campaign is now {campaign.get_state_display().lower()}.")
        return redirect("campaign-detail", pk=campaign.pk)


class CampaignInviteView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, write=True, pk=pk)
        form = InviteForm(request.POST)
        if not form.is_valid():
            for field, errors in form.errors.items():
                messages.error(request, f"{field}: {' '.join(errors)}")
            return redirect("campaign-detail", pk=campaign.pk)
        username = form.cleaned_data["username"]
        exists = get_user_model().objects.filter(username=username).exists()
        if not exists and not form.cleaned_data["password"]:
            messages.error(request, "password: a new account needs a password")
        else:
            _, created = invite_annotator(campaign, username, form.cleaned_data["password"])
            verb = "created and invited" if created else "invited"
            messages.success(request, f"{username} {verb}.")
        return redirect("campaign-detail", pk=campaign.pk)


class CampaignGoldView(ResearcherRequiredMixin, View):
    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, write=True, pk=pk)
        form = GoldUploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return _gold_refused(request, campaign, "file: choose a CSV file")
        upload = form.cleaned_data["file"]
        try:
            text = upload.read().decode("utf-8-sig")
            n = apply_gold_csv(campaign, text, upload.name)
        except UnicodeDecodeError:
            return _gold_refused(request, campaign, f"{upload.name}: not UTF-8 text")
        except GoldUploadError as error:
            return _gold_refused(request, campaign, str(error))
        messages.success(request, f"Gold answers set on {n} items.")
        return redirect("campaign-detail", pk=campaign.pk)


def _gold_refused(request: HttpRequest, campaign: Campaign, reason: str) -> HttpResponse:
    """The campaign page again with the reason, as a 400: nothing of the file was applied."""
    messages.error(request, reason)
    response = CampaignDetailView().get(request, campaign.pk)
    response.status_code = 400
    return response


class CampaignExportView(ResearcherRequiredMixin, View):
    """``csv`` (every label), ``annotators`` (per-annotator table), or ``qrels``/``qlabels``
    of one annotator (``?annotator=USERNAME``)."""

    def get(self, request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, pk=pk)
        out = io.StringIO()
        if fmt in (exports.CSV_FORMAT, exports.ANNOTATORS_FORMAT):
            exports.write_csv(campaign, out, fmt)
            name, content_type = f"{campaign.slug}-{fmt}.csv", "text/csv"
        elif fmt == exports.platform_format(campaign):
            form = AnnotatorExportForm(request.GET)
            if not form.is_valid():
                errors = " ".join(form.errors.get("annotator", []))
                return HttpResponse(f"annotator: {errors}", status=400, content_type="text/plain")
            username = form.cleaned_data["annotator"]
            annotator = get_user_model().objects.filter(username=username).first()
            if annotator is None:
                return HttpResponse(
                    f"annotator: no account '{username}'", status=400, content_type="text/plain"
                )
            exports.write_platform_labels(campaign, annotator, out)
            name, content_type = f"{campaign.slug}-{username}_{fmt}.jsonl", "application/jsonl"
        else:
            return HttpResponse(
                f"format: '{fmt[:40]}' is not available for this campaign",
                status=404,
                content_type="text/plain",
            )
        response = HttpResponse(out.getvalue(), content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
