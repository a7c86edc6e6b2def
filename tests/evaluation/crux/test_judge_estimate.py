"""What a judging job will cost before it runs: ``manage.py judge --dry-run`` and the judging
page's count show the items left, the prompt tokens counted with the judge's real tokenizer,
the time from past jobs of this judge, and money for a priced served judge."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from transformers import AutoTokenizer

from crux_app.jobs.cost import Price
from crux_app.models import Job, Judge, Judgment
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from evaluation.crux.job import KIND, JudgeJobParams, run_judge_job
from evaluation.crux.judge_estimate import even_sample
from evaluation.crux.judge_scope import RUN, plan_items
from evaluation.crux.method.judge_prompts import JUDGE_MAX_NEW_TOKENS
from tests.crux_app.factories import make_small_collection
from tests.evaluation.crux.fake_judge import ScriptedJudge

pytestmark = pytest.mark.django_db

# A real tokenizer that loads in a second: the embedded MiniLM's (BERT uncased), standing in
# for the judge's (only its tokenizer is ever loaded for an estimate).
TOKENIZER = str(minilm_dir())


@pytest.fixture(autouse=True)
def local_judge(settings):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL, settings.JUDGE_API_BASE = TOKENIZER, "", ""
    settings.TOKENIZER_MODEL, settings.MODEL_PRICES = "", {}
    registry.clear()
    yield
    registry.clear()


def _prompt_tokens(data, k: int = 2) -> int:
    """The tokens of every item's rubric prompt (6 items: fewer than a sample, all counted)."""
    config = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=k)
    plan = plan_items(config.scope_spec(data.collection, None), None)
    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER, local_files_only=True)
    prompt, passages = config.prompt(), {p.pk: p.text for p in data.passages}
    questions = {q.pk: q.text for q in data.topic.subquestions.all()}
    texts = [
        prompt.render(questions[i.subquestion_id], passages[i.target_id]) for i in plan.missing
    ]
    assert len(texts) == 6
    return sum(len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"])


def _dry_run(*args: str) -> str:
    out = StringIO()
    call_command(
        "judge", "--collection", "duc04", "--run", "bm25", "--k", "2", "--dry-run", *args,
        stdout=out, stderr=StringIO(),
    )  # fmt: skip
    return out.getvalue()


def test_an_even_sample_spreads_over_every_topic_of_the_scope():
    assert even_sample(list(range(100)), 4) == [0, 25, 50, 75]
    assert even_sample([1, 2], 4) == [1, 2]


def test_dry_run_prints_the_cost_and_stores_nothing():
    data = make_small_collection()
    judges, judgments = Judge.objects.count(), Judgment.objects.count()
    text = _dry_run()
    assert Job.objects.count() == 0
    assert (Judge.objects.count(), Judgment.objects.count()) == (judges, judgments)
    assert "items left: 6 (0 already stored)" in text
    assert f"prompt tokens: {_prompt_tokens(data)} (tokenizer {TOKENIZER}," in text
    assert f"output tokens: {6 * JUDGE_MAX_NEW_TOKENS} (at most)" in text
    assert "expected time: unknown (no finished job of this kind and model yet)" in text
    assert "money" not in text  # a local judge costs no money


def test_time_comes_from_this_judges_past_jobs():
    make_small_collection()
    name = Judge.llm_name(TOKENIZER, JudgeJobParams().prompt_version)
    now = timezone.now()
    Job.objects.create(
        kind=KIND,
        state=Job.State.SUCCEEDED,
        params={"judge": name},
        done=12,
        running_since=now - timedelta(seconds=6),
        finished_at=now,
    )
    # Another judge's job is not this judge's throughput.
    Job.objects.create(
        kind=KIND,
        state=Job.State.SUCCEEDED,
        params={"judge": "other@v1"},
        done=1,
        running_since=now - timedelta(seconds=100),
        finished_at=now,
    )
    assert "expected time: 3 s (at 2 items/s, measured on 1 past job)" in _dry_run()
    assert Job.objects.count() == 2


def test_a_priced_served_judge_says_what_it_costs(settings):
    data = make_small_collection()
    settings.JUDGE_API_BASE, settings.JUDGE_MODEL = "http://127.0.0.1:9/v1", "judge-70b"
    settings.MODEL_PRICES = {"judge-70b": Price(2.0, 10.0)}
    tokens = _prompt_tokens(data)
    # Without a tokenizer for the served model the tokens (and so the money) are unknown.
    text = _dry_run()
    assert "prompt tokens: unknown" in text
    assert "note: set TOKENIZER_MODEL to the served judge's tokenizer" in text
    settings.TOKENIZER_MODEL = TOKENIZER
    text = _dry_run()
    assert f"prompt tokens: {tokens} (tokenizer {TOKENIZER}," in text
    cost = (tokens * 2.0 + 6 * JUDGE_MAX_NEW_TOKENS * 10.0) / 1e6
    assert f"money: ${cost:.2f} (MODEL_PRICES for judge-70b)" in text


def test_the_judging_page_count_shows_the_estimate(researcher_client):
    data = make_small_collection()
    url = reverse("crux-start-count", args=[data.collection.pk])
    response = researcher_client.get(url, {"scope": RUN, "run": data.bm25.pk, "k": 2})
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="job-estimate" data-items-left="6"' in html
    assert f'data-prompt-tokens="{_prompt_tokens(data)}"' in html
    assert "expected time unknown" in html
    # Garbage options are a 400 naming the field, never a 500.
    bad = researcher_client.get(url, {"scope": RUN, "run": "x", "k": "-1"})
    assert bad.status_code == 400
    assert "job-estimate" not in bad.content.decode()


def test_stored_ratings_are_skipped_and_a_missing_tokenizer_leaves_tokens_unknown():
    data = make_small_collection()
    params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=2).as_params(data.bm25)
    job = Job.objects.create(kind=KIND, params=params, collection=data.collection)
    run_judge_job(job, ScriptedJudge().as_model())  # rates the top-2's 6 items
    text = StringIO()
    call_command(
        "judge", "--collection", "duc04", "--run", "bm25", "--k", "3", "--model",
        ScriptedJudge.model_id, "--dry-run", stdout=text, stderr=StringIO(),
    )  # fmt: skip
    text = text.getvalue()
    assert "items left: 3 (6 already stored)" in text
    assert "prompt tokens: unknown" in text
    # Never fetched from the hub in a request: said, not waited for.
    assert f"note: the judge's tokenizer '{ScriptedJudge.model_id}' is not on this machine" in text
    assert "measured on 1 past job" in text  # the scripted judge's job just now
    assert Job.objects.count() == 1
