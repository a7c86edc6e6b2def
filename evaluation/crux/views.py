"""Starting an LLM judging job for a collection's missing items (researchers only)."""

from __future__ import annotations

from crux_app.jobs.start_view import JobStartView
from evaluation.crux.forms import JudgeJobForm, configured_judge_model


class JudgeStartView(JobStartView):
    template = "evaluation/crux/start.html"
    form_class = JudgeJobForm
    started_message = "only items the judge has not rated are judged."

    def extra_context(self) -> dict[str, object]:
        return {"configured_model": configured_judge_model()}
