"""How many items a judging job would judge, shown on the judging page before it starts (and
updated as its options change): the same plan the job makes (``judge_scope.plan_items``) for
the judge the options name, without loading any model, and what the job would cost
(``crux_app.jobs.estimate``: prompt tokens from the judge's tokenizer, time, money)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crux_app.jobs.cost import Estimate
from crux_app.jobs.estimate import estimate_for_kind
from crux_app.models import Collection, Judge
from evaluation.crux.forms import JudgeJobForm
from evaluation.crux.job import EMBEDDING, EMBEDDING_KIND, KIND, JudgeJobParams
from evaluation.crux.judge_estimate import judge_identity, judging_work, stored_judge
from evaluation.crux.judge_scope import plan_items
from evaluation.crux.method.judge_prompts import UMBRELA


@dataclass(frozen=True)
class JudgePreview:
    judge: str  # the judge identity's name, as the job would store it
    judge_exists: bool  # False: that judge has rated nothing anywhere yet
    to_judge: int
    already_judged: int
    skipped_no_text: int
    sampled_from: int | None = None  # with a sample size: the items with text it is drawn from
    qrels: bool = False  # the judge grades (query, passage) pairs into its qrels (UMBRELA)
    estimate: Estimate | None = None  # tokens, time and money of the items to judge

    @property
    def n_items(self) -> int:
        return self.to_judge + self.already_judged + self.skipped_no_text


def preview(form: JudgeJobForm) -> JudgePreview:
    """The plan of a valid form's job (call after ``is_valid()``)."""
    config = JudgeJobParams.from_params(form.job_params())
    model_id, version = judge_identity(config)
    judge = stored_judge(config)
    topic = form.job_topic()
    spec = config.scope_spec(form.collection, topic.pk if topic else None)
    plan = plan_items(spec, judge)
    work = judging_work(config, spec, judge, plan)
    return JudgePreview(
        judge=judge.name if judge else Judge.llm_name(model_id, version),
        judge_exists=judge is not None,
        to_judge=len(plan.missing),
        already_judged=plan.already_judged,
        skipped_no_text=plan.skipped_no_text,
        sampled_from=plan.sampled_from,
        qrels=config.rubric == UMBRELA,
        estimate=estimate_for_kind(EMBEDDING_KIND if config.method == EMBEDDING else KIND, work),
    )


def count_form(collection: Collection, data: Mapping[str, Any]) -> JudgeJobForm:
    """The judging form bound to ``data`` (a query string or a start form's values); the
    scope defaults as on the page."""
    values = {name: value for name, value in data.items() if value not in (None, "")}
    values.setdefault("scope", JudgeJobForm.base_fields["scope"].initial)
    return JudgeJobForm(values, collection=collection)
