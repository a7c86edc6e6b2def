"""Benchmark LLM-retEval: one job over the demo QA collection on real models.

    .venv/bin/python bench/reteval.py                         # embedded model, CPU, 1 thread
    .venv/bin/python bench/reteval.py --questions 9 --ks 1 2 4 --device cuda --threads 0 \
        --generator meta-llama/Llama-3.1-8B-Instruct

Imports fixtures/demo_qa.jsonl into a scratch database (``crux_bench_reteval``), runs the
reteval job on its ``contexts`` run (semi-gold answers, RAG answers per k, CompareGPT
comparisons, results), times the generator's and the judge's calls, re-runs the job (nothing
to compute) and builds the table. Prints one figure per line.
"""

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.scratch_database import setup_django  # noqa: E402


class Timed:
    """Wraps a generator and adds up the seconds and prompts of its ``generate`` calls."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.seconds = 0.0
        self.prompts = 0

    def generate(self, prompts, params):
        started = time.perf_counter()
        out = self.inner.generate(prompts, params)
        self.seconds += time.perf_counter() - started
        self.prompts += len(prompts)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=9)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--semi-gold", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--generator", default="", help="model id (default: embedded)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: default)")
    args = parser.parse_args()

    setup_django("postgres://postgres@127.0.0.1:5432/crux_bench_reteval", fresh=True)
    import torch
    from django.conf import settings
    from django.core.management import call_command

    from bench.model_warmup import warm_up_models
    from crux_app.models import Collection, Job, Run
    from evaluation.backends.devices import resolve_device
    from evaluation.backends.model.loading import build_generator
    from evaluation.reteval.job import KIND, RetEvalJobParams, RetEvalModels, run_reteval_job
    from evaluation.reteval.table import build_table, row_dict

    if args.threads:
        torch.set_num_threads(args.threads)
    call_command("import_qa", "--collection", "demo-qa", str(REPO / "fixtures/demo_qa.jsonl"))
    collection = Collection.objects.get(name="demo-qa")
    run = Run.objects.get(collection=collection, name="contexts")
    started = time.perf_counter()
    model = build_generator(
        args.generator, Path(settings.MODEL_CACHE_DIR), resolve_device(args.device)
    )
    print(f"model load: {time.perf_counter() - started:.2f} s ({model.model_id}, {args.device})")
    print(f"warm-up (untimed model passes): {warm_up_models(model):.2f} s")
    generator, judge = Timed(model), Timed(model)
    params = RetEvalJobParams(
        run_id=run.pk,
        ks=tuple(args.ks),
        n_semi_gold=args.semi_gold,
        max_new_tokens=args.max_new_tokens,
        max_questions=args.questions,
    )
    models = RetEvalModels(model.model_id, model.model_id, lambda: generator, lambda: judge)

    def run_job() -> tuple[Job, float]:
        job = Job.objects.create(kind=KIND, params=params.as_params(run), collection=collection)
        started = time.perf_counter()
        job = run_reteval_job(job, models)
        if job.state != Job.State.SUCCEEDED:
            raise SystemExit(f"job failed: {job.message} {job.errors}")
        return job, time.perf_counter() - started

    job, seconds = run_job()
    n = job.total
    print(f"job: {n} questions x k {args.ks} in {seconds:.1f} s = {seconds / n:.2f} s/question")
    print(
        f"  generation (semi-gold + RAG): {generator.seconds:.1f} s for {generator.prompts} prompts"
    )
    print(f"  judging (CompareGPT): {judge.seconds:.1f} s for {judge.prompts} comparisons "
          f"({judge.seconds / max(judge.prompts, 1):.3f} s each)")  # fmt: skip
    print(f"  storage and metrics: {seconds - generator.seconds - judge.seconds:.2f} s")
    print(f"  {job.message}")
    again, seconds = run_job()
    print(f"re-run with everything stored: {seconds:.2f} s ({again.message})")
    started = time.perf_counter()
    table = build_table(collection)
    print(f"table: {(time.perf_counter() - started) * 1000:.0f} ms")
    for row in table.rows:
        r = row_dict(row)
        print(
            f"  {r['run']}@{r['k']}: Recall {r['recall']:.3f} Precision {r['precision']:.3f} "
            f"F1 {r['f1']:.3f} LLM-retEval {r['llm_reteval']} answer accuracy "
            f"{r['answer_accuracy_lexical']} disagreements {r['disagreements']} "
            f"Spearman ALL {r['spearman_all']} Refined {r['spearman_refined']}"
        )


if __name__ == "__main__":
    main()
