"""A judging job's parameters: which items (scope, k, a seeded sample), which judge (model,
rubric, prompt version, method) and how it decodes (greedy, or sampled at a temperature with a
seed), declared once: the start form's fields, ``manage.py judge``'s options and the job's
parsing of its JSON params naming the field that is wrong are made from the declaration.

The judge's identity is (model id, prompt version), and the stored prompt version says
everything that changes the ratings: the rubric's version, ``+dist`` for distribution mode, and
``~t<T>-s<seed>`` for a sampled repeat (``crux_app.vocabulary.repeat_version``), so a repeat's
ratings never mix with the greedy judge's or another repeat's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from crux_app.models import Collection, Run
from crux_app.parameters import JobParameters, ParameterError, param
from crux_app.vocabulary import MAX_TEMPERATURE, parse_repeat_version, repeat_version
from evaluation.crux.judge_scope import OUTPUTS, RUN, SCOPES, ScopeSpec
from evaluation.crux.method.embedding_rating import PROMPT_VERSION as EMBEDDING_RUBRIC
from evaluation.crux.method.judge_prompts import (
    CRUX,
    DEFAULT_VERSIONS,
    RUBRICS,
    UMBRELA,
    Prompt,
    rubric_prompt,
)
from evaluation.crux.method.rating_distribution import VERSION_SUFFIX

# The LLM judge's greedy "first integer" rating (the paper's), its rating distribution at the
# answer position (a judge identity of its own: the prompt version gains VERSION_SUFFIX), and
# the embedding baseline.
LLM, DISTRIBUTION, EMBEDDING = "llm", "distribution", "embedding"
# The job kinds: the LLM judge's, and the embedding baseline's (the cpu queue).
KIND = "judge_answerability"
EMBEDDING_KIND = "judge_embedding"
METHODS = (LLM, DISTRIBUTION, EMBEDDING)
DEFAULT_K = 10
DEFAULT_BATCH_SIZE = 16
MAX_K = 1000
MAX_BATCH_SIZE = 512
MAX_SEED = 2**31 - 1
MAX_SAMPLE_SIZE = 1_000_000


def base_version(version: str) -> str:
    """The rubric's prompt version inside a stored one (no distribution or sampling suffix)."""
    repeat = parse_repeat_version(version)
    return (repeat.base if repeat else version).removesuffix(VERSION_SUFFIX)


METHOD_CHOICES = (
    (LLM, "LLM judge, greedy rating (as the paper)"),
    (DISTRIBUTION, "LLM judge, rating distribution (no generation)"),
    (EMBEDDING, "embedding baseline (no LLM, cpu queue)"),
)


