"""Session-scoped real models: each embedded model is loaded once per test session (every
test package sees them through tests/conftest.py).

The generator is read from MODEL_CACHE_DIR, which the first session fills by converting the
embedded GGUF file (about 35 s, once); later sessions load the cache in a few seconds.
"""

import os
from collections.abc import Callable
from pathlib import Path

# Never reach for the hub from tests, even by accident (set before transformers is imported).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
from django.conf import settings  # noqa: E402
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification  # noqa: E402

from evaluation.backends.embedded import minilm_dir  # noqa: E402
from evaluation.backends.model.loading import build_embedder, build_generator  # noqa: E402
from evaluation.backends.nli_llm_prompt import LLMPromptNLI  # noqa: E402
from evaluation.backends.sentence_embedder import SentenceEmbedder  # noqa: E402
from evaluation.backends.transformers_generator import TransformersGenerator  # noqa: E402

# Tests check exact numbers, so they run on CPU in float32 even where a GPU exists.
CPU = torch.device("cpu")


@pytest.fixture(scope="session")
def model_cache_dir() -> Path:
    # One intra-op thread: the CI machine's 2 cores also serve PostgreSQL and other processes,
    # and OpenMP threads spinning against them made generation about 10x slower here.
    torch.set_num_threads(1)
    return Path(settings.MODEL_CACHE_DIR)


@pytest.fixture(scope="session")
def embedded_generator(model_cache_dir: Path) -> TransformersGenerator:
    return build_generator("", model_cache_dir, CPU)


@pytest.fixture(scope="session")
def llm_nli(embedded_generator: TransformersGenerator) -> LLMPromptNLI:
    return LLMPromptNLI(embedded_generator)


@pytest.fixture(scope="session")
def embedder() -> SentenceEmbedder:
    return build_embedder("", CPU)


@pytest.fixture(scope="session")
def tiny_nli_factory(tmp_path_factory) -> Callable[[dict[int, str]], Path]:
    """Saves a tiny randomly initialised BERT NLI classifier with the given id2label.

    Same seed, same weights: two models differing only in id2label give the same logits.
    The tokenizer is the embedded MiniLM's (a BERT uncased vocabulary), so nothing is fetched.
    """

    def build(id2label: dict[int, str]) -> Path:
        folder = tmp_path_factory.mktemp("tiny-nli")
        tokenizer = AutoTokenizer.from_pretrained(minilm_dir(), local_files_only=True)
        config = BertConfig(
            vocab_size=tokenizer.vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=128,
            num_labels=3,
            id2label=id2label,
            label2id={name: index for index, name in id2label.items()},
        )
        torch.manual_seed(0)
        BertForSequenceClassification(config).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        return folder

    return build
