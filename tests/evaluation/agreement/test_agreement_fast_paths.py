"""The fast paths of the agreement report give the numbers of the straightforward computations:
scikit-learn on every pair vs on distinct pairs with weights, item merging by sorting vs by
dense rows, rank correlations from patterns vs from tables vs scipy on the resampled items,
several judge-comparison statistics sharing one resampling, one BLAS thread, the raters query."""

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support
from threadpoolctl import threadpool_info

from crux_app.models import Judge, Judgment
from evaluation.agreement.blas_threads import one_blas_thread
from evaluation.agreement.judge_comparison import compare_judges, compare_judges_on
from evaluation.agreement.label_tables import collection_raters
from evaluation.agreement.method import sufficient_statistics as ts
from evaluation.agreement.method.bootstrap import (
    Bootstrap,
    compress,
    compress_codes,
    compress_groups,
    dense_ids,
)
from evaluation.agreement.method.label_agreement import PairedLabels, correlations
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

RATINGS = list(range(6))


def noisy_pairs(rng, n, missing=0.1):
    a = rng.integers(0, 6, n).astype(float)
    b = np.clip(a + rng.integers(-2, 3, n), 0, 5)
    a[rng.random(n) < missing] = np.nan
    return a, b


@pytest.mark.parametrize("seed", range(3))
def test_weighted_distinct_pairs_give_sklearns_figures_on_every_pair(seed):
    rng = np.random.default_rng(seed)
    a, b = noisy_pairs(rng, 2000)
    keep = ~np.isnan(a)
    paired = PairedLabels(a, b, RATINGS)
    for weights in (None, "linear", "quadratic"):
        expected = cohen_kappa_score(a[keep], b[keep], labels=RATINGS, weights=weights)
        # Integer tallies either way: the same floating-point operations, the same number.
        assert paired.cohen_kappa(weights).value == expected
    p, r, f, _ = precision_recall_fscore_support(
        a[keep], b[keep], labels=RATINGS, zero_division=np.nan
    )
    for category in range(6):
        got = [s.value for s in paired.class_scores(category, "c")]
        assert got == [p[category], r[category], f[category]]
    assert np.array_equal(paired.confusion(), confusion_matrix(a[keep], b[keep], labels=RATINGS))
    assert paired.confusion().dtype == np.int64


def test_pooled_pairs_count_distinct_items_and_resample_them():
    rng = np.random.default_rng(4)
    n = 500
    humans = rng.integers(0, 2, (n, 2)).astype(float)
    humans[rng.random((n, 2)) < 0.4] = np.nan
    judge = rng.integers(0, 2, n).astype(float)
    items = np.tile(np.arange(n) * 7 + 3, 2)  # item ids need not be 0..n-1
    pooled = PairedLabels(
        humans.T.ravel(), np.tile(judge, 2), [0, 1], items=items, bootstrap=Bootstrap(30)
    )
    assert pooled.n == int((~np.isnan(humans)).any(axis=1).sum())
    assert pooled.n_pairs == int((~np.isnan(humans)).sum())
    # Each resample holds n items with all their pairs: as many pairs on average as observed.
    pairs = pooled.replicates.sum(axis=(1, 2))
    assert pairs.mean() == pytest.approx(pooled.n_pairs, rel=0.05)


def dense_rows_reference(item, codes, n_codes):
    """The straightforward merge: every item's code counts as a dense row, then ``compress``."""
    distinct, inverse = np.unique(item, return_inverse=True)
    rows = np.zeros((len(distinct), n_codes), np.int32)
    np.add.at(rows, (inverse, codes), 1)
    return compress(rows)


def lexsort_reference(item, codes, n_codes):
    """The previous implementation (np.unique + np.lexsort + a loop per pattern): its pattern
    order fixes which pattern each multinomial draw lands on, so the new one must keep it."""
    _, item = np.unique(item, return_inverse=True)
    order = np.lexsort((codes, item))
    item, codes = item[order], codes[order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, item.size])
    rank = np.arange(item.size) - np.repeat(starts, sizes)
    keys = np.add.reduceat((codes + 1) * (n_codes + 1) ** rank, starts)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    rows = np.zeros((len(first), n_codes))
    for p, f in enumerate(first):
        np.add.at(rows[p], codes[starts[f] : starts[f] + sizes[f]], 1)
    return rows, counts


def as_set(rows, counts):
    return sorted(zip(counts.tolist(), rows.tolist(), strict=True))


@pytest.mark.parametrize(
    "ids",
    [
        lambda n, rng: np.tile(np.arange(n), 3),  # pooled pairs: runs ordered by item
        lambda n, rng: rng.permutation(np.tile(np.arange(n) * 5 + 2, 2)),  # shuffled, gaps
        lambda n, rng: np.tile(rng.choice(10**12, n, replace=False), 2),  # huge ids: unique
    ],
)
def test_compress_groups_equals_the_previous_and_the_dense_merge(ids):
    rng = np.random.default_rng(1)
    item = ids(300, rng)
    codes = rng.integers(0, 8, item.size)
    fast = compress_groups(item, codes, 8)
    rows, counts = lexsort_reference(item, codes, 8)
    assert np.array_equal(fast.rows, rows) and np.array_equal(fast.counts, counts)
    slow = dense_rows_reference(item, codes, 8)
    assert as_set(fast.rows, fast.counts) == as_set(slow.rows, slow.counts)


