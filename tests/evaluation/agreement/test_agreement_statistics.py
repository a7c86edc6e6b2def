"""Each agreement statistic on hand-made cases: perfect agreement, total disagreement, a single
category, missing labels, and a value worked out by hand."""

import math

import numpy as np
import pytest

from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import (
    PairedLabels,
    RaterLabels,
    correlations,
    proportion,
)

NAN = math.nan
BINARY = [0, 1]
RATINGS = range(6)


def kappa(a, b, cats=BINARY, weights=None):
    return PairedLabels(a, b, cats).cohen_kappa(weights)


# ---- Cohen's kappa ---------------------------------------------------------------------


def test_cohen_kappa_perfect_agreement_is_one():
    s = kappa([0, 1, 2, 0, 5], [0, 1, 2, 0, 5], RATINGS)
    assert s.value == pytest.approx(1.0) and s.n == 5 and s.undefined is None
    assert s.ci_low == pytest.approx(1.0) and s.ci_high == pytest.approx(1.0)


def test_cohen_kappa_total_disagreement_is_minus_one():
    assert kappa([0, 1, 0, 1], [1, 0, 1, 0]).value == pytest.approx(-1.0)


def test_cohen_kappa_single_category_is_undefined_not_zero():
    s = kappa([1, 1, 1], [1, 1, 1])
    assert s.value is None and s.ci_low is None and s.n == 3
    assert "single category" in s.undefined


def test_cohen_kappa_one_rater_constant_is_zero_not_undefined():
    # Chance agreement is below 1, so kappa is defined: it is 0 (no better than chance).
    assert kappa([0, 1, 0, 1], [1, 1, 1, 1]).value == pytest.approx(0.0)


def test_cohen_kappa_leaves_out_items_with_a_missing_label():
    s = kappa([0, 1, NAN, 1, NAN], [0, NAN, 1, 1, NAN])
    assert s.n == 2 and s.value == pytest.approx(1.0)


def test_cohen_kappa_by_hand():
    # po = 3/4; pe = 2/4 * 1/4 + 2/4 * 3/4 = 1/2; kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.
    assert kappa([0, 0, 1, 1], [0, 1, 1, 1]).value == pytest.approx(0.5)


def test_quadratic_kappa_by_hand():
    # Observed weighted disagreement 1; expected 5 (rows [1,1,1], columns [1,0,2]): 1 - 1/5.
    assert kappa([0, 1, 2], [0, 2, 2], RATINGS, "quadratic").value == pytest.approx(0.8)


def test_fewer_than_two_items_is_undefined():
    s = kappa([1, NAN], [0, 1])
    assert s.value is None and s.n == 1 and "fewer than 2" in s.undefined


def test_label_outside_the_categories_is_an_error_naming_the_label():
    with pytest.raises(ValueError, match="label 7"):
        PairedLabels([0, 7], [0, 1], RATINGS)


# ---- Percent agreement -----------------------------------------------------------------


def test_percent_agreement_of_two_raters():
    paired = PairedLabels([0, 1, 1, NAN], [0, 0, 1, 1], BINARY)
    assert paired.percent_agreement().value == pytest.approx(2 / 3)
    assert PairedLabels([0, 1], [1, 0], BINARY).percent_agreement().value == 0.0
    assert PairedLabels([1, 1], [1, 1], BINARY).percent_agreement().value == 1.0


def test_percent_agreement_of_several_raters_averages_agreeing_pairs_per_item():
    ratings = np.array([[0, 0, 0], [0, 0, 1], [0, 1, NAN], [1, NAN, NAN]], float)
    s = RaterLabels(ratings, BINARY).percent_agreement()
    # Item 1: 3/3 pairs agree; item 2: 1/3; item 3: 0/1; item 4 has one label only.
    assert s.n == 3 and s.value == pytest.approx((1 + 1 / 3 + 0) / 3)


def test_percent_agreement_single_category_is_one():
    s = RaterLabels(np.ones((3, 2)), BINARY).percent_agreement()
    assert s.value == 1.0


