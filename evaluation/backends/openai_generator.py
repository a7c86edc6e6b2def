"""``Generator`` on an OpenAI-compatible server (vLLM, hosted APIs, ``transformers serve``).

Chat completions when the prompt takes the chat template, completions when it must stay raw.
Requests run in a bounded thread pool (MODEL_API_MAX_CONCURRENCY); the openai client retries
429, 5xx, timeouts and dropped connections with exponential backoff and jitter
(MODEL_API_MAX_RETRIES, MODEL_API_TIMEOUT per request); what still fails is a
``ModelServerError`` naming the URL and the model. Token log-probabilities are asked for only
when the server returns them (probed once); a method that needs them calls
``require_logprobs``, which refuses instead of falling back.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import openai

from crux_app.url_credentials import mask_credentials
from evaluation.backends import token_usage
from evaluation.backends.base import Generation, GenerationParams
from evaluation.backends.model.server import BackendCapabilityError, ModelServerError, ServerConfig
from evaluation.backends.stop_trimming import trim_generation

T = TypeVar("T")
R = TypeVar("R")
# The most alternatives the OpenAI API returns per position.
TOP_LOGPROBS = 20
# The OpenAI API takes at most four stop strings; the rest are cut here.
MAX_SERVER_STOPS = 4
DETAIL_CHARS = 300


class OpenAIGenerator:
    """A served model behind the ``Generator`` contract."""

    def __init__(self, config: ServerConfig, logprobs: bool | None = None) -> None:
        """``logprobs``: whether the server returns them; None asks it (once, when needed)."""
        self.config = config
        self.model_id = config.identity
        self.client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout_s,
            max_retries=config.max_retries,
        )
        self._logprobs = logprobs
        self._probe_lock = threading.Lock()
        # Requests run on one pool for the generator's life: a pool per batch started
        # max_concurrency threads for every batch (a job's batches wait on the server).
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    # Capabilities

    @property
    def has_logprobs(self) -> bool:
        """Whether the server returns token log-probabilities (one probe request, cached)."""
        with self._probe_lock:
            if self._logprobs is None:
                self._logprobs = self._probe_logprobs()
            return self._logprobs

    def _probe_logprobs(self) -> bool:
        messages = [{"role": "user", "content": "Answer yes or no: is water wet?"}]
        try:
            response = self._call(
                self.client.chat.completions.create,
                messages=messages,
                max_tokens=1,
                temperature=0.0,
                logprobs=True,
                top_logprobs=2,
            )
        except ModelServerError:
            # Some servers reject the field outright: tell that apart from a dead server.
            self._call(self.client.chat.completions.create, messages=messages, max_tokens=1)
            return False
        logprobs = response.choices[0].logprobs if response.choices else None
        return bool(logprobs and logprobs.content)

    # Generation

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        """For each prompt, ``params.num_samples`` generations, one request each."""
        if params.num_samples < 1 or params.max_new_tokens < 1:
            raise ValueError("num_samples and max_new_tokens must be at least 1")
        greedy = params.temperature <= 0
        per_prompt = 1 if greedy else params.num_samples
        requests = [(p, s) for p in range(len(prompts)) for s in range(per_prompt)]
        logprobs = self.has_logprobs if requests else False

        def one(request: tuple[int, int]) -> Generation:
            prompt, sample = request
            seed = None if params.seed is None else params.seed + sample
            return self._generate_one(prompts[prompt], params, seed, logprobs)

        rows = self._map(one, requests)
        return [
            [rows[p * per_prompt + (0 if greedy else s)].copy() for s in range(params.num_samples)]
            for p in range(len(prompts))
        ]

    def _generate_one(
        self, prompt: str, params: GenerationParams, seed: int | None, logprobs: bool
    ) -> Generation:
        options: dict[str, Any] = {
            "max_tokens": params.max_new_tokens,
            "temperature": max(0.0, params.temperature),
            "top_p": params.top_p,
        }
        if seed is not None:
            options["seed"] = seed
        if params.stop:
            options["stop"] = list(params.stop[:MAX_SERVER_STOPS])
        if params.use_chat_template:
            if logprobs:
                options["logprobs"] = True
            choice = self._chat(prompt, params.system_prompt, options).choices[0]
            text = choice.message.content or ""
            pieces = (
                [(t.token, t.logprob) for t in (choice.logprobs.content or [])]
                if (logprobs and choice.logprobs)
                else []
            )
        else:
            if logprobs:
                options["logprobs"] = 1
            choice = self._completion(prompt, options).choices[0]
            text = choice.text or ""
            lp = choice.logprobs if logprobs else None
            pieces = list(zip(lp.tokens or [], lp.token_logprobs or [], strict=False)) if lp else []
        return _to_generation(text, pieces, params.stop, choice.finish_reason)

    # Scoring

    def continuation_logprobs(
        self, prompts: Sequence[str], candidates: Sequence[str], use_chat_template: bool = True
    ) -> np.ndarray:
        """Log-prob of each candidate as the answer's first token, (prompts, candidates).

        From the server's top-20 alternatives at the first position: exact for one-token
        candidates (rating digits, yes/no); a longer candidate gets the probability of the
        tokens that begin it. A candidate outside the top 20 gets the 20th log-prob, an upper
        bound on its own.
        """
        if not prompts or not candidates:
            return np.zeros((len(prompts), len(candidates)))
        require_logprobs(self, "scoring answer candidates")
        options = {"max_tokens": 1, "temperature": 0.0}

        def one(prompt: str) -> list[float]:
            if use_chat_template:
                choice = self._chat(
                    prompt, None, {**options, "logprobs": True, "top_logprobs": TOP_LOGPROBS}
                ).choices[0]
                content = choice.logprobs.content if choice.logprobs else None
                top = [(t.token, t.logprob) for t in content[0].top_logprobs] if content else []
            else:
                choice = self._completion(prompt, {**options, "logprobs": TOP_LOGPROBS}).choices[0]
                alternatives = choice.logprobs.top_logprobs if choice.logprobs else None
                top = list(alternatives[0].items()) if alternatives else []
            if not top:
                raise ModelServerError(f"{self.config.where} returned no top log-probabilities")
            return [_candidate_logprob(c, top) for c in candidates]

        return np.array(self._map(one, list(prompts)), dtype=np.float64)

    def score_continuations(
        self, prompts: Sequence[str], continuations: Sequence[str], use_chat_template: bool = True
    ) -> list[Generation]:
        raise BackendCapabilityError(
            f"{self.config.where} cannot score an existing answer token by token (teacher "
            "forcing needs the weights): generate the answers through this server, which "
            "stores their log-probs, or use a local GENERATOR_MODEL"
        )

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        raise BackendCapabilityError(
            f"{self.config.where} has no tokenizer here: set TOKENIZER_MODEL to the served "
            "model's tokenizer (a hub id or a local folder)"
        )

    # Requests

    def _chat(self, prompt: str, system_prompt: str | None, options: dict[str, Any]):
        messages = [{"role": "user", "content": prompt}]
        if system_prompt:
            messages.insert(0, {"role": "system", "content": system_prompt})
        return self._call(self.client.chat.completions.create, messages=messages, **options)

    def _completion(self, prompt: str, options: dict[str, Any]):
        return self._call(self.client.completions.create, prompt=prompt, **options)

    def _call(self, create: Callable[..., Any], **kwargs: Any) -> Any:
        """One request (the client retries), its usage recorded, errors as ``ModelServerError``."""
        where, tries = self.config.where, self.config.max_retries + 1
        try:
            response = create(model=self.config.model, **kwargs)
        except openai.APITimeoutError:
            raise ModelServerError(
                f"{where}: no answer within {self.config.timeout_s:g} s ({tries} tries)"
            ) from None
        except openai.APIConnectionError:
            raise ModelServerError(f"{where} is unreachable ({tries} tries)") from None
        except openai.APIStatusError as exc:
            raise ModelServerError(
                f"{where} refused the request (HTTP {exc.status_code}): {_detail(exc)}"
            ) from None
        usage = getattr(response, "usage", None)
        prompt = (usage.prompt_tokens or 0) if usage is not None else 0
        completion = (usage.completion_tokens or 0) if usage is not None else 0
        # The server's forward passes are not seen here: what it read and wrote stands in.
        token_usage.record(
            prompt_tokens=prompt, completion_tokens=completion, forward_tokens=prompt + completion
        )
        return response

    def _map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        if len(items) <= 1:
            return [fn(item) for item in items]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.config.max_concurrency, thread_name_prefix="model-requests"
                )
        # Each request runs in a copy of the caller's context: its usage keeps the caller's role.
        contexts = [contextvars.copy_context() for _ in items]
        return list(self._pool.map(lambda c, item: c.run(fn, item), contexts, items))


def require_logprobs(generator: object, needed_for: str) -> None:
    """Refuse (``BackendCapabilityError``) when ``generator`` cannot return token log-probs."""
    if getattr(generator, "has_logprobs", True):
        return
    where = getattr(getattr(generator, "config", None), "where", generator.__class__.__name__)
    raise BackendCapabilityError(
        f"{where} returns no token log-probabilities, which {needed_for} needs. Serve the "
        "model with a server that returns them (vLLM: `vllm serve MODEL`) or use the local "
        "backend; nothing falls back silently."
    )


def _candidate_logprob(candidate: str, top: Sequence[tuple[str, float]]) -> float:
    wanted = candidate.strip()
    matching = [lp for token, lp in top if token.strip() and wanted.startswith(token.strip())]
    if not matching:
        return float(min(lp for _, lp in top))
    return float(np.logaddexp.reduce(np.array(matching, dtype=np.float64)))


def _to_generation(
    text: str, pieces: Sequence[tuple[str, float]], stop: Sequence[str], finish: str | None
) -> Generation:
    """Cut at the first stop string (servers take four at most), tokens covering the text."""
    finished = "stop" if finish == "stop" else "length"
    if not pieces:
        cuts = [text.find(s) for s in stop if s and s in text]
        return Generation(text=text[: min(cuts)] if cuts else text, finish_reason=finished)
    tokens = [token for token, _ in pieces]
    trimmed = trim_generation(
        range(len(tokens)), lambda ids: "".join(tokens[i] for i in ids), stop, ()
    )
    return Generation(
        text=trimmed.text,
        tokens=tokens[: trimmed.keep],
        token_logprobs=[float(lp) for _, lp in pieces[: trimmed.keep]],
        finish_reason="stop" if trimmed.stopped else finished,
    )


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        body = body.get("detail") or body.get("message") or body.get("error") or body
    # A server may echo the request's URL, user and password included.
    return mask_credentials(str(body or exc.message))[:DETAIL_CHARS]
