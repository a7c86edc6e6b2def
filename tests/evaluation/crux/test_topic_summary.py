"""CRUX's summary on the topic page: each run's coverage with the matrix's defaults."""

import pytest

from evaluation.crux.matrix.matrix import build_matrix, matrix_options
from evaluation.crux.matrix.stored import load_stored
from evaluation.crux.topic_summary import topic_summary
from tests.crux_app.factories import make_judge, make_run, rate_passages
from tests.evaluation.crux.matrix_seed import make_matrix_topic
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def test_coverage_per_run_from_the_judges_ratings():
    data = make_summary_topics()
    summary = topic_summary(data.topic)
    assert not summary.empty
    assert (summary.judge.name, summary.tau, summary.k) == ("llm-judge", 3, 10)
    rows = {r.run.name: r for r in summary.runs}
    assert (rows["bm25"].value, rows["bm25"].n_covered, rows["bm25"].n_answerable) == (1.0, 2, 2)
    assert (rows["dense-run"].value, rows["dense-run"].n_covered) == (0.0, 0)
    assert rows["bm25"].url.endswith(f"?judge={data.judge.pk}&run={data.bm25.pk}")


def test_without_qrels_the_summary_states_what_the_matrix_states():
    data = make_summary_topics()
    data.topic.qrels.all().delete()
    (bm25, _) = topic_summary(data.topic).runs
    options = matrix_options(data.topic)
    matrix = build_matrix(data.topic, options, options.judge(data.judge.pk), options.runs[0])
    expected = matrix.coverage.value if matrix.coverage is not None else None
    assert bm25.value == expected and (bm25.n_covered, bm25.n_answerable) == (
        matrix.n_covered,
        matrix.n_answerable,
    )
    if bm25.value is None:
        assert bm25.reason  # undefined always says why


def test_a_topic_nobody_judged_is_empty():
    data = make_summary_topics()
    summary = topic_summary(data.bare)
    assert summary.empty and summary.runs == [] and summary.judge is None
    # A human's ratings alone are enough to show coverage.
    human = make_judge("anna", kind="human")
    rate_passages(human, data.bare, data.passages[:1], lambda position, index: 4)
    assert not topic_summary(data.bare).empty


def test_one_load_for_every_run_gives_the_matrices_the_page_builds(
    django_assert_max_num_queries,
):
    hand = make_matrix_topic()
    options = matrix_options(hand.topic)
    judge = options.judge(hand.llm_a.pk)
    stored = load_stored(hand.topic, [run.id for run in options.runs])
    for run in options.runs:
        for k in (1, 2, 10):
            with django_assert_max_num_queries(0):
                shared = build_matrix(hand.topic, options, judge, run, 3, k, stored)
            alone = build_matrix(hand.topic, options, judge, run, 3, k)
            assert shared.columns == alone.columns and shared.rows == alone.rows
            assert (shared.codes == alone.codes).all()
            assert (shared.judge_codes == alone.judge_codes).all()
            assert shared.coverage == alone.coverage


def test_the_summary_costs_the_same_few_queries_for_any_number_of_runs(
    django_assert_max_num_queries,
):
    data = make_summary_topics()
    for i in range(3):
        make_run(data.collection, f"extra-{i}", data.topic, data.passages[i:])
    with django_assert_max_num_queries(7):
        assert len(topic_summary(data.topic).runs) == 5