@dataclass(frozen=True)
class JudgeJobParams(JobParameters):
    """Every field the form shows but the scope has a default, so a one-click button posts
    only what differs. The command takes the scope from ``--run``/``--reports`` and the method
    from ``--distribution``/``--embedding``."""

    command: ClassVar[str | None] = "judge"

    scope: str = param("collection", choices=tuple(SCOPES.items()), cli=None)
    # The run of the ``run`` scope (the form and the command choose it by name).
    run_id: int | None = param(None, describe="a run id", form=False, cli=None)
    k: int = param(DEFAULT_K, minimum=1, maximum=MAX_K, blank_default=True, label="Top k")
    # None: the workers' configured judge (JUDGE_MODEL).
    model: str | None = param(
        None,
        max_length=300,
        describe="a model id",
        label="Judge model",
        help="A hub id or local path; blank: the configured judge.",
    )
    # The judge identity's prompt version; "" is the rubric's default (suffixes are added by
    # ``from_params``). Any stored version parses; the form offers the known ones.
    prompt_version: str = param("", max_length=100, form=False)
    batch_size: int = param(
        DEFAULT_BATCH_SIZE,
        minimum=1,
        maximum=MAX_BATCH_SIZE,
        blank_default=True,
        help="Items per model call.",
    )
    method: str = param(LLM, choices=METHOD_CHOICES, blank_default=True, label="Judge", cli=None)
    rubric: str = param(
        CRUX,
        choices=tuple(RUBRICS.items()),
        blank_default=True,
        help="UMBRELA grades each (query, passage) pair of the scope 0-3 and stores the "
        "grades as this judge's qrels (nDCG, MAP, ... under the judge on the leaderboard).",
    )
    # 0: greedy; > 0: a sampled repeat (needs a seed).
    temperature: float = param(
        0.0,
        minimum=0,
        maximum=MAX_TEMPERATURE,
        decimals=2,
        blank_default=True,
        initial=Decimal(0),
        help="0: greedy. Above 0: a sampled repeat of the judge, a judge identity of its "
        "own (model, prompt version, temperature, seed), for its test-retest agreement.",
    )
    seed: int | None = param(
        None, minimum=0, maximum=MAX_SEED, help="The repeat's sampling seed (blank: 0)."
    )
    # A seeded random sample of the scope's items; None: all.
    sample_size: int | None = param(
        None,
        minimum=1,
        maximum=MAX_SAMPLE_SIZE,
        help="Rate a seeded random sample of this many items of the scope (the same sample "
        "for every repeat); blank: every item.",
    )
    # The sample's seed (not the decoding seed: repeats share a sample).
    sample_seed: int = param(0, minimum=0, maximum=MAX_SEED, form=False, help="the sample's seed")

    def __post_init__(self) -> None:
        if not self.prompt_version and self.rubric in DEFAULT_VERSIONS:
            object.__setattr__(self, "prompt_version", DEFAULT_VERSIONS[self.rubric])

    @property
    def is_repeat(self) -> bool:
        return self.temperature > 0

    def prompt(self) -> Prompt:
        """The rubric's prompt template the LLM judge renders."""
        return rubric_prompt(self.rubric, base_version(self.prompt_version))

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> JudgeJobParams:
        """Parse a Job's params, naming the field that is wrong."""
        values = cls.declared().parse(
            {**params, "prompt_version": params.get("prompt_version") or ""}
        )
        if values["scope"] != RUN:
            values["run_id"] = None  # only the ``run`` scope is on one run
        elif values["run_id"] is None:
            raise ParameterError(
                "Choose the run whose top-k passages are judged. "
                "(job parameter 'run_id' is required for scope 'run')",
                "run_id",
            )
        method, rubric, temperature = values["method"], values["rubric"], values["temperature"]
        _check_combination(values["scope"], method, rubric, temperature)
        if method == EMBEDDING and values["model"]:
            raise ParameterError(
                "The embedding baseline uses the workers' embedder: leave out the model.", "model"
            )
        if values["seed"] is not None and not temperature:
            raise ParameterError("A seed is for sampling: set a temperature above 0.", "seed")
        if temperature > 0 and values["seed"] is None:
            values["seed"] = 0  # a repeat's identity names its seed
        values["prompt_version"] = _identity_version(
            values["prompt_version"], method, rubric, temperature, values["seed"]
        )
        return cls(**values)

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name (of the ``run`` scope) is kept for display
        only."""
        return {
            "scope": self.scope,
            "run_id": self.run_id,
            "run": run.name if run is not None and self.scope == RUN else None,
            "k": self.k,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "batch_size": self.batch_size,
            "method": self.method,
            "rubric": self.rubric,
            "temperature": self.temperature,
            "seed": self.seed,
            "sample_size": self.sample_size,
            "sample_seed": self.sample_seed,
        }

    def started_kind(self, kind: str) -> str:
        """The embedding baseline is a kind of its own (the cpu queue)."""
        return EMBEDDING_KIND if self.method == EMBEDDING else KIND

    def scope_spec(self, collection: Collection, topic_id: int | None) -> ScopeSpec:
        """The items this job covers (the same for the job, its preview and the command)."""
        return ScopeSpec(
            collection=collection,
            scope=self.scope,
            k=self.k,
            run_id=self.run_id if self.scope == RUN else None,
            topic_id=topic_id,
            pairs=self.rubric == UMBRELA,
            sample_size=self.sample_size,
            sample_seed=self.sample_seed,
        )


def _check_combination(scope: str, method: str, rubric: str, temperature: float) -> None:
    if rubric == UMBRELA:
        if method != LLM:
            raise ValueError(
                "the umbrela rubric is a greedy or sampled LLM judge: its method must be 'llm'"
            )
        if scope == OUTPUTS:
            raise ValueError("the umbrela rubric grades passages: scope 'outputs' is CRUX's only")
    if temperature > 0 and method != LLM:
        raise ValueError(f"temperature > 0 samples the LLM judge: method {method!r} does not")


def _identity_version(
    given: str, method: str, rubric: str, temperature: float, seed: int | None
) -> str:
    if method == EMBEDDING:
        return EMBEDDING_RUBRIC
    version = base_version(given or DEFAULT_VERSIONS[rubric])
    rubric_prompt(rubric, version)  # an unknown version fails here, naming the rubric's ones
    if method == DISTRIBUTION:
        version += VERSION_SUFFIX
    if temperature > 0:
        assert seed is not None
        version = repeat_version(version, temperature, seed)
    return version
