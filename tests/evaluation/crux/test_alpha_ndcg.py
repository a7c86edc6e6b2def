"""alpha-nDCG@k: hand-computed cases, parity with ir_measures/pyndeval for k <= 20 and with a
plain-loop transliteration of ndeval for any k."""

import math

import ir_measures
import numpy as np
import pytest

from evaluation.crux.method import alpha_ndcg as alpha_ndcg_module
from evaluation.crux.method.alpha_ndcg import alpha_ndcg, discounts, topic_alpha_ndcg
from evaluation.crux.method.coverage import answerable_set
from evaluation.crux.method.crux_ratings import OUTSIDE, RatingsBatch, TopicRatings, stack_contexts

D2, D3, D4 = 1 / math.log2(3), 1 / math.log2(4), 1 / math.log2(5)  # discounts of ranks 2..4

# tau = 3, all rows required unless said otherwise. Binary relevance after tau:
#           q0  q1
# p0 (5,0):  1   0
# p1 (0,4):  0   1
# p2 (3,3):  1   1
# p3 (0,2):  0   0
HAND = TopicRatings(np.array([[5.0, 0.0], [0.0, 4.0], [3.0, 3.0], [0.0, 2.0]]), np.ones(4, bool))


def test_hand_computed_alpha_ndcg():
    # Run p0, p2, p3, p1 with alpha = 0.5:
    #   rank 1 p0: q0 new -> gain 1
    #   rank 2 p2: q0 seen once -> 0.5, q1 new -> 1: gain 1.5, discount 1/log2(3)
    #   rank 3 p3: gain 0
    #   rank 4 p1: q1 seen once -> 0.5, discount 1/log2(5)
    dcg = 1 + 1.5 * D2 + 0.5 * D4
    # Ideal (greedy): p2 (gain 2); then p0 and p1 tie at 0.5 -> the later row p1; then p0
    # (0.5); then p3 (0).
    ideal = 2 + 0.5 * D2 + 0.5 * D3
    assert topic_alpha_ndcg(HAND, [0, 2, 3, 1], k=4) == pytest.approx(dcg / ideal, abs=1e-12)
    # k = 2 cuts both: (1 + 1.5 D2) / (2 + 0.5 D2).
    assert topic_alpha_ndcg(HAND, [0, 2, 3, 1], k=2) == pytest.approx(
        (1 + 1.5 * D2) / (2 + 0.5 * D2), abs=1e-12
    )


def test_real_rank_order_is_used():
    # Same passages, other order: p2 first gives 2 + 0.5 D2 (= the ideal at k = 2) -> 1.
    assert topic_alpha_ndcg(HAND, [2, 0], k=2) == pytest.approx(1.0)
    assert topic_alpha_ndcg(HAND, [0, 2], k=2) < 1.0


def test_k_larger_than_run_and_empty_run():
    # Run [p2] with k = 10: DCG = 2; ideal@10 = 2 + 0.5 D2 + 0.5 D3 (p3 adds 0).
    expected = 2 / (2 + 0.5 * D2 + 0.5 * D3)
    assert topic_alpha_ndcg(HAND, [2], k=10) == pytest.approx(expected)
    assert topic_alpha_ndcg(HAND, [], k=10) == 0.0
    assert topic_alpha_ndcg(HAND, [OUTSIDE, OUTSIDE, 3], k=3) == 0.0


def test_all_ratings_equal():
    # Three passages all rating 4 on q0 and q1: every passage relevant to both subtopics.
    # Any order is ideal: gains 2, 1 (both seen once), 0.5 -> 1.0. Run [p2] alone at k = 3:
    # 2 / (2 + 1 * D2 + 0.5 * D3).
    topic = TopicRatings(np.full((3, 2), 4.0), np.ones(3, bool))
    assert topic_alpha_ndcg(topic, [1, 2, 0], k=3) == pytest.approx(1.0)
    assert topic_alpha_ndcg(topic, [2], k=3) == pytest.approx(2 / (2 + D2 + 0.5 * D3))


