"""The depths k at which the columns that report them (``Column.k_topics``) have stored values:
the leaderboard's default k, the list of depths with data, and the topics behind each cell.

Such a column has values only where a job stored them (a job at k = 3 fills k = 3 alone), so
at a k nobody ran its cells are blank; the page then says where its data is instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Topic
from evaluation.leaderboard.columns import Column, best_covered_k, columns, k_coverage

PREFERRED_K = 10  # the default k when it has as much data as any other
SUGGESTED_KS = (5, 10, 20)  # offered in the k field beside the depths with data


@dataclass(frozen=True)
class DepthColumn:
    label: str  # the column's label with "k" for its depth
    topics: int  # the most topics any run has a value for at this depth


@dataclass(frozen=True)
class DepthOption:
    k: int
    columns: tuple[DepthColumn, ...]


@dataclass(frozen=True)
class CellNote:
    text: str = ""  # shown under the value
    title: str = ""  # the cell's tooltip


@dataclass(frozen=True)
class Depths:
    coverage: dict[str, dict[int, dict[str, int]]]  # column key -> depth -> run -> topics
    n_topics: int  # topics in the collection
    fallback: frozenset[str] = frozenset()  # columns that show another depth's value

    def _columns_at(self, k: int, strict: bool = False) -> dict[str, int]:
        """Column key -> the most topics of any run at depth k (columns with data there;
        ``strict``: only the columns that have no value elsewhere than at their k)."""
        out = {}
        for key, by_k in self.coverage.items():
            if strict and key in self.fallback:
                continue
            most = max(by_k.get(k, {}).values(), default=0)
            if most:
                out[key] = most
        return out

    def ks(self) -> list[int]:
        """Every depth at which some column has a value, shallowest first."""
        return sorted({k for by_k in self.coverage.values() for k in by_k if self._columns_at(k)})

    def suggested_ks(self) -> list[int]:
        """The k field's suggestions: the depths with data and a few usual ones."""
        return sorted({*self.ks(), *SUGGESTED_KS})

    def default_k(self, preferred: int = PREFERRED_K) -> int:
        """The depth where the most columns have data (``preferred`` when it has as many;
        then the most topics, then the shallowest); ``preferred`` when none has data. A
        column that falls back to another depth has data at any k: it does not choose."""

        def score(k: int) -> tuple[int, bool, int, int]:
            at_k = self._columns_at(k, strict=True)
            return len(at_k), k == preferred, sum(at_k.values()), -k

        return max([preferred, *self.ks()], key=score)

    def options(self, columns: list[Column]) -> list[DepthOption]:
        labels = {c.key: c.label_for("k") for c in columns}
        return [
            DepthOption(
                k,
                tuple(DepthColumn(labels[key], n) for key, n in self._columns_at(k).items()),
            )
            for k in self.ks()
        ]

    def note(self, column: Column, run: str, k: int | str, value: object) -> CellNote:
        """What a cell's value rests on: its topics out of the collection's, or, for a blank
        cell, the depths where the run has values."""
        by_k = self.coverage.get(column.key)
        if by_k is None:
            return CellNote()
        run_ks = {depth: runs[run] for depth, runs in by_k.items() if runs.get(run)}
        of = f"of the collection's {self.n_topics} topics"
        if value is None:
            if not run_ks:
                return CellNote()
            listing = ", ".join(str(d) for d in sorted(run_ks))
            title = f"no stored value at k = {k}; stored at k = {listing}"
            return CellNote(f"k = {listing}", title)
        if isinstance(k, int) and k in run_ks:
            n = run_ks[k]
            return CellNote(f"{n}/{self.n_topics} topics", f"a value for {n} {of} at k = {k}")
        used = best_covered_k(run_ks) if column.k_fallback else None
        if used is None:
            return CellNote()
        n = run_ks[used]
        return CellNote(
            f"{n}/{self.n_topics} topics, k = {used}",
            f"nothing stored at k = {k}: the value at k = {used}, for {n} {of}",
        )


def collection_depths(collection: Collection, run_names: list[str]) -> Depths:
    n_topics = Topic.objects.filter(collection=collection).count()
    fallback = frozenset(c.key for c in columns() if c.k_fallback)
    return Depths(k_coverage(collection, run_names), n_topics, fallback)
