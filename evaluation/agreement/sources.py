"""The registry of comparison sources: every kind of human judgment the app collects, what the
machine side of it is, and where its labels come from.

A source turns a collection into one ``LabelTable`` (items x raters, humans and machines);
the report then applies the statistics that fit the source's scale. Every method declares its
sources in its ``MethodConfig`` (crux_app.method_config); the registry names none. A source
registered without a loader but with a reason is shown as "not available" with that reason.

``ComparisonSource`` and its vocabulary (``Scale``, the class names) live in
``evaluation.agreement.label_tables``, with the label table a source fills (each needs the
other): a method declares its sources with them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter

from crux_app.registry import Registry
from evaluation.agreement.label_tables import ComparisonSource


def _checked(source: ComparisonSource) -> ComparisonSource:
    if source.loader is None and not source.unavailable:
        raise ValueError(f"source {source.key!r} needs a loader or an 'unavailable' reason")
    return source


# A later registration replaces a source by key (a loader replaces an "unavailable" entry).
COMPARISON_SOURCES: Registry[ComparisonSource] = Registry(
    "comparison source", (ComparisonSource,), prepare=_checked
)


def sources() -> list[ComparisonSource]:
    return COMPARISON_SOURCES.ordered()


def available_sources() -> list[ComparisonSource]:
    return [s for s in sources() if s.available]


# Item ids -> {id: (external id, text)} for items that are not passages or outputs (a method's
# own items, e.g. judged answers): the worst-disagreement list shows them.
ItemTexts = Callable[[list[int]], dict[int, tuple[str, str]]]


@dataclass(frozen=True)
class ItemTextSource:
    """The texts of one item kind (``kind``: the ``LabelTable.item_kind`` it serves)."""

    kind: str
    texts: ItemTexts


_ITEM_TEXTS: Registry[ItemTextSource] = Registry(
    "item texts", (ItemTextSource,), key=attrgetter("kind")
)


def item_texts(kind: str) -> ItemTexts | None:
    entry = _ITEM_TEXTS.get(kind)
    return entry.texts if entry else None
