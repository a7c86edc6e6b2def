"""The evaluation's array path (packed reads, whole-collection arrays, vectorised ranking
metrics) against a straightforward per-topic evaluation of a random collection with every
awkward case (see random_collection.py), and the array oracle against ``build_oracle``."""

import numpy as np
import pytest

from crux_app.inputs import resolve_judge, resolve_runs
from crux_app.models import Judgment, Passage, PassageQrel
from evaluation.crux.collection_data import load_collection
from evaluation.crux.evaluate import METRICS, EvaluationParams, evaluate
from evaluation.crux.judge_warnings import collection_rating_counts
from evaluation.crux.oracle import oracle_arrays
from evaluation.crux.token_counts import WHITESPACE
from tests.evaluation.crux.plain_oracle import build_oracle
from tests.evaluation.crux.random_collection import make_random_collection, reference_values

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("k", "missing_as_zero", "min_relevance"),
    [(3, False, 1), (5, True, 2), ("oracle", False, 1), (1, False, 3)],
)
def test_evaluate_equals_the_per_topic_computation(k, missing_as_zero, min_relevance):
    collection = make_random_collection()
    params = EvaluationParams(
        judge="llm",
        qrels_source="imported",
        k=k,
        missing_as_zero=missing_as_zero,
        min_relevance=min_relevance,
        tokenizer=WHITESPACE,
    )
    evaluation = evaluate(collection, params)
    expected = reference_values(
        collection,
        "llm",
        "imported",
        k,
        missing_as_zero=missing_as_zero,
        min_relevance=min_relevance,
    )
    assert [run.name for run in evaluation.runs] == ["bm25", "dense"]
    defined = 0
    for run in evaluation.runs:
        for metric in METRICS:
            want = np.array([expected[run.name][t][metric] for t in evaluation.topic_names])
            np.testing.assert_allclose(
                run.values[metric], want, rtol=0, atol=1e-12, equal_nan=True, err_msg=metric
            )
            defined += int((~np.isnan(want)).sum())
        want_missing = [expected[run.name][t]["missing"] for t in evaluation.topic_names]
        assert run.missing.tolist() == want_missing
    # The comparison is about numbers, not NaN == NaN.
    assert defined > 40


def test_the_random_collection_has_its_awkward_cases():
    collection = make_random_collection()
    evaluation = evaluate(
        collection,
        EvaluationParams(judge="llm", qrels_source="imported", k=3, tokenizer=WHITESPACE),
    )
    assert evaluation.computed_oracle.tolist() == [False] * 4 + [True] * 2
    dense = next(run for run in evaluation.runs if run.name == "dense")
    assert dense.ranked.tolist() == [True] * 5 + [False]
    # t2's passage without text leaves some density undefined where coverage is defined.
    bm25 = evaluation.runs[0]
    assert (np.isnan(bm25.values["density"]) & ~np.isnan(bm25.values["coverage"])).any() or (
        np.isnan(dense.values["density"]) & ~np.isnan(dense.values["coverage"])
    ).any()


@pytest.mark.parametrize("missing_as_zero", [False, True])
def test_the_array_oracle_is_build_oracle(missing_as_zero):
    collection = make_random_collection()
    judge = resolve_judge(collection, "llm")
    data = load_collection(collection, judge, "imported", resolve_runs(collection))
    arrays = oracle_arrays(data, 3.0, missing_as_zero)
    plain = build_oracle(data, 3.0, missing_as_zero)
    assert np.array_equal(arrays.required, plain.required)
    assert np.array_equal(arrays.computed, plain.computed)
    grades = [{} for _ in range(data.n_topics)]
    for t, p, g in zip(arrays.topic, arrays.passage, arrays.grade, strict=True):
        grades[t][str(p)] = int(g)
    assert grades == plain.grades
    assert sum(len(g) for g in grades) > 20


def test_a_rating_filed_under_another_topic_makes_a_row_but_is_not_placed():
    collection = make_random_collection()
    data = load_collection(collection, resolve_judge(collection, "llm"), "imported", [])
    misfiled = Passage.objects.get(collection=collection, external_id="t1:d8#0")
    t1 = data.topic_names.index("t1")
    row = data.rows_of(np.array([t1]), np.array([misfiled.pk]))[0]
    assert row >= 0 and data.passage_valid[t1, row]
    assert np.isnan(data.ratings[t1, row]).all()


def test_qrels_and_rating_counts_of_the_loaded_data():
    collection = make_random_collection()
    judge = resolve_judge(collection, "llm")
    data = load_collection(collection, judge, "imported", [])
    imported = PassageQrel.objects.filter(topic__collection=collection, source="imported")
    topic_at = {int(pk): i for i, pk in enumerate(data.topic_ids)}
    expected = [{} for _ in range(data.n_topics)]
    for q in imported:
        expected[topic_at[q.topic_id]][q.passage_id] = q.grade
    assert data.qrels == expected
    ratings = Judgment.objects.filter(judge__name="llm", topic__collection=collection)
    counts, unparsable = data.rating_counts()
    assert unparsable == ratings.filter(rating__isnull=True).count() > 0
    assert counts == {
        float(r): ratings.filter(rating=r).count()
        for r in range(6)
        if ratings.filter(rating=r).exists()
    }


def test_the_evaluation_counts_the_judges_ratings_as_the_warnings_query_does():
    collection = make_random_collection()
    evaluation = evaluate(collection, EvaluationParams(judge="llm", k=3, tokenizer=WHITESPACE))
    assert evaluation.rating_counts == collection_rating_counts(collection, evaluation.judge.id)


def test_the_plain_reads_other_databases_use_give_the_same_numbers(monkeypatch):
    """SQLite (the demo's fallback) has no string_agg of int8send: the ORM's own reads."""
    from django.db import connection

    collection = make_random_collection()
    params = EvaluationParams(judge="llm", qrels_source="imported", k=3, tokenizer=WHITESPACE)
    packed = evaluate(collection, params)
    monkeypatch.setattr(connection, "vendor", "sqlite")
    plain = evaluate(collection, params)
    for a, b in zip(packed.runs, plain.runs, strict=True):
        for metric in METRICS:
            assert np.array_equal(a.values[metric], b.values[metric], equal_nan=True)
    assert packed.rating_counts == plain.rating_counts
