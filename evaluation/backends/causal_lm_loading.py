"""Load a causal LM and its tokenizer: hub id, local folder, or a GGUF file via a converted cache.

transformers de-quantizes a GGUF file on every load (about 35 s for the embedded model) and a
GGUF-loaded model cannot be saved as is, so the first load rebuilds a plain model from its
config, copies the weights and saves model + tokenizer once under the cache folder; later loads
read that folder (a few seconds).
"""

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from evaluation.backends.model.identity import resolve_gguf

CONVERTED_MARKER = "config.json"


@dataclass(frozen=True)
class LoadedCausalLM:
    model: PreTrainedModel
    tokenizer: object
    source: Path | str  # what from_pretrained read: cache folder, local folder or hub id


def gguf_cache_dir(gguf_path: Path, cache_root: Path) -> Path:
    """Cache folder of a GGUF file: named after the file, so each quantisation has its own."""
    return Path(cache_root) / gguf_path.name.removesuffix(".gguf")


def is_converted(gguf_path: Path, cache_root: Path) -> bool:
    return (gguf_cache_dir(gguf_path, cache_root) / CONVERTED_MARKER).is_file()


def convert_gguf(gguf_path: Path, cache_root: Path) -> Path:
    """De-quantize ``gguf_path`` once into a plain float32 model folder; returns that folder."""
    target = gguf_cache_dir(gguf_path, cache_root)
    if is_converted(gguf_path, cache_root):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():  # leftover of an interrupted run without the marker file
        shutil.rmtree(target)
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    quantized = AutoModelForCausalLM.from_pretrained(
        gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32
    )
    config = quantized.config
    # The GGUF quantisation marker would make from_pretrained look for the GGUF file again.
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(quantized.state_dict())
    plain.generation_config = quantized.generation_config
    # Write next to the target and rename, so a killed conversion or a concurrent worker never
    # sees a half-written cache.
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        plain.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        os.replace(staging, target)
    except OSError:
        if not is_converted(gguf_path, cache_root):
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def load_causal_lm_tokenizer(model_id: str, cache_root: Path) -> object:
    """The tokenizer of the model ``load_causal_lm`` would load, without its weights: from the
    converted cache when there is one, else from the GGUF file's metadata (no conversion)."""
    gguf = resolve_gguf(model_id)
    if gguf is None:
        return AutoTokenizer.from_pretrained(model_id, local_files_only=Path(model_id).is_dir())
    if is_converted(gguf, cache_root):
        return AutoTokenizer.from_pretrained(
            gguf_cache_dir(gguf, cache_root), local_files_only=True
        )
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)


def load_causal_lm(
    model_id: str, cache_root: Path, device: torch.device, dtype: torch.dtype
) -> LoadedCausalLM:
    """Model (eval mode, on ``device``) and tokenizer for a hub id, folder or GGUF file."""
    gguf = resolve_gguf(model_id)
    source: Path | str = convert_gguf(gguf, cache_root) if gguf else model_id
    local = Path(source).is_dir()
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, local_files_only=local)
    model.to(device).eval()
    return LoadedCausalLM(model=model, tokenizer=tokenizer, source=source)
