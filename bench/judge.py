"""Benchmark the LLM judge: judged items per second (CRUX 0-5 rubric) at several batch sizes.

    .venv/bin/python bench/judge.py                       # embedded judge, CPU, 1 torch thread
    .venv/bin/python bench/judge.py --device cuda --threads 0 \
        --model meta-llama/Llama-3.1-8B-Instruct --batch-sizes 1 16 64

An item is one (sub-question, passage) pair rated with the rubric prompt, exactly as the judging
job rates it (``evaluation.crux.engine.rate_items``): one batched model call per batch of items.
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

from evaluation.backends.devices import resolve_device  # noqa: E402
from evaluation.backends.model_loading import build_generator  # noqa: E402
from evaluation.crux.engine import JudgeItem, rate_items  # noqa: E402
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
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, or '' for auto")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: default)")
    parser.add_argument("--cache-dir", default=str(REPO / "var" / "models"))
    parser.add_argument("--items", type=int, default=32, help="items judged per batch size")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 16])
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads")

    started = time.perf_counter()
    judge = build_generator(args.model, Path(args.cache_dir), device)
    report(f"judge load ({judge.model_id})", time.perf_counter() - started, "s")
    work = items(args.items)
    rate_items(work[:1], judge, CRUX_RUBRIC_V1)  # warm-up: first calls pay one-off set-up
    for size in args.batch_sizes:
        started = time.perf_counter()
        rated = []
        for i in range(0, len(work), size):
            rated += rate_items(work[i : i + size], judge, CRUX_RUBRIC_V1)
        seconds = time.perf_counter() - started
        parsed = sum(r.is_parsed for r in rated)
        report(f"batch {size}: judged items/s ({len(rated)} items)", len(rated) / seconds, "it/s")
        report(f"batch {size}: parsable ratings", 100 * parsed / len(rated), "%")


if __name__ == "__main__":
    main()
