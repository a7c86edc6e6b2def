"""Benchmark the judges: items per second of the LLM judge's greedy rating (CRUX 0-5 rubric) at
several batch sizes, of its distribution mode (the six rating tokens' log-probabilities, no
generation) and of the embedding baseline judge, on the same items in one run.

    .venv/bin/python bench/judge.py                       # embedded judge, CPU, 1 torch thread
    .venv/bin/python bench/judge.py --device cuda --threads 0 \
        --model meta-llama/Llama-3.1-8B-Instruct --batch-sizes 1 16 64

An item is one (sub-question, passage) pair rated with the rubric prompt, exactly as the judging
job rates it (``rate_items``, ``rate_items_distribution``, ``rate_by_embedding``): one batched
model call per batch of items. The ratios are against greedy generation at the same batch size.
The LLM modes run on each of ``--paths``: ``plain`` (the baseline: every prompt's full prefill,
passes in input order) and ``shared`` (the rubric prompts' common prefix computed once per pass,
passes ordered by length); each prints its forward tokens per item (rows x positions through
the model, padding included), which show the saving on CPU too. Every batch size and mode gets
one untimed warm-up batch first: the first batch a GPU sees pays kernel selection and allocator
growth (distribution mode read 28 items/s at batch 16 cold, 89 warm).
The GGUF conversion of the embedded model is cached under --cache-dir (default: the app's
MODEL_CACHE_DIR default, var/models), so only a first run pays it. Prints one figure per line.
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

from bench.paper_shapes import SHAPES, random_generator  # noqa: E402
from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.forward_tokens import ForwardTokenCounter  # noqa: E402
from evaluation.backends.model.loading import build_embedder, build_generator  # noqa: E402
from evaluation.crux.embedding_engine import rate_by_embedding  # noqa: E402
from evaluation.crux.engine import JudgeItem, rate_items, rate_items_distribution  # noqa: E402
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1  # noqa: E402

QUESTIONS = [
    "What caused the 1998 floods in Bangladesh?",
    "How many people were displaced by the floods?",
    "Which international agencies sent relief?",
    "How long did the water take to recede?",
]
PASSAGES = [
    "Heavy monsoon rain, swollen rivers from the Himalayas and high tides held the water in "
    "place; by September two thirds of Bangladesh was under water.",
    "Some 30 million people lost their homes, and the government opened thousands of shelters "
    "in schools and public buildings across the delta.",
    "The World Food Programme and the Red Cross shipped rice, water purification tablets and "
    "medicine; donors pledged more than 200 million dollars.",
    "The floodwater stayed for more than two months in the worst-hit districts, well beyond "
    "the usual few weeks of a monsoon season.",
    "Cricket remains the most popular sport in Bangladesh, and the national team played its "
    "first test match in 2000.",
    "Dhaka's garment factories reopened in October, though transport links to the port of "
    "Chittagong were cut for weeks.",
    "Rice prices doubled in local markets after the aman crop was lost in many districts.",
    "Satellite images showed the Padma and Jamuna rivers several kilometres wider than usual.",
]


def items(n: int) -> list[JudgeItem]:
    pairs = [(q, p) for p in PASSAGES for q in QUESTIONS]
    return [JudgeItem(i, *pairs[i % len(pairs)]) for i in range(n)]


def report(name: str, value: float, unit: str) -> None:
    print(f"{name:<52} {value:10.2f} {unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="judge model id (default: embedded SmolLM2)")
    parser.add_argument("--embedder", default="", help="embedder id (default: embedded MiniLM)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, or '' for auto")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: default)")
    parser.add_argument("--cache-dir", default=str(REPO / "var" / "models"))
    parser.add_argument("--items", type=int, default=32, help="items judged per batch size")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 16])
    parser.add_argument(
        "--paths",
        nargs="+",
        choices=("plain", "shared"),
        default=["plain", "shared"],
        help="generator paths of the LLM modes (plain: before prefix sharing, the baseline)",
    )
    parser.add_argument(
        "--shapes",
        choices=sorted(SHAPES),
        help="random-weight models of these shapes (paper: Llama-3.1-8B + DeBERTa-v2-xlarge)",
    )
    args = parser.parse_args()
    args.paths = list(dict.fromkeys(args.paths))
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads")

    started = time.perf_counter()
    if args.shapes:
        judge = random_generator(args.shapes, Path(args.cache_dir), device)
    else:
        judge = build_generator(args.model, Path(args.cache_dir), device)
    report(f"judge load ({judge.model_id})", time.perf_counter() - started, "s")
    embedder = build_embedder(args.embedder, device)
    work = items(args.items)
    modes = {
        "greedy": lambda batch: rate_items(batch, judge, CRUX_RUBRIC_V1),
        "distribution": lambda batch: rate_items_distribution(batch, judge, CRUX_RUBRIC_V1),
        "embedding": lambda batch: rate_by_embedding(batch, embedder),
    }
    for size in args.batch_sizes:
        speed = {}
        for path in args.paths:
            judge.share_prefill = judge.order_by_length = path == "shared"
            for mode in ("greedy", "distribution"):
                speed[(path, mode)] = timed_mode(work, size, modes[mode], judge, f"{path} {mode}")
        speed["embedding"] = timed_mode(work, size, modes["embedding"], judge, "embedding")
        path = args.paths[-1]
        for mode in ("distribution", "embedding"):
            mine = speed[(path, mode)] if mode != "embedding" else speed[mode]
            report(f"batch {size}: {mode} vs {path} greedy", mine / speed[(path, "greedy")], "x")
        if len(args.paths) > 1:
            for mode in ("greedy", "distribution"):
                ratio = speed[("shared", mode)] / speed[("plain", mode)]
                report(f"batch {size}: {mode} speed-up, shared / plain path", ratio, "x")


def timed_mode(work: list[JudgeItem], size: int, rate, judge, label: str) -> float:
    """Items/s of one mode at one batch size after an untimed warm-up batch; prints its figures."""
    rate(work[:size])
    rated = []
    with ForwardTokenCounter(judge.model) as counter:
        started = time.perf_counter()
        for i in range(0, len(work), size):
            rated += rate(work[i : i + size])
        speed = len(rated) / (time.perf_counter() - started)
    report(f"batch {size}: {label} items/s ({len(rated)} items)", speed, "it/s")
    if "embedding" not in label:
        report(f"batch {size}: {label} forward tokens per item", counter.tokens / len(rated), "tok")
    if label.endswith("greedy"):
        parsed = sum(r.is_parsed for r in rated)
        report(f"batch {size}: {label} parsable ratings", 100 * parsed / len(rated), "%")
    return speed


if __name__ == "__main__":
    main()
