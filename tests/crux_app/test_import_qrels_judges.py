"""import_qrels and judges: human and LLM judges, their identities, and a judge's name that is
already a release's qrels source."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Judge, PassageQrel, Topic

from .trec_inputs import command_fails, trec_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def trec(tmp_path) -> dict:
    files = trec_files(tmp_path / "trec")
    call_command("import_topics", "--collection", "trec", str(files["topics"]), stdout=StringIO())
    call_command(
        "import_passages", "--collection", "trec", str(files["passages"]), stdout=StringIO()
    )
    return files


def importing(path, *options: str) -> None:
    call_command("import_qrels", "--collection", "trec", *options, str(path), stdout=StringIO())


def refused(path, *options: str, message: str) -> None:
    command_fails("import_qrels", "--collection", "trec", *options, str(path), message=message)


def test_an_existing_judge_of_another_kind_is_refused(trec):
    importing(trec["nist"], "--judge", "nist", "--kind", "human")
    refused(
        trec["umbrela"],
        "--judge",
        "nist",
        "--kind",
        "llm",
        message=f"{trec['umbrela']}: judge 'nist' exists with kind 'human', not 'llm'",
    )


def test_an_existing_llm_judge_with_another_model_is_refused(trec):
    importing(trec["umbrela"], "--judge", "umbrela", "--kind", "llm", "--model-id", "gpt-4o")
    importing(trec["umbrela"], "--judge", "umbrela", "--kind", "llm")  # model id may be left out
    refused(
        trec["umbrela"],
        "--judge=umbrela",
        "--kind=llm",
        "--model-id=llama-3",
        message=f"{trec['umbrela']}: judge 'umbrela' exists with model id 'gpt-4o', not 'llama-3'",
    )


def test_a_human_judge_has_no_model_id(trec):
    refused(
        trec["nist"],
        "--judge=nist",
        "--kind=human",
        "--model-id=gpt-4o",
        message=f"{trec['nist']}: a human judge has no model id or prompt version",
    )


def test_two_llm_judges_are_told_apart_by_model_id_and_prompt_version(trec):
    importing(trec["umbrela"], "--judge", "umbrela", "--kind", "llm", "--model-id", "gpt-4o")
    refused(
        trec["nist"],
        "--judge=other",
        "--kind=llm",
        "--model-id=gpt-4o",
        message=f"{trec['nist']}: LLM judge 'umbrela' already has model id 'gpt-4o' and prompt "
        "version ''; give this judge another model id or prompt version",
    )
    importing(
        trec["nist"],
        "--judge",
        "other",
        "--kind",
        "llm",
        "--model-id",
        "gpt-4o",
        "--prompt-version",
        "my-prompt-v2",
    )
    assert Judge.objects.get(name="other").prompt_version == "my-prompt-v2"


def test_an_app_judge_can_receive_qrels(trec):
    """A judge that already rated passages in the app (an account's, or an LLM's) keeps its row."""
    judge = Judge.objects.create(name="gpt-4o@umbrela-v1", kind="llm", model_id="gpt-4o")
    importing(trec["umbrela"], "--judge", "gpt-4o@umbrela-v1", "--kind", "llm")
    assert Judge.objects.get(pk=judge.pk).name == "gpt-4o@umbrela-v1"
    assert PassageQrel.objects.filter(source="gpt-4o@umbrela-v1").count() == 6


def test_a_new_judge_may_not_join_a_releases_qrels_source(trec):
    topic = Topic.objects.get(external_id="101")
    PassageQrel.objects.create(topic=topic, passage=topic.collection.passages.first(), grade=1)
    refused(
        trec["nist"],
        "--judge=imported",
        "--kind=human",
        message=f"{trec['nist']}: qrels source 'imported' of collection 'trec' holds qrels that "
        "are not a judge's; name the judge otherwise",
    )


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (["--judge=   ", "--kind=human"], "the qrels need a judge name"),
        (
            ["--judge=" + "j" * 101, "--kind=human"],
            "judge name is 101 characters long, at most 100",
        ),
    ],
)
def test_bad_judge_names(trec, options, reason):
    refused(trec["nist"], *options, message=f"{trec['nist']}: {reason}")


def test_kind_must_be_human_or_llm(trec):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="invalid choice: 'robot'"):
        call_command("import_qrels", "--collection=trec", "--judge=x", "--kind=robot", "f")
