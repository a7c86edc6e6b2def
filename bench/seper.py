"""Benchmark SePer / Delta-SePer: seconds per question, sampling vs NLI time, batching gain.

    .venv/bin/python bench/seper.py                       # embedded models, CPU, 1 thread
    .venv/bin/python bench/seper.py --questions 16 --samples 10 --device cuda --threads 0 \
        --generator meta-llama/Llama-3.1-8B-Instruct --nli microsoft/deberta-v2-xlarge-mnli

First the forward tokens (rows x positions through the models, padding included: the work
figure that shows on CPU what a GPU saves) of one Delta-SePer question on the plain path
(every sample re-runs its prompt's prefill, passes in input order) and on the shared path
(a prompt's prefill runs once for its N samples, a pass's common prefix once, passes ordered
by length), then the sampling time of the batch on both paths. Then one untimed warm-up run
and the timed runs on ``--path``, each with an empty response cache: SePer (no context) on a
batch of questions; then Delta-SePer (no context + one passage each) on the same batch, scored
as one batch and one question at a time, in A-B-B-A order. The generator seeds once per call,
so the one-by-one runs draw different samples (and NLI pairs) than the batched ones; the pair
counts are printed. Prints one figure per line.
"""

import argparse
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# The bench machines have no network; never wait on the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from bench.paper_shapes import SHAPES, random_generator, random_nli  # noqa: E402
from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.forward_tokens import ForwardTokenCounter  # noqa: E402
from evaluation.backends.model.loading import build_generator, build_nli  # noqa: E402
from evaluation.seper.engine import (  # noqa: E402
    BatchStats,
    SeperContext,
    SeperQuestion,
    score_batch,
)
from evaluation.seper.sampling import SamplingParams, answer_prompt, sample_prompts  # noqa: E402

# (question, gold answers, a passage that answers it)
DATA = [
    ("What is the capital of France?", ("Paris",), "Paris is the capital of France."),
    ("Who wrote Pride and Prejudice?", ("Jane Austen", "Austen"), "Jane Austen wrote it."),
    ("How many legs does a spider have?", ("eight", "8"), "Spiders have eight legs."),
    ("What gas do plants take in?", ("carbon dioxide", "CO2"), "Plants absorb CO2."),
    ("Which planet is closest to the sun?", ("Mercury",), "Mercury orbits nearest the sun."),
    ("At what temperature does water boil?", ("100 degrees Celsius", "100 C"), "At 100 C."),
    ("Who painted the Mona Lisa?", ("Leonardo da Vinci",), "Leonardo da Vinci painted it."),
    ("What language is spoken in Brazil?", ("Portuguese",), "Brazilians speak Portuguese."),
    ("How many days are in a leap year?", ("366",), "A leap year has 366 days."),
    ("What is the largest ocean?", ("Pacific Ocean", "Pacific"), "The Pacific is largest."),
    ("Which metal is liquid at room temperature?", ("mercury",), "Mercury is a liquid metal."),
    ("What is the square root of 81?", ("9", "nine"), "Nine times nine is 81."),
    ("Who discovered penicillin?", ("Alexander Fleming",), "Fleming found penicillin."),
    ("What is the currency of Japan?", ("yen", "Japanese yen"), "Japan uses the yen."),
    ("Which organ pumps blood?", ("the heart", "heart"), "The heart pumps blood."),
    ("What is the tallest mountain?", ("Mount Everest", "Everest"), "Everest is tallest."),
]


def report(name: str, value: float, unit: str) -> None:
    print(f"{name:<60} {value:10.3f} {unit}", flush=True)


def questions(n: int, with_context: bool) -> list[SeperQuestion]:
    return [
        SeperQuestion(q, golds, (SeperContext("p", passage),) if with_context else ())
        for q, golds, passage in DATA[:n]
    ]


