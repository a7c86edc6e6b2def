"""Benchmark DENSE: seconds per question for DSE and for the full DENSE-RAG refinement, model
inferences per question against the paper's O(k^2) bound, and the gain from batching.

    .venv/bin/python bench/dense.py                      # embedded models, CPU, 1 thread
    .venv/bin/python bench/dense.py --questions 9 --k 5 --device cuda --threads 0 \
        --generator meta-llama/Llama-3.2-1B-Instruct

Questions and their ranked contexts come from fixtures/demo_qa.jsonl (the top-k of each
record's context list; the rest is the refinement pool). Every timed run starts with an empty
cache: DSE (rephrase, answers, NLI, chunk diagnosis) on all questions as one batch, the same
one question at a time, then the full pipeline (DSE + semantic chunking + refinement of the
uncertain questions). Prints one figure per line.
"""

import argparse
import json
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the bench machines have no network

import torch  # noqa: E402

from bench.model_warmup import warm_up_models  # noqa: E402
from bench.paper_shapes import SHAPES, random_generator, random_nli  # noqa: E402
from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.forward_tokens import ForwardTokenCounter  # noqa: E402
from evaluation.backends.model.loading import (  # noqa: E402
    build_embedder,
    build_generator,
    build_nli,
)
from evaluation.dense.engine import DenseEngine, DenseQuestion, DenseSettings  # noqa: E402
from evaluation.dense.pipeline import (  # noqa: E402
    PipelineQuestion,
    PipelineSettings,
    run_pipeline,
)


def report(name: str, value: float, unit: str) -> None:
    print(f"{name:<64} {value:10.3f} {unit}", flush=True)


def load_questions(n: int, k: int) -> list[PipelineQuestion]:
    records = [json.loads(line) for line in (REPO / "fixtures/demo_qa.jsonl").open()]
    out = []
    for r in records[:n]:
        pool = tuple(c["text"] for c in r["contexts"])
        out.append(PipelineQuestion(r["id"], r["question"], min(k, len(pool)), pool))
    return out


def dse_bound(k: int) -> int:
    """Rephrase k chunks, answer k + 1 contexts, judge (k + 1) k ordered pairs; the chunk
    diagnosis adds at most k answers and 2k pairs."""
    return k + (k + 1) + (k + 1) * k + k + 2 * k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=4, help="1..9 demo questions")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--answer-tokens", type=int, default=16)
    parser.add_argument("--rephrase-tokens", type=int, default=64)
    parser.add_argument("--max-steps", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: default)")
    parser.add_argument("--generator", default="", help="model id (default: embedded SmolLM2)")
    parser.add_argument("--nli", default="", help="NLI model id (default: B.2 LLM prompt)")
    parser.add_argument("--embedder", default="", help="embedder id (default: MiniLM)")
    parser.add_argument(
        "--path",
        choices=("shared", "plain"),
        default="shared",
        help="generator path (plain: every sample re-runs its prompt's prefill, the baseline)",
    )
    parser.add_argument(
        "--shapes",
        choices=sorted(SHAPES),
        help="random-weight models of these shapes (paper: Llama-3.1-8B + DeBERTa-v2-xlarge)",
    )
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    cache = Path(os.environ.get("MODEL_CACHE_DIR", REPO / "var" / "models"))
    started = time.perf_counter()
    if args.shapes:
        generator = random_generator(args.shapes, cache, device)
    else:
        generator = build_generator(args.generator, cache, device)
    generator.share_prefill = generator.order_by_length = args.path == "shared"
    nli = (
        random_nli(args.shapes, device)
        if args.shapes
        else build_nli(args.nli, lambda _id: generator, device)
    )
    embedder = build_embedder(args.embedder, device)
    report("model loading", time.perf_counter() - started, "s")
    print(
        f"device {device}, generator {generator.model_id}, NLI {nli.model_id}, {args.path} path",
        flush=True,
    )
    settings = DenseSettings(
        answer_max_new_tokens=args.answer_tokens, rephrase_max_new_tokens=args.rephrase_tokens
    )
    questions = load_questions(args.questions, args.k)
    n = len(questions)
    dense_questions = [DenseQuestion(q.key, q.question, q.chunks) for q in questions]

    # Warm-up: the models at batch shapes, then the engine on the first question, untimed.
    report("warm-up", warm_up_models(generator, nli, embedder), "s")
    DenseEngine(generator, nli, settings).evaluate(dense_questions[:1])
    engine = DenseEngine(generator, nli, settings)
    # The generator's model also serves the LLM NLI; a classifier NLI has its own.
    nli_model = nli.model if hasattr(nli, "model") else nli.generator.model
    with ExitStack() as stack:
        counters = [
            stack.enter_context(ForwardTokenCounter(m))
            for m in {id(m): m for m in (generator.model, nli_model)}.values()
        ]
        t0 = time.perf_counter()
        results = engine.evaluate(dense_questions)
        batched = time.perf_counter() - t0
    counts = engine.counts
    report(f"DSE, {n} questions batched, k={args.k}: per question", batched / n, "s")
    report("  forward tokens per question", sum(c.tokens for c in counters) / n, "tok")
    report("  model inferences per question", counts.llm_inferences / n, "")
    report("    generated prompts per question", counts.generated_prompts / n, "")
    report("    NLI pairs per question", counts.nli_pairs / n, "")
    report("    pairs decided as identical text, per question", counts.identical_pairs / n, "")
    report(f"  paper's bound at k={args.k} (k + (k+1) + (k+1)k + 3k)", dse_bound(args.k), "")
    report("  batched generate calls", counts.generate_calls, "")
    report("  batched NLI calls", counts.nli_calls, "")
    report("  uncertain questions", sum(r.uncertain for r in results), f"of {n}")
    print("  DSE per question: " + ", ".join(f"{r.dse:.3f}" for r in results), flush=True)

    t0 = time.perf_counter()
    single_counts = 0
    for q in dense_questions:
        one = DenseEngine(generator, nli, settings)
        one.evaluate([q])
        single_counts += one.counts.llm_inferences
    single = time.perf_counter() - t0
    report("DSE one question at a time: per question", single / n, "s")
    report("  model inferences per question", single_counts / n, "")
    report("batching gain (one at a time / batched)", single / batched, "x")

    engine = DenseEngine(generator, nli, settings)
    t0 = time.perf_counter()
    full = run_pipeline(questions, engine, embedder, PipelineSettings(max_steps=args.max_steps))
    pipeline = time.perf_counter() - t0
    refined = [r for r in full if r.refinement]
    report("DSE + chunking + refinement, batched: per question", pipeline / n, "s")
    report("  model inferences per question", engine.counts.llm_inferences / n, "")
    report("  refined (uncertain) questions", len(refined), f"of {n}")
    if refined:
        steps = sum(len(r.refinement["steps"]) for r in refined) / len(refined)
        report("  refinement rounds per refined question", steps, "")


if __name__ == "__main__":
    main()
