"""Benchmark the model backends: load times, generation speed and what batching buys.

    .venv/bin/python bench/generate.py                    # embedded models, CUDA if present
    .venv/bin/python bench/generate.py --device cuda --generator meta-llama/Llama-3.1-8B-Instruct \
        --nli microsoft/deberta-v2-xlarge-mnli

By default the GGUF conversion runs into a fresh temporary cache so its time is measured;
``--cache-dir`` reuses a cache folder instead. Prints one figure per line.
"""

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# The bench machines have no network; never wait on the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from evaluation.backends.base import GenerationParams  # noqa: E402
from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.forward_tokens import ForwardTokenCounter  # noqa: E402
from evaluation.backends.model.loading import (  # noqa: E402
    build_embedder,
    build_generator,
    build_nli,
)

QUESTIONS = [
    "What is the capital of France?",
    "Who wrote Pride and Prejudice?",
    "How many legs does a spider have?",
    "What gas do plants take in?",
    "Which planet is closest to the sun?",
    "What is the boiling point of water?",
    "Who painted the Mona Lisa?",
    "What language is spoken in Brazil?",
    "How many days are in a leap year?",
    "What is the largest ocean?",
    "Which metal is liquid at room temperature?",
    "What is the square root of 81?",
    "Who discovered penicillin?",
    "What is the currency of Japan?",
    "Which organ pumps blood?",
    "What is the tallest mountain?",
]


def timed(action: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def report(name: str, value: float, unit: str) -> None:
    print(f"{name:<52} {value:10.2f} {unit}")


def generated_tokens(results) -> int:
    return sum(len(g.token_ids) for row in results for g in row)


def bench_generator(generator, max_new_tokens: int) -> None:
    greedy = GenerationParams(max_new_tokens=max_new_tokens, temperature=0.0)
    sampling = GenerationParams(
        max_new_tokens=max_new_tokens, temperature=1.0, num_samples=10, seed=0
    )
    # Warm-up at every shape timed below (one prompt, N=10 samples, 16 prompts).
    generator.generate(QUESTIONS[:1], greedy)
    generator.generate(QUESTIONS[:1], sampling)
    generator.generate(QUESTIONS, greedy)
    seconds, out = timed(lambda: generator.generate(QUESTIONS[:1], greedy))
    report("greedy, 1 prompt: tokens/s", generated_tokens(out) / seconds, "tok/s")
    for path in ("plain", "shared"):
        # plain: every sample re-runs the prompt's prefill (the baseline); shared: it runs once.
        generator.share_prefill = generator.order_by_length = path == "shared"
        with ForwardTokenCounter(generator.model) as counter:
            seconds, out = timed(lambda: generator.generate(QUESTIONS[:1], sampling))
        report(f"sampling N=10 x {max_new_tokens} tokens, {path} path: time", seconds, "s")
        speed = generated_tokens(out) / seconds
        report(f"sampling N=10, 1 prompt, {path} path: tokens/s", speed, "tok/s")
        report(f"sampling N=10, 1 prompt, {path} path: forward tokens", counter.tokens, "tok")
    one_by_one, singles = timed(lambda: [generator.generate([q], greedy)[0] for q in QUESTIONS])
    batched, batch = timed(lambda: generator.generate(QUESTIONS, greedy))
    report(
        "greedy 16 prompts one by one: tokens/s", generated_tokens(singles) / one_by_one, "tok/s"
    )
    report("greedy 16 prompts in one batch", generated_tokens(batch) / batched, "tok/s")
    report("generator batching speed-up (16 prompts, time)", one_by_one / batched, "x")


def bench_nli(nli) -> None:
    pairs = [(QUESTIONS[i], QUESTIONS[(i + 1) % len(QUESTIONS)]) for i in range(len(QUESTIONS))]
    nli.predict(pairs[:1])
    nli.predict(pairs)  # warm-up at the batched shape too
    one_by_one, _ = timed(lambda: [nli.predict([p]) for p in pairs])
    batched, _ = timed(lambda: nli.predict(pairs))
    report(f"NLI ({nli.model_id}) 16 pairs one by one", one_by_one, "s")
    report("NLI 16 pairs in one batch", batched, "s")
    report("NLI batching speed-up", one_by_one / batched, "x")


def bench_embedder(embedder) -> None:
    embedder.embed(QUESTIONS[:1])
    embedder.embed(QUESTIONS)  # warm-up at the batched shape too
    one_by_one, _ = timed(lambda: [embedder.embed([q]) for q in QUESTIONS])
    batched, _ = timed(lambda: embedder.embed(QUESTIONS))
    report(f"embedder ({embedder.model_id}) 16 texts one by one", one_by_one * 1000, "ms")
    report("embedder 16 texts in one batch", batched * 1000, "ms")
    report("embedder batching speed-up", one_by_one / batched, "x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="", help="cpu, cuda, cuda:1 (default: auto)")
    parser.add_argument("--generator", default="", help="model id (default: embedded SmolLM2)")
    parser.add_argument("--nli", default="", help="NLI model id (default: LLM prompt NLI)")
    parser.add_argument("--embedder", default="", help="model id (default: embedded MiniLM)")
    parser.add_argument("--cache-dir", default="", help="GGUF conversion cache to reuse")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads")

    with tempfile.TemporaryDirectory(prefix="bench-models-") as scratch:
        cache = Path(args.cache_dir) if args.cache_dir else Path(scratch)
        seconds, generator = timed(lambda: build_generator(args.generator, cache, device))
        report(f"generator load, first ({generator.model_id})", seconds, "s")
        del generator
        seconds, generator = timed(lambda: build_generator(args.generator, cache, device))
        report("generator load, second (cached)", seconds, "s")
        bench_generator(generator, args.max_new_tokens)

        def nli_generator(model_id: str | None):
            return build_generator(model_id, cache, device) if model_id else generator

        seconds, nli = timed(lambda: build_nli(args.nli, nli_generator, device))
        report("NLI load", seconds, "s")
        bench_nli(nli)

    seconds, embedder = timed(lambda: build_embedder(args.embedder, device))
    report("embedder load", seconds, "s")
    bench_embedder(embedder)


if __name__ == "__main__":
    main()