# ---- Fleiss' kappa ---------------------------------------------------------------------


def test_fleiss_perfect_agreement_is_one():
    s = RaterLabels(np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]]), RATINGS).fleiss_kappa()
    assert s.value == pytest.approx(1.0) and s.n == 3


def test_fleiss_total_disagreement_is_minus_one():
    s = RaterLabels(np.array([[0, 1], [1, 0]]), BINARY).fleiss_kappa()
    assert s.value == pytest.approx(-1.0)


def test_fleiss_by_hand():
    # P = [1/3, 1]; p = [5/6, 1/6]; Pe = 13/18; kappa = (2/3 - 13/18) / (5/18) = -1/5.
    s = RaterLabels(np.array([[0, 0, 1], [0, 0, 0]]), BINARY).fleiss_kappa()
    assert s.value == pytest.approx(-0.2)


def test_fleiss_single_category_is_undefined():
    s = RaterLabels(np.zeros((4, 3)), BINARY).fleiss_kappa()
    assert s.value is None and "single category" in s.undefined


def test_fleiss_uses_items_with_the_most_common_number_of_labels():
    ratings = np.array([[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 1, NAN], [1, NAN, NAN]], float)
    s = RaterLabels(ratings, BINARY).fleiss_kappa()
    assert s.n == 3 and s.value == pytest.approx(1.0)
    assert "3 labels" in s.note and "1 others left out" in s.note


# ---- Krippendorff's alpha --------------------------------------------------------------

