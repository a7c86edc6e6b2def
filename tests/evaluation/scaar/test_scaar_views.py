"""SCAAR job parameters, start form, page access and the command's errors (no model loaded)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.models import GeneratedOutput, Job
from evaluation.scaar.engine import ScaarModels
from evaluation.scaar.job import ScaarJobParams, run_scaar_job
from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.page import collection_summaries
from tests.crux_app.factories import make_collection, make_topic
from tests.crux_app.job_collections import make_answer_collection

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("params", "message"),
    [({"theta0": 1.5}, "'theta0' must be a number in 0.01..1"),
     ({"alpha": "half"}, "'alpha' must be a number in 0.01..1"),
     ({"k": 0}, "'k' must be an integer in 1..20"),
     ({"weighting": "attn"}, "'weighting' must be one of raw, normalised"),
     ({"refine": "yes"}, "'refine' must be true or false"),
     ({"system": ""}, "'system' must be a system name or null")],
)  # fmt: skip
def test_bad_job_parameters_fail_the_job_naming_the_field(params, message):
    data = make_answer_collection(n_topics=1)
    job = Job.objects.create(kind="scaar", params=params, collection=data.collection)
    never = ScaarModels("g", "e", lambda: pytest.fail("loaded"), lambda: pytest.fail("loaded"))
    job = run_scaar_job(job, never)
    assert job.state == Job.State.FAILED
    assert message in job.message
    assert ScaarJobParams.from_params({}).weighting == "raw"


def test_start_form_starts_a_scaar_job_with_the_chosen_settings(researcher_client):
    data = make_answer_collection(n_topics=1)
    url = reverse("scaar-start", args=[data.collection.pk])
    assert researcher_client.get(url).status_code == 200
    form = {"theta0": "0.9", "alpha": "0.25", "weighting": "normalised", "k": "2", "system": ""}
    response = researcher_client.post(url, form)
    job = Job.objects.get(kind="scaar")
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert job.params == {
        "theta0": 0.9, "alpha": 0.25, "weighting": "normalised", "k": 2, "refine": False,
        "system": None, "batch_size": 4,
    }  # fmt: skip
    bad = researcher_client.post(url, {**form, "theta0": "2"})
    assert bad.status_code == 400 and Job.objects.filter(kind="scaar").count() == 1


def test_pages_need_a_researcher(client, annotator):
    data = make_answer_collection(n_topics=1)
    url = reverse("scaar-collection", args=[data.collection.pk])
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    assert client.get(reverse("scaar-answer", args=[data.collection.pk, 999])).status_code == 403


def test_empty_collection_page_says_there_is_nothing_yet(researcher_client):
    data = make_answer_collection(n_topics=1)
    page = researcher_client.get(reverse("scaar-collection", args=[data.collection.pk]))
    assert 'id="no-scaar"' in page.content.decode()
    detail = researcher_client.get(reverse("collection-detail", args=[data.collection.pk]))
    assert reverse("scaar-collection", args=[data.collection.pk]) in detail.content.decode()


def test_command_names_the_bad_option():
    with pytest.raises(CommandError, match="--collection: no collection named 'nope'"):
        call_command("scaar", "--collection", "nope", stdout=StringIO())
    data = make_answer_collection(n_topics=1)
    with pytest.raises(CommandError, match="--output: no output 'x'"):
        call_command("scaar", "--collection", data.collection.name, "--output", "x")
    with pytest.raises(CommandError, match="option 'theta0' must be a number in"):
        call_command("scaar", "--collection", data.collection.name, "--compute", "--theta0", "3")
    out = StringIO()
    call_command("scaar", "--collection", data.collection.name, "--format", "csv", stdout=out)
    assert out.getvalue().startswith("output,system,topic,")


def test_summary_gives_scaar_and_flare_their_own_s_eff():
    collection = make_collection("eff")
    topic = make_topic(collection)
    rows = [
        # (n_retrievals SCAAR, FLARE, F1 before, after SCAAR, after FLARE)
        (1, 2, 0.2, 0.6, 0.4),
        (1, 2, 0.5, 0.5, 0.1),
    ]
    for n, (nr, nf, before, after, flare_after) in enumerate(rows):
        output = GeneratedOutput.objects.create(
            collection=collection, topic=topic, external_id=f"a{n}", system="s", text="x",
            kind=GeneratedOutput.Kind.ANSWER,
        )  # fmt: skip
        ScaarAnalysis.objects.create(
            key=f"k{n}", output=output, collection=collection, topic=topic, generator="g",
            embedder="e", logprob_source="stored", n_sentences=2, n_retrievals=nr,
            flare_retrievals=nf, score_metric="f1", score_before=before, score_after=after,
            detail={"sentences": [], "flare": {"refined_text": "y", "score_after": flare_after}},
        )  # fmt: skip
    (summary,) = collection_summaries(collection)
    # SCAAR: mean delta (0.4 + 0) / 2 = 0.2 over mean N_R 1; FLARE: (0.2 - 0.4) / 2 = -0.1 over 2.
    assert summary.mean_delta == pytest.approx(0.2) and summary.s_eff == pytest.approx(0.2)
    assert summary.flare_mean_delta == pytest.approx(-0.1)
    assert summary.flare_s_eff == pytest.approx(-0.05)
