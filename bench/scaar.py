"""Benchmark SCAAR on the demo data: seconds per answer and where they go, N_R and S_eff.

    .venv/bin/python bench/scaar.py                      # embedded models, CPU, 1 thread
    .venv/bin/python bench/scaar.py --device cuda --threads 0 \
        --generator meta-llama/Llama-3.1-8B-Instruct

On a scratch database (DATABASE_URL, default crux_bench_scaar, recreated): loads the demo
collections; times the SCAAR job over the 12 demo reports (teacher-forced log-probs, no
regeneration), then the teacher-forced scoring of those reports batched vs one by one and the
embedder's leave-one-out texts; generates closed-book answers to the 9 demo-qa questions and
times the SCAAR job over them with regeneration (stored log-probs), printing N_R for SCAAR and
FLARE and S_eff. Prints one figure per line.
"""

import argparse
import os
import sys
import time
from io import StringIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_scaar"


def report(name: str, value: float, unit: str) -> None:
    print(f"{name:<60} {value:10.3f} {unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: default)")
    parser.add_argument("--generator", default="", help="model id (empty: embedded)")
    parser.add_argument("--embedder", default="", help="model id (empty: embedded)")
    args = parser.parse_args()
    setup_django(DEFAULT_URL, fresh=True)

    import torch
    from django.conf import settings
    from django.core.management import call_command

    from bench.model_warmup import warm_up_models
    from crux_app.models import Collection, GeneratedOutput, Job
    from evaluation.answers.job import AnswerJobParams, run_answer_job
    from evaluation.backends.devices import resolve_device
    from evaluation.backends.embedded import EMBEDDED_EMBEDDER_ID
    from evaluation.backends.model.loading import build_embedder, build_generator
    from evaluation.scaar.engine import ScaarModels, scoring_prompt
    from evaluation.scaar.job import ScaarJobParams, run_scaar_job
    from evaluation.scaar.method.contributions import leave_one_out_texts, segment_answer
    from evaluation.scaar.method.efficiency import retrieval_efficiency
    from evaluation.scaar.models import ScaarAnalysis

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    started = time.perf_counter()
    generator = build_generator(args.generator, Path(settings.MODEL_CACHE_DIR), device)
    embedder = build_embedder(args.embedder, device)
    report("load generator + embedder", time.perf_counter() - started, "s")
    report("warm-up (untimed model passes)", warm_up_models(generator, None, embedder), "s")
    models = ScaarModels(
        generator.model_id,
        args.embedder or EMBEDDED_EMBEDDER_ID,
        lambda: generator,
        lambda: embedder,
    )
    call_command("load_demo", stdout=StringIO())

    demo = Collection.objects.get(name="demo")
    params = ScaarJobParams(refine=False).as_params()
    job = Job.objects.create(kind="scaar", params=params, collection=demo)
    started = time.perf_counter()
    job = run_scaar_job(job, models)
    elapsed = time.perf_counter() - started
    rows = list(ScaarAnalysis.objects.filter(collection=demo))
    assert job.state == Job.State.SUCCEEDED, job.errors
    words = sum(len(s["words"]) for r in rows for s in r.detail["sentences"])
    report(f"SCAAR job, {len(rows)} demo reports (no regeneration)", elapsed, "s")
    report("  per report", elapsed / len(rows), "s")
    report("  sentences per report", sum(r.n_sentences for r in rows) / len(rows), "")
    report("  words per report", words / len(rows), "")
    report("  N_R SCAAR per report", sum(r.n_retrievals for r in rows) / len(rows), "")
    report("  N_R FLARE per report", sum(r.flare_retrievals for r in rows) / len(rows), "")

    outputs = list(GeneratedOutput.objects.filter(collection=demo).select_related("topic"))
    prompts = [scoring_prompt(o) for o in outputs]
    texts = [o.text for o in outputs]
    started = time.perf_counter()
    scored = generator.score_continuations(prompts, texts)
    batched = time.perf_counter() - started
    started = time.perf_counter()
    for prompt, text in zip(prompts, texts, strict=True):
        generator.score_continuations([prompt], [text])
    single = time.perf_counter() - started
    tokens = sum(len(g.token_ids) for g in scored)
    report("teacher-forced scoring, 12 reports batched", batched, "s")
    report("teacher-forced scoring, one by one", single, "s")
    report("  scored tokens per second (batched)", tokens / batched, "tok/s")
    loo = [
        t
        for o, g in zip(outputs, scored, strict=True)
        for s in segment_answer(g.tokens, g.token_logprobs)
        for t in leave_one_out_texts(o.topic.request, s.words)
    ]
    started = time.perf_counter()
    embedder.embed(loo)
    report(f"embedder, {len(loo)} leave-one-out texts", time.perf_counter() - started, "s")

    qa = Collection.objects.get(name="demo-qa")
    answer_job = Job.objects.create(
        kind="generate_answers",
        params=AnswerJobParams(run_id=None, max_new_tokens=32).as_params(),
        collection=qa,
    )
    started = time.perf_counter()
    run_answer_job(answer_job, lambda: generator)
    report("closed-book answers, 9 demo-qa questions", time.perf_counter() - started, "s")
    job = Job.objects.create(kind="scaar", params=ScaarJobParams().as_params(), collection=qa)
    started = time.perf_counter()
    job = run_scaar_job(job, models)
    elapsed = time.perf_counter() - started
    assert job.state == Job.State.SUCCEEDED, job.errors
    rows = list(ScaarAnalysis.objects.filter(collection=qa))
    report(f"SCAAR job, {len(rows)} QA answers with regeneration", elapsed, "s")
    report("  per answer", elapsed / len(rows), "s")
    report("  N_R SCAAR per answer", sum(r.n_retrievals for r in rows) / len(rows), "")
    report("  N_R FLARE per answer", sum(r.flare_retrievals for r in rows) / len(rows), "")
    report("  mean F1 before", sum(r.score_before for r in rows) / len(rows), "")
    report("  mean F1 after (SCAAR retrievals)", sum(r.score_after for r in rows) / len(rows), "")
    report(
        "  mean F1 after (FLARE retrievals)", sum(r.flare_score_after for r in rows) / len(rows), ""
    )
    s_eff = retrieval_efficiency([r.score_delta for r in rows], [r.n_retrievals for r in rows])
    report("  S_eff SCAAR (mean dF1 / mean N_R)", float("nan") if s_eff is None else s_eff, "")
    flare = retrieval_efficiency(
        [r.flare_score_delta for r in rows], [r.flare_retrievals for r in rows]
    )
    report("  S_eff FLARE", float("nan") if flare is None else flare, "")


if __name__ == "__main__":
    main()
