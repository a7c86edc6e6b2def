"""Ensemble judges, materialised: build one from its members' labels in a collection, and say
what an ensemble is and whether it is stale.

An ensemble is a Judge of kind ``ensemble`` (``crux_app.models.JudgeEnsemble``: members,
combiner, ``min_members``). Building it in a collection replaces its labels there with labels
combined (``method/ensemble.py``) from the members' current ones, per kind of label:

- sub-question x passage ratings and sub-question x report coverage marks (``Judgment``), per
  (sub-question, passage or output);
- passage qrels (``PassageQrel`` whose source is a member's name: a TREC qrels file imported as
  that judge's labels), per (topic, passage), written with the ensemble's name as source.

A member's unparsable output (a null rating) is no label. Everything is one transaction, and
re-running refreshes the labels from the members' current ones (idempotent). A build records
a fingerprint of each member's labels (counts, sums, latest update); a member whose labels
changed since is reported as stale wherever the ensemble is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.db import transaction
from django.utils import timezone

from crux_app.data_version import bump_before_writes
from crux_app.inputs import EvaluationInputError
from crux_app.judge_ensembles import describe, fingerprint
from crux_app.models import (
    Collection,
    EnsembleBuild,
    Judge,
    JudgeEnsemble,
    JudgeEnsembleMember,
    Judgment,
    PassageQrel,
    SubQuestion,
)
from crux_app.query_arrays import NULL, int_columns
from evaluation.judge_report.method.ensemble import COMBINERS, combine

BATCH = 5000
NAME_LENGTH = Judge._meta.get_field("name").max_length


def default_name(combiner: str, members: Sequence[str]) -> str:
    return f"{combiner}({', '.join(members)})"


def _has_labels(collection: Collection, judge: Judge) -> bool:
    return (
        Judgment.objects.filter(topic__collection=collection, judge=judge).exists()
        or PassageQrel.objects.filter(topic__collection=collection, source=judge.name).exists()
    )


def _members(collection: Collection, names: Sequence[str]) -> list[Judge]:
    if len(names) < 2:
        raise EvaluationInputError("an ensemble combines at least 2 judges")
    if len(set(names)) != len(names):
        raise EvaluationInputError(f"a judge is named twice among the members: {list(names)}")
    found = {j.name: j for j in Judge.objects.filter(name__in=names)}
    judges = []
    for name in names:
        judge = found.get(name)
        if judge is None or not _has_labels(collection, judge):
            known = Judge.objects.filter(judgments__topic__collection=collection).distinct()
            listing = ", ".join(repr(n) for n in known.values_list("name", flat=True)) or "none"
            raise EvaluationInputError(
                f"judge {name!r} has no labels in collection {collection.name!r}; judges there: "
                f"{listing}"
            )
        judges.append(judge)
    return judges


def _ensemble_judge(
    name: str, combiner: str, members: list[Judge], min_members: int
) -> JudgeEnsemble:
    """The ensemble's rows, created on first use; an existing one must mean the same."""
    if name in {m.name for m in members}:
        raise EvaluationInputError(f"the ensemble cannot be named after its member {name!r}")
    description = describe(combiner, [m.name for m in members], min_members)
    judge = Judge.objects.filter(name=name).first()
    if judge is None:
        judge = Judge.objects.create(name=name, kind=Judge.Kind.ENSEMBLE, model_id=description)
        ensemble = JudgeEnsemble.objects.create(
            judge=judge, combiner=combiner, min_members=min_members
        )
        JudgeEnsembleMember.objects.bulk_create(
            JudgeEnsembleMember(ensemble=ensemble, judge=m, position=i)
            for i, m in enumerate(members)
        )
        return ensemble
    if judge.kind != Judge.Kind.ENSEMBLE:
        raise EvaluationInputError(
            f"judge {name!r} exists and is not an ensemble ({judge.kind}); choose another --name"
        )
    ensemble = JudgeEnsemble.objects.get(judge=judge)
    current = list(ensemble.members.values_list("judge__name", flat=True))
    if (ensemble.combiner, ensemble.min_members, current) != (
        combiner,
        min_members,
        [m.name for m in members],
    ):
        raise EvaluationInputError(
            f"ensemble {name!r} is already {judge.model_id}; to combine differently, choose "
            "another --name"
        )
    return ensemble


def _combined(rows: np.ndarray, n_members: int, combiner: str, min_members: int) -> np.ndarray:
    """rows (member index, key 1, key 2, label) -> (key 1, key 2, combined label)."""
    if not rows.size:
        return np.zeros((0, 3), np.int64)
    keys, item = np.unique(rows[:, 1:3], axis=0, return_inverse=True)
    matrix = np.full((len(keys), n_members), np.nan)
    matrix[item.reshape(-1), rows[:, 0]] = rows[:, 3]
    labels, labelled = combine(matrix, combiner, min_members)
    return np.column_stack([keys[labelled], labels[labelled]])


