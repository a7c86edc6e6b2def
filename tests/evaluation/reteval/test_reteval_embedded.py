"""End to end on the embedded models: the demo QA collection's first question at k=1 fills the
retEval pages and the command's table (a weak 135M model: the code path, not paper numbers)."""

import json

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection, GeneratedOutput, Job, Run
from evaluation.reteval.job import KIND, RetEvalJobParams, RetEvalModels, run_reteval_job
from evaluation.reteval.models import Comparison, RetEvalResult

pytestmark = [pytest.mark.models, pytest.mark.django_db]


def test_a_job_on_the_embedded_models_fills_the_pages(
    embedded_generator, researcher_client, capsys
):
    call_command(
        "import_qa", "--collection", "demo-qa", str(settings.BASE_DIR / "fixtures/demo_qa.jsonl")
    )
    collection = Collection.objects.get(name="demo-qa")
    run = Run.objects.get(collection=collection, name="contexts")
    params = RetEvalJobParams(run_id=run.pk, ks=(1,), max_new_tokens=8, max_questions=1)
    job = Job.objects.create(kind=KIND, params=params.as_params(run), collection=collection)
    models = RetEvalModels(
        embedded_generator.model_id,
        embedded_generator.model_id,
        lambda: embedded_generator,
        lambda: embedded_generator,
    )
    job = run_reteval_job(job, models)
    assert job.state == Job.State.SUCCEEDED, job.errors

    result = RetEvalResult.objects.select_related("topic", "rag_output").get()
    assert result.topic.external_id == "demo-qa-1" and result.k == 1
    assert result.recall == 1.0  # the contexts run ranks the gold passage first
    semi = GeneratedOutput.objects.filter(system="semi-gold", topic=result.topic)
    assert semi.count() == 3 and all(o.generator == embedded_generator.model_id for o in semi)
    comparisons = Comparison.objects.filter(rag_output=result.rag_output)
    assert comparisons.count() == len([o for o in semi if o.text.strip()])
    assert all(c.raw_output.strip() for c in comparisons)
    assert result.n_yes + result.n_no + result.n_unparsable == comparisons.count()

    page = researcher_client.get(reverse("reteval-topic", args=[collection.pk, result.topic.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="result-contexts-1"' in html
    assert comparisons.first().raw_output.strip() in html
    listing = researcher_client.get(reverse("reteval-collection", args=[collection.pk]))
    assert listing.context["records"][0]["questions"] == 1

    capsys.readouterr()  # the import's own output
    call_command("reteval", "--collection", "demo-qa", "--run", "contexts", "--k", "1",
                 "--format", "json")  # fmt: skip
    table = json.loads(capsys.readouterr().out)
    assert table["judge"] == embedded_generator.model_id
    assert table["rows"][0]["recall"] == 1.0 and table["rows"][0]["questions"] == 1