def test_no_answerable_question_is_undefined():
    topic = TopicRatings(HAND.ratings, np.zeros(4, bool))  # no required passage -> A empty
    assert topic_alpha_ndcg(topic, [2, 0], k=5) is None


def test_only_answerable_questions_are_subtopics():
    # Only p0 required -> A = {q0}. Run p1 (relevant to q1 only) scores 0 although r = 4.
    topic = TopicRatings(HAND.ratings, np.array([True, False, False, False]))
    assert topic_alpha_ndcg(topic, [1], k=3) == 0.0
    # Run p2, p0: gains 1 (q0 new) and 0.5 -> 1 + 0.5 D2; ideal: p2 and p0 tie at 1 -> p2
    # (later row), then p0 with 0.5: the same -> 1.
    assert topic_alpha_ndcg(topic, [2, 0], k=3) == pytest.approx(1.0)


def test_unjudged_counts_as_not_relevant_and_is_reported():
    ratings = HAND.ratings.copy()
    ratings[2, 1] = np.nan  # p2 unjudged on q1
    batch = RatingsBatch.single(TopicRatings(ratings, np.ones(4, bool)))
    answerable = answerable_set(batch, 3)
    result = alpha_ndcg(batch, stack_contexts([[2]]), answerable, k=1)
    # p2 now relevant to q0 only: gain 1. Ideal at rank 1: p0, p2 both 1 -> 1.
    assert result.topic(0) == pytest.approx(1.0)
    assert result.missing.tolist() == [1]
    assert result.dcg.tolist() == [1.0]


def test_ndeval_greedy_ideal_and_its_tie_break():
    # Rows A = {q0, q1}, B = {q2, q3}, C = {q0, q2}. Every first pick gains 2; ndeval takes
    # the largest docno (our last row): C. Then A and B both gain 0.5 + 1 = 1.5 -> B, then A
    # gains 0.5 + 1 = 1.5. Ideal@3 = 2 + 1.5 D2 + 1.5 D3. (Picking A, B, C would give the larger
    # 2 + 2 D2 + 1 D3: the greedy is not optimal, so the run A, B, C scores above 1.)
    ratings = np.array([[5, 5, 0, 0], [0, 0, 5, 5], [5, 0, 5, 0]], dtype=float)
    topic = TopicRatings(ratings, np.ones(3, bool))
    batch = RatingsBatch.single(topic)
    result = alpha_ndcg(batch, stack_contexts([[0, 1, 2]]), answerable_set(batch, 3), k=3)
    assert result.ideal_dcg[0] == pytest.approx(2 + 1.5 * D2 + 1.5 * D3)
    assert result.dcg[0] == pytest.approx(2 + 2 * D2 + 1 * D3)
    assert result.topic(0) > 1.0
    assert result.topic(0) == pytest.approx(pyndeval_values([topic], [[0, 1, 2]], 3)["t0"])


def test_discounts():
    assert discounts(3).tolist() == pytest.approx([1.0, D2, D3])


def test_bad_parameters():
    with pytest.raises(ValueError, match="k must be >= 1"):
        topic_alpha_ndcg(HAND, [0], k=0)
    with pytest.raises(ValueError, match="alpha"):
        topic_alpha_ndcg(HAND, [0], k=2, alpha=1.0)


# --- parity --------------------------------------------------------------------------------


def doc_id(row: int) -> str:
    return f"d{row:05d}"  # zero-padded: ascending docno order = row order


def pyndeval_values(topics, contexts, k, tau=3.0, alpha=0.5) -> dict[str, float]:
    """ir_measures' alpha_nDCG@k (pyndeval backend) with each answerable question a subtopic."""
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, tau)
    qrels, run = [], []
    for t, topic in enumerate(topics):
        for row in range(topic.ratings.shape[0]):
            for q in np.flatnonzero(answerable.mask[t]):
                relevant = int(topic.ratings[row, q] >= tau)  # NaN -> 0, as unjudged in ndeval
                qrels.append(ir_measures.GenericQrel(f"t{t}", doc_id(row), relevant, str(q)))
        for rank, row in enumerate(contexts[t]):
            name = doc_id(row) if row != OUTSIDE else f"other-topic-{rank}"
            run.append(ir_measures.ScoredDoc(f"t{t}", name, float(1000 - rank)))
    measure = ir_measures.alpha_nDCG(alpha=alpha) @ k
    return {m.query_id: m.value for m in ir_measures.pyndeval.iter_calc([measure], qrels, run)}


