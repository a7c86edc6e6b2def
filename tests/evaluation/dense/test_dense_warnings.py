"""The DENSE collection page says when every question of a run is uncertain, or none is, and
says nothing when the uncertainty tells questions apart."""

import re

import pytest
from django.urls import reverse

from evaluation.dense.models import DenseResult
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    data = make_dense_data()
    run_job(data, RuleModels().models())
    return data


def warnings_of(client, data) -> list[str]:
    response = client.get(reverse("dense-collection", args=[data.collection.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="dense-questions"' in html  # the numbers stay
    items = re.findall(r'<li class="judge-warning"[^>]*>(.*?)</li>', html, re.S)
    return [re.sub(r"<[^>]+>", "", item) for item in items]


def test_one_uncertain_question_of_two_is_no_warning(researcher_client, stored):
    assert sorted(DenseResult.objects.values_list("uncertain", flat=True)) == [False, True]
    assert warnings_of(researcher_client, stored) == []


@pytest.mark.parametrize(
    ("uncertain", "amount"), [(True, "all 2 questions"), (False, "none of the 2 questions")]
)
def test_all_or_none_uncertain_is_stated(researcher_client, stored, uncertain, amount):
    DenseResult.objects.update(uncertain=uncertain)
    row = DenseResult.objects.select_related("run").first()
    (text,) = warnings_of(researcher_client, stored)
    assert text.startswith(f"uncertainty says nothing DENSE with generator {row.generator}")
    assert f"{amount} of {row.run.name} top-{row.k}" in text
    assert "uncertain (DSE &gt; 0.2)" in text
