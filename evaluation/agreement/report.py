"""Assemble the agreement report of a collection: inter-annotator, human-vs-LLM, judge-vs-judge
and report-level coverage figures, per-annotator figures, confusion matrices and the worst
disagreements. The page, the command's JSON / CSV and the HTML report all render this."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np

from annotation.labels.post_editing import post_editing_campaigns
from crux_app.inputs import check_tau
from crux_app.models import Collection
from crux_app.read_parameters import TAU
from evaluation.agreement.blas_threads import one_blas_thread
from evaluation.agreement.disagreements import (
    Disagreement,
    DisagreementSet,
    disagreement_set,
    with_texts,
)
from evaluation.agreement.gold import NO_CAMPAIGNS, gold_scores
from evaluation.agreement.judge_warnings import chance_warnings, table_warnings
from evaluation.agreement.label_tables import (
    CampaignScope,
    ComparisonSource,
    LabelQuery,
    LabelTable,
    Rater,
    Scale,
    campaign_scope,
    resolve_raters,
)
from evaluation.agreement.machine_agreement import (
    ConfusionMatrix,
    human_vs_machine,
    judge_pairs,
    post_edited_vs_machine,
)
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import (
    PairedLabels,
    RaterLabels,
    Stat,
    mean_of,
    proportion,
    undefined,
)
from evaluation.agreement.report_rows import CoveragePoint, Record
from evaluation.agreement.sources import available_sources, sources
from evaluation.shared.degenerate import JudgeWarning

DEFAULT_TAU = TAU.default  # the read side's declared tau (crux_app.read_parameters)
DEFAULT_DISAGREEMENTS = 25  # per task


@dataclass(frozen=True)
class AgreementOptions:
    judges: tuple[str, ...] = ()
    campaign: str | None = None
    tau: float = DEFAULT_TAU
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    max_disagreements: int = DEFAULT_DISAGREEMENTS


@dataclass(frozen=True)
class TaskSummary:
    """What was judged in one source, by whom, and how many labels were left out."""

    key: str
    title: str
    scale: str
    machine: str
    n_items: int
    labels: dict[str, int]  # rater name -> labels used
    unparsable: dict[str, int]
    binarised: dict[str, float]


@dataclass
class AgreementReport:
    collection: Collection
    options: AgreementOptions
    campaign: CampaignScope
    raters: list[Rater]
    tasks: list[TaskSummary] = field(default_factory=list)
    inter_annotator: list[Record] = field(default_factory=list)
    per_annotator: list[Record] = field(default_factory=list)
    human_vs_llm: list[Record] = field(default_factory=list)
    # Post-edited labels (annotators saw a machine's suggestion) vs the machines: never pooled
    # with the blind human labels of the sections above.
    post_edited_vs_llm: list[Record] = field(default_factory=list)
    judge_comparison: list[Record] = field(default_factory=list)
    report_coverage: list[Record] = field(default_factory=list)
    coverage_points: list[CoveragePoint] = field(default_factory=list)
    confusion: list[ConfusionMatrix] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)  # the worst, per task
    disagreement_sets: list[DisagreementSet] = field(default_factory=list)  # all, per task
    sources: list[ComparisonSource] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[JudgeWarning] = field(default_factory=list)  # degenerate judges
    generated_at: datetime = field(default_factory=lambda: datetime.now(UTC))


def build_report(
    collection: Collection, options: AgreementOptions | None = None
) -> AgreementReport:
    """The full agreement report of ``collection`` (raises EvaluationInputError for an
    unknown judge and ValueError for a tau outside (0, 5])."""
    with one_blas_thread():
        return _build_report(collection, options or AgreementOptions())


def _build_report(collection: Collection, options: AgreementOptions) -> AgreementReport:
    tau = check_tau(options.tau)
    raters = resolve_raters(collection, options.judges)
    scope = campaign_scope(collection, options.campaign)
    report = AgreementReport(collection, options, scope, raters, sources=sources())
    if scope.note:
        report.notes.append(scope.note)
    report.notes += post_edited_notes(collection, raters)
    query = LabelQuery(collection, tuple(raters), tau, scope)
    boot = options.bootstrap
    gold = gold_scores(collection, scope)
    for source in available_sources():
        table = source.loader(query, source)
        report.tasks.append(_summary(table))
        report.inter_annotator.extend(inter_annotator(table, boot))
        report.per_annotator.extend(per_annotator(table, boot, gold))
        records, matrices = human_vs_machine(table, tau, boot)
        report.human_vs_llm.extend(records)
        report.post_edited_vs_llm.extend(post_edited_vs_machine(table, tau, boot))
        report.warnings += table_warnings(table) + chance_warnings(records)
        report.confusion.extend(matrices)
        report.judge_comparison.extend(judge_pairs(table, tau, boot))
        if source.derived is not None:
            records, points = source.derived(collection, table, tau, boot)
            report.report_coverage.extend(records)
            report.coverage_points.extend(points)
        found = disagreement_set(table, tau)
        report.disagreement_sets.append(found)
        worst = min(options.max_disagreements, len(found))
        report.disagreements.extend(with_texts(found, list(range(worst))))
        for name, count in table.unparsable.items():
            report.notes.append(
                f"{source.key}: {count} unparsable output(s) of {name} left out of every figure"
            )
        for name, cut in table.binarised.items():
            report.notes.append(
                f"{source.key}: {name} rated reports 0-5; its ratings are read as answered "
                f"when >= tau = {cut:g}"
            )
    return report


def post_edited_notes(collection: Collection, raters: list[Rater]) -> list[str]:
    """What the page says of post-edited judges: whose suggestions they saw, and that they are
    kept apart."""
    edited = [r.name for r in raters if r.is_post_edited]
    if not edited:
        return []
    seen = "; ".join(
        f"campaign {name!r} showed {judge}'s labels"
        for name, judge in post_editing_campaigns(collection.pk)
    )
    return [
        f"{', '.join(edited)}: post-edited labels (human, post-edited): the annotator saw an LLM "
        f"judge's suggestion before labelling ({seen or 'campaign no longer listed'}), so these "
        "labels are not blind. They are kept apart: in no inter-annotator, per-annotator or "
        "human-reference figure, only in the section 'Post-edited labels vs LLM judge' (where "
        "an LLM judge labelled the same items)."
    ]


def _summary(table: LabelTable) -> TaskSummary:
    counts = (~np.isnan(table.ratings)).sum(axis=0)
    return TaskSummary(
        key=table.source.key,
        title=table.source.title,
        scale=table.source.scale.value,
        machine=table.source.machine,
        n_items=table.n_items,
        labels={r.name: int(c) for r, c in zip(table.raters, counts, strict=True)},
        unparsable=dict(table.unparsable),
        binarised=dict(table.binarised),
    )


def inter_annotator(table: LabelTable, boot: Bootstrap) -> list[Record]:
    """Percent agreement, Fleiss' kappa, Krippendorff's alpha and pairwise Cohen's kappa among
    the human annotators of a table."""
    task, source = table.source.key, table.source
    humans = table.humans()
    names = tuple(table.raters[h].name for h in humans)
    ordinal = source.scale == Scale.ORDINAL
    levels = ("ordinal", "interval") if ordinal else ("nominal",)
    statistics = ["percent_agreement", "fleiss_kappa"] + [f"krippendorff_alpha_{x}" for x in levels]
    if len(humans) < 2:
        reason = f"fewer than 2 human annotators labelled this task ({len(humans)})"
        return [Record(task, undefined(s, 0, reason), names) for s in statistics]
    labels = RaterLabels(table.ratings[:, humans], source.categories, boot)
    stats = [labels.percent_agreement(), labels.fleiss_kappa()]
    stats += [labels.krippendorff_alpha(level) for level in levels]
    records = [Record(task, s, names, {"annotators": list(names)}) for s in stats]
    weights = "quadratic" if ordinal else None
    for i, a in enumerate(humans):
        for b in humans[i + 1 :]:
            pair = (table.raters[a].name, table.raters[b].name)
            x, y = table.ratings[:, a], table.ratings[:, b]
            paired = PairedLabels(x, y, source.categories, names=pair, bootstrap=boot)
            extra = {"annotators": list(pair), "weights": weights or "none"}
            records.append(Record(task, paired.cohen_kappa(weights), pair, extra))
    return records


def per_annotator(
    table: LabelTable, boot: Bootstrap, gold: dict[tuple[int, str], list[float]] | None = None
) -> list[Record]:
    """Items labelled, median time, agreement with the others' majority, and gold accuracy
    (``gold``: (annotator user id, task) -> gold-item scores, see ``gold_scores``)."""
    gold = gold or {}
    task = table.source.key
    humans = table.humans()
    cats = np.asarray(table.source.categories)
    counts = (table.ratings[:, humans, None] == cats[None, None, :]).sum(axis=1)
    out = []
    for h in humans:
        name = table.raters[h].name
        mine = table.ratings[:, h]
        labelled = ~np.isnan(mine)
        n = int(labelled.sum())
        times = table.times[labelled, h]
        times = times[~np.isnan(times)]
        if times.size:
            median = Stat("median_time_ms", float(np.median(times)), None, None, int(times.size))
        else:
            median = undefined("median_time_ms", 0, "no time recorded for this annotator")
        others = counts.copy()
        others[labelled, :] -= (mine[labelled, None] == cats[None, :]).astype(others.dtype)
        top = others.max(axis=1)
        unique_top = (others == top[:, None]).sum(axis=1) == 1
        has_majority = labelled & (top > 0) & unique_top
        majority = cats[others.argmax(axis=1)]
        success = mine[has_majority] == majority[has_majority]
        if len(humans) < 2:
            agreement = undefined("agreement_with_majority", 0, "no other annotator")
        else:
            agreement = proportion(success, "agreement_with_majority", boot)
            ties = int((labelled & (top > 0) & ~unique_top).sum())
            if ties:
                note = f"{ties} item(s) where the others have no single majority left out"
                agreement = replace(agreement, note=note)
        scores = gold.get((table.raters[h].user_id, task), [])
        if scores:
            accuracy = mean_of(scores, "gold_accuracy", boot)
        elif gold:
            accuracy = undefined("gold_accuracy", 0, "this annotator answered no gold item")
        else:
            accuracy = undefined("gold_accuracy", 0, NO_CAMPAIGNS)
        stats = [Stat("items", float(n), None, None, n), median, agreement, accuracy]
        extra = {"annotator": name}
        out.extend(Record(task, s, (name,), extra) for s in stats)
    return out
