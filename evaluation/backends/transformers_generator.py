"""Generator backend on a transformers causal LM: batched sampling with per-token log-probs.

Log-probability convention: ``Generation.token_logprobs[i]`` is the log-softmax of the model's
raw logits (temperature 1, no top-p) at the position that produced token ``i``, whatever
temperature / top-p chose the token. SePer's response weights need exactly these model
probabilities, not those of the sampling distribution.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import torch

from evaluation.backends import token_usage
from evaluation.backends.base import Generation, GenerationParams
from evaluation.backends.forward_tokens import recorded_passes
from evaluation.backends.model.passes import chunks, length_order
from evaluation.backends.shared_prefill import (
    cache_keyword,
    common_prefix_length,
    output_cache,
    prefill,
    prefix_layout,
)
from evaluation.backends.stop_trimming import trim_generation


@contextmanager
def _seeded(seed: int | None) -> Iterator[None]:
    """Seed torch's RNG for the block without disturbing the caller's RNG state."""
    if seed is None:
        yield
        return
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


# Most padded tokens (rows x longest row) one teacher-forced scoring pass runs.
SCORING_TOKENS_PER_PASS = 4096


class TransformersGenerator:
    """``Generator`` on a loaded model + tokenizer; ``batch_size`` counts sequences per pass.

    ``share_prefill``: a pass computes its prompts' common prefix once and each prompt once for
    all its samples (``shared_prefill``); ``order_by_length``: prompts are grouped into passes
    by length. Both leave results unchanged (up to float rounding; sampled draws keep their
    distribution) and exist as switches so a bench can run the plain path as its baseline.
    """

    def __init__(
        self,
        model,
        tokenizer,
        model_id: str,
        batch_size: int = 32,
        share_prefill: bool = True,
        order_by_length: bool = True,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.model_id = model_id
        self.batch_size = max(1, batch_size)
        self.share_prefill = share_prefill
        self.order_by_length = order_by_length
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.pad_id: int = tokenizer.pad_token_id
        eos = model.generation_config.eos_token_id
        configured = eos if isinstance(eos, list) else [eos]
        self.eos_ids: list[int] = sorted(
            {i for i in [*configured, tokenizer.eos_token_id] if i is not None}
        )
        # Finished rows are filled with the pad token, so it ends a generation too.
        self.end_ids: frozenset[int] = frozenset([*self.eos_ids, self.pad_id])

    @property
    def device(self) -> torch.device:
        return self.model.device

    # Prompt rendering and encoding

    def render(self, prompt: str, use_chat_template: bool, system_prompt: str | None) -> str:
        """The exact text the model continues: the chat template with a generation prompt."""
        if not use_chat_template or not self.tokenizer.chat_template:
            return prompt
        messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
        messages.append({"role": "user", "content": prompt})
        return self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )

    def encode_prompts(
        self, prompts: Sequence[str], use_chat_template: bool, system_prompt: str | None = None
    ) -> list[list[int]]:
        """Token ids of each rendered prompt (the template already holds special tokens)."""
        templated = use_chat_template and bool(self.tokenizer.chat_template)
        texts = [self.render(p, use_chat_template, system_prompt) for p in prompts]
        return self.tokenizer(list(texts), add_special_tokens=not templated)["input_ids"]

    def _left_padded(self, rows: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            if row:
                ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
                mask[i, width - len(row) :] = 1
        return ids.to(self.device), mask.to(self.device)

    # Generation

    @recorded_passes()
    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        """For each prompt, ``params.num_samples`` generations (batched internally)."""
        if params.num_samples < 1 or params.max_new_tokens < 1:
            raise ValueError("num_samples and max_new_tokens must be at least 1")
        encoded = self.encode_prompts(prompts, params.use_chat_template, params.system_prompt)
        greedy = params.temperature <= 0
        # Greedy samples are identical: decode once and repeat instead of recomputing.
        per_prompt = 1 if greedy else params.num_samples
        prompts_per_pass = max(1, self.batch_size // per_prompt)
        order = length_order(encoded) if self.order_by_length else list(range(len(encoded)))
        by_index: dict[int, list[Generation]] = {}
        with _seeded(params.seed):
            for chunk in chunks(order, prompts_per_pass):
                rows = self._generate_rows([encoded[i] for i in chunk], params, greedy, per_prompt)
                for p, index in enumerate(chunk):
                    mine = rows[p * per_prompt : (p + 1) * per_prompt]
                    if greedy:
                        mine = [mine[0].copy() for _ in range(params.num_samples)]
                    by_index[index] = mine
        results = [by_index[i] for i in range(len(encoded))]
        prompt_tokens = sum(len(ids) for ids in encoded) * per_prompt
        kept = sum(len(g.token_ids) for mine in results for g in mine[:per_prompt])
        token_usage.record(calls=0, prompt_tokens=prompt_tokens, completion_tokens=kept)
        return results

    def _generate_rows(
        self, chunk: Sequence[Sequence[int]], params: GenerationParams, greedy: bool, n: int
    ) -> list[Generation]:
        """Rows prompt-major: ``n`` generations of chunk[0], then of chunk[1], ..."""
        options: dict = {}
        # Each prompt keeps at least two tokens of its own, so a last prefill pass always runs.
        shared = common_prefix_length(chunk, keep=2) if self.share_prefill else 0
        if self.share_prefill and (n > 1 or shared > 0):
            input_ids, attention_mask, cache = self._prefilled(chunk, n, shared)
            options[cache_keyword(self.model)] = cache
        else:
            # The plain path: generate repeats each prompt n times and runs every copy's prefill.
            input_ids, attention_mask = self._left_padded(chunk)
            options["num_return_sequences"] = n
        options |= {
            "max_new_tokens": params.max_new_tokens,
            "do_sample": not greedy,
            "return_dict_in_generate": True,
            "output_logits": True,
            "pad_token_id": self.pad_id,
            "eos_token_id": self.eos_ids,
            # Neutralise a default a checkpoint's generation_config may carry.
            "repetition_penalty": 1.0,
        }
        if not greedy:
            # Plain temperature / nucleus sampling: top_k=0 turns off the library's top-k 50.
            options.update(temperature=params.temperature, top_p=params.top_p, top_k=0)
        if params.stop:
            # Lets finished rows stop early; the exact cut is made by trim_generation.
            options.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        with torch.inference_mode():
            out = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, **options)
        new_tokens = out.sequences[:, input_ids.shape[1] :].cpu()
        if not out.logits:
            return [Generation(text="") for _ in range(new_tokens.shape[0])]
        # out.logits holds the raw logits of each step (before temperature / top-p); one step
        # at a time keeps memory at rows x vocab.
        picked = new_tokens.to(out.logits[0].device)
        chosen = (
            torch.stack(
                [
                    step.float().gather(-1, picked[:, t : t + 1]).squeeze(-1)
                    - torch.logsumexp(step.float(), dim=-1)
                    for t, step in enumerate(out.logits)
                ],
                dim=1,
            )
            .cpu()
            .numpy()
        )
        return [
            self._to_generation(new_tokens[r].tolist(), chosen[r], params.stop)
            for r in range(new_tokens.shape[0])
        ]

    def _prefilled(self, chunk: Sequence[Sequence[int]], n: int, shared: int):
        """Input ids and mask of the chunk's ``len(chunk) * n`` rows, and the key/value cache of
        all but their last column (None when that is empty), for ``generate`` to go on from."""
        layout = prefix_layout(chunk, self.pad_id, self.device, shared)
        end = layout.input_ids.shape[1] - 1
        cache = None
        if end > 0:
            with torch.inference_mode():
                cache = output_cache(prefill(self.model, layout, end))
                cache.batch_repeat_interleave(n)
        rows = layout.repeat_rows(n)
        return rows.input_ids, rows.attention_mask, cache

    def _to_generation(self, ids: list[int], logprobs: np.ndarray, stop: Sequence[str]):
        trimmed = trim_generation(ids, self._decode, stop, self.end_ids)
        kept = ids[: trimmed.keep]
        return Generation(
            text=trimmed.text,
            tokens=[self._decode([t]) for t in kept],
            token_ids=kept,
            token_logprobs=[float(x) for x in logprobs[: trimmed.keep]],
            finish_reason="stop" if trimmed.stopped else "length",
        )

    def _decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    # Scoring

    @recorded_passes()
    def continuation_logprobs(
        self, prompts: Sequence[str], candidates: Sequence[str], use_chat_template: bool = True
    ) -> np.ndarray:
        """Summed log-prob of each candidate's tokens right after each prompt, (prompts, cands).

        Prompt and candidate are tokenized separately and concatenated, so every candidate is
        scored on the same prompt tokens. Each prompt is run once; its key/value cache is shared
        by all candidates.
        """
        if not prompts or not candidates:
            return np.zeros((len(prompts), len(candidates)))
        prompt_ids = self.encode_prompts(prompts, use_chat_template)
        cand_ids = self.tokenizer(list(candidates), add_special_tokens=False)["input_ids"]
        if any(not c for c in cand_ids):
            raise ValueError("every candidate continuation must hold at least one token")
        # One-token candidates (rating digits) are all read off the prompt's last position, so
        # a pass holds batch_size prompts; longer ones copy each prompt once per candidate.
        one_token = all(len(c) == 1 for c in cand_ids)
        per_pass = self.batch_size if one_token else max(1, self.batch_size // len(cand_ids))
        token_usage.record(calls=0, prompt_tokens=sum(len(ids) for ids in prompt_ids))
        order = length_order(prompt_ids) if self.order_by_length else list(range(len(prompt_ids)))
        scores = np.empty((len(prompt_ids), len(cand_ids)))
        for chunk in chunks(order, per_pass):
            scores[list(chunk)] = self._score_chunk([prompt_ids[i] for i in chunk], cand_ids)
        return scores

    def _score_chunk(self, prompt_ids: Sequence[list[int]], cand_ids: list[list[int]]):
        n_prompts, n_cands = len(prompt_ids), len(cand_ids)
        # Without sharing the layout is plain left padding and the prefill one pass. Positions
        # count real tokens only, so a padded row scores like an unpadded one.
        shared = common_prefix_length(prompt_ids) if self.share_prefill else 0
        layout = prefix_layout(prompt_ids, self.pad_id, self.device, shared)
        prompt_mask = layout.attention_mask
        positions = layout.position_ids
        width = max(len(c) for c in cand_ids)
        cands = torch.full((n_cands, width), self.pad_id, dtype=torch.long)
        cand_mask = torch.zeros((n_cands, width), dtype=torch.long)
        for i, c in enumerate(cand_ids):
            cands[i, : len(c)] = torch.tensor(c)
            cand_mask[i, : len(c)] = 1
        # Candidate rows are prompt-major: row p * n_cands + c.
        cands = cands.repeat(n_prompts, 1).to(self.device)
        cand_mask = cand_mask.repeat(n_prompts, 1).to(self.device)
        with torch.inference_mode():
            first = prefill(self.model, layout, layout.input_ids.shape[1])
            if width == 1:
                # One-token candidates (e.g. rating digits) are all predicted by the prompt's
                # last position: no second pass, no copies of the key/value cache.
                logprobs = torch.log_softmax(first.logits[:, -1].float(), dim=-1)
                picked = logprobs[:, [c[0] for c in cand_ids]]
                return picked.cpu().numpy().astype(np.float64)
            cache = output_cache(first)
            cache.batch_repeat_interleave(n_cands)
            full_mask = torch.cat([prompt_mask.repeat_interleave(n_cands, 0), cand_mask], 1)
            start = positions[:, -1:].repeat_interleave(n_cands, 0) + 1
            rest = self.model(
                input_ids=cands,
                attention_mask=full_mask,
                position_ids=start + torch.arange(width, device=self.device),
                **{cache_keyword(self.model): cache},
            )
        # Token 0 of a candidate is predicted by the prompt's last position, token j > 0 by
        # candidate position j - 1.
        logits = torch.cat(
            [first.logits[:, -1:].float().repeat_interleave(n_cands, 0), rest.logits.float()], 1
        )
        logprobs = torch.log_softmax(logits[:, :width], dim=-1)
        picked = logprobs.gather(-1, cands.unsqueeze(-1)).squeeze(-1) * cand_mask
        return picked.sum(-1).reshape(n_prompts, n_cands).cpu().numpy().astype(np.float64)

    @recorded_passes()
    def score_continuations(
        self, prompts: Sequence[str], continuations: Sequence[str], use_chat_template: bool = True
    ) -> list[Generation]:
        """Teacher-forced per-token log-probs of each given continuation after its own prompt.

        The black-box view of an existing text (SCAAR): ``continuations[i]`` is tokenized
        without special tokens, appended to the rendered ``prompts[i]`` and scored in one
        forward pass per batch; each result's ``token_logprobs`` follow the convention of
        ``generate`` (log-softmax of the raw logits) and its ``tokens`` concatenate exactly to
        its ``text``. An empty continuation gives an empty result.
        """
        if len(prompts) != len(continuations):
            raise ValueError(
                f"score_continuations needs one prompt per continuation, got {len(prompts)} "
                f"prompts and {len(continuations)} continuations"
            )
        if not prompts:
            return []
        prompt_ids = self.encode_prompts(prompts, use_chat_template)
        cont_ids = self.tokenizer(list(continuations), add_special_tokens=False)["input_ids"]
        rows = list(zip(prompt_ids, cont_ids, strict=True))
        token_usage.record(calls=0, prompt_tokens=sum(len(p) + len(c) for p, c in rows))
        # Rows of similar length share a pass (little padding); a pass holds at most
        # SCORING_TOKENS_PER_PASS padded tokens, since long padded batches are slower on CPU.
        order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]) + len(rows[i][1]))
        results: dict[int, Generation] = {}
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and end - start < self.batch_size:
                longest = len(rows[order[end]][0]) + len(rows[order[end]][1])
                if (end - start + 1) * longest > SCORING_TOKENS_PER_PASS:
                    break
                end += 1
            chunk = order[start:end]
            scored = self._score_rows([rows[i] for i in chunk])
            results.update(zip(chunk, scored, strict=True))
            start = end
        return [results[i] for i in range(len(rows))]

    def _score_rows(self, rows: Sequence[tuple[list[int], list[int]]]) -> list[Generation]:
        width = max(len(cont) for _, cont in rows)
        if width == 0:
            return [Generation(text="", finish_reason="stop") for _ in rows]
        input_ids, mask = self._left_padded([p + c for p, c in rows])
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            # Left padding right-aligns every row: its continuation lies in the last positions,
            # predicted by the position just before each of its tokens.
            logits = self.model(
                input_ids=input_ids,
                attention_mask=mask,
                position_ids=positions,
                logits_to_keep=width + 1,
            ).logits.float()[:, :-1]
        targets = input_ids[:, -width:]
        picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        logprobs = (picked - torch.logsumexp(logits, dim=-1)).cpu().numpy()
        results = []
        for r, (_, cont) in enumerate(rows):
            scored = logprobs[r, width - len(cont) :] if cont else logprobs[r, :0]
            pieces = self._token_pieces(cont)
            results.append(
                Generation(
                    text="".join(pieces),
                    tokens=pieces,
                    token_ids=list(cont),
                    token_logprobs=[float(x) for x in scored],
                    finish_reason="stop",
                )
            )
        return results

    def _token_pieces(self, ids: Sequence[int]) -> list[str]:
        """Each token's share of the decoded text (prefix decoding), so pieces join to it.

        A prefix that ends inside a multi-byte character decodes to U+FFFD; its bytes are
        credited to the token that completes the character.
        """
        pieces: list[str] = []
        emitted = ""
        for end in range(1, len(ids) + 1):
            prefix = self._decode(ids[:end])
            if end < len(ids) and prefix.endswith("\ufffd"):
                pieces.append("")
                continue
            pieces.append(prefix[len(emitted) :])
            emitted = prefix
        return pieces

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text without special tokens (density's T(X))."""
        if not texts:
            return []
        return [
            len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        ]
