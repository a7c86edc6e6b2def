"""A judging job's parameters: which items (scope, k, a seeded sample), which judge (model,
rubric, prompt version, method) and how it decodes (greedy, or sampled at a temperature with a
seed). Parsed from a Job's JSON params naming the field that is wrong.

The judge's identity is (model id, prompt version), and the stored prompt version says
everything that changes the ratings: the rubric's version, ``+dist`` for distribution mode, and
``~t<T>-s<seed>`` for a sampled repeat (``judge_report.method.self_consistency``), so a repeat's
ratings never mix with the greedy judge's or another repeat's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crux_app.models import Collection, Run
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
from evaluation.judge_report.method.self_consistency import (
    MAX_TEMPERATURE,
    parse_repeat_version,
    repeat_version,
)

# The LLM judge's greedy "first integer" rating (the paper's), its rating distribution at the
# answer position (a judge identity of its own: the prompt version gains VERSION_SUFFIX), and
# the embedding baseline.
LLM, DISTRIBUTION, EMBEDDING = "llm", "distribution", "embedding"
METHODS = (LLM, DISTRIBUTION, EMBEDDING)
DEFAULT_K = 10
DEFAULT_BATCH_SIZE = 16
MAX_SEED = 2**31 - 1
MAX_SAMPLE_SIZE = 1_000_000


def base_version(version: str) -> str:
    """The rubric's prompt version inside a stored one (no distribution or sampling suffix)."""
    repeat = parse_repeat_version(version)
    return (repeat.base if repeat else version).removesuffix(VERSION_SUFFIX)


def _int(
    params: Mapping[str, Any], name: str, default: int | None, low: int, high: int | None = None
):
    raw = params.get(name, default)
    if raw is None and default is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < low or raw > (high or raw):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"job parameter {name!r} must be an integer {bounds}, got {raw!r}")
    return raw


def _temperature(params: Mapping[str, Any]) -> float:
    raw = params.get("temperature", 0.0)
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueError(f"job parameter 'temperature' must be a number, got {raw!r}")
    value = float(raw)
    if not 0 <= value <= MAX_TEMPERATURE or round(value, 2) != value:
        raise ValueError(
            f"job parameter 'temperature' must lie in 0..{MAX_TEMPERATURE:g} with at most 2 "
            f"decimals, got {raw!r}"
        )
    return value


@dataclass(frozen=True)
class JudgeJobParams:
    scope: str = "collection"
    run_id: int | None = None  # the run of the ``run`` scope
    k: int = DEFAULT_K
    model: str | None = None  # None: the workers' configured judge (JUDGE_MODEL)
    # The judge identity's prompt version; "" is the rubric's default (suffixes are added by
    # ``from_params``).
    prompt_version: str = ""
    batch_size: int = DEFAULT_BATCH_SIZE
    method: str = LLM  # one of METHODS
    rubric: str = CRUX  # one of judge_prompts.RUBRICS
    temperature: float = 0.0  # 0: greedy; > 0: a sampled repeat (needs a seed)
    seed: int | None = None
    sample_size: int | None = None  # a seeded random sample of the scope's items; None: all
    sample_seed: int = 0  # the sample's seed (not the decoding seed: repeats share a sample)

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
        values: dict[str, Any] = {
            "k": _int(params, "k", cls.k, 1),
            "batch_size": _int(params, "batch_size", cls.batch_size, 1),
            "sample_size": _int(params, "sample_size", None, 1, MAX_SAMPLE_SIZE),
            "sample_seed": _int(params, "sample_seed", cls.sample_seed, 0, MAX_SEED),
            "seed": _int(params, "seed", None, 0, MAX_SEED),
            "temperature": _temperature(params),
        }
        scope = params.get("scope", cls.scope)
        if scope not in SCOPES:
            known = ", ".join(SCOPES)
            raise ValueError(f"job parameter 'scope' must be one of {known}, got {scope!r}")
        run_id = params.get("run_id")
        if run_id is not None and (isinstance(run_id, bool) or not isinstance(run_id, int)):
            raise ValueError(f"job parameter 'run_id' must be a run id or null, got {run_id!r}")
        if scope == RUN and run_id is None:
            raise ValueError("job parameter 'run_id' is required for scope 'run'")
        model = params.get("model")
        if model is not None and not isinstance(model, str):
            raise ValueError(f"job parameter 'model' must be a model id or null, got {model!r}")
        method = params.get("method", LLM)
        if method not in METHODS:
            raise ValueError(f"job parameter 'method' must be one of {', '.join(METHODS)}")
        rubric = params.get("rubric", CRUX)
        if rubric not in RUBRICS:
            raise ValueError(f"job parameter 'rubric' must be one of {', '.join(RUBRICS)}")
        _check_combination(scope, method, rubric, values["temperature"])
        if values["temperature"] > 0 and values["seed"] is None:
            values["seed"] = 0  # a repeat's identity names its seed
        version = _identity_version(params, method, rubric, values["temperature"], values["seed"])
        return cls(
            scope=scope,
            run_id=run_id,
            model=model,
            prompt_version=version,
            method=method,
            rubric=rubric,
            **values,
        )

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {
            "scope": self.scope,
            "run_id": self.run_id,
            "run": run.name if run else None,
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
    params: Mapping[str, Any], method: str, rubric: str, temperature: float, seed: int | None
) -> str:
    if method == EMBEDDING:
        return EMBEDDING_RUBRIC
    given = params.get("prompt_version") or DEFAULT_VERSIONS[rubric]
    if not isinstance(given, str):
        raise ValueError(f"job parameter 'prompt_version' must be a string, got {given!r}")
    version = base_version(given)
    rubric_prompt(rubric, version)  # an unknown version fails here, naming the rubric's ones
    if method == DISTRIBUTION:
        version += VERSION_SUFFIX
    if temperature > 0:
        assert seed is not None
        version = repeat_version(version, temperature, seed)
    return version
