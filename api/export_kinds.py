"""What an asynchronous export (``POST /api/v1/exports/``) can write: each kind names the form
that validates its parameters and the rows it reads (through a server-side cursor). The API
declares the shared rows' kinds (judgments, qrels); other apps register theirs (annotation:
a campaign's labels), so this package names none of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from django import forms

# The same columns as the paged endpoints' rows (api.views.results).
from api.views.results import JUDGMENT_FIELDS as JUDGMENT_COLUMNS
from api.views.results import QREL_FIELDS as QREL_COLUMNS
from crux_app.inputs import EvaluationInputError, resolve_judge, resolve_qrels_source
from crux_app.models import Collection, Judgment, PassageQrel
from crux_app.registry import Registry

CHUNK_ROWS = 5000  # rows per fetch of the server-side cursor


@dataclass(frozen=True)
class ExportRows:
    """What one export writes: its columns, its rows (read as they are written) and the
    stem of the download's file name."""

    columns: Sequence[str]
    rows: Iterable[Mapping[str, Any]]
    name: str


@dataclass(frozen=True)
class ExportKind:
    """``form_class`` validates ``params`` (a 400 naming the field); ``read`` turns its
    cleaned data into the rows, or raises ``forms.ValidationError`` naming what is missing."""

    name: str
    label: str
    form_class: type[forms.Form]
    read: Callable[[Mapping[str, Any]], ExportRows]


EXPORT_KINDS: Registry[ExportKind] = Registry(
    "API export kind", (ExportKind,), key=attrgetter("name")
)


def register_export(kind: ExportKind) -> None:
    EXPORT_KINDS.register(kind)


class CollectionExportForm(forms.Form):
    collection = forms.CharField(max_length=200)

    def clean_collection(self) -> Collection:
        name = self.cleaned_data["collection"]
        found = Collection.objects.filter(name=name).first()
        if found is None:
            raise forms.ValidationError(f"no collection named {name[:100]!r}")
        return found


class JudgmentsExportForm(CollectionExportForm):
    judge = forms.CharField(max_length=300, required=False)


class QrelsExportForm(CollectionExportForm):
    source = forms.CharField(max_length=300, required=False)


def _cursor_rows(rows, columns: Mapping[str, str]) -> Iterable[dict[str, Any]]:
    names = list(columns)
    for values in rows.values_list(*columns.values()).iterator(chunk_size=CHUNK_ROWS):
        yield dict(zip(names, values, strict=True))


def judgment_rows(data: Mapping[str, Any]) -> ExportRows:
    collection = data["collection"]
    try:
        judge = resolve_judge(collection, data.get("judge") or None)
    except EvaluationInputError as error:
        raise forms.ValidationError({"judge": str(error)}) from None
    if judge is None:
        raise forms.ValidationError({"judge": "nobody judged passages of this collection"})
    rows = Judgment.objects.filter(topic__collection=collection, judge__name=judge.name)
    rows = rows.order_by("topic__external_id", "subquestion__position", "id")
    return ExportRows(
        list(JUDGMENT_COLUMNS),
        _cursor_rows(rows, JUDGMENT_COLUMNS),
        f"{collection.name}-judgments-{judge.name}",
    )


def qrel_rows(data: Mapping[str, Any]) -> ExportRows:
    collection = data["collection"]
    try:
        source = resolve_qrels_source(collection, data.get("source") or None)
    except EvaluationInputError as error:
        raise forms.ValidationError({"source": str(error)}) from None
    rows = PassageQrel.objects.filter(topic__collection=collection, source=source)
    rows = rows.order_by("topic__external_id", "passage__external_id")
    return ExportRows(
        list(QREL_COLUMNS), _cursor_rows(rows, QREL_COLUMNS), f"{collection.name}-qrels-{source}"
    )


def register_shared_exports() -> None:
    register_export(
        ExportKind("judgments", "A judge's judgments", JudgmentsExportForm, judgment_rows)
    )
    register_export(ExportKind("qrels", "The qrels of one source", QrelsExportForm, qrel_rows))