def test_dense_ids_number_ids_in_order():
    number, m = dense_ids(np.array([7, 3, 7, 100, 3]))
    assert m == 3 and number.tolist() == [1, 0, 1, 2, 0]
    number, m = dense_ids(np.array([-5, 2**40, -5]))  # outside a small range: np.unique
    assert m == 2 and number.tolist() == [0, 1, 0]
    assert dense_ids(np.array([], np.int64))[1] == 0


@pytest.mark.parametrize("seed", range(3))
def test_pattern_correlations_equal_tables_and_scipy_on_the_same_resamples(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.random(60), 1)
    y = np.round(np.clip(x + rng.normal(0, 0.2, 60), 0, 1), 1)
    ux, ix = np.unique(x, return_inverse=True)
    uy, iy = np.unique(y, return_inverse=True)
    patterns = compress_codes(ix * len(uy) + iy, len(ux) * len(uy))
    draws = Bootstrap(40, seed=seed).draws(patterns)
    px, py = np.divmod(patterns.onehot, len(uy))
    tables = np.zeros((len(draws), len(ux) * len(uy)))
    tables[:, patterns.onehot] = draws
    tables = tables.reshape(-1, len(ux), len(uy))
    rho = ts.spearman_patterns(draws, px, py, len(ux), len(uy))
    tau = ts.kendall_b_patterns(draws, px, py, len(ux), len(uy))
    assert np.array_equal(tau, ts.kendall_b(tables))  # integer counts: exactly equal
    assert rho == pytest.approx(ts.spearman(tables), abs=1e-12)
    # The straightforward computation: each resample's items, written out, given to scipy.
    for b in range(len(draws)):
        counts = draws[b].astype(int)
        xs, ys = np.repeat(ux[px], counts), np.repeat(uy[py], counts)
        assert rho[b] == pytest.approx(spearmanr(xs, ys).statistic, abs=1e-12)
        assert tau[b] == pytest.approx(kendalltau(xs, ys).statistic, abs=1e-12)


def test_correlations_interval_is_the_same_on_both_kendall_paths(monkeypatch):
    from evaluation.agreement.method import score_statistics

    rng = np.random.default_rng(3)
    x = np.round(rng.random(80), 2)
    y = np.round(np.clip(x + rng.normal(0, 0.2, 80), 0, 1), 2)
    boot = Bootstrap(100, seed=2)
    by_patterns = correlations(x, y, boot=boot)
    monkeypatch.setattr(score_statistics, "PATTERN_SHARE", 0)  # force the table path
    by_tables = correlations(x, y, boot=boot)
    assert by_patterns[1] == by_tables[1]
    assert by_patterns[0].value == by_tables[0].value
    assert by_patterns[0].ci_low == pytest.approx(by_tables[0].ci_low, abs=1e-12)
    assert by_patterns[0].ci_high == pytest.approx(by_tables[0].ci_high, abs=1e-12)


def test_statistics_compared_together_equal_one_at_a_time():
    rng = np.random.default_rng(5)
    n = 400
    reference, a = noisy_pairs(rng, n)
    b = np.clip(reference + rng.integers(-1, 2, n), 0, 5)
    b[rng.random(n) < 0.1] = np.nan
    items = np.arange(n) % 300  # some items hold two pairs
    names = ("judge a", "judge b")
    boot = Bootstrap(60, seed=4)
    wanted = ["cohen_kappa_quadratic", "spearman", "percent_agreement"]
    together = compare_judges_on(
        reference, a, b, RATINGS, wanted, items=items, names=names, boot=boot
    )
    for statistic in wanted:
        alone = compare_judges(
            reference, a, b, RATINGS, statistic, items=items, names=names, boot=boot
        )
        assert together[statistic] == alone
    with pytest.raises(ValueError, match="statistic must be one of"):
        compare_judges_on(reference, a, b, RATINGS, ["spearman", "nope"])


def test_one_blas_thread_inside_the_block_only():
    def blas_threads():
        return {
            i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"
        }

    before = blas_threads()
    with one_blas_thread():
        assert set(blas_threads().values()) == {1}
    assert blas_threads() == before


@pytest.mark.django_db
def test_collection_raters_are_the_judges_with_judgments_in_the_collection():
    here, there = make_collection("here"), make_collection("there")
    topic, other = make_topic(here, "t1", n_subquestions=1), make_topic(there, "t1")
    (passage,) = make_passages(here, "t1", 1)
    (elsewhere,) = make_passages(there, "t1", 1)
    judges = {name: make_judge(name) for name in ("b-llm", "a-llm", "idle", "away")}
    human = make_judge("zed", kind=Judge.Kind.HUMAN)
    sq, sq_other = topic.subquestions.get(), other.subquestions.first()
    rows = [(judges["b-llm"], topic, sq, passage), (judges["a-llm"], topic, sq, passage)]
    rows += [(human, topic, sq, passage), (judges["away"], other, sq_other, elsewhere)]
    Judgment.objects.bulk_create(
        Judgment(judge=j, topic=t, subquestion=s, passage=p, task="passage_rating", rating=3)
        for j, t, s, p in rows
    )
    raters = collection_raters(here)
    assert [r.name for r in raters] == ["a-llm", "b-llm", "zed"]  # by name, no "idle"/"away"
    assert [r.kind for r in raters] == ["llm", "llm", "human"]
