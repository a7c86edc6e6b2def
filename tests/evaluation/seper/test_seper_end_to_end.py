"""A real SePer job on the embedded models (SmolLM2 generator, LLM-prompt NLI; no doubles):
one demo QA question, N = 2, the run's top-1 passage, through the job runner; the page then
shows the stored clusters and scores."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from crux_app.models import Collection, Job, Topic
from evaluation.seper.job import KIND, SeperModels, run_seper_job
from evaluation.seper.models import SeperScore

pytestmark = pytest.mark.django_db

DEMO_QA = Path(__file__).resolve().parents[3] / "fixtures" / "demo_qa.jsonl"


def test_a_real_seper_job_fills_the_page(embedded_generator, llm_nli, researcher_client):
    call_command("import_qa", "--collection", "demo-qa", str(DEMO_QA), verbosity=0)
    collection = Collection.objects.get(name="demo-qa")
    topic = Topic.objects.get(collection=collection, external_id="demo-qa-1")
    run = collection.runs.get(name="contexts")
    job = Job.objects.create(
        kind=KIND,
        collection=collection,
        topic=topic,
        params={"run_id": run.pk, "k": 1, "n_samples": 2, "temperature": 1.0, "seed": 0},
    )
    models = SeperModels(
        embedded_generator.model_id,
        llm_nli.model_id,
        lambda: embedded_generator,
        lambda: llm_nli,
    )
    job = run_seper_job(job, models)
    assert job.state == "succeeded", job.errors
    rows = {r.context_kind: r for r in SeperScore.objects.filter(topic=topic)}
    # Baseline, the top-1 passage alone, the top-1 context and the gold passage.
    assert set(rows) == {"none", "passage", "run", "oracle"}
    assert SeperScore.objects.exclude(topic=topic).count() == 0
    for row in rows.values():
        detail = row.detail
        assert len(detail["responses"]) == 2 and sum(detail["weights"]) == pytest.approx(1.0)
        assert 0.0 <= row.seper_s <= 1.0 and 0.0 <= row.seper_h <= 1.0
        masses = sum(c["mass"] for c in detail["clusters"])
        assert masses == pytest.approx(1.0)
        assert len(detail["response_matches"]) == 2
    assert rows["none"].delta_s is None
    assert rows["run"].delta_s == pytest.approx(rows["run"].seper_s - rows["none"].seper_s)
    assert rows["run"].generator == embedded_generator.model_id
    # One model sampled the responses and (through the LLM NLI prompt) compared them: the job
    # keeps its calls and tokens per role, and its token totals are the roles' sums.
    usage = {u.role: u for u in job.model_usage.all()}
    assert set(usage) == {"generator", "nli"}
    assert all(u.calls > 0 and u.forward_tokens > 0 for u in usage.values())
    assert usage["generator"].completion_tokens > 0 and usage["nli"].completion_tokens == 0
    assert job.prompt_tokens == usage["generator"].prompt_tokens + usage["nli"].prompt_tokens
    assert job.completion_tokens == usage["generator"].completion_tokens
    job_page = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    for role, u in usage.items():
        assert (
            f'<tr data-role="{role}"><th scope="row">{role}</th><td>{u.calls}</td>'
            f"<td>{u.forward_tokens}</td>"
        ) in job_page

    page = researcher_client.get(reverse("seper-topic", args=[collection.pk, topic.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="clusters-baseline"' in html and 'id="clusters-run"' in html
    assert embedded_generator.model_id in html and 'id="seper-delta-plot"' in html
    # The baseline's and the top-1 context's responses, each with its own yes/no form.
    for kind in ("none", "run"):
        row = rows[kind]
        assert f'data-score="{row.pk}"' in html
        for index, response in enumerate(row.detail["responses"]):
            assert escape(response["text"]) in html
            assert f'id="response-equivalence-{row.pk}-{index}"' in html
    assert f"{rows['run'].seper_h:.3f}" in html
