"""Embedder backend on sentence-transformers (default: the embedded all-MiniLM-L6-v2)."""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

from evaluation.backends.forward_tokens import recorded_passes
from evaluation.backends.token_usage import EMBEDDER


class SentenceEmbedder:
    """``Embedder`` returning L2-normalised float32 vectors, ``batch_size`` texts per pass."""

    def __init__(self, model: SentenceTransformer, model_id: str, batch_size: int = 64) -> None:
        self.model = model
        self.model_id = model_id
        self.batch_size = max(1, batch_size)

    @classmethod
    def load(
        cls, source: str | Path, model_id: str, device: torch.device, dtype: torch.dtype
    ) -> "SentenceEmbedder":
        local = Path(source).is_dir()
        model = SentenceTransformer(
            str(source),
            device=str(device),
            local_files_only=local,
            model_kwargs={"dtype": dtype},
        )
        return cls(model, model_id)

    @property
    def dimension(self) -> int:
        # Renamed in sentence-transformers 6; the old name still exists in earlier versions.
        getter = getattr(self.model, "get_embedding_dimension", None)
        return int((getter or self.model.get_sentence_embedding_dimension)())

    @recorded_passes(EMBEDDER)
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Texts -> (n, d) L2-normalised float32 vectors."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
