"""Time a process start: ``django.setup()`` (what every web process, worker and command pays
before its first line of work) against the same plus importing torch and transformers (what
it paid while naming a model imported them), in fresh subprocesses, median of ``--repeat``.

    .venv/bin/python bench/process_start.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETUP = "import django; django.setup()"
SNIPPETS = {
    "django.setup()": SETUP,
    "django.setup() + torch + transformers": SETUP + "; import torch, transformers",
}


def seconds(code: str) -> float:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "crux_app.settings"}
    env.setdefault("DJANGO_DEBUG", "1")  # a development run: the built-in key is fine
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    medians = {}
    for name, code in SNIPPETS.items():
        medians[name] = statistics.median(seconds(code) for _ in range(args.repeat))
        print(f"{name}: {medians[name]:.2f} s (median of {args.repeat})")
    base, heavy = medians.values()
    print(f"ratio: {heavy / base:.2f}x (what a start cost while naming a model imported torch)")


if __name__ == "__main__":
    main()