def _member_index(rows: np.ndarray, ids: Sequence[int]) -> np.ndarray:
    ids = np.asarray(ids, dtype=np.int64)
    order = np.argsort(ids)
    rows = rows.copy()
    rows[:, 0] = order[np.searchsorted(ids[order], rows[:, 0])]
    return rows


def _write_judgments(
    collection: Collection,
    ensemble: JudgeEnsemble,
    members: list[Judge],
    task: str,
    item_field: str,
) -> int:
    rows = int_columns(
        Judgment.objects.filter(
            topic__collection=collection,
            judge_id__in=[m.pk for m in members],
            task=task,
            **{f"{item_field}__isnull": False},
        ),
        ["judge_id", "subquestion_id", f"{item_field}_id", "rating"],
    )
    rows = rows[rows[:, 3] != NULL]  # an unparsable output is no label
    rows = _member_index(rows, [m.pk for m in members])
    combined = _combined(rows, len(members), ensemble.combiner, ensemble.min_members)
    if not combined.size:
        return 0
    topics = dict(
        SubQuestion.objects.filter(pk__in=set(combined[:, 0].tolist())).values_list(
            "pk", "topic_id"
        )
    )
    Judgment.objects.bulk_create(
        (
            Judgment(
                judge_id=ensemble.judge_id,
                topic_id=topics[sq],
                subquestion_id=sq,
                task=task,
                rating=label,
                **{f"{item_field}_id": item},
            )
            for sq, item, label in combined.tolist()
        ),
        batch_size=BATCH,
    )
    return len(combined)


def _write_qrels(collection: Collection, ensemble: JudgeEnsemble, members: list[Judge]) -> int:
    names = [m.name for m in members]
    found = PassageQrel.objects.filter(topic__collection=collection, source__in=names)
    rows = found.order_by().values_list("source", "topic_id", "passage_id", "grade")
    index = {name: i for i, name in enumerate(names)}
    # Every stored grade is a label (a negative "junk" grade of some TREC qrels included).
    array = np.array([(index[s], t, p, g) for s, t, p, g in rows], dtype=np.int64).reshape(-1, 4)
    combined = _combined(array, len(members), ensemble.combiner, ensemble.min_members)
    PassageQrel.objects.bulk_create(
        (
            PassageQrel(topic_id=t, passage_id=p, grade=g, source=ensemble.judge.name)
            for t, p, g in combined.tolist()
        ),
        batch_size=BATCH,
    )
    return len(combined)


def build_ensemble(
    collection: Collection,
    members: Sequence[str],
    combiner: str,
    name: str | None = None,
    min_members: int | None = None,
) -> EnsembleBuild:
    """Create (or refresh) the ensemble's labels in the collection from its members' labels."""
    if combiner not in COMBINERS:
        raise EvaluationInputError(
            f"combiner must be one of {', '.join(COMBINERS)}, got {combiner!r}"
        )
    members = list(members)
    min_members = len(members) if min_members is None else min_members
    if not 1 <= min_members <= len(members):
        raise EvaluationInputError(
            f"min_members must lie in [1, {len(members)}] (the number of members), "
            f"got {min_members}"
        )
    name = name or default_name(combiner, members)
    if len(name) > NAME_LENGTH:
        raise EvaluationInputError(
            f"the ensemble's name is over {NAME_LENGTH} characters: give --name"
        )
    with transaction.atomic():
        judges = _members(collection, members)
        ensemble = _ensemble_judge(name, combiner, judges, min_members)
        # Bulk writes send no signals: the collection's cached figures must be recomputed.
        bump_before_writes(collection.pk)
        Judgment.objects.filter(topic__collection=collection, judge=ensemble.judge).delete()
        PassageQrel.objects.filter(topic__collection=collection, source=name).delete()
        counts = {
            "passage_ratings": _write_judgments(
                collection, ensemble, judges, Judgment.Task.PASSAGE_RATING, "passage"
            ),
            "report_coverage": _write_judgments(
                collection, ensemble, judges, Judgment.Task.REPORT_COVERAGE, "output"
            ),
            "passage_qrels": _write_qrels(collection, ensemble, judges),
        }
        build, _ = EnsembleBuild.objects.update_or_create(
            ensemble=ensemble,
            collection=collection,
            defaults={
                "built_at": timezone.now(),
                "member_fingerprints": {j.name: fingerprint(collection, j) for j in judges},
                "counts": counts,
            },
        )
    return build
