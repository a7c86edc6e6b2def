"""The LLM-retEval pages: start form, collection table with failure browser and counts, the
question page, the campaign button, researcher-only access."""

import json
import re

import pytest
from django.urls import reverse

from annotation.models import Campaign, CampaignItem
from crux_app.models import Job
from evaluation.reteval.job import KIND
from evaluation.reteval.models import RetEvalResult
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario

pytestmark = pytest.mark.django_db


def _scored():
    data = make_reteval_collection()
    run_scenario(data)
    return data


def _page(data):
    return reverse("reteval-collection", args=[data.collection.pk])


def test_the_collection_page_shows_the_table_failures_and_counts(researcher_client):
    data = _scored()
    response = researcher_client.get(_page(data))
    assert response.status_code == 200
    html = response.content.decode()
    records = response.context["records"]
    assert [(r["run"], r["k"], r["questions"]) for r in records] == [("bm25", 1, 3), ("bm25", 2, 3)]
    at2 = records[1]
    assert at2["recall"] == pytest.approx((1 + 1 + 0) / 3)
    assert at2["llm_reteval"] == pytest.approx(2 / 3)  # q1 and q3 Yes, q2 No
    assert (at2["recall_failures"], at2["category_A"], at2["category_C"]) == (2, 1, 1)
    assert 'id="reteval-plot"' in html and "plotly/plotly-cartesian.min.js" in html
    failures = response.context["failures"]
    assert [(f.result.topic.external_id, f.result.k, f.result.category) for f in failures] == [
        ("q3", 1, "A"),
        ("q2", 2, "C"),
        ("q3", 2, "A"),
    ]
    topic_url = reverse("reteval-topic", args=[data.collection.pk, data.topics["q2"].pk])
    assert topic_url in html
    counts = response.context["counts"]
    assert [(c.run, c.k, c.prelabels["A"], c.prelabels["C"]) for c in counts] == [
        ("bm25", 1, 1, 0),
        ("bm25", 2, 1, 1),
    ]
    assert html.count("Create failure-category campaign") == 2


def test_the_filters_narrow_the_table_and_bad_ones_name_the_field(researcher_client):
    data = _scored()
    response = researcher_client.get(_page(data), {"run": "bm25", "k": 2})
    assert [r["k"] for r in response.context["records"]] == [2]
    assert all(f.result.k == 2 for f in response.context["failures"])
    bad = researcher_client.get(_page(data), {"k": "zero"})
    assert bad.status_code == 400 and "Enter a whole number" in bad.content.decode()
    unknown = researcher_client.get(_page(data), {"judge": "nobody"})
    assert unknown.status_code == 400 and "nobody" in unknown.content.decode()


def test_an_empty_collection_page_says_so(researcher_client):
    data = make_reteval_collection()
    html = researcher_client.get(_page(data)).content.decode()
    assert 'id="no-reteval"' in html
    detail = reverse("collection-detail", args=[data.collection.pk])
    assert _page(data) in researcher_client.get(detail).content.decode()


def test_the_question_page_shows_answers_verdicts_and_raw_outputs(researcher_client):
    data = _scored()
    url = reverse("reteval-topic", args=[data.collection.pk, data.topics["q2"].pk])
    html = researcher_client.get(url).content.decode()
    assert "Which gas do plants take in?" in html
    assert html.count("carbon dioxide") >= 3  # gold answers + two semi-gold answers
    assert 'id="result-bm25-2"' in html and 'id="result-bm25-1"' in html
    assert "Nitrogen" in html and "verdict-no" in html
    assert 'candidate failure category <b class="category">C</b>' in html
    assert '<pre class="raw">No</pre>' in html


def test_the_start_form_starts_a_pending_job_and_rejects_bad_ks(researcher_client, researcher):
    data = make_reteval_collection()
    start = reverse("reteval-start", args=[data.collection.pk])
    form = researcher_client.get(start).content.decode()
    assert 'name="ks"' in form and 'value="1 5 10"' in form
    response = researcher_client.post(
        start,
        {"run": data.run.pk, "ks": "5, 1", "n_semi_gold": 3, "temperature": 0.5, "seed": 0,
         "max_new_tokens": 16, "max_questions": 2},
    )  # fmt: skip
    job = Job.objects.get(kind=KIND)
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert job.created_by == researcher and job.state == Job.State.PENDING
    assert (job.params["ks"], job.params["max_questions"], job.params["run"]) == ([1, 5], 2, "bm25")
    form = {"run": data.run.pk, "ks": "1 x", "n_semi_gold": 3, "temperature": 0.5, "seed": 0}
    bad = researcher_client.post(start, form | {"max_new_tokens": 16})
    assert bad.status_code == 400
    assert "&#x27;x&#x27; is not an integer k between 1 and 100" in bad.content.decode()
    assert Job.objects.filter(kind=KIND).count() == 1


