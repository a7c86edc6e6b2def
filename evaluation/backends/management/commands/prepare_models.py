"""Convert the embedded GGUF generator into the model cache once and warm every backend."""

import shutil
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from evaluation.backends import registry
from evaluation.backends.base import GenerationParams, Generator
from evaluation.backends.causal_lm_loading import convert_gguf, gguf_cache_dir, is_converted
from evaluation.backends.embedded import EmbeddedModelMissing
from evaluation.backends.model.identity import resolve_gguf


class Command(BaseCommand):
    help = (
        "Convert GGUF generators (the embedded SmolLM2 by default) into MODEL_CACHE_DIR once, "
        "then load the generator, judge, NLI model and embedder to check they work. Idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force", action="store_true", help="delete and redo existing GGUF conversions"
        )
        parser.add_argument(
            "--skip-warm", action="store_true", help="only convert; do not load the backends"
        )

    def handle(self, *args, force: bool = False, skip_warm: bool = False, **options) -> None:
        cache_root = settings.MODEL_CACHE_DIR
        self.stdout.write(f"model cache: {cache_root}")
        try:
            ggufs = {
                g
                for g in (
                    resolve_gguf(settings.GENERATOR_MODEL),
                    resolve_gguf(settings.JUDGE_MODEL or settings.GENERATOR_MODEL),
                )
                if g is not None
            }
        except EmbeddedModelMissing as exc:
            self.stderr.write(str(exc))
            raise SystemExit(1) from exc
        for gguf in sorted(ggufs):
            target = gguf_cache_dir(gguf, cache_root)
            if force and target.exists():
                shutil.rmtree(target)
            if is_converted(gguf, cache_root):
                self.stdout.write(f"{gguf.name}: already converted at {target}")
                continue
            self.stdout.write(f"{gguf.name}: converting (about 35 s on CPU)...")
            started = time.perf_counter()
            convert_gguf(gguf, cache_root)
            self.stdout.write(f"{gguf.name}: converted in {_since(started)} to {target}")
        if skip_warm:
            return
        # One token each: loads a local model, and asks a served one whether it answers.
        self._warm("generator", registry.get_generator, _one_token)
        self._warm("judge", registry.get_judge, _one_token)
        self._warm("nli", registry.get_nli, lambda m: m.predict([("It rains.", "It is wet.")]))
        self._warm("embedder", registry.get_embedder, lambda m: m.embed(["warm up"]))
        self.stdout.write(self.style.SUCCESS("models ready"))

    def _warm(self, name: str, get: Callable[[], Any], use: Callable[[Any], object]) -> None:
        started = time.perf_counter()
        model = get()
        use(model)
        self.stdout.write(f"{name}: {model.model_id} loaded and ran in {_since(started)}")


def _one_token(generator: Generator) -> None:
    generator.generate(["Say OK."], GenerationParams(max_new_tokens=1))


def _since(started: float) -> str:
    return f"{time.perf_counter() - started:.1f} s"
