"""LLM-retEval (seed 004, METHODS section 5): verdicts, retrieval scores, failure pre-labels and
the per-k summary of the paper's Tables 1 and 2.

Plain Python (no Django). For one question, one run and one k:

- the retriever is *correct* when any CompareGPT comparison of the RAG answer (from the top-k)
  with a semi-gold answer (from the gold passages) says Yes; with no Yes and an unparsable judge
  output among the comparisons the verdict is undefined (None), never No;
- Recall@k, Precision@k (ir_measures, trec_eval's definitions: P@k divides by k) and their
  harmonic mean F1@k, per question;
- where Recall@k (a gold passage in the top-k, i.e. Recall@k > 0) and the verdict disagree, a
  candidate failure category A-F (``prelabel``), which a human then confirms or corrects;
- per k: the means, the failure counts, and Spearman's rho between the per-question verdict and
  Recall@k over all questions ("ALL") and without the conventional metrics' failure cases A-C
  ("Refined"), as the paper's Table 2.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import ir_measures
import numpy as np
from ir_measures import P, R
from scipy.stats import spearmanr

from crux_app.vocabulary import FAILURE_LETTERS
from evaluation.shared.lexical_match import lexical_match, normalize_answer

CATEGORIES: tuple[str, ...] = FAILURE_LETTERS  # the taxonomy is the shared vocabulary's
CATEGORY_NUMBERS: dict[str, float] = {c: float(i) for i, c in enumerate(CATEGORIES)}
# A-C: Recall@k is wrong (LLM-retEval right); D-F: LLM-retEval is wrong.
CONVENTIONAL_FAILURES = frozenset({"A", "B", "C"})
RETEVAL_FAILURES = frozenset({"D", "E", "F"})
# Word-set Jaccard similarity from which a retrieved passage counts as a version of a gold one.
NEAR_DUPLICATE = 0.8

TOO_FEW = "fewer than 2 questions with a verdict"


@dataclass(frozen=True)
class RetrievalScores:
    recall: float
    precision: float
    f1: float

    @property
    def gold_retrieved(self) -> bool:
        return self.recall > 0


def retrieval_scores(
    rankings: Mapping[str, Sequence[str]], gold: Mapping[str, Collection[str]], k: int
) -> dict[str, RetrievalScores]:
    """Recall@k, Precision@k and F1@k per question of ``rankings`` (passage ids, best first).

    Every question needs at least one gold passage (Recall is undefined without one).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    for qid in rankings:
        if not gold.get(qid):
            raise ValueError(f"question {qid!r} has no gold passage: Recall@{k} is undefined")
    # trec_eval wants string ids: questions and passages are keyed by their position.
    qids = {str(i): qid for i, qid in enumerate(rankings)}
    qrels = {i: {str(pid): 1 for pid in gold[qid]} for i, qid in qids.items()}
    run = {}
    for i, qid in qids.items():
        ranking = [str(pid) for pid in rankings[qid]]
        if len(set(ranking)) != len(ranking):
            raise ValueError(f"question {qid!r} lists a passage twice in its ranking")
        # Strictly decreasing scores keep the given order (trec_eval sorts by score).
        run[i] = {pid: float(len(ranking) - r) for r, pid in enumerate(ranking)}
    values = {i: {"R": 0.0, "P": 0.0} for i in qids}
    measures = {R @ k: "R", P @ k: "P"}
    scored = {i: docs for i, docs in run.items() if docs}
    if scored:
        for metric in ir_measures.pytrec_eval.iter_calc(list(measures), qrels, scored):
            values[metric.query_id][measures[metric.measure]] = float(metric.value)
    out = {}
    for i, v in values.items():
        qid = qids[i]
        recall, precision = v["R"], v["P"]
        both = recall + precision
        out[qid] = RetrievalScores(
            recall, precision, 2 * recall * precision / both if both else 0.0
        )
    return out


def aggregate_verdicts(verdicts: Sequence[bool | None]) -> bool | None:
    """True if any comparison says Yes; False if all were read and say No; else None."""
    if not verdicts:
        return None
    if any(v is True for v in verdicts):
        return True
    if all(v is False for v in verdicts):
        return False
    return None


