"""The registry of comparison sources: every kind of human judgment the app collects, what the
machine side of it is, and where its labels come from.

A source turns a collection into one ``LabelTable`` (items x raters, humans and machines);
the report then applies the statistics that fit the source's scale. Every method registers its
sources from its app's ``ready`` (its ``registrations.py``); the registry names none. A source
registered without a loader but with a reason is shown as "not available" with that reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crux_app.models import Collection
    from evaluation.agreement.bootstrap import Bootstrap
    from evaluation.agreement.label_tables import LabelQuery, LabelTable
    from evaluation.agreement.records import CoveragePoint, Record

# (collection, table, tau, bootstrap) -> (records, per-output points)
DerivedFigures = Callable[
    ["Collection", "LabelTable", float, "Bootstrap"], tuple[list["Record"], list["CoveragePoint"]]
]


class Scale(StrEnum):
    """How labels are compared: binary (0/1), nominal categories, ordinal 0-5 ratings."""

    BINARY = "binary"
    NOMINAL = "nominal"
    ORDINAL = "ordinal"


# What each 0/1 class means in CRUX's own table ("answerable" is r >= tau).
BINARY_CLASSES = ((1.0, "answerable"), (0.0, "unanswerable"))
RATING_CATEGORIES = tuple(float(r) for r in range(6))


@dataclass(frozen=True)
class ComparisonSource:
    key: str
    title: str  # what was judged, for people who never opened the app
    scale: Scale
    machine: str  # what the humans are compared with
    categories: tuple[float, ...]
    class_names: tuple[tuple[float, str], ...]
    loader: Callable[[LabelQuery, ComparisonSource], LabelTable] | None = None
    unavailable: str | None = None  # why there is no loader yet
    # Figures a method derives from the table beyond item agreement (CRUX: report coverage
    # by humans vs by each judge), with the definition the report prints beside them.
    derived: DerivedFigures | None = None
    derived_definition: str | None = None

    @property
    def available(self) -> bool:
        return self.loader is not None


_REGISTRY: dict[str, ComparisonSource] = {}


def register_source(source: ComparisonSource) -> ComparisonSource:
    """Add or replace a source (a later loader replaces an "unavailable" entry)."""
    if source.loader is None and not source.unavailable:
        raise ValueError(f"source {source.key!r} needs a loader or an 'unavailable' reason")
    _REGISTRY[source.key] = source
    return source


def unregister_source(key: str) -> None:
    _REGISTRY.pop(key, None)


def sources() -> list[ComparisonSource]:
    return list(_REGISTRY.values())


def available_sources() -> list[ComparisonSource]:
    return [s for s in _REGISTRY.values() if s.available]


# Item kind -> (item ids -> {id: (external id, text)}) for items that are not passages or
# outputs (a method's own items, e.g. judged answers): the worst-disagreement list shows them.
ItemTexts = Callable[[list[int]], dict[int, tuple[str, str]]]
_ITEM_TEXTS: dict[str, ItemTexts] = {}


def register_item_texts(kind: str, texts: ItemTexts) -> None:
    _ITEM_TEXTS[kind] = texts


def item_texts(kind: str) -> ItemTexts | None:
    return _ITEM_TEXTS.get(kind)
