"""The read side's parameters, declared once: what the pages, the commands and the API read
stored results with (not a job's). ``judge`` (a judge's name; absent: the default judge rule of
``crux_app.judge_choice``), ``tau`` (the answerability threshold on the 0-5 rating scale), ``k``
(how deep in a run's ranking to read) and the ``run`` and ``topic`` filters. The commands'
options, the pages' selectors and the API's result query parameters are made from them.

A filter (the API's result rows) reads a blank value as "every value" instead of the default:
``filter_fields`` makes its form fields with the declared bounds and nothing required."""

from __future__ import annotations

import argparse
import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from django import forms

from crux_app.judge_choice import default_rule
from crux_app.parameters import JobParameters, Parameter, param
from crux_app.vocabulary import DEFAULT_TAU, MAX_TAU, MIN_TAU

DEFAULT_K = 10
# The deepest cutoff a page evaluates: the metrics allocate topics x k arrays, so an unbounded
# k is an unbounded request (k = 10**9 asked for tens of GB). No job stores a deeper k.
MAX_K = 1000
MAX_JUDGE_NAME = 300  # Judge.name's max_length
MAX_NAME = 200  # Run.name's and Topic.external_id's max_length
K_ORACLE = "oracle"  # k = |O|, each topic's oracle size: what the CRUX readers take besides k


@dataclass(frozen=True)
class ReadParameters(JobParameters):
    judge: str | None = param(
        None,
        max_length=MAX_JUDGE_NAME,
        label="Judge",
        help=f"a judge's name; absent: the pages' {default_rule()}",
    )
    tau: float = param(
        DEFAULT_TAU,
        minimum=MIN_TAU,
        maximum=MAX_TAU,
        label="τ",
        blank_default=True,
        help="answerability threshold: a rating >= tau answers",
    )
    k: int = param(
        DEFAULT_K,
        minimum=1,
        maximum=MAX_K,
        label="Top k",
        blank_default=True,
        help="how deep in a run's ranking to read",
    )
    run: str | None = param(
        None, max_length=MAX_NAME, label="Run", help="a run's name (absent: every run)"
    )
    topic: str | None = param(
        None,
        max_length=MAX_NAME,
        label="Topic",
        help="a topic's external id (absent: every topic)",
    )


DECLARED = ReadParameters.declared()
JUDGE: Parameter = DECLARED["judge"]
TAU: Parameter = DECLARED["tau"]
K: Parameter = DECLARED["k"]
RUN: Parameter = DECLARED["run"]
TOPIC: Parameter = DECLARED["topic"]
_SPECS = {f.name: f.metadata["parameter"] for f in dataclasses.fields(ReadParameters)}
_REWORDABLE = {"label", "help", "cli"}


def same_as(name: str, **words: Any) -> Any:
    """A ``param`` field of another declaration (a page's own parameters) that is the declared
    read-side ``name``: its default, bounds and choices; only ``label``, ``help`` and ``cli``
    may be worded for the page."""
    if not set(words) <= _REWORDABLE:
        raise TypeError(f"{name}: only {sorted(_REWORDABLE)} may differ from the declaration")
    return param(**{**_SPECS[name], **words})


def whole_taus() -> list[tuple[str, str]]:
    """The whole-number taus within the declared bounds (a page's tau select)."""
    low, high = math.ceil(TAU.minimum), math.floor(TAU.maximum)
    return [(str(t), str(t)) for t in range(low, high + 1)]


def as_filter(parameter: Parameter) -> Parameter:
    """``parameter`` as a filter: the same bounds and choices, blank meaning every value."""
    return dataclasses.replace(parameter, nullable=True, default=None, required=False)


def filter_fields(*names: str) -> dict[str, forms.Field]:
    """The form fields of the named parameters as filters (none required)."""
    return {name: as_filter(DECLARED[name]).form_field() for name in names}


def filter_form(*names: str) -> type[forms.Form]:
    """A form class of the named parameters as filters (a subclass adds its own fields)."""
    return type(forms.Form)("ReadFilters", (forms.Form,), {**filter_fields(*names)})


def filter_schema(parameter: Parameter) -> dict[str, Any]:
    """The JSON schema of one filter's query value (the declared type, bounds and choices)."""
    schema = dataclasses.replace(parameter, nullable=False, required=True, default=None).schema()
    return {k: v for k, v in schema.items() if k not in ("title", "description", "default")}


def whole_tau_schema() -> dict[str, Any]:
    """The JSON schema of a tau offered as a select of ``whole_taus``."""
    return {"type": "integer", "enum": [int(t) for t, _ in whole_taus()]}


def k_or_oracle_schema() -> dict[str, Any]:
    """The JSON schema of a k that also takes ``oracle`` (``parse_k``)."""
    return {"oneOf": [filter_schema(K), {"type": "string", "enum": [K_ORACLE]}]}


def parse_k(text: str) -> int | str:
    """The declared k as a command's ``--k`` or a page's ``k`` gives it where the oracle depth
    is offered too: ASCII digits within the bounds, or ``oracle``; ValueError naming k."""
    text = (text or "").strip()
    if text == K_ORACLE:
        return text
    # Bounded before int(): no 5,000-digit conversion, and no "²", which isdigit() accepts.
    digits = text.isascii() and text.isdigit() and len(text) <= len(str(K.maximum))
    if digits and K.minimum <= int(text) <= K.maximum:
        return int(text)
    raise ValueError(
        f"k must be an integer from {K.minimum} to {K.maximum} or {K_ORACLE!r}, got {text[:40]!r}"
    )


def k_or_oracle_option(text: str) -> int | str:
    """argparse's ``type`` of a ``--k`` that offers the oracle depth: ``parse_k``."""
    try:
        return parse_k(text)
    except ValueError as refused:
        raise argparse.ArgumentTypeError(str(refused)) from None


def add_k_or_oracle(parser: argparse.ArgumentParser) -> None:
    """The declared ``--k`` (default, bounds, help) that also takes ``oracle`` (|O|)."""
    parser.add_argument(
        K.option,
        type=k_or_oracle_option,
        default=K.default,
        metavar=f"{K.minimum}..{K.maximum}|{K_ORACLE}",
        help=f"{K.help}, or {K_ORACLE!r} = each topic's oracle size |O|",
    )