def word_overlap(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' normalised word sets (0 when both are empty)."""
    x, y = set(normalize_answer(a).split()), set(normalize_answer(b).split())
    union = x | y
    return len(x & y) / len(union) if union else 0.0


@dataclass(frozen=True)
class RetrievedPassage:
    text: str
    is_gold: bool


@dataclass(frozen=True)
class PrelabelInput:
    """What the pre-label rules look at for one (question, run, k)."""

    recall: float
    verdict: bool | None
    rag_answer: str
    semi_gold_answers: tuple[str, ...]
    gold_answers: tuple[str, ...] = ()  # the dataset's answers; empty when unknown
    retrieved: tuple[RetrievedPassage, ...] = ()
    gold_passages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prelabel:
    category: str
    reason: str


def disagrees(recall: float, verdict: bool | None) -> bool:
    """Recall@k credits a gold passage (> 0) and the verdict says otherwise, or the reverse."""
    return verdict is not None and (recall > 0) != verdict


def prelabel(x: PrelabelInput) -> Prelabel | None:
    """The candidate failure category where Recall@k and LLM-retEval disagree, else None.

    Recall misses the gold passages but the judge says Yes:
      D  the dataset's answers are known and no semi-gold answer contains one;
      F  the answers are known and the RAG answer contains none (the judge said Yes wrongly);
      B  a retrieved passage is a near-duplicate of a gold passage (another version of it);
      A  otherwise: an unlabelled passage that answers the question was retrieved.
    Recall credits a gold passage but the judge says No:
      D  the answers are known and no semi-gold answer contains one;
      E  the RAG answer contains a gold answer that no semi-gold answer contains;
      F  the RAG answer and a semi-gold answer contain the same gold answer (wrong No);
      C  a non-gold passage was retrieved beside the gold one (a distraction);
      D  otherwise: only gold passages were retrieved, yet the answers differ.
    """
    if not disagrees(x.recall, x.verdict):
        return None
    golds = tuple(g for g in x.gold_answers if normalize_answer(g))
    semi_golds = {g for g in golds if any(lexical_match(s, [g]) for s in x.semi_gold_answers)}
    if golds and not semi_golds:
        return Prelabel("D", "no semi-gold answer contains a gold answer")
    rag_golds = {g for g in golds if lexical_match(x.rag_answer, [g])}
    if x.verdict:
        if golds and not rag_golds:
            return Prelabel("F", "the judge said Yes, but the RAG answer contains no gold answer")
        overlap = max(
            (
                word_overlap(p.text, g)
                for p in x.retrieved
                if not p.is_gold
                for g in x.gold_passages
            ),
            default=0.0,
        )
        if overlap >= NEAR_DUPLICATE:
            return Prelabel(
                "B", f"a retrieved passage shares {overlap:.0%} of its words with a gold passage"
            )
        return Prelabel("A", "no gold passage retrieved, yet the RAG answer matches")
    if rag_golds and not rag_golds & semi_golds:
        given = ", ".join(sorted(rag_golds))
        return Prelabel("E", f"the RAG answer gives {given}, which no semi-gold answer gives")
    if rag_golds:
        return Prelabel("F", "the RAG and semi-gold answers give the same gold answer")
    distractors = sum(1 for p in x.retrieved if not p.is_gold)
    if distractors:
        return Prelabel("C", f"{distractors} non-gold passage(s) retrieved beside the gold one")
    return Prelabel("D", "only gold passages were retrieved, yet the RAG answer differs")


@dataclass(frozen=True)
class Correlation:
    rho: float | None
    p_value: float | None
    n: int
    reason: str | None = None  # why rho is undefined


def spearman(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Spearman's rho (scipy), undefined (None with a reason) for n < 2 or a constant side."""
    a, b = np.asarray(x, float), np.asarray(y, float)
    if a.shape != b.shape:
        raise ValueError(f"spearman needs paired values, got {a.size} and {b.size}")
    n = int(a.size)
    if n < 2:
        return Correlation(None, None, n, TOO_FEW)
    constant = [name for name, v in (("LLM-retEval", a), ("Recall", b)) if np.all(v == v[0])]
    if constant:
        return Correlation(None, None, n, f"{' and '.join(constant)} constant over the questions")
    result = spearmanr(a, b)
    return Correlation(float(result.statistic), float(result.pvalue), n)


@dataclass(frozen=True)
class QuestionOutcome:
    """One (question, run, k) as stored: scores, verdict, pre-label, lexical QA correctness."""

    recall: float
    precision: float
    f1: float
    verdict: bool | None
    category: str = ""  # "" when Recall@k and the verdict agree
    answer_correct: bool | None = None  # the RAG answer contains a gold answer (None: unknown)


@dataclass(frozen=True)
class KSummary:
    k: int
    n_questions: int
    recall: float | None
    precision: float | None
    f1: float | None
    reteval: float | None  # mean verdict over questions with a verdict
    undefined_verdicts: int
    answer_accuracy: float | None  # the RAG answer contains a gold answer (lexical match)
    disagreements: int
    recall_failures: int  # categories A-C
    reteval_failures: int  # categories D-F
    spearman_all: Correlation
    spearman_refined: Correlation
    categories: dict[str, int] = field(default_factory=dict)


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def summarise(k: int, outcomes: Sequence[QuestionOutcome]) -> KSummary:
    """Table 1's rows and Table 2's correlations for one run at one k."""
    judged = [o for o in outcomes if o.verdict is not None]
    refined = [o for o in judged if o.category not in CONVENTIONAL_FAILURES]
    categories = Counter(o.category for o in outcomes if o.category)
    correct = [float(o.answer_correct) for o in outcomes if o.answer_correct is not None]
    return KSummary(
        k=k,
        n_questions=len(outcomes),
        recall=_mean([o.recall for o in outcomes]),
        precision=_mean([o.precision for o in outcomes]),
        f1=_mean([o.f1 for o in outcomes]),
        reteval=_mean([float(o.verdict) for o in judged]),
        undefined_verdicts=len(outcomes) - len(judged),
        answer_accuracy=_mean(correct),
        disagreements=sum(1 for o in outcomes if disagrees(o.recall, o.verdict)),
        recall_failures=sum(n for c, n in categories.items() if c in CONVENTIONAL_FAILURES),
        reteval_failures=sum(n for c, n in categories.items() if c in RETEVAL_FAILURES),
        spearman_all=spearman([float(o.verdict) for o in judged], [o.recall for o in judged]),
        spearman_refined=spearman([float(o.verdict) for o in refined], [o.recall for o in refined]),
        categories={c: categories.get(c, 0) for c in CATEGORIES},
    )
