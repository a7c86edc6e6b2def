"""Random-weight models of the papers' shapes, for timing a GPU without downloading weights.

The papers time 7-8B generators with a DeBERTa-v2-xlarge NLI model; the bench machines have no
network, so ``--shapes paper`` builds those bodies with random weights (bf16 on CUDA) around the
embedded tokenizers (SmolLM2's for the generator, MiniLM's BERT vocabulary for the NLI model:
their ids fit the larger vocabularies). Random weights rarely emit a stop token, so every
generation runs to its token limit: a worst case for decoding, the same prefill. ``tiny`` is a
2-layer version of each, to check the code path on CPU.
"""

from pathlib import Path

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    AutoTokenizer,
    DebertaV2Config,
    LlamaConfig,
)

from evaluation.backends.causal_lm_loading import load_causal_lm_tokenizer
from evaluation.backends.devices import dtype_for
from evaluation.backends.embedded import minilm_dir
from evaluation.backends.nli_classifier import ClassifierNLI
from evaluation.backends.transformers_generator import TransformersGenerator

# Llama-3.1-8B's body (hidden, layers, heads, key/value heads, MLP, vocabulary).
LLAMA_8B = dict(
    hidden_size=4096,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    intermediate_size=14336,
    vocab_size=128256,
    max_position_embeddings=8192,
)
# microsoft/deberta-v2-xlarge-mnli's body.
DEBERTA_XLARGE = dict(
    hidden_size=1536,
    num_hidden_layers=24,
    num_attention_heads=24,
    intermediate_size=6144,
    vocab_size=128100,
    max_position_embeddings=512,
    relative_attention=True,
    position_buckets=256,
    pos_att_type=["p2c", "c2p"],
    position_biased_input=False,
    max_relative_positions=-1,
)
SHAPES = {
    "paper": (LLAMA_8B, DEBERTA_XLARGE),
    "tiny": (
        {**LLAMA_8B, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 128},
        {**DEBERTA_XLARGE, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 128},
    ),
}  # fmt: skip
NLI_LABELS_BY_ID = {0: "contradiction", 1: "neutral", 2: "entailment"}


def random_generator(shape: str, cache_root: Path, device: torch.device) -> TransformersGenerator:
    """A random-weight causal LM of ``shape`` with the embedded generator's tokenizer."""
    tokenizer = load_causal_lm_tokenizer("", cache_root)
    config = LlamaConfig(
        **SHAPES[shape][0],
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    # Initialised on the device in its final precision: an 8B body would take minutes on the
    # CPU, and 32 GB in float32 before a cast.
    with device:
        model = AutoModelForCausalLM.from_config(config, dtype=dtype_for(device))
    model.eval()
    return TransformersGenerator(model, tokenizer, f"random/{shape}-llama")


def random_nli(shape: str, device: torch.device) -> ClassifierNLI:
    """A random-weight DeBERTa-v2 NLI classifier of ``shape`` with MiniLM's BERT tokenizer."""
    tokenizer = AutoTokenizer.from_pretrained(minilm_dir(), local_files_only=True)
    config = DebertaV2Config(
        **SHAPES[shape][1],
        num_labels=3,
        id2label=NLI_LABELS_BY_ID,
        label2id={v: k for k, v in NLI_LABELS_BY_ID.items()},
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    with device:
        model = AutoModelForSequenceClassification.from_config(config, dtype=dtype_for(device))
    model.eval()
    return ClassifierNLI(model, tokenizer, f"random/{shape}-deberta-nli")
