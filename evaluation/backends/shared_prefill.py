"""Prefill that runs shared tokens once: a batch's common prefix, then each prompt once.

A batch of token rows is laid out as ``[common prefix | padding | rest of the row]``: the
prefix every row starts with is computed on one row and its key/value cache copied to the
others; each row's own tokens are right-aligned so every row ends in the last column (one
logit position serves them all). Padding is masked out and position ids count real tokens
only, so every row is computed as if it ran alone and unpadded, just as with left padding.
The N samples of one prompt then copy the prompt's cache instead of re-running its prefill
(``transformers``' ``generate`` repeats ``input_ids`` N times before its prefill).
"""

import inspect
from collections.abc import Sequence
from dataclasses import dataclass

import torch


def cache_keyword(model) -> str:
    """The keyword a model's forward and generate take a key/value cache by: transformers 5
    renamed ``past_key_values`` to ``cache`` and warns on the old name."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def output_cache(output):
    """The key/value cache a forward pass returned, under either name."""
    cache = getattr(output, "cache", None)
    return cache if cache is not None else output.past_key_values


def common_prefix_length(rows: Sequence[Sequence[int]], keep: int = 1) -> int:
    """Tokens every row starts with, leaving each row at least ``keep`` tokens of its own.

    A single row shares nothing (there is nobody to share with).
    """
    if len(rows) < 2:
        return 0
    limit = min(len(r) for r in rows) - keep
    length = 0
    first = rows[0]
    while length < limit and all(r[length] == first[length] for r in rows[1:]):
        length += 1
    return max(0, length)


@dataclass(frozen=True)
class PrefixLayout:
    """Token rows as ``[shared prefix | padding | own tokens]`` tensors on the model's device."""

    input_ids: torch.Tensor  # (rows, width)
    attention_mask: torch.Tensor  # (rows, width), 0 on padding
    shared: int  # leading columns identical in every row

    @property
    def position_ids(self) -> torch.Tensor:
        """Real-token positions; padding repeats a neighbour's (it is masked anyway)."""
        return (self.attention_mask.cumsum(-1) - 1).clamp(min=0)

    def repeat_rows(self, n: int) -> "PrefixLayout":
        """Each row ``n`` times in a row (row r becomes rows r*n .. r*n+n-1)."""
        if n == 1:
            return self
        return PrefixLayout(
            self.input_ids.repeat_interleave(n, 0),
            self.attention_mask.repeat_interleave(n, 0),
            self.shared,
        )


def prefix_layout(
    rows: Sequence[Sequence[int]], pad_id: int, device: torch.device, shared: int
) -> PrefixLayout:
    """The layout of ``rows``, whose first ``shared`` tokens are identical."""
    own = [list(r[shared:]) for r in rows]
    width = shared + max(len(r) for r in own)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    if shared:
        ids[:, :shared] = torch.tensor(list(rows[0][:shared]), dtype=torch.long)
        mask[:, :shared] = 1
    for i, row in enumerate(own):
        if row:
            ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
            mask[i, width - len(row) :] = 1
    return PrefixLayout(ids.to(device), mask.to(device), shared)


def prefill(model, layout: PrefixLayout, end: int):
    """Run columns ``[0, end)`` of every row, the shared prefix once; the model's output of the
    last pass (its key/value cache covers all ``end`` columns, ``logits`` the last column).

    Needs ``layout.shared < end``: the last pass runs at least one column.
    """
    if not layout.shared < end <= layout.input_ids.shape[1]:
        raise ValueError(f"prefill end {end} must lie after the shared prefix ({layout.shared})")
    rows = layout.input_ids.shape[0]
    positions = layout.position_ids
    cache = None
    start = 0
    if layout.shared:
        # logits_to_keep=1: the prefix's own logits are never read.
        first = model(
            input_ids=layout.input_ids[:1, : layout.shared],
            attention_mask=layout.attention_mask[:1, : layout.shared],
            position_ids=positions[:1, : layout.shared],
            use_cache=True,
            logits_to_keep=1,
        )
        cache = output_cache(first)
        cache.batch_repeat_interleave(rows)
        start = layout.shared
    return model(
        input_ids=layout.input_ids[:, start:end],
        attention_mask=layout.attention_mask[:, :end],
        position_ids=positions[:, start:end],
        use_cache=True,
        **{cache_keyword(model): cache},
        logits_to_keep=1,
    )