def naive_alpha_ndcg(topic: TopicRatings, context, k, tau=3.0, alpha=0.5) -> float | None:
    """ndeval's algorithm written as plain loops (any k), over answerable questions."""
    ratings, required = topic.ratings, topic.required
    valid = ~topic.placeholder
    with np.errstate(invalid="ignore"):
        answers = ratings >= tau
    subtopics = [q for q in range(ratings.shape[1]) if valid[q] and answers[required, q].any()]
    if not subtopics:
        return None
    rel = {row: {q for q in subtopics if answers[row, q]} for row in range(ratings.shape[0])}

    def dcg(ranking):
        seen = dict.fromkeys(subtopics, 0)
        total = 0.0
        for i, row in enumerate(ranking[:k]):
            gain = 0.0
            for q in rel.get(row, ()):
                gain += (1 - alpha) ** seen[q]
                seen[q] += 1
            total += gain / math.log2(i + 2)
        return total

    gain_left = dict.fromkeys(subtopics, 1.0)
    remaining, ideal = sorted(rel, key=doc_id), []
    while remaining and len(ideal) < k:
        best, where = -1.0, None
        for row in remaining:  # ascending docno; ties go to the later (larger) one
            score = sum(gain_left[q] for q in sorted(rel[row]))  # ndeval's order
            if where is None or score >= best:
                best, where = score, row
        ideal.append(where)
        remaining.remove(where)
        for q in rel[where]:
            gain_left[q] *= 1 - alpha
    return dcg(list(context)) / dcg(ideal)  # OUTSIDE (-1) has no rel entry: gain 0


def random_topics(seed: int, n_topics: int = 60, max_passages: int = 40, max_questions: int = 8):
    """Random topics with coarse ratings (many ties), unjudged cells, few relevant passages,
    placeholders, other topics' passages and empty runs."""
    rng = np.random.default_rng(seed)
    topics, contexts = [], []
    for _ in range(n_topics):
        p = int(rng.integers(1, max_passages))
        q = int(rng.integers(1, max_questions + 1))
        sparse = rng.random() < 0.3  # topics with very few relevant passages
        probs = [0.9, 0.04, 0.02, 0.02, 0.01, 0.01] if sparse else [0.4, 0.1, 0.1, 0.2, 0.1, 0.1]
        ratings = rng.choice(6, size=(p, q), p=probs).astype(float)
        ratings[rng.random((p, q)) < 0.1] = np.nan
        topics.append(TopicRatings(ratings, rng.random(p) < 0.5, rng.random(q) < 0.1))
        length = 0 if rng.random() < 0.1 else int(rng.integers(1, p + 5))
        rows = list(rng.permutation(p))[:length]
        contexts.append([OUTSIDE if rng.random() < 0.15 else int(r) for r in rows])
    return topics, contexts


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [5, 10, 20])
def test_parity_with_ir_measures_pyndeval(seed, k):
    topics, contexts = random_topics(seed)
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, 3)
    ours = alpha_ndcg(batch, stack_contexts(contexts), answerable, k)
    theirs = pyndeval_values(topics, contexts, k)
    compared = 0
    for t in range(len(topics)):
        if answerable.size[t] == 0:
            # Documented difference: undefined here; ndeval reports 0 (or no row, empty run).
            assert np.isnan(ours.value[t])
            assert theirs.get(f"t{t}", 0.0) == 0.0
        elif not contexts[t]:
            # An empty run scores 0 (ndeval has no row for it; ir_measures fills in 0).
            assert ours.value[t] == 0.0
            assert theirs[f"t{t}"] == 0.0
        else:
            assert ours.value[t] == pytest.approx(theirs[f"t{t}"], abs=1e-6)
            compared += 1
    assert compared > 30


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.9])
def test_parity_with_pyndeval_for_other_alpha(alpha):
    topics, contexts = random_topics(11, n_topics=30)
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, 3)
    ours = alpha_ndcg(batch, stack_contexts(contexts), answerable, 10, alpha=alpha)
    theirs = pyndeval_values(topics, contexts, 10, alpha=alpha)
    for t in range(len(topics)):
        if answerable.size[t] and contexts[t]:
            assert ours.value[t] == pytest.approx(theirs[f"t{t}"], abs=1e-6)