def test_the_campaign_button_creates_a_failure_category_campaign(researcher_client, researcher):
    data = _scored()
    judge = RetEvalResult.objects.first().judge
    url = reverse("reteval-campaign", args=[data.collection.pk])
    response = researcher_client.post(
        url, {"run": data.run.pk, "k": 2, "judge": judge, "overlap": 3}
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("campaign-detail", args=[campaign.pk])
    assert (campaign.task_type, campaign.overlap, campaign.created_by) == (
        "failure_category",
        3,
        researcher,
    )
    items = CampaignItem.objects.filter(campaign=campaign).order_by("payload__topic")
    assert [i.payload["topic"] for i in items] == ["q2", "q3"]
    q2 = items[0]
    assert q2.payload["rag_answer"] == "Nitrogen"
    assert q2.payload["semi_gold_answers"] == ["carbon dioxide", "carbon dioxide"]
    assert [p["id"] for p in q2.payload["retrieved"]] == ["q2-x", "q2-gold"]
    assert "**C**" in campaign.guidelines_md
    # Without disagreements there is nothing to confirm: no campaign, a clear message.
    RetEvalResult.objects.update(category="")
    again = researcher_client.post(url, {"run": data.run.pk, "k": 2, "judge": judge, "overlap": 2})
    assert again.status_code == 302 and Campaign.objects.count() == 1
    messages = [str(m) for m in again.wsgi_request._messages]
    assert messages[-1] == "run 'bm25' has no question where Recall@2 and LLM-retEval disagree"


def test_pages_are_for_researchers_only(client, annotator):
    data = _scored()
    urls = [
        _page(data),
        reverse("reteval-start", args=[data.collection.pk]),
        reverse("reteval-topic", args=[data.collection.pk, data.topics["q1"].pk]),
    ]
    assert all(client.get(u).status_code == 302 for u in urls)
    client.force_login(annotator)
    assert all(client.get(u).status_code == 403 for u in urls)
    campaign = reverse("reteval-campaign", args=[data.collection.pk])
    assert client.post(campaign, {"run": data.run.pk, "k": 2}).status_code == 403
    assert not Campaign.objects.exists()


def test_the_figure_is_valid_json(researcher_client):
    data = _scored()
    figure = researcher_client.get(_page(data)).context["figure"]
    spec = json.loads(json.dumps(figure))
    assert [t["name"] for t in spec["data"]] == ["bm25 · Recall@k", "bm25 · LLM-retEval@k"]
    assert spec["data"][1]["y"] == [pytest.approx(2 / 3), pytest.approx(2 / 3)]


def test_bad_filters_are_400s_naming_the_field(researcher_client):
    data = _scored()
    for params, field in [
        ({"k": "²"}, "k"),
        ({"k": str(10**30)}, "k"),
        ({"k": "1001"}, "k"),  # beyond the declared read-side k (1..1000)
        ({"run": "bm25\x00"}, "run"),
        ({"run": "x" * 5000}, "run"),
        ({"judge": "a\x00"}, "judge"),
    ]:
        response = researcher_client.get(_page(data), params)
        assert response.status_code == 400, params
        assert field in response.context["form"].errors, params


def test_ks_that_int_would_take_or_choke_on_are_refused(researcher_client):
    data = make_reteval_collection()
    start = reverse("reteval-start", args=[data.collection.pk])
    form = {"run": data.run.pk, "n_semi_gold": 3, "temperature": 0.5, "seed": 0,
            "max_new_tokens": 16}  # fmt: skip
    for ks in ["1 ²", "1 " + "9" * 5000, "٣", "101", "0"]:
        bad = researcher_client.post(start, form | {"ks": ks})
        assert bad.status_code == 400, ks
        assert "is not an integer k between 1 and 100" in bad.content.decode(), ks
    for field, value in [("seed", 2**32), ("max_questions", 10**30)]:
        bad = researcher_client.post(start, form | {"ks": "1", field: value})
        assert bad.status_code == 400 and field in bad.context["form"].errors
    assert not Job.objects.filter(kind=KIND).exists()


def test_a_campaign_k_out_of_bounds_creates_nothing(researcher_client):
    data = _scored()
    judge = RetEvalResult.objects.first().judge
    url = reverse("reteval-campaign", args=[data.collection.pk])
    post = {"run": data.run.pk, "k": 10**30, "judge": judge, "overlap": 2}
    response = researcher_client.post(url, post)
    assert response.status_code == 302 and not Campaign.objects.exists()
    messages = [str(m) for m in response.wsgi_request._messages]
    assert messages[-1].startswith("k: ")


def test_a_score_that_is_the_same_at_every_k_while_accuracy_differs_is_warned(
    researcher_client,
):
    data = make_reteval_collection()
    run_scenario(data, judge_reply=lambda prompt, _: "Yes")  # the judge says Yes to everything
    response = researcher_client.get(_page(data))
    records = response.context["records"]
    assert [r["llm_reteval"] for r in records] == [1.0, 1.0]
    assert any(r["answer_accuracy_lexical"] != 1.0 for r in records)
    html = response.content.decode()
    (warning,) = re.findall(
        r'<li class="judge-warning" data-kind="same_everywhere"[^>]*>(.*?)</li>', html, re.S
    )
    assert (
        "LLM-retEval@k is 1.000 on every one of 2 row(s) while answer accuracy differs" in warning
    )
    assert "bm25 k=1" in warning and 'href="#reteval-table"' in warning
    # The numbers stay below the banner.
    assert html.index("judge-warnings") < html.index('id="reteval-table"')


def test_an_informative_judge_gets_no_banner(researcher_client):
    data = _scored()  # LLM-retEval@k 1/3 at k=1, 2/3 at k=2
    html = researcher_client.get(_page(data)).content.decode()
    assert "same_everywhere" not in html
