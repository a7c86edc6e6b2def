"""The agreement page's list of disagreements: every disagreement of the report, filtered by
task, topic, judge and size of the gap, a page at a time; texts are read for the shown rows.

The filter and the pager are GET fields with the prefix ``d`` (``d-topic``, ``d-page``), so
they ride along with the report's own selectors; a value out of bounds is the page's 400.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from django import forms
from django.http import QueryDict

from crux_app.list_paging import ListPage, ListPageForm, list_page
from crux_app.models import Collection
from crux_app.topic_lookup import TopicField
from evaluation.agreement.disagreements import Disagreement, DisagreementSet, with_texts
from evaluation.agreement.page_layout import TocEntry
from evaluation.agreement.report import AgreementReport

PREFIX = "d"
SECTION = "agreement-disagreements"  # the page's section (and table of contents entry)
PAGE_SIZE = 25
MAX_GAP = 5.0


class DisagreementFilterForm(forms.Form):
    """Which disagreements to list (every field optional: all of them)."""

    task = forms.ChoiceField(required=False)
    topic = TopicField(required=False)
    judge = forms.ChoiceField(required=False, help_text="either side of the pair")
    gap = forms.FloatField(
        required=False,
        min_value=0,
        max_value=MAX_GAP,
        label="|Δ| at least",
        widget=forms.NumberInput(attrs={"step": 0.5, "size": 4}),
    )
    across = forms.BooleanField(required=False, label="across τ only")

    def __init__(
        self, data: QueryDict, *, collection: Collection, report: AgreementReport, **kwargs: Any
    ) -> None:
        super().__init__(data, prefix=PREFIX, **kwargs)
        tasks = [s.task for s in report.disagreement_sets if len(s)]
        self.fields["task"].choices = [("", "every task"), *((t, t) for t in tasks)]
        self.fields["judge"].choices = [
            ("", "every judge"),
            *((r.name, r.name) for r in report.raters),
        ]
        self.fields["topic"].for_collection(collection)

    def mask(self, found: DisagreementSet) -> np.ndarray:
        """Which rows of ``found`` pass the filter (call after ``is_valid()``)."""
        data = self.cleaned_data
        keep = np.ones(len(found), dtype=bool)
        if data.get("task") and data["task"] != found.task:
            return ~keep
        if data.get("topic") is not None:
            keep &= found.topic_id == data["topic"].pk
        if data.get("judge"):
            sides = [i for i, r in enumerate(found.raters) if r.name == data["judge"]]
            keep &= np.isin(found.reference, sides) | np.isin(found.judge, sides)
        if data.get("gap") is not None:
            keep &= found.difference >= data["gap"]
        if data.get("across"):
            keep &= found.crosses_tau
        return keep


class PickedRows(Sequence):
    """(set, row) positions of the filtered disagreements, in the report's order, as a
    sequence the paginator can count and slice without building a list of them all."""

    def __init__(self, sets: np.ndarray, rows: np.ndarray) -> None:
        self.sets, self.rows = sets, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):  # noqa: ANN001 (an int or a slice, as a sequence takes)
        if isinstance(index, slice):
            return list(zip(self.sets[index].tolist(), self.rows[index].tolist(), strict=True))
        return (int(self.sets[index]), int(self.rows[index]))


def picked_rows(report: AgreementReport, form: DisagreementFilterForm) -> PickedRows:
    sets, rows = [], []
    for i, found in enumerate(report.disagreement_sets):
        kept = np.flatnonzero(form.mask(found))
        sets.append(np.full(len(kept), i))
        rows.append(kept)
    if not rows:
        return PickedRows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    return PickedRows(np.concatenate(sets), np.concatenate(rows))


def texts_of(report: AgreementReport, positions: list[tuple[int, int]]) -> list[Disagreement]:
    """The disagreements at ``positions`` with their texts, in the same order."""
    by_set: dict[int, list[int]] = defaultdict(list)
    for s, r in positions:
        by_set[s].append(r)
    found = {
        (s, r): d
        for s, rows in by_set.items()
        for r, d in zip(rows, with_texts(report.disagreement_sets[s], rows), strict=True)
    }
    return [found[p] for p in positions]


def disagreement_list(
    report: AgreementReport, filter_form: DisagreementFilterForm, paging: ListPageForm
) -> ListPage:
    """The page of filtered disagreements the valid forms select; its rows are the shown
    ``Disagreement``s, with their texts."""
    listing = list_page(paging, picked_rows(report, filter_form), default_size=PAGE_SIZE)
    listing.page.object_list = texts_of(report, list(listing.page.object_list))
    return listing


def total_disagreements(report: AgreementReport) -> int:
    """Every disagreement of the report, before any filter."""
    return sum(len(s) for s in report.disagreement_sets)


def with_total(toc: list[TocEntry], total: int) -> list[TocEntry]:
    """The page's table of contents, its disagreements entry counting every disagreement (the
    HTML report's counts the worst it lists)."""
    return [
        replace(e, title="Disagreements", note=str(total)) if e.id == SECTION else e for e in toc
    ]
