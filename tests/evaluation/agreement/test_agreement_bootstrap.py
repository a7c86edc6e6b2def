"""The bootstrap: its vectorised statistics equal the libraries' on any table, and drawing
patterns is resampling items."""

import time

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import fleiss_kappa

from evaluation.agreement.judge_comparison import compare_judges
from evaluation.agreement.method import sufficient_statistics as ts
from evaluation.agreement.method.bootstrap import Bootstrap, compress, compress_groups
from evaluation.agreement.method.label_agreement import PairedLabels, RaterLabels

RNG = np.random.default_rng(7)


def random_pairs(n=400):
    a = RNG.integers(0, 6, n).astype(float)
    b = np.clip(a + RNG.integers(-2, 3, n), 0, 5)
    return a, b


@pytest.mark.parametrize("seed", range(4))
def test_table_formulas_equal_the_libraries(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, 300).astype(float)
    b = np.clip(a + rng.integers(-2, 3, 300), 0, 5)
    table = PairedLabels(a, b, range(6)).table
    for weights in (None, "linear", "quadratic"):
        expected = cohen_kappa_score(a, b, labels=list(range(6)), weights=weights)
        assert ts.kappa(table, weights)[0] == pytest.approx(expected)
    assert ts.spearman(table)[0] == pytest.approx(spearmanr(a, b).statistic)
    assert ts.kendall_b(table)[0] == pytest.approx(kendalltau(a, b).statistic)
    p, r, f, _ = precision_recall_fscore_support(a, b, labels=[3], zero_division=np.nan)
    assert [x[0] for x in ts.class_scores(table, 3)] == pytest.approx([p[0], r[0], f[0]])


@pytest.mark.parametrize("seed", range(4))
def test_rater_formulas_equal_the_libraries(seed):
    rng = np.random.default_rng(seed)
    ratings = rng.integers(0, 6, (150, 4)).astype(float)
    ratings[rng.random(ratings.shape) < 0.3] = np.nan
    labels = RaterLabels(ratings, range(6))
    v = 6
    unit = ts.unit_coincidences(labels.patterns.rows).reshape(-1, v * v)
    coincidences = (labels.patterns.counts @ unit).reshape(1, v, v)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(
            reliability_data=ratings.T, value_domain=list(range(6)), level_of_measurement=level
        )
        assert labels.krippendorff_alpha(level).value == pytest.approx(expected)
        assert ts.krippendorff(coincidences, labels.categories, level)[0] == pytest.approx(expected)
    full = ratings[~np.isnan(ratings).any(axis=1)]
    counts = np.stack([(full == c).sum(axis=1) for c in range(6)], axis=1)
    fleiss = ts.fleiss(counts.sum(0)[None], np.array([(counts**2).sum()]), np.array([len(full)]), 4)
    assert fleiss[0] == pytest.approx(fleiss_kappa(counts))


def test_pattern_draws_resample_items():
    """Kappa over multinomial pattern draws has the distribution of kappa over item resamples."""
    a, b = random_pairs(300)
    boot = Bootstrap(3000, seed=1)
    paired = PairedLabels(a, b, range(6), bootstrap=boot)
    fast = ts.kappa(paired.replicates, "quadratic")
    idx = np.random.default_rng(2).integers(0, len(a), (3000, len(a)))
    slow = np.array([cohen_kappa_score(a[i], b[i], weights="quadratic") for i in idx[:400]])
    assert fast.mean() == pytest.approx(slow.mean(), abs=0.01)
    assert fast.std() == pytest.approx(slow.std(), rel=0.15)


def test_intervals_are_seeded_and_contain_the_value():
    a, b = random_pairs()
    first = PairedLabels(a, b, range(6), bootstrap=Bootstrap(200, seed=5)).cohen_kappa()
    again = PairedLabels(a, b, range(6), bootstrap=Bootstrap(200, seed=5)).cohen_kappa()
    other = PairedLabels(a, b, range(6), bootstrap=Bootstrap(200, seed=6)).cohen_kappa()
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.ci_low < first.value < first.ci_high


def test_no_resamples_no_interval():
    a, b = random_pairs(50)
    s = PairedLabels(a, b, range(6), bootstrap=Bootstrap(0)).cohen_kappa("quadratic")
    assert s.value is not None and s.ci_low is None and s.ci_high is None


