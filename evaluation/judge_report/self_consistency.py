"""A judge against itself, for the "Judge vs people" page and ``judge_report``: the sampled
repeats of an LLM judge found in a collection, their test-retest agreement, and the human-human
and human-judge agreement on the same items, as a JSON-able dict with one plotly chart.

A repeat is an LLM judge with the same model id whose prompt version is the judge's own plus
``~t<T>-s<seed>`` (``crux_app.vocabulary.repeat_version``; the judging job's temperature and
seed make one). Repeats are grouped by temperature. Their labels are read as the judging job
stored them: ``Judgment`` ratings (the CRUX rubric: passage ratings, or report ratings when they
rated no passage), or the judge's passage qrels (the UMBRELA rubric: ``PassageQrel`` rows under
the judge's name). People's labels of the same items: human judges' passage ratings, or human
judges' qrels (NIST's imported with ``import_qrels --kind human``, say); report ratings have no
human counterpart on the same scale (people label reports 0/1).

Items are those at least two repeats of a group labelled (unparsable outputs are no label). The
judge compared with people is the greedy judge (the named one when it is not a repeat); when it
labelled none of the items, the group's first repeat stands in and the dict says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable

import numpy as np

from crux_app.dataio.qrels_judge import qrels_source
from crux_app.models import Collection, Judge, Judgment, PassageQrel
from crux_app.vocabulary import RepeatVersion, parse_repeat_version
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import Stat, undefined
from evaluation.judge_report.method.self_consistency import (
    NO_PEOPLE,
    human_human_alpha,
    human_judge_alpha,
    retest_agreement,
    spread_verdict,
)

DEFAULT_RESAMPLES = 1000
RATING_CATEGORIES = tuple(float(r) for r in range(6))
QREL_CATEGORIES = tuple(float(g) for g in range(4))
PASSAGE, REPORT = Judgment.Task.PASSAGE_RATING.value, Judgment.Task.REPORT_COVERAGE.value
QRELS = "qrels"
REPORTS_HAVE_NO_PEOPLE = "people label reports 0/1, not on the judge's 0-5 scale"
METHOD = (
    "Krippendorff's ordinal alpha. Test-retest: among the judge's sampled repeats (one "
    "temperature, several seeds) on the items at least two of them labelled. Human-human: among "
    "the people who labelled those items. Human-judge: between the judge and each person, every "
    "(item, person) pair a unit of two labels. Brackets are {level:.0%} percentile bootstrap "
    "intervals ({resamples} resamples of the items; of the (item, person) pairs for "
    "human-judge)."
)
Labels = dict[Hashable, float]  # item -> label


def find_repeats(judge: Judge) -> tuple[Judge | None, list[tuple[Judge, RepeatVersion]]]:
    """The greedy judge (None when it is not stored) and its sampled repeats, by temperature
    then seed."""
    own = parse_repeat_version(judge.prompt_version)
    base = own.base if own else judge.prompt_version
    greedy = judge if own is None else None
    if greedy is None:
        greedy = Judge.objects.filter(
            kind=Judge.Kind.LLM, model_id=judge.model_id, prompt_version=base
        ).first()
    candidates = Judge.objects.filter(
        kind=Judge.Kind.LLM, model_id=judge.model_id, prompt_version__startswith=f"{base}~t"
    )
    repeats = []
    for candidate in candidates:
        version = parse_repeat_version(candidate.prompt_version)
        if version is not None and version.base == base:
            repeats.append((candidate, version))
    repeats.sort(key=lambda pair: (pair[1].temperature, pair[1].seed))
    return greedy, repeats


def _rating_labels(collection: Collection, judges: Iterable[Judge], task: str) -> dict[int, Labels]:
    rows = Judgment.objects.filter(
        topic__collection=collection, judge__in=list(judges), task=task, rating__isnull=False
    ).values_list("judge_id", "subquestion_id", "passage_id", "output_id", "rating")
    out: dict[int, Labels] = defaultdict(dict)
    for judge_id, subquestion, passage, output, rating in rows:
        out[judge_id][(subquestion, passage if task == PASSAGE else output)] = float(rating)
    return out


def _qrel_labels(collection: Collection, judges: Iterable[Judge]) -> dict[int, Labels]:
    by_source = {qrels_source(j.name): j.pk for j in judges}
    rows = PassageQrel.objects.filter(
        topic__collection=collection, source__in=list(by_source)
    ).values_list("source", "topic_id", "passage_id", "grade")
    out: dict[int, Labels] = defaultdict(dict)
    for source, topic, passage, grade in rows:
        out[by_source[source]][(topic, passage)] = float(grade)
    return out


def _labels_of(collection: Collection, judges: list[Judge]) -> tuple[str, dict[int, Labels]] | None:
    """What the repeats labelled (passage ratings, report ratings or qrels) and their labels."""
    for task in (PASSAGE, REPORT):
        labels = _rating_labels(collection, judges, task)
        if labels:
            return task, labels
    labels = _qrel_labels(collection, judges)
    return (QRELS, labels) if labels else None


def _human_labels(collection: Collection, kind: str) -> tuple[list[str], list[Labels]]:
    """Each person's labels comparable with the judge's (none for report ratings)."""
    if kind == REPORT:
        return [], []
    humans = list(Judge.objects.filter(kind=Judge.Kind.HUMAN).order_by("name"))
    labels = (
        _rating_labels(collection, humans, PASSAGE)
        if kind == PASSAGE
        else _qrel_labels(collection, humans)
    )
    people = [h for h in humans if labels.get(h.pk)]
    return [h.name for h in people], [labels[h.pk] for h in people]


def _table(items: list[Hashable], columns: list[Labels]) -> np.ndarray:
    table = np.full((len(items), len(columns)), np.nan)
    for j, labels in enumerate(columns):
        for i, item in enumerate(items):
            if item in labels:
                table[i, j] = labels[item]
    return table


def _categories(kind: str, *tables: np.ndarray) -> tuple[float, ...]:
    base = QREL_CATEGORIES if kind == QRELS else RATING_CATEGORIES
    seen = np.concatenate([np.zeros(0), *(t[~np.isnan(t)] for t in tables)])
    return tuple(sorted(set(base) | {float(v) for v in seen}))


def _group(
    kind: str,
    repeats: list[tuple[Judge, RepeatVersion]],
    labels: dict[int, Labels],
    greedy: Judge | None,
    people: tuple[list[str], list[Labels]],
    boot: Bootstrap,
) -> dict:
    columns = [labels.get(judge.pk, {}) for judge, _ in repeats]
    counts: dict[Hashable, int] = defaultdict(int)
    for column in columns:
        for item in column:
            counts[item] += 1
    items = sorted((item for item, n in counts.items() if n >= 2), key=repr)
    ratings = _table(items, columns)
    names, human_columns = people
    humans = _table(items, human_columns)
    on_items = ~np.isnan(humans).all(axis=0)  # people who labelled any of the items
    names = [n for n, keep in zip(names, on_items, strict=True) if keep]
    humans = humans[:, on_items]
    rated_by_greedy = greedy is not None and any(i in labels.get(greedy.pk, {}) for i in items)
    compared = greedy if rated_by_greedy and greedy is not None else repeats[0][0]
    judge_column = labels.get(compared.pk, {})
    judge = _table(items, [judge_column])[:, 0]
    categories = _categories(kind, ratings, humans, judge)
    retest = retest_agreement(ratings, categories, boot)
    if kind == REPORT:
        human_human = undefined("human_human_alpha", 0, REPORTS_HAVE_NO_PEOPLE)
        human_judge = undefined("human_judge_alpha", 0, REPORTS_HAVE_NO_PEOPLE)
    else:
        human_human = human_human_alpha(humans, categories, boot)
        human_judge = (
            human_judge_alpha(judge, humans, categories, boot)
            if names
            else undefined("human_judge_alpha", 0, NO_PEOPLE)
        )
    return {
        "temperature": repeats[0][1].temperature,
        "repeats": [
            {"judge": j.name, "seed": v.seed, "n_labels": len(c)}
            for (j, v), c in zip(repeats, columns, strict=True)
        ],
        "n_items": len(items),
        "test_retest": {
            "alpha": _shown(retest.alpha),
            "agreement": _shown(retest.agreement),
            "all_agree": _shown(retest.all_agree),
        },
        "humans": names,
        "human_human": _shown(human_human),
        "human_judge": _shown(human_judge),
        "human_judge_judge": compared.name,
        "human_judge_stand_in": not rated_by_greedy,
        "verdict": spread_verdict(retest.alpha, human_human).as_dict(),
    }


def build_self_consistency(
    collection: Collection, judge_name: str, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict | None:
    """The self-consistency of the LLM judge ``judge_name`` (or of the judge it is a repeat of)
    in the collection; None when it has no sampled repeat with labels there (people, qrels
    sources that are no judge, and judges never re-run all get None)."""
    judge = Judge.objects.filter(name=judge_name, kind=Judge.Kind.LLM).first()
    if judge is None:
        return None
    greedy, repeats = find_repeats(judge)
    if not repeats:
        return None
    found = _labels_of(collection, [j for j, _ in repeats])
    if found is None:
        return None
    kind, labels = found
    repeats = [(j, v) for j, v in repeats if labels.get(j.pk)]
    if greedy is not None:
        if kind == QRELS:
            labels.update(_qrel_labels(collection, [greedy]))
        else:
            labels.update(_rating_labels(collection, [greedy], kind))
    boot = Bootstrap(n_resamples=resamples, seed=seed)
    people = _human_labels(collection, kind)
    by_temperature: dict[float, list[tuple[Judge, RepeatVersion]]] = defaultdict(list)
    for judge_repeat, version in repeats:
        by_temperature[version.temperature].append((judge_repeat, version))
    groups = [
        _group(kind, members, labels, greedy, people, boot)
        for _, members in sorted(by_temperature.items())
    ]
    return {
        "judge": judge_name,
        "greedy_judge": greedy.name if greedy else None,
        "model_id": judge.model_id,
        "labels": kind,
        "groups": groups,
        "bootstrap": {"resamples": resamples, "seed": seed, "level": boot.level},
        "method": METHOD.format(level=boot.level, resamples=resamples),
        "chart": chart(groups),
    }


def _bar(stat: dict) -> tuple[float | None, float | None, float | None]:
    value = stat["value"]
    if value is None or stat["ci_low"] is None or stat["ci_high"] is None:
        return value, None, None
    return value, stat["ci_high"] - value, value - stat["ci_low"]


def chart(groups: list[dict]) -> dict:
    """Plotly spec: test-retest, human-human and human-judge alpha with their intervals, one
    bar colour per temperature (undefined alphas are left out)."""
    figures = [("test-retest", ("test_retest", "alpha")), ("human-human", ("human_human",))]
    figures.append(("human-judge", ("human_judge",)))
    traces = []
    for group in groups:
        stats = []
        for _, path in figures:
            stat = group
            for key in path:
                stat = stat[key]
            stats.append(stat)
        bars = [_bar(s) for s in stats]
        traces.append(
            {
                "type": "bar",
                "name": f"T = {group['temperature']:g} ({len(group['repeats'])} repeats)",
                "x": [label for label, _ in figures],
                "y": [b[0] for b in bars],
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [b[1] for b in bars],
                    "arrayminus": [b[2] for b in bars],
                },
                "customdata": [s["n"] for s in stats],
                "hovertemplate": "%{x}: alpha %{y:.3f} (n = %{customdata})<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": {
            "title": {
                "text": "Krippendorff's alpha (ordinal) on the same items",
                "font": {"size": 13},
            },
            "yaxis": {"title": {"text": "alpha"}, "range": [-0.2, 1.05], "zeroline": True},
            "barmode": "group",
            "width": 480,
            "height": 420,
            "margin": {"l": 60, "r": 10, "t": 50, "b": 50},
            "legend": {"orientation": "h", "y": -0.15},
        },
    }


def _shown(stat: Stat) -> dict[str, object]:
    """A figure's dict, with the text the page prints for it."""
    if stat.value is None:
        text = f"undefined ({stat.undefined})"
    elif stat.ci_low is None or stat.ci_high is None:
        text = f"{stat.value:.3f}"
    else:
        text = f"{stat.value:.3f} [{stat.ci_low:.3f}, {stat.ci_high:.3f}]"
    return {**stat.as_dict(), "text": text}
