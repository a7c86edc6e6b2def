"""How a generator's rows are cut into model passes: grouped by length, in fixed-size runs."""

from collections.abc import Iterator, Sequence


def length_order(rows: Sequence[Sequence[int]]) -> list[int]:
    """Row indices from shortest to longest (stable): neighbours in a pass pad little."""
    return sorted(range(len(rows)), key=lambda i: len(rows[i]))


def chunks(items: Sequence, size: int) -> Iterator[Sequence]:
    """Consecutive runs of at most ``size`` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