def timed_batches(batches, generator, nli, params, total: BatchStats) -> tuple[float, list]:
    """Score each batch with a fresh cache; seconds and results; stats are added to ``total``."""
    results = []
    started = time.perf_counter()
    for batch in batches:
        out = score_batch(batch, generator, nli, params, cache={})
        results.extend(out.results)
        for name, value in vars(out.stats).items():
            setattr(total, name, getattr(total, name) + value)
    return time.perf_counter() - started, results


def use_path(generator, path: str) -> None:
    """Switch the generator (and an LLM NLI on it) to the shared or the plain path."""
    generator.share_prefill = generator.order_by_length = path == "shared"


def question_prompts(batch: list[SeperQuestion]) -> list[str]:
    """The prompts ``score_batch`` samples: each question alone, then with each context."""
    prompts = []
    for q in batch:
        prompts.append(answer_prompt(q.question))
        prompts.extend(answer_prompt(q.question, c.text) for c in q.contexts)
    return prompts


def forward_tokens(question: SeperQuestion, generator, nli, params) -> tuple[int, int]:
    """(sampling, NLI) forward tokens of one Delta-SePer question, with an empty cache."""
    with ForwardTokenCounter(generator.model) as sampling:
        sample_prompts(generator, question_prompts([question]), params, cache={})
    nli_model = nli.model if hasattr(nli, "model") else nli.generator.model
    models = {id(m): m for m in (generator.model, nli_model)}.values()
    with ExitStack() as stack:
        counters = [stack.enter_context(ForwardTokenCounter(m)) for m in models]
        score_batch([question], generator, nli, params, cache={})
    total = sum(c.tokens for c in counters)
    return sampling.tokens, total - sampling.tokens


def compare_paths(batch: list[SeperQuestion], generator, nli, params, n_samples: int) -> None:
    """Forward tokens of one question and sampling seconds of the batch, plain vs shared."""
    tokens = {}
    for path in ("plain", "shared"):
        use_path(generator, path)
        tokens[path] = forward_tokens(batch[0], generator, nli, params)
        sampling, nli_tokens = tokens[path]
        label = f"forward tokens, one Delta-SePer question, N={n_samples}, {path} path"
        report(f"{label}: sampling", sampling, "tok")
        report(f"{label}: NLI", nli_tokens, "tok")
        report(f"{label}: total", sampling + nli_tokens, "tok")
    (plain_s, plain_n), (shared_s, shared_n) = tokens["plain"], tokens["shared"]
    report("forward tokens fall, sampling (plain / shared)", plain_s / shared_s, "x")
    report("forward tokens fall, NLI (plain / shared)", plain_n / max(shared_n, 1), "x")
    report(
        "forward tokens fall, whole question (plain / shared)",
        (plain_s + plain_n) / max(shared_s + shared_n, 1),
        "x",
    )
    prompts = question_prompts(batch)
    seconds = {"plain": 0.0, "shared": 0.0}
    sample_prompts(generator, prompts, params, cache={})  # warm-up at the timed shapes
    # A-B-B-A order: a linear drift in machine load cancels out.
    for path in ("plain", "shared", "shared", "plain"):
        use_path(generator, path)
        seconds[path] += sample_prompts(generator, prompts, params, cache={}).seconds / 2
    for path, value in seconds.items():
        report(f"Delta-SePer sampling of {len(batch)} questions, {path} path", value, "s")
    report("sampling speed-up (plain / shared)", seconds["plain"] / seconds["shared"], "x")


