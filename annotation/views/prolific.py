"""Arrival from Prolific: the study link creates or resumes the participant's annotator."""

from collections.abc import Mapping

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import View

from annotation.accounts import (
    PROLIFIC_PARAMS,
    ArrivalError,
    ProlificParams,
    find_participant,
    parse_prolific_params,
    prolific_arrival,
)
from annotation.models import Campaign
from annotation.prolific.admission import check_study


class ProlificArrivalView(View):
    """``/annotate/prolific/<slug>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..``.

    No password: the link is the credential Prolific hands its participant, so it is taken only
    for the campaign's own study, within its places and the per-minute cap, and only once: the
    account is bound to its participant, study and session ids and to the browser session the
    link first logged in (see ``prolific_arrival``). A browser already logged in as another
    account is asked first (a page with a POST button); the participant replaces that account
    only when the button is pressed.
    """

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        campaign = get_object_or_404(Campaign, slug=slug, prolific_enabled=True)
        try:
            params = self._params(campaign, request.GET)
            participant = find_participant(params, request.user)
        except ArrivalError as error:
            return _error(request, campaign, str(error), error.status)
        current = request.user
        if current.is_authenticated and (participant is None or participant.pk != current.pk):
            context = {
                "campaign": campaign,
                "current_username": current.get_username(),
                "params": list(
                    zip(
                        PROLIFIC_PARAMS,
                        (params.pid, params.study_id, params.session_id),
                        strict=True,
                    )
                ),
            }
            return render(request, "annotation/prolific_confirm.html", context)
        return self._arrive(request, campaign, params)

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        """The confirmation: continue as the participant, logging the current account out."""
        campaign = get_object_or_404(Campaign, slug=slug, prolific_enabled=True)
        try:
            params = self._params(campaign, request.POST)
        except ArrivalError as error:
            return _error(request, campaign, str(error), error.status)
        return self._arrive(request, campaign, params)

    def _params(self, campaign: Campaign, query: Mapping[str, str]) -> ProlificParams:
        params = parse_prolific_params(query)
        if campaign.state == Campaign.State.CLOSED:
            raise _Closed("This study is closed.")
        check_study(campaign, params.study_id)
        return params

    def _arrive(
        self, request: HttpRequest, campaign: Campaign, params: ProlificParams
    ) -> HttpResponse:
        try:
            user = prolific_arrival(campaign, params, request.user)
        except ArrivalError as error:
            return _error(request, campaign, str(error), error.status)
        if request.user.pk != user.pk:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("annotation-workspace", slug=campaign.slug)


class _Closed(ArrivalError):
    status = 410


def _error(request: HttpRequest, campaign: Campaign, message: str, status: int) -> HttpResponse:
    return render(
        request,
        "annotation/prolific_error.html",
        {"campaign": campaign, "error": message},
        status=status,
    )
