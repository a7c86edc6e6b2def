"""Human labels vs a machine judge's, per judge (one judge per model and prompt version), and
two machine judges side by side against the same human labels.

The human reference is each annotator on their own and, with several annotators, all of them
pooled: every human label is a reference for the judge's label of the same item (CRUX's 226
human ratings vs the LLM), and the bootstrap resamples items with all their labels. On 0-5
ratings "answerable" means rating >= tau, for humans and judge alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from evaluation.agreement.judge_comparison import compare_judges_on
from evaluation.agreement.label_tables import HUMAN, LabelTable, Scale
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import PairedLabels, Stat, undefined
from evaluation.agreement.report_rows import Record

POOLED = "humans (pooled)"
POST_EDITORS_POOLED = "post-editors (pooled)"
POST_EDITED_DEFINITION = (
    "Post-edited labels: the annotators of a post-editing campaign saw a machine judge's label "
    "pre-filled and changed it where they disagreed (TREC 2024), so these labels are not blind "
    "and agree with that judge more than blind labels would. They are in no figure of the blind "
    "human labels above; here each post-editor (and all of them pooled) is the reference."
)
REFERENCE_DEFINITION = (
    "Each LLM judge (one model with one prompt version) is compared with each annotator on "
    "their own and, with several annotators, with all of them pooled: every human label is a "
    "reference for the judge's label of the same item, and the bootstrap resamples items with "
    "all their labels. Precision and recall take the humans as the truth. On 0-5 ratings "
    '"answerable" means rating >= tau, for humans and judge alike.'
)
BINARY = (0.0, 1.0)
NO_HUMANS = "no human labelled this task"


@dataclass(frozen=True)
class ConfusionMatrix:
    """Counts of (human label, judge label); rows are the reference."""

    task: str
    judge: str
    reference: str
    scale: str
    labels: list[str]
    matrix: list[list[int]]

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _references(table: LabelTable, pooled: str = POOLED) -> list[tuple[str, list[int]]]:
    humans = table.humans()
    refs = [(table.raters[h].name, [h]) for h in humans]
    return [(pooled, humans), *refs] if len(humans) > 1 else refs


def _stack(table: LabelTable, reference: list[int], judge: int):
    """Reference labels, the judge's labels of the same items, item ids (pooled only)."""
    a = table.ratings[:, reference].T.ravel()
    b = np.tile(table.ratings[:, judge], len(reference))
    items = np.tile(np.arange(table.n_items), len(reference)) if len(reference) > 1 else None
    return a, b, items


def at_tau(x: np.ndarray, tau: float) -> np.ndarray:
    """0-5 ratings as answerable (1) or not (0) at tau; NaN stays NaN."""
    return np.where(np.isnan(x), np.nan, (x >= tau).astype(float))


def _names(categories, class_names) -> list[str]:
    named = dict(class_names)
    return [named.get(c, f"{c:g}") for c in categories]


def _class_stats(paired: PairedLabels, class_names) -> list[Stat]:
    return [s for value, name in class_names for s in paired.class_scores(value, name)]


def human_vs_machine(
    table: LabelTable, tau: float, boot: Bootstrap, pooled: str = POOLED
) -> tuple[list[Record], list[ConfusionMatrix]]:
    """Every machine judge of the table against every human reference (``pooled`` names all
    of them together)."""
    source, task = table.source, table.source.key
    records: list[Record] = []
    matrices: list[ConfusionMatrix] = []
    for m in table.machines():
        judge = table.raters[m]
        about = {"judge": judge.name, "model_id": judge.model_id}
        about["prompt_version"] = judge.prompt_version
        if not table.humans():
            stat = undefined("cohen_kappa", 0, NO_HUMANS)
            records.append(Record(task, stat, (judge.name,), about | {"reference": None}))
            continue
        for ref_name, cols in _references(table, pooled):
            a, b, items = _stack(table, cols, m)
            judges = (judge.name, *(table.raters[c].name for c in cols))
            extra = about | {"reference": ref_name}
            names = (ref_name, judge.name)

            def confusion(paired, scale, labels, ref_name=ref_name, judge=judge):
                matrix = paired.confusion().tolist()
                return ConfusionMatrix(task, judge.name, ref_name, scale, labels, matrix)

            if source.scale == Scale.ORDINAL:
                raw = PairedLabels(
                    a, b, source.categories, items=items, names=names, bootstrap=boot
                )
                stats = [raw.cohen_kappa("quadratic"), raw.spearman(), raw.kendall()]
                stats.append(raw.percent_agreement())
                records += [Record(task, s, judges, extra | {"scale": "0-5"}) for s in stats]
                labels = _names(source.categories, ())
                matrices.append(confusion(raw, "0-5", labels))
                cut = PairedLabels(
                    at_tau(a, tau), at_tau(b, tau), BINARY, items=items, names=names, bootstrap=boot
                )
                stats = [cut.cohen_kappa(statistic="cohen_kappa_at_tau")]
                stats.append(cut.percent_agreement("percent_agreement_at_tau"))
                stats += _class_stats(cut, source.class_names)
                scale = f"answerable = rating >= tau ({tau:g})"
                records += [
                    Record(task, s, judges, extra | {"scale": scale, "tau": tau}) for s in stats
                ]
                matrices.append(confusion(cut, scale, _names(BINARY, source.class_names)))
            else:
                cats = source.categories
                paired = PairedLabels(a, b, cats, items=items, names=names, bootstrap=boot)
                stats = [paired.cohen_kappa(), paired.percent_agreement()]
                stats += _class_stats(paired, source.class_names)
                scale = source.scale.value
                records += [Record(task, s, judges, extra | {"scale": scale}) for s in stats]
                matrices.append(confusion(paired, scale, _names(cats, source.class_names)))
    return records, matrices


