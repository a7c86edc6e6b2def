"""Report-level agreement: coverage of each generated report from human labels vs from LLM
labels, correlated across reports (CRUX section 4, Figure 4).

How a report's coverage is defined here: the report's topic has an answerable set A, and
coverage = |{i in A : the judge labelled sub-question i answered in the report}| / |A|
(``evaluation.crux.method.coverage.report_coverage`` with threshold 1 on the yes/no labels).
Following CRUX ("human coverage calculated in line with LLM judgement using the same set of
answerable sub-questions"), A is the same for the humans and the LLM: the sub-questions that
the LLM judge finds answerable (rating >= tau) in the topic's oracle passages, with the oracle
taken exactly as the leaderboard takes it (grade-3 qrels, or the greedy required subset of the
judge's ratings where a topic has no qrels). A topic where that judge rated no passage uses
all of its (non-placeholder) sub-questions, and the record counts those topics. A judge who
left a sub-question of A unlabelled gets no coverage for that report (never 0). The humans'
coverage of a report is the mean over the annotators whose coverage is defined. Human-vs-human
correlations use the answerable sets of the first LLM judge by name, or every sub-question
when there is no LLM judge.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from crux_app.inputs import JudgeInfo, resolve_qrels_source
from crux_app.models import Collection, GeneratedOutput
from evaluation.agreement.label_tables import LabelTable, Rater
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import TOO_FEW, correlations
from evaluation.agreement.report_rows import CoveragePoint, Record
from evaluation.crux.collection_data import CollectionData, load_collection
from evaluation.crux.method.coverage import REASONS, AnswerableSet, Status, answerable_set
from evaluation.crux.method.coverage import report_coverage as coverage_of_reports
from evaluation.crux.oracle import oracle_arrays

TASK = "report_coverage"
COVERAGE_DEFINITION = (
    "A report's coverage is the share of its topic's answerable sub-questions (A) that a judge "
    "labelled answered in the report. As in CRUX, humans and the LLM judge use the same A: the "
    "sub-questions the LLM judge rates >= tau in the topic's oracle passages (every "
    "sub-question where that judge rated none of the topic's passages). A judge that left a "
    "sub-question of A unlabelled has no coverage for that report; the humans' coverage is the "
    "mean over the annotators whose coverage is defined."
)
HUMANS_MEAN = "humans (mean)"
ALL_QUESTIONS = "all sub-questions of the topic"


@dataclass(frozen=True)
class Answerable:
    """Answerable sets of every topic (rows as in ``data``) and where they came from."""

    data: CollectionData
    sets: AnswerableSet
    source: str
    fallback_topics: int  # topics that use every sub-question


def answerable_sets(collection: Collection, judge: Rater | None, tau: float) -> Answerable:
    """A per topic from ``judge``'s ratings of the oracle passages (see the module doc)."""
    info = JudgeInfo(judge.id, judge.name, judge.kind, 0) if judge else None
    source = resolve_qrels_source(collection) if judge else None
    data = load_collection(collection, info, source, [])
    valid = data.question_valid
    if judge is None:
        sets = AnswerableSet(valid, np.zeros_like(valid), np.zeros(len(valid), np.int64))
        return Answerable(data, sets, ALL_QUESTIONS, int(len(valid)))
    oracle = oracle_arrays(data, tau, missing_as_zero=False)
    found = answerable_set(data.batch(oracle.required), tau)
    # A topic none of whose passages the judge rated has no answerable set of its own.
    rated = ~np.isnan(data.ratings).all(axis=(1, 2))
    mask = np.where(rated[:, None], found.mask, valid)
    undetermined = found.undetermined & rated[:, None]
    missing = np.where(rated, found.missing, 0)
    label = f"answerable for {judge.name} at tau={tau:g} (its ratings of the oracle passages)"
    return Answerable(data, AnswerableSet(mask, undetermined, missing), label, int((~rated).sum()))