# Krippendorff's own example (with missing values), as in the krippendorff package's docs.
KRIPPENDORFF_EXAMPLE = np.array(
    [
        [NAN, NAN, NAN, NAN, NAN, 3, 4, 1, 2, 1, 1, 3, 3, NAN, 3],
        [1, NAN, 2, 1, 3, 3, 4, 3, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
        [NAN, NAN, 2, 1, 3, 4, 4, NAN, 2, 1, 1, 3, 3, NAN, 4],
    ]
).T


def test_krippendorff_with_missing_values_matches_the_published_example():
    labels = RaterLabels(KRIPPENDORFF_EXAMPLE, [1, 2, 3, 4])
    assert labels.krippendorff_alpha("nominal").value == pytest.approx(0.691358, abs=1e-6)
    assert labels.krippendorff_alpha("interval").value == pytest.approx(0.810845, abs=1e-6)
    # Units 2 and 14 have no label, unit 1 one label: 12 units are pairable.
    assert labels.krippendorff_alpha("ordinal").n == 12


def test_krippendorff_perfect_agreement_is_one_at_every_level():
    labels = RaterLabels(np.array([[0, 0], [3, 3], [5, 5]]), RATINGS)
    for level in ("nominal", "ordinal", "interval"):
        assert labels.krippendorff_alpha(level).value == pytest.approx(1.0)


def test_krippendorff_total_disagreement_by_hand():
    # o = [[0, 2], [2, 0]], e = [[2/3, 4/3], [4/3, 2/3]]: alpha = 1 - 4 / (8/3) = -0.5.
    s = RaterLabels(np.array([[0, 1], [1, 0]]), BINARY).krippendorff_alpha("nominal")
    assert s.value == pytest.approx(-0.5)


def test_krippendorff_single_category_is_undefined():
    s = RaterLabels(np.full((3, 2), 4.0), RATINGS).krippendorff_alpha("ordinal")
    assert s.value is None and "single category" in s.undefined


def test_krippendorff_rejects_an_unknown_level():
    with pytest.raises(ValueError, match="level"):
        RaterLabels(np.zeros((2, 2)), BINARY).krippendorff_alpha("ratio-ish")


# ---- Spearman and Kendall --------------------------------------------------------------


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_correlations_perfect_reversed_constant_missing(method):
    def stat(a, b):
        return getattr(PairedLabels(a, b, RATINGS), method)()

    assert stat([0, 1, 2, 5], [1, 2, 4, 5]).value == pytest.approx(1.0)
    assert stat([0, 1, 2, 5], [5, 4, 2, 1]).value == pytest.approx(-1.0)
    constant = stat([0, 1, 2], [3, 3, 3])
    assert constant.value is None and "same label" in constant.undefined
    missing = stat([0, NAN, 2, 5], [1, 3, 4, NAN])
    assert missing.n == 2 and missing.value == pytest.approx(1.0)


def test_spearman_with_ties_by_hand():
    # Midranks x = [1.5, 1.5, 3], y = [1, 2, 3]: Pearson of ranks = 0.8660.
    s = PairedLabels([0, 0, 4], [1, 2, 3], RATINGS).spearman()
    assert s.value == pytest.approx(math.sqrt(3) / 2)


def test_correlations_of_continuous_values():
    spearman, kendall = correlations([0.1, 0.4, 0.35, 0.8], [0.2, 0.5, 0.6, 0.9])
    # One discordant pair of 6: tau = (5 - 1) / 6; rho = 1 - 6 * 2 / (4 * 15) = 0.8.
    assert kendall.value == pytest.approx(4 / 6) and spearman.value == pytest.approx(0.8)
    constant = correlations([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], ("humans", "judge"))
    assert all(s.value is None and "humans" in s.undefined for s in constant)
    few = correlations([0.5, NAN], [0.1, 0.2])
    assert all(s.value is None and s.n == 1 for s in few)


# ---- Precision, recall, F1 and the confusion matrix ------------------------------------


def scores(truth, pred, category, name):
    return {s.statistic: s for s in PairedLabels(truth, pred, BINARY).class_scores(category, name)}


def test_class_scores_by_hand():
    truth = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    pred = [1, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    yes = scores(truth, pred, 1, "answerable")
    no = scores(truth, pred, 0, "unanswerable")
    assert yes["precision_answerable"].value == pytest.approx(2 / 3)
    assert yes["recall_answerable"].value == pytest.approx(0.5)
    assert yes["f1_answerable"].value == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert no["precision_unanswerable"].value == pytest.approx(5 / 7)
    assert no["recall_unanswerable"].value == pytest.approx(5 / 6)


def test_class_scores_perfect_and_total_disagreement():
    perfect = scores([1, 0, 1], [1, 0, 1], 1, "answerable")
    assert all(s.value == pytest.approx(1.0) for s in perfect.values())
    wrong = scores([1, 0, 1], [0, 1, 0], 1, "answerable")
    assert all(s.value == 0.0 for s in wrong.values())


def test_class_scores_of_a_class_nobody_uses_are_undefined():
    absent = scores([1, 1, NAN], [1, 1, 0], 0, "unanswerable")
    assert all(s.value is None for s in absent.values())
    assert "never gives the label 0" in absent["precision_unanswerable"].undefined
    assert absent["recall_unanswerable"].n == 2


def test_confusion_matrix_rows_are_the_reference():
    paired = PairedLabels([1, 1, 0, NAN], [0, 1, 0, 1], BINARY)
    assert paired.confusion().tolist() == [[1, 0], [1, 1]]
    assert PairedLabels([NAN], [1], BINARY).confusion().tolist() == [[0, 0], [0, 0]]


# ---- Proportions and pooled pairs ------------------------------------------------------


def test_proportion_and_its_interval():
    s = proportion([True] * 200 + [False] * 200, "share", Bootstrap(1000, seed=3))
    assert s.value == 0.5 and s.n == 400
    # The normal approximation: 0.5 +- 1.96 * 0.025.
    assert s.ci_low == pytest.approx(0.451, abs=0.012)
    assert s.ci_high == pytest.approx(0.549, abs=0.012)
    assert proportion([], "share").undefined == "no item to count"


def test_pooled_pairs_count_items_not_pairs():
    # Two humans label the same two items; the judge labels each once.
    humans = [1, 0, 1, 1]
    judge = [1, 0, 1, 0]
    paired = PairedLabels(humans, judge, BINARY, items=[0, 1, 0, 1])
    s = paired.percent_agreement()
    assert s.n == 2 and s.n_pairs == 4 and s.value == pytest.approx(3 / 4)
