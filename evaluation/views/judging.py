"""Starting an LLM judging job for a collection's missing items (researchers only)."""

from __future__ import annotations

from evaluation.judging_forms import JudgeJobForm, configured_judge_model
from evaluation.views.job_start import JobStartView


class JudgeStartView(JobStartView):
    template = "evaluation/judge_start.html"
    form_class = JudgeJobForm
    started_message = "only items the judge has not rated are judged."

    def extra_context(self) -> dict[str, object]:
        return {"configured_model": configured_judge_model()}