def test_interval_from_defined_resamples_says_so():
    # Two items, one pair (1, 1) and one (0, 1): many resamples hold one category only.
    s = PairedLabels([1, 1, 0], [1, 1, 0], [0, 1], bootstrap=Bootstrap(400, seed=0)).cohen_kappa()
    assert s.value == pytest.approx(1.0)
    assert s.note is not None and "resamples where defined" in s.note


def test_invalid_bootstrap_settings():
    with pytest.raises(ValueError):
        Bootstrap(-1)
    with pytest.raises(ValueError):
        Bootstrap(10, level=1.5)


def test_compress_merges_identical_items():
    patterns = compress(np.array([[1, 0], [0, 1], [1, 0]]))
    assert patterns.n_items == 3 and patterns.total().tolist() == [2, 1]


def test_judge_comparison_perfect_vs_total_disagreement():
    reference = [0, 1, 0, 1, 0, 1]
    result = compare_judges(
        reference, reference, [1, 0, 1, 0, 1, 0], [0, 1], "cohen_kappa", names=("good", "bad")
    )
    assert result.a.value == pytest.approx(1.0) and result.b.value == pytest.approx(-1.0)
    d = result.difference
    assert d.value == pytest.approx(2.0) and d.n == 6
    # In a resample with class shares p, 1-p the bad judge's kappa is -2p(1-p) / (1 - 2p(1-p)),
    # in [-1, 0): the paired difference stays in (1, 2].
    assert 1 < d.ci_low <= d.ci_high <= 2 + 1e-12


def test_judge_comparison_undefined_for_one_judge_says_which():
    result = compare_judges([1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 1], "cohen_kappa")
    assert result.difference.value is None
    assert result.difference.undefined.startswith("undefined for judge a")


def test_judge_comparison_uses_the_common_items_only():
    nan = np.nan
    result = compare_judges(
        [0, 1, 0, 1], [0, 1, nan, 1], [0, 1, 1, nan], [0, 1], "percent_agreement"
    )
    assert result.a.n == result.b.n == result.difference.n == 2


def test_grouped_items_are_merged_exactly_on_both_paths():
    items = np.array([0, 0, 1, 1, 2, 3, 3])
    codes = np.array([2, 1, 1, 2, 2, 0, 0])
    fast = compress_groups(items, codes, 3)
    # Items 0 and 1 hold the same codes {1, 2}; item 3 holds code 0 twice.
    assert sorted(zip(fast.counts.tolist(), fast.rows.tolist(), strict=True)) == [
        (1, [0.0, 0.0, 1.0]),
        (1, [2.0, 0.0, 0.0]),
        (2, [0.0, 1.0, 1.0]),
    ]
    # 40 codes per item cannot be one 62-bit number: the dense path gives the same patterns.
    many = np.repeat(np.arange(6), 40)
    rng = np.random.default_rng(0)
    many_codes = rng.integers(0, 3, many.size)
    many_codes[40:80] = many_codes[:40]  # items 0 and 1 identical
    slow = compress_groups(many, many_codes, 3)
    dense = compress(np.stack([np.bincount(many_codes[many == i], minlength=3) for i in range(6)]))
    assert slow.n_items == 6 and len(slow.counts) == 5
    assert np.array_equal(slow.rows, dense.rows) and np.array_equal(slow.counts, dense.counts)


def test_statistics_on_100k_labels_are_fast():
    rng = np.random.default_rng(0)
    n = 100_000
    truth = rng.integers(0, 6, n)
    humans = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 3)), 0, 5).astype(float)
    humans[rng.random((n, 3)) < 0.33] = np.nan
    judge = np.clip(truth + rng.integers(-2, 3, n), 0, 5).astype(float)
    started = time.perf_counter()
    RaterLabels(humans, range(6)).krippendorff_alpha("ordinal")
    pooled = PairedLabels(
        humans.T.ravel(), np.tile(judge, 3), range(6), items=np.tile(np.arange(n), 3)
    )
    stats = [pooled.cohen_kappa("quadratic"), pooled.spearman(), *pooled.class_scores(5, "five")]
    elapsed = time.perf_counter() - started
    assert all(s.ci_low is not None for s in stats)
    assert pooled.n == int((~np.isnan(humans)).any(axis=1).sum())  # items with a human label
    # About 0.5 s on a development machine; the bound leaves room for a busy CI box.
    assert elapsed < 3, f"took {elapsed:.2f}s"
