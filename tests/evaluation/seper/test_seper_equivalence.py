"""Human "same meaning as a gold answer?" labels on SePer clusters, beside the kernel's call."""

import pytest
from django.urls import reverse

from crux_app.models import Judge
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import AnswerEquivalenceLabel, SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    baseline = SeperScore.objects.get(topic=data.topic, context_kind=SeperScore.ContextKind.NONE)
    return data, baseline


def _url(data) -> str:
    return reverse("seper-topic-equivalence", args=[data.collection.pk, data.topic.pk])


def _cluster(score: SeperScore, matches_gold: bool) -> tuple[int, str]:
    """The index of the first cluster with that kernel decision, and its first response."""
    detail = score.detail
    for index, cluster in enumerate(detail["clusters"]):
        if cluster["matches_gold"] == matches_gold:
            return index, detail["responses"][cluster["members"][0]]["text"]
    raise AssertionError(f"no cluster with matches_gold={matches_gold}")


def test_a_post_stores_one_label_with_the_kernels_decision(researcher_client, researcher, scored):
    data, baseline = scored
    index, text = _cluster(baseline, matches_gold=False)
    response = researcher_client.post(
        _url(data), {"score": baseline.pk, "cluster": index, "answer": "yes"}
    )
    assert response.status_code == 200
    label = AnswerEquivalenceLabel.objects.get()
    assert label.judge == Judge.objects.get(user=researcher)
    assert label.judge.kind == Judge.Kind.HUMAN
    assert (label.topic, label.seper_score, label.cluster_index) == (data.topic, baseline, index)
    assert label.response_text == text
    assert label.equivalent is True and label.machine_decision is False
    html = response.content.decode()
    assert f'id="equivalence-{baseline.pk}-{index}"' in html
    assert 'data-judged="yes"' in html and "(saved)" in html


def test_a_second_post_updates_the_label_and_the_page_shows_it(researcher_client, scored):
    data, baseline = scored
    index, _ = _cluster(baseline, matches_gold=True)
    post = {"score": baseline.pk, "cluster": index}
    researcher_client.post(_url(data), {**post, "answer": "yes"})
    response = researcher_client.post(_url(data), {**post, "answer": "no"})
    assert "(updated)" in response.content.decode()
    label = AnswerEquivalenceLabel.objects.get()
    assert label.equivalent is False and label.machine_decision is True

    page = reverse("seper-topic", args=[data.collection.pk, data.topic.pk])
    html = researcher_client.get(page).content.decode()
    form = html[html.index(f'id="equivalence-{baseline.pk}-{index}"') :].split("</form>")[0]
    assert 'data-judged="no"' in form


@pytest.mark.parametrize(
    "post, message",
    [
        ({"score": 999999, "cluster": 0, "answer": "yes"}, "No such SePer score on this topic."),
        ({"score": "BASELINE", "cluster": 99, "answer": "yes"}, "has no cluster 99"),
        ({"score": "BASELINE", "cluster": 0}, "Answer yes or no."),
        ({"score": "BASELINE", "cluster": 0, "answer": "maybe"}, "Select a valid choice"),
    ],
)
def test_an_invalid_post_says_why_and_stores_nothing(researcher_client, scored, post, message):
    data, baseline = scored
    post = {k: baseline.pk if v == "BASELINE" else v for k, v in post.items()}
    response = researcher_client.post(_url(data), post)
    assert message in response.content.decode()
    assert 'class="error"' in response.content.decode()
    assert not AnswerEquivalenceLabel.objects.exists()


def test_a_score_of_another_topic_is_refused(researcher_client, scored):
    data, baseline = scored
    other = reverse("seper-topic-equivalence", args=[data.collection.pk, data.no_gold.pk])
    response = researcher_client.post(other, {"score": baseline.pk, "cluster": 0, "answer": "no"})
    assert "No such SePer score on this topic." in response.content.decode()
    assert not AnswerEquivalenceLabel.objects.exists()


def test_annotators_get_403_and_nothing_is_stored(client, annotator, scored):
    data, baseline = scored
    client.force_login(annotator)
    response = client.post(_url(data), {"score": baseline.pk, "cluster": 0, "answer": "yes"})
    assert response.status_code == 403
    assert not AnswerEquivalenceLabel.objects.exists()
