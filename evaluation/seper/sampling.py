"""SePer's receiver sampling: the short-answer prompt, sampling settings and a response cache.

The cache maps a ``SampleKey`` (model id, prompt and every setting that changes the draw) to
the N generations. It is a plain dict the caller owns, so SePer_S, SePer_H and the with /
without-context runs of a batch share samples, and a job can store the entries
(``SampleKey.to_dict`` / ``generation_to_dict``) and restore them later.

One generator call samples all uncached prompts; the generator seeds its RNG once per call, so
a prompt's draw depends on the other prompts in that call. A cached entry is therefore "the
first draw made for this key", which keeps every later use of the key consistent.
"""

import hashlib
import json
import time
from collections.abc import Iterable, MutableMapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from evaluation.backends.base import Generation, GenerationParams, Generator
from evaluation.backends.checked_generation import generate_checked

INSTRUCTION = "Answer the following question as briefly as possible.\n"
STOP = ("\n",)


def answer_prompt(question: str, context: str = "") -> str:
    """The short-answer prompt; the Context line is left out when the context is blank."""
    context_line = f"Context: {context.strip()}\n" if context.strip() else ""
    return f"{INSTRUCTION}{context_line}Question: {question.strip()}\nAnswer:"


@dataclass(frozen=True)
class SamplingParams:
    """How responses are drawn: N plain samples at temperature 1, stopped at a newline."""

    n_samples: int = 10
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 32
    seed: int = 0
    # Instruct models answer sensibly only inside their chat template; a model without a
    # template is continued on the raw prompt (the generator's rule).
    use_chat_template: bool = True

    def __post_init__(self) -> None:
        if self.n_samples < 1 or self.max_new_tokens < 1:
            raise ValueError("n_samples and max_new_tokens must be at least 1")
        if self.temperature <= 0:
            raise ValueError("SePer samples: temperature must be > 0 (0 would be greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must lie in (0, 1]")

    def generation_params(self) -> GenerationParams:
        return GenerationParams(
            max_new_tokens=self.max_new_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            num_samples=self.n_samples,
            stop=STOP,
            seed=self.seed,
            use_chat_template=self.use_chat_template,
        )


@dataclass(frozen=True)
class SampleKey:
    """Identity of one prompt's sample set (a cache key)."""

    model_id: str
    prompt: str
    n_samples: int
    temperature: float
    seed: int
    top_p: float
    max_new_tokens: int
    use_chat_template: bool

    @classmethod
    def of(cls, model_id: str, prompt: str, params: SamplingParams) -> "SampleKey":
        return cls(
            model_id=model_id,
            prompt=prompt,
            n_samples=params.n_samples,
            temperature=params.temperature,
            seed=params.seed,
            top_p=params.top_p,
            max_new_tokens=params.max_new_tokens,
            use_chat_template=params.use_chat_template,
        )

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "SampleKey":
        return cls(**data)  # type: ignore[arg-type]

    def digest(self) -> str:
        """A stable sha256 hex id (e.g. a database column for stored samples)."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


ResponseCache = MutableMapping[SampleKey, list[Generation]]


def generation_to_dict(generation: Generation) -> dict[str, object]:
    return {
        "text": generation.text,
        "tokens": list(generation.tokens),
        "token_ids": list(generation.token_ids),
        "token_logprobs": list(generation.token_logprobs),
        "finish_reason": generation.finish_reason,
    }


def generation_from_dict(data: dict[str, object]) -> Generation:
    return Generation(
        text=str(data["text"]),
        tokens=list(data.get("tokens", [])),  # type: ignore[arg-type]
        token_ids=list(data.get("token_ids", [])),  # type: ignore[arg-type]
        token_logprobs=list(data.get("token_logprobs", [])),  # type: ignore[arg-type]
        finish_reason=str(data.get("finish_reason", "length")),
    )


def restore_cache(stored: Iterable[dict[str, Any]]) -> dict[SampleKey, list[Generation]]:
    """A response cache from stored ``{"key": SampleKey.to_dict(), "generations": [...]}``."""
    return {
        SampleKey.from_dict(entry["key"]): [generation_from_dict(g) for g in entry["generations"]]
        for entry in stored
    }


@dataclass
class SamplingOutcome:
    """The sample sets of every requested key, and what it cost."""

    samples: dict[SampleKey, list[Generation]]
    sampled: int  # keys drawn now (cache misses)
    cached: int  # keys found in the cache
    seconds: float


def sample_prompts(
    generator: Generator,
    prompts: Sequence[str],
    params: SamplingParams,
    cache: ResponseCache | None = None,
) -> SamplingOutcome:
    """N responses per distinct prompt; uncached prompts are drawn in one generator call."""
    cache = {} if cache is None else cache
    keys = list(dict.fromkeys(SampleKey.of(generator.model_id, p, params) for p in prompts))
    missing = [k for k in keys if k not in cache]
    started = time.perf_counter()
    if missing:
        prompts = [k.prompt for k in missing]
        rows = generate_checked(generator, prompts, params.generation_params())
        for key, row in zip(missing, rows, strict=True):
            cache[key] = list(row)
    seconds = time.perf_counter() - started if missing else 0.0
    return SamplingOutcome(
        samples={k: cache[k] for k in keys},
        sampled=len(missing),
        cached=len(keys) - len(missing),
        seconds=seconds,
    )