def judge_pairs(table: LabelTable, tau: float, boot: Bootstrap) -> list[Record]:
    """Each pair of machine judges against the pooled human labels, on their common items."""
    source, task = table.source, table.source.key
    machines, humans = table.machines(), table.humans()
    if not humans:
        return []
    ref_name = POOLED if len(humans) > 1 else table.raters[humans[0]].name
    if source.scale == Scale.ORDINAL:
        plans = [
            ("cohen_kappa_quadratic", "cohen_kappa_quadratic", None),
            ("spearman", "spearman", None),
            ("cohen_kappa", "cohen_kappa_at_tau", tau),
        ]
    else:
        plans = [
            ("cohen_kappa", "cohen_kappa", None),
            ("percent_agreement", "percent_agreement", None),
        ]
    # Statistics on the same labels (same cut) share one merge and one resampling.
    cuts = list(dict.fromkeys(cut for _, _, cut in plans))
    out = []
    for i, ma in enumerate(machines):
        for mb in machines[i + 1 :]:
            ja, jb = table.raters[ma], table.raters[mb]
            ref, a, items = _stack(table, humans, ma)
            _, b, _ = _stack(table, humans, mb)
            results = {}
            for cut in cuts:
                x, y, z = (ref, a, b) if cut is None else (at_tau(v, cut) for v in (ref, a, b))
                cats = source.categories if cut is None else BINARY
                wanted = [statistic for statistic, _, c in plans if c == cut]
                found = compare_judges_on(
                    x, y, z, cats, wanted, items=items, names=(ja.name, jb.name), boot=boot
                )
                results.update({(statistic, cut): r for statistic, r in found.items()})
            for statistic, label, cut in plans:
                result = results[statistic, cut]
                difference = replace(result.difference, statistic=f"{label}_difference")
                extra = {
                    "reference": ref_name,
                    "judge_a": ja.name,
                    "judge_b": jb.name,
                    "value_a": result.a.value,
                    "ci_a": [result.a.ci_low, result.a.ci_high],
                    "undefined_a": result.a.undefined,
                    "value_b": result.b.value,
                    "ci_b": [result.b.ci_low, result.b.ci_high],
                    "undefined_b": result.b.undefined,
                }
                if cut is not None:
                    extra["tau"] = cut
                judges = (ja.name, jb.name, *(table.raters[h].name for h in humans))
                out.append(Record(task, difference, judges, extra))
    return out


def post_edited_vs_machine(table: LabelTable, tau: float, boot: Bootstrap) -> list[Record]:
    """Every machine judge against the post-edited labels (each post-editor, and pooled): the
    same figures as ``human_vs_machine``, kept in a section of their own."""
    edited = table.post_edited()
    if not edited:
        return []
    columns = edited + table.machines()
    # A view in which the post-editors are the people and nobody else is.
    raters = tuple(
        replace(r, kind=HUMAN) if r.is_post_edited else r
        for r in (table.raters[c] for c in columns)
    )
    view = replace(
        table, raters=raters, ratings=table.ratings[:, columns], times=table.times[:, columns]
    )
    records, _ = human_vs_machine(view, tau, boot, POST_EDITORS_POOLED)
    return records
