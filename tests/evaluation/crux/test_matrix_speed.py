"""The matrix page stays fast and its query count flat for a large topic."""

import time

import pytest
from django.urls import reverse

from tests.evaluation.crux.matrix_seed import seed_large_topic

pytestmark = pytest.mark.django_db


def test_large_matrix_uses_few_queries_and_renders_fast(
    researcher_client, django_assert_max_num_queries
):
    topic = seed_large_topic(n_subquestions=15, n_passages=300, n_llm_judges=2)
    url = reverse("crux-topic", args=[topic.collection_id, topic.pk]) + "?k=20"
    researcher_client.get(url)  # warm templates and the connection
    timings = []
    for _ in range(3):
        with django_assert_max_num_queries(13):
            started = time.perf_counter()
            response = researcher_client.get(url)
            timings.append(time.perf_counter() - started)
    assert response.status_code == 200
    matrix = response.context["matrix"]
    assert matrix.codes.shape == (15, 300)
    assert matrix.n_not_judged == 0
    assert matrix.n_topk == 20
    assert 0 < matrix.n_disagreements < 400
    best = min(timings)
    print(f"\nmatrix page 15 x 300, 3 judges: best {best * 1000:.0f} ms of {len(timings)}")
    # About 0.1 s on a development machine; the bound leaves room for a busy CI box.
    assert best < 0.6, f"matrix page took {best:.2f}s"