@pytest.mark.parametrize("tau", [1, 4, 5])
def test_parity_with_pyndeval_for_other_thresholds(tau):
    topics, contexts = random_topics(21, n_topics=30)
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, tau)
    ours = alpha_ndcg(batch, stack_contexts(contexts), answerable, 20, tau=tau)
    theirs = pyndeval_values(topics, contexts, 20, tau=tau)
    for t in range(len(topics)):
        if answerable.size[t] and contexts[t]:
            assert ours.value[t] == pytest.approx(theirs[f"t{t}"], abs=1e-6)


def test_naive_reference_agrees_with_pyndeval():
    # Validates the reference used for k > 20 against the real ndeval.
    topics, contexts = random_topics(5, n_topics=30)
    theirs = pyndeval_values(topics, contexts, 20)
    for t, topic in enumerate(topics):
        naive = naive_alpha_ndcg(topic, contexts[t], 20)
        if naive is not None and contexts[t]:
            assert naive == pytest.approx(theirs[f"t{t}"], abs=1e-9)


@pytest.mark.parametrize("k", [21, 50, 150])
@pytest.mark.parametrize("seed", [0, 1])
def test_any_k_matches_naive_reference(seed, k):
    topics, contexts = random_topics(seed, n_topics=40, max_passages=160)
    batch = RatingsBatch.stack(topics)
    ours = alpha_ndcg(batch, stack_contexts(contexts), answerable_set(batch, 3), k)
    for t, topic in enumerate(topics):
        naive = naive_alpha_ndcg(topic, contexts[t], k)
        if naive is None:
            assert np.isnan(ours.value[t])
        else:
            assert ours.value[t] == pytest.approx(naive, abs=1e-9)


def test_topics_split_into_passes_give_the_same_values(monkeypatch):
    # The greedy runs over chunks of topics; a chunk boundary must change nothing, and the
    # deep-k path (subtopics covered many times: ndeval-order rescoring) must stay exact.
    topics, contexts = random_topics(4, n_topics=40, max_passages=160)
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, 1)
    whole = alpha_ndcg(batch, stack_contexts(contexts), answerable, 150, tau=1)
    monkeypatch.setattr(alpha_ndcg_module, "TOPICS_PER_PASS", 7)
    split = alpha_ndcg(batch, stack_contexts(contexts), answerable, 150, tau=1)
    np.testing.assert_array_equal(whole.ideal_dcg, split.ideal_dcg)
    for t, topic in enumerate(topics):
        naive = naive_alpha_ndcg(topic, contexts[t], 150, tau=1)
        if naive is not None:
            assert split.value[t] == pytest.approx(naive, abs=1e-9)


@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_depth_beyond_the_judged_passages_changes_nothing(alpha):
    # Past the judged passages nothing gains: k = 10x their number gives the values of k =
    # their number, which the plain loops compute over the judged passages only.
    topics, contexts = random_topics(7, n_topics=40, max_passages=30)
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, 3)
    judged = batch.ratings.shape[1]
    runs = stack_contexts(contexts)
    at_judged = alpha_ndcg(batch, runs, answerable, judged, alpha=alpha)
    deep = alpha_ndcg(batch, runs, answerable, 10 * judged, alpha=alpha)
    np.testing.assert_allclose(deep.value, at_judged.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(deep.ideal_dcg, at_judged.ideal_dcg, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(deep.missing, at_judged.missing)
    for t, topic in enumerate(topics):
        naive = naive_alpha_ndcg(topic, contexts[t], judged, alpha=alpha)
        if naive is None:
            assert np.isnan(deep.value[t])
        else:
            assert deep.value[t] == pytest.approx(naive, abs=1e-9)