def describe(label: str, seconds: float, stats: BatchStats, n_questions: int) -> None:
    report(f"{label}: seconds per question", seconds / n_questions, "s")
    report(f"{label}: share sampling", 100 * stats.sampling_seconds / seconds, "%")
    report(f"{label}: share NLI", 100 * stats.nli_seconds / seconds, "%")
    report(f"{label}: NLI pairs asked", stats.nli_pairs_requested, "pairs")
    report(f"{label}: NLI pairs scored (deduplicated)", stats.nli_pairs_scored, "pairs")
    report(f"{label}: NLI s per scored pair", stats.nli_seconds / stats.nli_pairs_scored, "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=8, help="batch size, 1..16")
    parser.add_argument("--samples", type=int, default=10, help="N responses per prompt")
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1 (default: cpu)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: default)")
    parser.add_argument("--generator", default="", help="model id (default: embedded SmolLM2)")
    parser.add_argument("--nli", default="", help="NLI model id (default: LLM prompt NLI)")
    parser.add_argument(
        "--cache-dir", default=str(REPO / "var" / "models"), help="GGUF conversion cache"
    )
    parser.add_argument(
        "--path",
        choices=("shared", "plain"),
        default="shared",
        help="generator path of the timed runs (plain: before shared prefill, the baseline)",
    )
    parser.add_argument(
        "--compare-only", action="store_true", help="stop after the plain vs shared comparison"
    )
    parser.add_argument(
        "--shapes",
        choices=sorted(SHAPES),
        help="random-weight models of these shapes (paper: Llama-3.1-8B + DeBERTa-v2-xlarge)",
    )
    args = parser.parse_args()
    if not 1 <= args.questions <= len(DATA):
        parser.error(f"--questions must be in 1..{len(DATA)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    if args.shapes:
        generator = random_generator(args.shapes, Path(args.cache_dir), device)
        nli = random_nli(args.shapes, device)
    else:
        generator = build_generator(args.generator, Path(args.cache_dir), device)
        nli = build_nli(
            args.nli,
            lambda m: build_generator(m, Path(args.cache_dir), device) if m else generator,
            device,
        )
    print(
        f"device {device}, {torch.get_num_threads()} CPU threads, generator "
        f"{generator.model_id}, NLI {nli.model_id}, N={args.samples}, {args.questions} questions"
    )
    params = SamplingParams(n_samples=args.samples, max_new_tokens=args.max_new_tokens, seed=0)
    n = args.questions
    compare_paths(questions(n, True), generator, nli, params, args.samples)
    if args.compare_only:
        return

    use_path(generator, args.path)
    print(f"timed runs on the {args.path} path", flush=True)
    # Warm-up at the timed shapes: the first batch a GPU sees pays kernel selection and
    # allocator growth (one judging bench read 28 items/s cold and 89 warm).
    started = time.perf_counter()
    score_batch(questions(n, True), generator, nli, params, cache={})
    report("warm-up: one untimed Delta-SePer batch", time.perf_counter() - started, "s")
    stats = BatchStats()
    seconds, plain = timed_batches([questions(n, False)], generator, nli, params, stats)
    describe("SePer, batched", seconds, stats, n)

    modes = {"batched": [questions(n, True)], "one by one": [[q] for q in questions(n, True)]}
    totals = {mode: [0.0, BatchStats()] for mode in modes}
    results = []
    # A-B-B-A order: a linear drift in machine load (the CPU is shared) cancels out.
    for mode in ("batched", "one by one", "one by one", "batched"):
        seconds, out = timed_batches(modes[mode], generator, nli, params, totals[mode][1])
        totals[mode][0] += seconds
        results = results or out
        report(f"Delta-SePer, {mode}: one run of {n} questions", seconds, "s")
    for mode, (seconds, mode_stats) in totals.items():
        describe(f"Delta-SePer, {mode}", seconds, mode_stats, 2 * n)
    (batched, b_stats), (singles, s_stats) = totals["batched"], totals["one by one"]
    report(f"batching speed-up, Delta-SePer on {n} questions (time)", singles / batched, "x")
    report("  sampling", s_stats.sampling_seconds / max(b_stats.sampling_seconds, 1e-9), "x")
    report("  NLI", s_stats.nli_seconds / max(b_stats.nli_seconds, 1e-9), "x")
    deltas = [r.contexts[0].delta for r in results]
    report("mean Delta-SePer_S (passage vs none)", sum(d.soft for d in deltas) / n, "")
    report("mean Delta-SePer_H (passage vs none)", sum(d.hard for d in deltas) / n, "")
    report("mean SePer_S without context", sum(r.baseline.score.soft for r in plain) / n, "")


if __name__ == "__main__":
    main()
