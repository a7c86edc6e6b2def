"""What a job will cost before it runs: items left, prompt tokens, expected time and money (the
computing part; ``crux_app.jobs.estimate`` feeds it this installation's past jobs and prices).

The kind's planner (``JobKind.estimate_work``, registered by its method) counts the items a job
with given parameters would still do, skipping stored ones, and the prompt tokens of a sample of
them with the model's tokenizer (``WorkLeft``). The pure part below scales that sample to all
items left, reads this installation's measured throughput from past succeeded jobs of the same
kind and model (done items over running seconds; unknown the first time) and prices the tokens
when ``MODEL_PRICES`` names the served model. ``crux_app.jobs.estimate`` reads the past Job rows
and the setting; the start pages, ``manage.py judge`` and the methods' ``--compute`` commands
show the result (``--dry-run`` shows it and starts nothing).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PRICES_SETTING = "MODEL_PRICES"


@dataclass(frozen=True)
class WorkLeft:
    """What a job with given parameters would do, counted by its kind's planner (no model is
    loaded: a tokenizer at most)."""

    items_left: int
    items_stored: int = 0  # the scope's items skipped because their results are stored
    # Prompt tokens of a sample of the items left (empty: not counted, see tokens_note).
    sample_prompt_tokens: tuple[int, ...] = ()
    prompts_per_item: float = 1.0  # model prompts one item costs
    tokenizer: str = ""  # the tokenizer that counted the sample
    tokens_note: str = ""  # why tokens are not counted, or how to read them
    max_output_tokens: int | None = None  # the most tokens one item's prompts may generate
    # Params a past succeeded job of the kind must hold to count as the same model.
    history: Mapping[str, Any] = field(default_factory=dict)
    served_model: str | None = None  # the served model's name: the MODEL_PRICES key
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PastJob:
    """A past succeeded job of the same kind and model: items done in its running seconds."""

    done: int
    seconds: float
    completion_tokens: int = 0
    # Items its last attempt did in ``seconds`` (a retry's earlier items took other seconds);
    # None: all of ``done``.
    attempt_done: int | None = None

    @property
    def done_in_seconds(self) -> int:
        return self.done if self.attempt_done is None else self.attempt_done


@dataclass(frozen=True)
class Price:
    """Money per million input (prompt) and output (completion) tokens."""

    input_per_million: float
    output_per_million: float


@dataclass(frozen=True)
class Estimate:
    unit: str
    items_left: int
    items_stored: int
    prompt_tokens: int | None  # None: not counted (no tokenizer here, or no LLM prompt)
    output_tokens: int | None
    output_tokens_measured: bool  # from past jobs (else the decoding's upper bound)
    tokenizer: str
    items_per_second: float | None  # None: no past job of this kind and model
    past_jobs: int
    seconds: float | None
    money: float | None  # None: no price configured for the model, or tokens not counted
    served_model: str | None
    notes: tuple[str, ...] = ()

    @property
    def duration(self) -> str:
        return "unknown" if self.seconds is None else format_duration(self.seconds)

    def lines(self) -> list[str]:
        """The estimate in words, one figure a line (the commands print these)."""
        lines = [f"{self.unit} left: {self.items_left} ({self.items_stored} already stored)"]
        if self.prompt_tokens is None:
            lines.append("prompt tokens: unknown")
        else:
            by = f" (tokenizer {self.tokenizer}, counted on a sample)" if self.tokenizer else ""
            lines.append(f"prompt tokens: {self.prompt_tokens}{by}")
        if self.output_tokens is not None:
            how = "measured on past jobs" if self.output_tokens_measured else "at most"
            lines.append(f"output tokens: {self.output_tokens} ({how})")
        if self.seconds is None:
            lines.append("expected time: unknown (no finished job of this kind and model yet)")
        else:
            rate = f"{self.items_per_second:.3g} {self.unit}/s"
            lines.append(
                f"expected time: {format_duration(self.seconds)} "
                f"(at {rate}, measured on {self.past_jobs} past job{'s' * (self.past_jobs != 1)})"
            )
        if self.money is not None:
            lines.append(f"money: ${self.money:.2f} ({PRICES_SETTING} for {self.served_model})")
        elif self.served_model:
            lines.append(f"money: unknown (no {PRICES_SETTING} price for {self.served_model})")
        return lines + [f"note: {note}" for note in self.notes]


def scale_tokens(sample: Sequence[int], items: int, prompts_per_item: float = 1.0) -> int | None:
    """Tokens of ``items`` items from a sample's per-item counts (None: no sample to scale)."""
    if items == 0:
        return 0
    if not sample:
        return None
    return round(sum(sample) / len(sample) * items * prompts_per_item)


