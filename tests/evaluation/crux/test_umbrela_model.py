"""The UMBRELA judging job with the real embedded judge model on CPU (three pairs): its grades
become the judge's qrels and the leaderboard's nDCG under that judge; a sampled repeat is
reproducible from its seed."""

import pytest

from crux_app.models import Job, Judge, PassageQrel
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.crux.job import KIND, JudgeJobParams, JudgeModel, run_judge_job
from evaluation.crux.method.relevance_prompts import UMBRELA_V1, parse_relevance
from evaluation.leaderboard.columns import LeaderboardParams, column_values
from tests.evaluation.crux.trec_judging import make_trec_collection, reference_ndcg, stored_qrels

pytestmark = [pytest.mark.models, pytest.mark.django_db]

# bm25's top 1 of each topic: (101, d0), (102, d3), (103, d5).
PAIRS = [("101", "d0"), ("102", "d3"), ("103", "d5")]
QUERIES = {"101": "black bear attacks", "102": "cheap flights to lisbon", "103": "wind power"}


class Recording:
    """The embedded generator, with every (prompt, output) it produced kept."""

    def __init__(self, generator):
        self.generator = generator
        self.model_id = generator.model_id
        self.outputs: dict[str, str] = {}

    def generate(self, prompts, params):
        results = self.generator.generate(prompts, params)
        for prompt, generations in zip(prompts, results, strict=True):
            self.outputs[prompt] = generations[0].text
        return results


def _run(collection, generator, **params) -> Job:
    bm25 = collection.runs.get(name="bm25")
    config = JudgeJobParams(
        rubric="umbrela", scope="run", run_id=bm25.pk, k=1, batch_size=3, **params
    )
    job = Job.objects.create(kind=KIND, params=config.as_params(bm25), collection=collection)
    model = JudgeModel(EMBEDDED_GENERATOR_ID, lambda: generator)
    return run_judge_job(job, lambda name: model)


def test_embedded_umbrela_judge_makes_qrels_the_leaderboard_ranks_runs_by(
    embedded_generator, tmp_path
):
    collection = make_trec_collection(tmp_path / "trec")
    recording = Recording(embedded_generator)
    job = _run(collection, recording)

    assert job.state == Job.State.SUCCEEDED, job.errors
    name = f"{EMBEDDED_GENERATOR_ID}@umbrela-v1"
    assert Judge.objects.filter(name=name, prompt_version="umbrela-v1").exists()
    prompts = {pair: UMBRELA_V1.render(QUERIES[pair[0]], f"passage text {pair[1][1:]}")
               for pair in PAIRS}  # fmt: skip
    assert set(recording.outputs) == set(prompts.values())
    grades = {pair: parse_relevance(recording.outputs[prompts[pair]]) for pair in PAIRS}
    unparsable = sum(g is None for g in grades.values())
    assert job.message.startswith(f"judged 3, unparsable {unparsable},")
    assert stored_qrels(name) == {pair: g for pair, g in grades.items() if g is not None}
    assert unparsable < 3, recording.outputs  # the embedded model answers with a grade

    runs = ["bm25", "dense", "hybrid"]
    board = column_values(collection, LeaderboardParams(qrels_source=name, k=10), runs)
    if any(g for g in grades.values()):
        assert board["ndcg"] == pytest.approx(reference_ndcg(name, 10))
    else:  # every grade 0: no topic has a relevant passage, nDCG is undefined
        assert board["ndcg"] == dict.fromkeys(runs)

    # A sampled repeat is a judge of its own, and its seed reproduces its answers.
    first, second = Recording(embedded_generator), Recording(embedded_generator)
    repeat = _run(collection, first, temperature=1.0, seed=7)
    assert repeat.state == Job.State.SUCCEEDED, repeat.errors
    assert repeat.params["judge"] == f"{name}~t1-s7"
    assert stored_qrels(name) == {pair: g for pair, g in grades.items() if g is not None}
    PassageQrel.objects.filter(source=f"{name}~t1-s7").delete()  # so the pairs are asked again
    _run(collection, second, temperature=1.0, seed=7)
    assert second.outputs == first.outputs
