"""Where-lost with sentence-citation support: on the hand-made topic of ``load_loss_topic``, a
sentence judge's grades back a stated nugget only through a cited passage that the support
judge rates for the nugget; the command, the API and the pages say which evidence was used."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection, Judge, Passage, Topic
from evaluation.nuggets.losses import LossSettings, nugget_losses
from evaluation.nuggets.models import AnswerSentence, SentenceSupport
from tests.evaluation.nuggets.test_nugget_commands import load_loss_topic
from tests.evaluation.nuggets.test_nugget_imports import NAME

pytestmark = pytest.mark.django_db
SUN_SENTENCE = "The sun adds a smaller pull."  # runA, cites d2 and d3
WIND_SENTENCE = "Tides come from wind."  # runB, cites d3


def grade(judge: Judge, sentence: str, docid: str, value: int) -> None:
    SentenceSupport.objects.create(
        judge=judge,
        sentence=AnswerSentence.objects.get(text=sentence),
        passage=Passage.objects.get(external_id=docid),
        grade=value,
    )


def load_graded_topic(tmp_path, sun_grade: int = 2) -> tuple[Judge, Judge]:
    """The sentence judge grades runA's sun sentence against d2 (which the support judge rates
    1 for 'sun': below tau) and runB's wind sentence against d3 (rated for 'spring' only)."""
    rater = load_loss_topic(tmp_path)
    grader = Judge.objects.create(name="grader", kind="llm", model_id="m", prompt_version="s")
    grade(grader, SUN_SENTENCE, "d2", sun_grade)
    grade(grader, SUN_SENTENCE, "d3", 0)
    grade(grader, WIND_SENTENCE, "d3", 2)
    return rater, grader


def test_a_sentence_supported_by_a_cited_passage_about_the_nugget_delivers_it(tmp_path):
    rater, grader = load_graded_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    judge = Judge.objects.get(name="amy")

    rows = nugget_losses(collection, LossSettings(judge, rater, 10, 3, grader))

    by_run = {(r.run, r.position): r for r in rows}
    # runA: 'sun' was unsupported on nugget-passage ratings alone (d2 rates it 1 < tau);
    # d2 fully supports the sentence citing it, so it is delivered now.
    sun = by_run[("runA", 1)]
    assert (sun.category, sun.cited_support, sun.sentence_support) == ("delivered", (), ("d2",))
    assert [by_run[("runA", i)].category for i in range(4)] == [
        "delivered",
        "delivered",
        "generation drop",
        "retrieval miss",
    ]
    # runB: d3 supports its sentence but is not about 'sun': still unsupported.
    assert by_run[("runB", 1)].category == "unsupported"
    assert by_run[("runB", 1)].sentence_support == ()
    # Without the sentence judge, the old evidence alone.
    rows = nugget_losses(collection, LossSettings(judge, rater, 10, 3))
    assert [r.category for r in rows if r.run == "runA"][1] == "unsupported"


def test_a_partly_supported_sentence_does_not_back_the_nugget(tmp_path):
    rater, grader = load_graded_topic(tmp_path, sun_grade=1)
    collection = Collection.objects.get(name=NAME)
    judge = Judge.objects.get(name="amy")

    rows = nugget_losses(collection, LossSettings(judge, rater, 10, 3, grader), runs=["runA"])

    assert rows[1].category == "unsupported" and rows[1].sentence_support == ()


def test_the_command_and_the_api_use_the_sentence_judge_by_default_and_say_so(tmp_path, researcher):
    from api.tokens import issue_token
    from tests.api.conftest import TokenClient

    load_graded_topic(tmp_path)
    out = StringIO()
    call_command("nugget_losses", "--collection", NAME, "--format", "json", stdout=out)
    data = json.loads(out.getvalue())

    assert data["evidence"] == {
        "assignment_judge": "amy",
        "support_judge": "rater",
        "sentence_judge": "grader",
        "k": 10,
        "tau": 3,
    }
    assert data["runs"][0]["counts"] == {
        "retrieval miss": 1,
        "generation drop": 1,
        "unsupported": 0,
        "delivered": 2,
    }
    api = TokenClient(issue_token(researcher, "tests")[1])
    response = api.get(f"/api/v1/collections/{NAME}/nugget-losses/")
    assert response.status_code == 200 and response.json() == data
    response = api.get(f"/api/v1/collections/{NAME}/nugget-losses/", {"sentence_judge": "x"})
    assert response.status_code == 400 and "sentence_judge" in response.json()["errors"]


def test_the_pages_name_the_evidence_and_mark_the_sentence_backed_passage(
    researcher_client, tmp_path
):
    load_graded_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)

    html = researcher_client.get(reverse("nuggets-collection", args=[collection.pk])).content
    html = html.decode()
    evidence = html[html.index('id="nuggets-evidence"') :]
    evidence = evidence[: evidence.index("</p>")]
    assert "grades 2 (supports) for a sentence citing it" in evidence
    assert 'id="nuggets-sentence-judge">grader<' in html

    topic = Topic.objects.get(external_id="t1")
    html = researcher_client.get(
        reverse("nuggets-topic", args=[collection.pk, topic.pk])
    ).content.decode()
    assert 'sentence-citation support from <span class="mono">grader</span>' in html
    row = html[html.index('id="nugget-runa-1"') :]
    row = row[: row.index("</tr>")]
    assert "delivered" in row and "d2" in row and "supports a citing sentence" in row
    assert SUN_SENTENCE in row

    # Without stored grades the page says that ratings alone were used.
    SentenceSupport.objects.all().delete()
    html = researcher_client.get(reverse("nuggets-collection", args=[collection.pk])).content
    assert "no sentence-citation support grades are used" in html.decode()