def measured_throughput(past: Sequence[PastJob]) -> float | None:
    """Items per second over past jobs: all their done items over all their running seconds
    (a long job weighs more than a short one); None without a usable job."""
    usable = [p for p in past if p.done_in_seconds > 0 and p.seconds > 0]
    if not usable:
        return None
    return sum(p.done_in_seconds for p in usable) / sum(p.seconds for p in usable)


def measured_output_tokens(past: Sequence[PastJob]) -> float | None:
    """Completion tokens per item over past jobs that counted any (None: none did)."""
    counted = [p for p in past if p.done > 0 and p.completion_tokens > 0]
    if not counted:
        return None
    return sum(p.completion_tokens for p in counted) / sum(p.done for p in counted)


def money(prompt_tokens: int, output_tokens: int, price: Price) -> float:
    return (
        prompt_tokens * price.input_per_million + output_tokens * price.output_per_million
    ) / 1e6


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 20 s``, ``2 h 05 min``."""
    whole = math.ceil(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def parse_prices(text: str) -> dict[str, Price]:
    """``MODEL_PRICES``: a JSON object, served model name -> [input, output] money per million
    tokens, e.g. ``{"gpt-4o-mini": [0.15, 0.6]}`` ("" : no prices)."""
    if not text.strip():
        return {}
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{PRICES_SETTING} is not valid JSON: {error}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{PRICES_SETTING} must be a JSON object of model name -> [in, out]")
    prices = {}
    for name, pair in raw.items():
        ok = isinstance(pair, list) and len(pair) == 2
        if not ok or not all(_price_number(v) for v in pair):
            raise ValueError(
                f"{PRICES_SETTING}[{name!r}] must be [input, output] money per million tokens "
                f"(two numbers >= 0), got {pair!r}"
            )
        prices[name] = Price(float(pair[0]), float(pair[1]))
    return prices


def _price_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def estimate(work: WorkLeft, unit: str, past: Sequence[PastJob], price: Price | None) -> Estimate:
    """The figures of a job's ``WorkLeft`` on this installation."""
    prompt_tokens = scale_tokens(work.sample_prompt_tokens, work.items_left, work.prompts_per_item)
    per_item = measured_output_tokens(past)
    measured = per_item is not None
    if per_item is None and work.max_output_tokens is not None:
        per_item = work.max_output_tokens
    output_tokens = None if per_item is None else round(per_item * work.items_left)
    rate = measured_throughput(past)
    seconds = None if rate is None else work.items_left / rate
    cost = None
    if price is not None and prompt_tokens is not None:
        cost = money(prompt_tokens, output_tokens or 0, price)
    notes = (work.tokens_note,) if work.tokens_note else ()
    return Estimate(
        unit=unit,
        items_left=work.items_left,
        items_stored=work.items_stored,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        output_tokens_measured=measured,
        tokenizer=work.tokenizer,
        items_per_second=rate,
        past_jobs=sum(1 for p in past if p.done_in_seconds > 0 and p.seconds > 0),
        seconds=seconds,
        money=cost,
        served_model=work.served_model,
        notes=notes + work.notes,
    )


def running_seconds(start: datetime | None, end: datetime | None) -> float:
    return (end - start).total_seconds() if start and end else 0.0
