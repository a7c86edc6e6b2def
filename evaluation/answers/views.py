"""Starting a ``generate_answers`` job on a collection (researchers only)."""

from crux_app.jobs.start_view import JobStartView
from evaluation.answers.forms import GenerateAnswersForm


class AnswersStartView(JobStartView):
    template = "evaluation/answers/start.html"
    form_class = GenerateAnswersForm
    started_message = "answers already stored are not generated again."
