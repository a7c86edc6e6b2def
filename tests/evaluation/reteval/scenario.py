"""The scripted LLM-retEval scenario shared by the job, page and agreement tests.

Generator: answers from whichever passage its prompt shows first in this order (a distractor
wins over gold: "Nitrogen"). Judge: Yes for "Mercury" and "Mary Shelley", No otherwise.
With the run of ``reteval_data``: at k=1, q3 is a recall miss judged Yes (pre-label A); at
k=2, q2 is a recall hit judged No with a distractor (C) and q3 is still A.
"""

from __future__ import annotations

from crux_app.models import Job
from evaluation.reteval.job import KIND, RetEvalJobParams, run_reteval_job
from tests.evaluation.reteval.doubles import ScriptedGenerator, judge_by_prediction, models
from tests.evaluation.reteval.reteval_data import RetEvalData

ANSWERS = [
    ("Nitrogen makes up", "Nitrogen"),
    ("Mercury completes", "Mercury"),
    ("Plants absorb", "carbon dioxide"),
    ("Mary Shelley", "Mary Shelley"),
]


def answer(prompt: str, _: int) -> str:
    return next((reply for marker, reply in ANSWERS if marker in prompt), "I do not know")


def scripted_models(judge_reply=None):
    generator = ScriptedGenerator("test/generator", answer)
    judge = ScriptedGenerator(
        "test/judge", judge_reply or judge_by_prediction({"Mercury": "Yes", "Mary Shelley": "Yes"})
    )
    return generator, judge, models(generator, judge)


def run_scenario(data: RetEvalData, ks=(1, 2), n_semi_gold: int = 2, judge_reply=None):
    generator, judge, job_models = scripted_models(judge_reply)
    params = RetEvalJobParams(run_id=data.run.pk, ks=tuple(ks), n_semi_gold=n_semi_gold)
    job = Job.objects.create(
        kind=KIND, params=params.as_params(data.run), collection=data.collection
    )
    return run_reteval_job(job, job_models), generator, judge
