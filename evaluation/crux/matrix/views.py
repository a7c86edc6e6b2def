"""The topic coverage-matrix page and its cell drill-down panel (researchers only)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views import View
from django_htmx.http import trigger_client_event

from crux_app.access import topic_or_404
from crux_app.judge_choice import remember_judge, remembered_judge
from crux_app.models import Topic
from crux_app.roles import ResearcherRequiredMixin
from evaluation.crux.matrix.cell import CellDetail, ExpertRating, cell_detail, record_expert_rating
from evaluation.crux.matrix.distributions import expected_ratings
from evaluation.crux.matrix.forms import (
    EXPECTED,
    CellQueryForm,
    MatrixSelectionForm,
    RubricRatingForm,
)
from evaluation.crux.matrix.judge_warnings import cell_warnings, matrix_warnings
from evaluation.crux.matrix.matrix import build_matrix
from evaluation.crux.matrix.payload import matrix_payload, payload_script
from evaluation.crux.matrix.topic_cache import run_rows, stored_topic, topic_rows

# The page listens for this event (sent in HX-Trigger) and reloads the matrix.
MATRIX_CHANGED = "matrix-changed"


def _initial(cell: CellDetail) -> dict[str, object]:
    """The rating form pre-filled with the researcher's stored rating of the cell, if any."""
    initial: dict[str, object] = {"subquestion": cell.subquestion.pk, "passage": cell.passage.pk}
    if cell.own is not None:
        initial |= {
            "rating": cell.own.rating,
            "rationale": cell.own.rationale,
            "rationale_start": cell.own.rationale_start,
            "rationale_end": cell.own.rationale_end,
        }
    return initial


class TopicMatrixView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        # With its collection's data version, read first (after the access check).
        topic = topic_or_404(request, collection_pk, pk)
        rows = topic_rows(topic)
        options = rows.options
        remembered = remembered_judge(request.session, topic.collection_id)
        form = MatrixSelectionForm(request.GET, options=options, preferred=[remembered])
        if form.refused():
            # Plain text: the message may quote the refused value.
            return HttpResponse(
                form.errors.as_text(), status=400, content_type="text/plain; charset=utf-8"
            )
        chosen = form.chosen_judge()
        if chosen is not None:
            remember_judge(request.session, topic.collection_id, chosen)
        selection = form.selection()
        stored = stored_topic(topic, rows, selection.run, run_rows(topic, selection.run))
        matrix = build_matrix(
            topic, options, selection.judge, selection.run, selection.tau, selection.k, stored
        )
        cell_url = reverse("crux-topic-cell", args=[topic.collection_id, topic.pk])
        expected = expected_ratings(matrix, rows.ratings)
        shown = expected if selection.colour == EXPECTED else None
        payload = matrix_payload(matrix, cell_url, shown)
        context = {
            "topic": topic,
            "form": form,
            "selection": selection,
            "matrix": matrix,
            "has_distributions": expected is not None,
            "by_expected": shown is not None,
            "warnings": matrix_warnings(matrix),
            "payload": payload,
            "payload_script": payload_script(payload, "matrix-data"),
        }
        # Selector changes and refreshes swap only the matrix area.
        partial = request.htmx and not request.htmx.boosted
        template = (
            "evaluation/crux/_matrix_area.html" if partial else "evaluation/crux/topic_matrix.html"
        )
        response = render(request, template, context)
        patch_vary_headers(response, ["HX-Request"])
        return response


class MatrixCellView(ResearcherRequiredMixin, View):
    """GET ?sq=&passage= shows a cell; POST stores the researcher's own rating of it.

    The matrix page asks for the panel with htmx and swaps it in; any other request (a link
    from the agreement page, a new tab) gets the panel on a page of its own, in the site's
    layout, with links to the topic's matrix."""

    template = "evaluation/crux/_cell_panel.html"
    page_template = "evaluation/crux/cell_page.html"

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        query = CellQueryForm(request.GET)
        if not query.is_valid() and ({"sq", "passage"} & set(query.errors)):
            errors = "; ".join(
                f"{name}: {' '.join(query.errors[name])}"
                for name in ("sq", "passage")
                if name in query.errors
            )
            return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")
        data = query.cleaned_data
        cell = cell_detail(topic, data["sq"], data["passage"], request.user)
        if cell is None:
            raise Http404("No such sub-question and passage in this topic.")
        form = RubricRatingForm(initial=_initial(cell), topic=topic)
        return self._panel(request, topic, cell, form)

    def post(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk, write=True)  # a rating is a change
        form = RubricRatingForm(request.POST, topic=topic)
        if not form.is_valid():
            sq, passage = form.cleaned_data.get("subquestion"), form.cleaned_data.get("passage")
            cell = cell_detail(topic, sq.pk, passage.pk, request.user) if sq and passage else None
            # 200, as a classic form re-render: htmx swaps it in and the browser logs no error.
            return self._panel(request, topic, cell, form)
        data = form.cleaned_data
        judgment, created = record_expert_rating(
            request.user,
            topic,
            ExpertRating(
                subquestion=data["subquestion"],
                passage=data["passage"],
                rating=data["rating"],
                rationale=data["rationale"],
                rationale_start=data.get("rationale_start"),
                rationale_end=data.get("rationale_end"),
                time_spent_ms=data.get("time_spent_ms"),
            ),
        )
        cell = cell_detail(topic, judgment.subquestion_id, judgment.passage_id, request.user)
        form = RubricRatingForm(initial=_initial(cell), topic=topic)
        response = self._panel(request, topic, cell, form, saved="saved" if created else "updated")
        return trigger_client_event(
            response,
            MATRIX_CHANGED,
            {"subquestion": judgment.subquestion_id, "passage": judgment.passage_id},
        )

    def _panel(
        self,
        request: HttpRequest,
        topic: Topic,
        cell: CellDetail | None,
        form: RubricRatingForm,
        *,
        saved: str = "",
    ) -> HttpResponse:
        tau, judge_id = CellQueryForm(request.GET).context()
        names = [j.judge.name for j in cell.judgments] if cell else []
        context = {
            "topic": topic,
            "cell": cell,
            "form": form,
            "saved": saved,
            "tau": tau,
            "selected_judge_id": judge_id,
            "warnings": cell_warnings(topic, names),
        }
        if request.htmx:
            return render(request, self.template, context)
        matrix_url = reverse("crux-topic", args=[topic.collection_id, topic.pk])
        query = {"judge": judge_id, "tau": tau} if judge_id is not None else {"tau": tau}
        context["matrix_url"] = f"{matrix_url}?{urlencode(query)}"
        response = render(request, self.page_template, context)
        patch_vary_headers(response, ["HX-Request"])
        return response
