"""NLI backend on a transformers sequence-classification model (e.g. DeBERTa-MNLI)."""

from collections.abc import Sequence

import numpy as np
import torch

from evaluation.backends.base import NLI_LABELS
from evaluation.backends.forward_tokens import recorded_passes
from evaluation.backends.token_usage import NLI


def label_columns(id2label: dict[int, str]) -> list[int]:
    """Model output column of each of ``NLI_LABELS``, read from the config's label names."""
    by_name: dict[str, int] = {}
    for index, name in id2label.items():
        for label in NLI_LABELS:
            # MNLI checkpoints spell them ENTAILMENT, entailment, Entailment...
            if str(name).strip().lower() == label:
                by_name[label] = int(index)
    missing = [label for label in NLI_LABELS if label not in by_name]
    if missing:
        raise ValueError(
            f"model config id2label {dict(id2label)} lacks the NLI label(s) {missing}; "
            "an NLI model must name entailment, neutral and contradiction"
        )
    return [by_name[label] for label in NLI_LABELS]


class ClassifierNLI:
    """``NLIModel`` on a loaded classifier + tokenizer; ``batch_size`` pairs per forward pass."""

    def __init__(self, model, tokenizer, model_id: str, batch_size: int = 32) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.model_id = model_id
        self.batch_size = max(1, batch_size)
        self.columns = label_columns(model.config.id2label)

    @recorded_passes(NLI)
    def predict(
        self, pairs: Sequence[tuple[str, str]], questions: Sequence[str | None] | None = None
    ) -> np.ndarray:
        """(premise, hypothesis) pairs -> (n, 3) probabilities in ``NLI_LABELS`` order.

        With ``questions``, both texts of pair i are prefixed with question i ("{q} {text}"),
        the way SePer feeds answers to its NLI model.
        """
        pairs = _with_questions(pairs, questions)
        out = np.zeros((len(pairs), len(NLI_LABELS)), dtype=np.float64)
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            encoded = self.tokenizer(
                [p for p, _ in chunk],
                [h for _, h in chunk],
                padding=True,
                truncation=True,
                return_tensors="pt",
            ).to(self.model.device)
            with torch.inference_mode():
                logits = self.model(**encoded).logits.float()
            probs = torch.softmax(logits, dim=-1)[:, self.columns]
            out[start : start + len(chunk)] = probs.cpu().numpy()
        return out


def _with_questions(
    pairs: Sequence[tuple[str, str]], questions: Sequence[str | None] | None
) -> list[tuple[str, str]]:
    if questions is None:
        return [(p, h) for p, h in pairs]
    if len(questions) != len(pairs):
        raise ValueError(f"{len(questions)} questions for {len(pairs)} NLI pairs")
    return [
        (f"{q} {p}", f"{q} {h}") if q else (p, h)
        for (p, h), q in zip(pairs, questions, strict=True)
    ]
