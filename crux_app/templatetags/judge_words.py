"""How pages name a judge's kind and prompt (crux_app.judge_kinds):
``{{ judge|judge_kind }}``, ``{{ judge|judge_prompt }}`` and ``{{ judge|judge_has_prompt }}`` for
a Judge, a JudgeInfo or a dict."""

from typing import Any

from django import template

from crux_app.judge_kinds import judge_has_prompt, judge_kind_label, judge_prompt

register = template.Library()


@register.filter(name="judge_kind")
def judge_kind_filter(judge: Any) -> str:
    return judge_kind_label(judge)


@register.filter(name="judge_prompt")
def judge_prompt_filter(judge: Any) -> str:
    return judge_prompt(judge)


@register.filter(name="judge_has_prompt")
def judge_has_prompt_filter(judge: Any) -> bool:
    return judge_has_prompt(judge)
