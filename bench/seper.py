"""Benchmark SePer / Delta-SePer: seconds per question, sampling vs NLI time, batching gain.

    .venv/bin/python bench/seper.py                       # embedded models, CPU, 1 thread
    .venv/bin/python bench/seper.py --questions 16 --samples 10 --device cuda --threads 0 \
        --generator meta-llama/Llama-3.1-8B-Instruct --nli microsoft/deberta-v2-xlarge-mnli

Timed runs, each with an empty response cache: SePer (no context) on a batch of questions;
then Delta-SePer (no context + one passage each) on the same batch, scored as one batch and
one question at a time, in A-B-B-A order. The generator seeds once per call, so the
one-by-one runs draw different samples (and NLI pairs) than the batched ones; the pair counts
are printed. Prints one figure per line.
"""

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# The bench machines have no network; never wait on the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from evaluation.backends.base import GenerationParams  # noqa: E402
from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.model_loading import build_generator, build_nli  # noqa: E402
from evaluation.seper.engine import (  # noqa: E402
    BatchStats,
    SeperContext,
    SeperQuestion,
    score_batch,
)
from evaluation.seper.sampling import SamplingParams  # noqa: E402

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
    print(f"{name:<60} {value:10.3f} {unit}")


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
    args = parser.parse_args()
    if not 1 <= args.questions <= len(DATA):
        parser.error(f"--questions must be in 1..{len(DATA)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
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
    # Warm-up: first calls pay one-off set-up costs.
    generator.generate(["Hello"], GenerationParams(max_new_tokens=2))
    nli.predict([("It rains.", "It is wet.")])

    n = args.questions
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
