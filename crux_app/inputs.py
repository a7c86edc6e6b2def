"""Which collection, judge, qrels source and runs an evaluation reads: defaults, and errors
that list what exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crux_app.derived_cache import cached, derived
from crux_app.judge_choice import default_judge
from crux_app.judge_kinds import kind_label
from crux_app.models import Collection, Judge, Judgment, Run
from crux_app.read_parameters import TAU
from crux_app.topic_counts import judge_tallies, source_counts
from crux_app.vocabulary import nearly_constant

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
PASSAGE_JUDGES = "passage-judges"  # the derived cache's parts
QRELS_SOURCES = "qrels-sources"


def check_tau(tau: float) -> float:
    """A rating threshold within the declared tau's bounds (at 0 every unrelated passage would
    'answer'); ValueError naming tau otherwise."""
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise ValueError(f"tau must be {TAU.words()}, got {tau!r}")
    return TAU.check(float(tau), prefix="parameter")


class EvaluationInputError(ValueError):
    """A collection, run, judge or qrels source that does not exist; the message lists the
    existing ones."""


def _listing(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "none"


@dataclass(frozen=True)
class JudgeInfo:
    id: int
    name: str
    kind: str
    n_judgments: int  # passage ratings in the collection
    n_topics: int = 1  # topics it rated passages of
    prompt_version: str = ""
    kind_text: str = ""  # the kind as pages list it (crux_app.judge_kinds)
    rating_counts: tuple[tuple[float, int], ...] = ()  # (rating, passage ratings), by rating
    n_unparsable: int = 0  # passage-rating outputs without a rating

    @property
    def kind_name(self) -> str:
        """The kind as pages list it ("embedding baseline", "LLM", "human", ...)."""
        return self.kind_text or kind_label(self.kind, self.prompt_version)

    @property
    def degenerate(self) -> bool:
        """Whether its ratings barely tell the items apart (``vocabulary.nearly_constant``)."""
        return nearly_constant(dict(self.rating_counts))


def collection_judges(collection: Collection, *, as_read: bool = False) -> list[JudgeInfo]:
    """Judges that rated passages of the collection, most judgments first (counting them
    scans every judgment of the collection: cached until its data changes). ``as_read``: under
    the data version of ``collection`` as it was read (no query: a page that just read it)."""
    if as_read:
        version = collection.data_version.hex
        return derived(collection.pk, version, PASSAGE_JUDGES, lambda: _count_judges(collection))
    return cached(collection.pk, PASSAGE_JUDGES, lambda: _count_judges(collection))


def _count_judges(collection: Collection) -> list[JudgeInfo]:
    # Counted per topic (``topic_counts``): a write recounts the topics it touched only.
    tallies = judge_tallies(collection)
    rows = Judge.objects.filter(pk__in=list(tallies)).values_list(
        "pk", "name", "kind", "prompt_version"
    )
    judges = [
        JudgeInfo(
            pk,
            name,
            kind,
            tallies[pk].n_judgments,
            tallies[pk].n_topics,
            version,
            kind_label(kind, version),
            tuple(sorted(tallies[pk].histogram.items())),
            tallies[pk].n_unparsable,
        )
        for pk, name, kind, version in rows
    ]
    return sorted(judges, key=lambda j: (-j.n_judgments, j.name))


def resolve_judge(
    collection: Collection, name: str | None = None, remembered: int | None = None
) -> JudgeInfo | None:
    """The named judge, or by default ``judge_choice.default_judge``'s: the user's remembered
    choice (a judge id), else a person who labelled the collection, else the most complete
    machine judge (None when nobody rated passages: every rating is then unjudged, and only the
    ranking metrics are defined)."""
    judges = collection_judges(collection)
    if name is None:
        return default_judge(judges, remembered)
    found = next((j for j in judges if j.name == name), None)
    if found is None:
        raise EvaluationInputError(
            f"judge {name!r} has no passage judgments in collection {collection.name!r}; "
            f"judges there: {_listing([j.name for j in judges])}"
        )
    return found


def resolve_collection(name: str) -> Collection:
    try:
        return Collection.objects.get(name=name)
    except Collection.DoesNotExist:
        names = list(Collection.objects.order_by("name").values_list("name", flat=True))
        raise EvaluationInputError(
            f"collection {name!r} does not exist; collections: {_listing(names)}"
        ) from None


def qrels_sources(collection: Collection) -> list[tuple[str, int]]:
    """(source, number of passage qrels) of the collection, most rows first: cached until its
    data changes, then counted again for the topics a write touched only (``topic_counts``)."""

    def count() -> list[tuple[str, int]]:
        return sorted(source_counts(collection).items(), key=lambda r: (-r[1], r[0]))

    return cached(collection.pk, QRELS_SOURCES, count)


def resolve_qrels_source(collection: Collection, source: str | None = None) -> str | None:
    """The named source, or the one with the most rows; None when the collection has none."""
    sources = qrels_sources(collection)
    if source is None:
        return sources[0][0] if sources else None
    if source not in {s for s, _ in sources}:
        raise EvaluationInputError(
            f"qrels source {source!r} does not exist in collection {collection.name!r}; "
            f"sources: {_listing([s for s, _ in sources])}"
        )
    return source


def resolve_runs(collection: Collection, name: str | None = None) -> list[tuple[int, str]]:
    """(id, name) of the named run, or of every run of the collection by name."""
    runs = list(
        Run.objects.filter(collection=collection).order_by("name").values_list("pk", "name")
    )
    if name is None:
        return runs
    picked = [r for r in runs if r[1] == name]
    if not picked:
        raise EvaluationInputError(
            f"run {name!r} does not exist in collection {collection.name!r}; "
            f"runs: {_listing([n for _, n in runs])}"
        )
    return picked
