"""The cost estimate shown before a job starts: hand-computed figures for items left, token
scaling, time from past jobs and money; past jobs read from the Job rows."""

from datetime import timedelta

import pytest
from django.utils import timezone

from crux_app.jobs.cost import (
    PastJob,
    Price,
    WorkLeft,
    estimate,
    format_duration,
    measured_output_tokens,
    measured_throughput,
    money,
    parse_prices,
    scale_tokens,
)
from crux_app.jobs.estimate import (
    past_jobs,
)
from crux_app.models import Job


def test_tokens_of_a_sample_scale_to_every_item_left():
    # Mean 150 tokens per prompt x 1,000 items x 2 prompts each.
    assert scale_tokens([100, 200, 150], 1000, prompts_per_item=2) == 300_000
    assert scale_tokens([7], 3) == 21
    assert scale_tokens([], 0) == 0  # nothing left costs nothing, counted or not
    assert scale_tokens([], 5) is None  # no sample: unknown, never 0


def test_throughput_is_all_done_items_over_all_running_seconds():
    # (100 + 300) items in (50 + 150) s = 2 items/s; the unusable rows are left out.
    past = [PastJob(100, 50.0), PastJob(300, 150.0), PastJob(0, 10.0), PastJob(5, 0.0)]
    assert measured_throughput(past) == 2.0
    assert measured_throughput([]) is None
    assert measured_throughput([PastJob(0, 30.0)]) is None


def test_output_tokens_per_item_come_from_jobs_that_counted_them():
    past = [PastJob(10, 5.0, completion_tokens=50), PastJob(30, 5.0, completion_tokens=110)]
    assert measured_output_tokens(past) == 4.0  # 160 tokens / 40 items
    assert measured_output_tokens([PastJob(10, 5.0)]) is None


def test_money_prices_input_and_output_tokens_per_million():
    # 2M input at 0.15 + 0.5M output at 0.60 = 0.30 + 0.30.
    assert money(2_000_000, 500_000, Price(0.15, 0.60)) == pytest.approx(0.60)
    assert money(0, 0, Price(3.0, 15.0)) == 0.0


def test_durations_read_as_seconds_minutes_or_hours():
    assert format_duration(41.2) == "42 s"
    assert format_duration(200) == "3 min 20 s"
    assert format_duration(7500) == "2 h 05 min"


def test_prices_setting_is_a_json_object_of_two_numbers_per_model():
    assert parse_prices("") == {}
    assert parse_prices('{"gpt-4o-mini": [0.15, 0.6]}') == {"gpt-4o-mini": Price(0.15, 0.6)}
    with pytest.raises(ValueError, match="MODEL_PRICES is not valid JSON"):
        parse_prices("{gpt: 1}")
    with pytest.raises(ValueError, match=r"MODEL_PRICES\['m'\] must be \[input, output\]"):
        parse_prices('{"m": [1]}')
    with pytest.raises(ValueError, match="two numbers >= 0"):
        parse_prices('{"m": [1, -2]}')
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_prices("[1, 2]")


def test_an_estimate_combines_items_tokens_time_and_money():
    work = WorkLeft(
        items_left=600,
        items_stored=400,
        sample_prompt_tokens=(90, 110),
        tokenizer="org/tok",
        max_output_tokens=5,
        served_model="judge-70b",
    )
    past = [PastJob(200, 100.0)]  # 2 items/s
    result = estimate(work, "items", past, Price(1.0, 4.0))
    assert (result.items_left, result.items_stored) == (600, 400)
    assert result.prompt_tokens == 60_000  # mean 100 x 600
    assert result.output_tokens == 3000  # at most 5 per item
    assert not result.output_tokens_measured
    assert result.seconds == 300.0
    assert result.money == pytest.approx(0.06 + 0.012)
    assert result.lines() == [
        "items left: 600 (400 already stored)",
        "prompt tokens: 60000 (tokenizer org/tok, counted on a sample)",
        "output tokens: 3000 (at most)",
        "expected time: 5 min 00 s (at 2 items/s, measured on 1 past job)",
        "money: $0.07 (MODEL_PRICES for judge-70b)",
    ]


def test_the_first_time_time_is_unknown_and_without_a_price_money_too():
    work = WorkLeft(items_left=10, served_model="m", tokens_note="set TOKENIZER_MODEL")
    result = estimate(work, "questions", [], None)
    assert result.seconds is None and result.money is None and result.prompt_tokens is None
    assert result.lines() == [
        "questions left: 10 (0 already stored)",
        "prompt tokens: unknown",
        "expected time: unknown (no finished job of this kind and model yet)",
        "money: unknown (no MODEL_PRICES price for m)",
        "note: set TOKENIZER_MODEL",
    ]


@pytest.mark.django_db
def test_past_jobs_are_the_succeeded_jobs_of_the_kind_holding_the_model():
    now = timezone.now()

    def job(state, params, done, seconds, kind="judge_answerability", **times):
        return Job.objects.create(
            kind=kind,
            state=state,
            params=params,
            done=done,
            started_at=now - timedelta(seconds=seconds + 100),
            running_since=now - timedelta(seconds=seconds),
            finished_at=now,
            completion_tokens=3 * done,
            **times,
        )

    same = {"judge": "m@v1"}
    job(Job.State.SUCCEEDED, {**same, "k": 10}, 40, 20)
    job(Job.State.SUCCEEDED, same, 10, 30)
    job(Job.State.FAILED, same, 10, 1)  # a failed job measures nothing
    job(Job.State.SUCCEEDED, {"judge": "other@v1"}, 10, 1)  # another model
    job(Job.State.SUCCEEDED, same, 10, 1, kind="dense")  # another kind
    past = past_jobs("judge_answerability", same)
    # Running seconds of the last attempt (running_since), not since the first start.
    assert sorted((p.done, p.seconds, p.completion_tokens) for p in past) == [
        (10, 30.0, 30),
        (40, 20.0, 120),
    ]
    assert measured_throughput(past) == 1.0  # 50 items in 50 s


@pytest.mark.django_db
def test_a_retried_job_measures_only_its_last_attempts_items():
    now = timezone.now()
    Job.objects.create(
        kind="judge_answerability", state=Job.State.SUCCEEDED, params={"judge": "m@v1"},
        done=100, done_before_attempt=90, started_at=now - timedelta(hours=1),
        running_since=now - timedelta(seconds=20), finished_at=now,
    )  # fmt: skip
    [past] = past_jobs("judge_answerability", {"judge": "m@v1"})
    assert (past.done, past.done_in_seconds, past.seconds) == (100, 10, 20.0)
    assert measured_throughput([past]) == 0.5  # the retry's 10 items in its 20 s