def _report_matrix(table: LabelTable, data: CollectionData):
    """Report rows, each report's topic row, and each item's (report, column) position."""
    outputs, report_row = np.unique(table.item_id, return_inverse=True)
    present = data.question_ids >= 0
    ids = data.question_ids[present]
    where = np.argwhere(present)
    order = np.argsort(ids)
    at = order[np.searchsorted(ids[order], table.subquestion_id)]
    topic_row, column = where[at, 0], where[at, 1]
    report_topic = np.zeros(len(outputs), np.int64)
    report_topic[report_row] = topic_row
    return outputs, report_row, report_topic, column


@dataclass(frozen=True)
class RaterCoverage:
    """Coverage of each report (rows: ``outputs``) by each rater of the table."""

    outputs: np.ndarray  # (R,) output pks
    value: np.ndarray  # (R, raters), NaN where undefined
    status: np.ndarray  # (R, raters) coverage Status; NOT_LABELLED where the rater gave none

    def why_undefined(self, j: int | list[int], who: str) -> str | None:
        """ "who: coverage undefined for k of R reports (reason: count, ...)" or None."""
        status = self.status[:, j].ravel()
        bad = status[status != Status.OK]
        if not bad.size:
            return None
        counts = ", ".join(
            f"{_REASON[int(s)]}: {int(c)}"
            for s, c in zip(*np.unique(bad, return_counts=True), strict=True)
        )
        return f"{who}: coverage undefined for {bad.size} of {status.size} ({counts})"


NOT_LABELLED = 99
# For a report, "unjudged context" means the judge left a sub-question of A unlabelled.
_REASON = {int(k): v for k, v in REASONS.items() if v} | {
    int(Status.UNJUDGED_CONTEXT): "a sub-question of A left unlabelled",
    NOT_LABELLED: "report not labelled",
}


def coverage_by_rater(table: LabelTable, answerable: Answerable) -> RaterCoverage:
    """Each rater's coverage of each report on the given answerable sets."""
    outputs, report_row, report_topic, column = _report_matrix(table, answerable.data)
    n_q = answerable.data.question_ids.shape[1]
    sets = answerable.sets
    taken = AnswerableSet(
        sets.mask[report_topic], sets.undetermined[report_topic], sets.missing[report_topic]
    )
    value = np.full((len(outputs), len(table.raters)), np.nan)
    status = np.full(value.shape, NOT_LABELLED, np.int64)
    for j in range(len(table.raters)):
        labels = np.full((len(outputs), n_q), np.nan)
        labels[report_row, column] = table.ratings[:, j]
        result = coverage_of_reports(labels, taken, tau=1.0)
        labelled = ~np.isnan(labels).all(axis=1)
        value[:, j] = result.value
        status[labelled, j] = result.status[labelled]
    return RaterCoverage(outputs, value, status)


def _correlate(x, y, names, boot, why: list[str | None]) -> list:
    """Spearman and Kendall of two coverage vectors, saying why reports are left out."""
    why_text = "; ".join(w for w in why if w)
    out = []
    for stat in correlations(x, y, names, boot):
        if stat.undefined == TOO_FEW:
            reason = "fewer than 2 reports with both coverages defined"
            stat = replace(stat, undefined="; ".join(x for x in (reason, why_text) if x))
        elif why_text:
            stat = replace(stat, note="; ".join(x for x in (stat.note, why_text) if x))
        out.append(stat)
    return out


