"""The Python client's per-query results of each method as DataFrames, against a live server
with the real database (the rows stored by each method's job on scripted models)."""

import pandas as pd
import pytest
from crux_client import ApiError

from crux_app.models import GeneratedOutput
from evaluation.reteval.models import RetEvalResult
from evaluation.scaar.models import ScaarAnalysis
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_methods_results_as_dataframes(client_api):
    api = client_api
    run_job(make_dense_data(), RuleModels().models())
    seper = seper_collection()
    run_seper_job(seper_job(seper), CountingModels().models())
    reteval = make_reteval_collection("qa-reteval")
    run_scenario(reteval)
    output = GeneratedOutput.objects.filter(collection=reteval.collection).first()
    ScaarAnalysis.objects.create(
        key="a1", output=output, collection=reteval.collection, topic=output.topic,
        generator="g", embedder="e", logprob_source="stored", n_sentences=1, n_retrievals=2,
        flare_retrievals=1, score_metric="f1", score_before=0.1, score_after=0.4,
        detail={"sentences": []},
    )  # fmt: skip

    dense = api.dense("dense-qa", k=3)
    assert isinstance(dense, pd.DataFrame) and sorted(dense["topic"]) == ["q1", "q2"]
    assert dense["dse"].between(0, 10).all() and "W" in dense

    scores = api.seper("qa-seper")
    assert len(scores) == SeperScore.objects.count()
    assert set(scores["context"]) >= {"none", "passage", "run", "oracle"}
    assert len(api.seper("qa-seper", context="none")) == 1

    per_question = api.reteval("qa-reteval", k=1)
    assert sorted(per_question["topic"]) == ["q1", "q2", "q3"]
    stored = RetEvalResult.objects.get(topic__external_id="q1", k=1)
    row = per_question.set_index("topic").loc["q1"]
    assert (row["recall"], row["verdict"]) == (stored.recall, stored.verdict)
    table = api.reteval_table("qa-reteval")
    assert list(zip(table["run"], table["k"], strict=True)) == [("bm25", 1), ("bm25", 2)]

    answers = api.scaar("qa-reteval")
    assert list(answers["output"]) == [output.external_id]
    assert answers.loc[0, "n_retrievals"] == 2

    with pytest.raises(ApiError) as refused:
        api.dense("dense-qa", run="nope")
    assert refused.value.status == 400 and "run" in refused.value.errors