def report_coverage_records(
    collection: Collection, table: LabelTable, tau: float, boot: Bootstrap
) -> tuple[list[Record], list[CoveragePoint]]:
    """Spearman and Kendall between human and LLM coverage of reports, and the points."""
    humans, machines = table.humans(), table.machines()
    records: list[Record] = []
    points: list[CoveragePoint] = []
    if table.n_items == 0:
        return records, points
    meta = {
        pk: (ext, system, topic_id, topic)
        for pk, ext, system, topic_id, topic in GeneratedOutput.objects.filter(
            pk__in=np.unique(table.item_id).tolist()
        ).values_list("pk", "external_id", "system", "topic_id", "topic__external_id")
    }
    sets = {m: answerable_sets(collection, table.raters[m], tau) for m in machines}
    for m in machines:
        judge = table.raters[m]
        answerable = sets[m]
        cov = coverage_by_rater(table, answerable)
        outputs, cover = cov.outputs, cov.value
        human_cov = _mean_defined(cover[:, humans])
        extra = {
            "judge": judge.name,
            "model_id": judge.model_id,
            "prompt_version": judge.prompt_version,
            "answerable_set": answerable.source,
            "topics_with_all_subquestions": answerable.fallback_topics,
        }
        judge_why = cov.why_undefined(m, judge.name)
        if humans:
            why = [cov.why_undefined(humans, "humans"), judge_why]
            names = (judge.name, *(table.raters[h].name for h in humans))
            for stat in _correlate(human_cov, cover[:, m], (HUMANS_MEAN, judge.name), boot, why):
                records.append(Record(TASK, stat, names, extra | {"reference": HUMANS_MEAN}))
        for h in humans if len(humans) > 1 else []:
            name = table.raters[h].name
            why = [cov.why_undefined(h, name), judge_why]
            for stat in _correlate(cover[:, h], cover[:, m], (name, judge.name), boot, why):
                records.append(Record(TASK, stat, (judge.name, name), extra | {"reference": name}))
        n_humans = (~np.isnan(cover[:, humans])).sum(axis=1)
        sizes = answerable.sets.size
        topic_rows = np.searchsorted(answerable.data.topic_ids, [meta[o][2] for o in outputs])
        for i, output in enumerate(outputs.tolist()):
            ext, system, topic_id, topic = meta[output]
            points.append(
                CoveragePoint(
                    output_id=output,
                    output=ext,
                    system=system,
                    topic_id=topic_id,
                    topic=topic,
                    judge=judge.name,
                    human=_number(human_cov[i]),
                    machine=_number(cover[i, m]),
                    n_humans=int(n_humans[i]),
                    answerable=int(sizes[topic_rows[i]]),
                    machine_undefined=_REASON.get(int(cov.status[i, m])),
                )
            )
    first = sets[machines[0]] if machines else None
    records.extend(_human_pairs(collection, table, tau, boot, first))
    return records, points


def _human_pairs(
    collection: Collection,
    table: LabelTable,
    tau: float,
    boot: Bootstrap,
    answerable: Answerable | None,
) -> list[Record]:
    """Coverage correlation between annotators, on the first LLM judge's answerable sets
    (``answerable``), or on every sub-question when there is no LLM judge (None)."""
    humans = table.humans()
    if len(humans) < 2:
        return []
    if answerable is None:
        answerable = answerable_sets(collection, None, tau)
    cov = coverage_by_rater(table, answerable)
    out = []
    for i, a in enumerate(humans):
        for b in humans[i + 1 :]:
            names = (table.raters[a].name, table.raters[b].name)
            extra = {"reference": names[0], "answerable_set": answerable.source}
            why = [cov.why_undefined(a, names[0]), cov.why_undefined(b, names[1])]
            x, y = cov.value[:, a], cov.value[:, b]
            for stat in _correlate(x, y, names, boot, why):
                out.append(Record(TASK, stat, names, extra))
    return out


def _mean_defined(values: np.ndarray) -> np.ndarray:
    """Row means over the defined entries; NaN for a row with none."""
    defined = ~np.isnan(values)
    total = np.where(defined, values, 0).sum(axis=1)
    count = defined.sum(axis=1)
    return np.divide(total, count, out=np.full(len(values), np.nan), where=count > 0)


def _number(x: float) -> float | None:
    return None if np.isnan(x) else float(x)
