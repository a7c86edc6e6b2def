"""Which judge a page shows by default (a person who labelled the collection, else the most
complete machine judge), the user's remembered choice, and the words for a judge's kind."""

from dataclasses import dataclass

import pytest

from crux_app.inputs import collection_judges, resolve_judge
from crux_app.judge_choice import (
    SESSION_KEY,
    JudgeParamForm,
    default_judge,
    default_pair,
    remember_judge,
    remembered_judge,
)
from crux_app.judge_kinds import judge_kind_label, judge_prompt, kind_label
from crux_app.models import Judge
from tests.evaluation.crux.degenerate_collection import FLAT, HUMAN, make_flat_collection


@dataclass(frozen=True)
class Candidate:
    id: int
    name: str
    kind: str
    n_judgments: int
    n_topics: int
    degenerate: bool = False


LLM, PERSON = Judge.Kind.LLM.value, Judge.Kind.HUMAN.value


def test_a_person_who_labelled_the_collection_wins_over_a_larger_machine_judge():
    judges = [
        Candidate(1, "embedding", LLM, 770, 10),
        Candidate(2, "distribution", LLM, 760, 10),
        Candidate(3, "expert", PERSON, 790, 10),
    ]
    assert default_judge(judges).name == "expert"
    # Fewer labels than the machine, still more than half of them: still the person.
    judges[2] = Candidate(3, "expert", PERSON, 400, 10)
    assert default_judge(judges).name == "expert"


def test_a_person_who_labelled_a_little_is_not_the_default():
    machine = Candidate(1, "llm", LLM, 770, 10)
    # A few cells rated in the matrix, or some topics only: the most complete machine judge.
    assert default_judge([machine, Candidate(2, "rita", PERSON, 3, 10)]) == machine
    assert default_judge([machine, Candidate(2, "rita", PERSON, 700, 9)]) == machine
    # Between machines, the most complete one; a name breaks a tie.
    other = Candidate(3, "aaa", LLM, 770, 10)
    assert default_judge([machine, other]) == other
    assert default_judge([Candidate(4, "small", LLM, 5, 1), machine]) == machine
    assert default_judge([]) is None


def test_a_remembered_judge_wins_when_it_is_a_candidate():
    judges = [Candidate(1, "llm", LLM, 770, 10), Candidate(2, "expert", PERSON, 790, 10)]
    assert default_judge(judges, remembered=1).name == "llm"
    assert default_judge(judges, remembered=99).name == "expert"  # gone: the rule again


def test_the_session_keeps_one_choice_per_collection():
    session: dict = {}
    assert remembered_judge(session, 1) is None
    remember_judge(session, 1, 7)
    remember_judge(session, 2, 8)
    assert (remembered_judge(session, 1), remembered_judge(session, 2)) == (7, 8)
    remember_judge(session, 1, None)  # "default" chosen: forgotten
    assert remembered_judge(session, 1) is None and remembered_judge(session, 2) == 8
    session[SESSION_KEY] = "garbage"  # a session written by something else reads as nothing
    assert remembered_judge(session, 2) is None


@pytest.mark.django_db
def test_resolve_judge_and_the_commands_default_to_the_person():
    flat = make_flat_collection()
    judges = {j.name: j for j in collection_judges(flat.collection)}
    assert judges[HUMAN].n_topics == 1 and judges[HUMAN].n_judgments == 30
    assert resolve_judge(flat.collection).name == HUMAN
    flat_id = flat.judges[FLAT].pk
    assert resolve_judge(flat.collection, remembered=flat_id).name == FLAT
    assert resolve_judge(flat.collection, FLAT).name == FLAT


@pytest.mark.django_db
def test_the_judge_parameter_is_an_existing_judge():
    judge = Judge.objects.create(name="expert", kind=Judge.Kind.HUMAN)
    assert JudgeParamForm({"judge": str(judge.pk)}).is_valid()
    assert JudgeParamForm({}).is_valid()
    for garbage in ("abc", "99999999", "-1", "1e9", "\x00"):
        assert not JudgeParamForm({"judge": garbage}).is_valid()


@pytest.mark.django_db
def test_the_embedding_baseline_is_no_llm_and_has_no_prompt():
    embedding = Judge.objects.create(
        name="all-MiniLM@cosine-v1",
        kind=Judge.Kind.LLM,
        model_id="all-MiniLM-L6-v2",
        prompt_version="cosine-v1",
    )
    llm = Judge.objects.create(
        name="smol@crux-v1", kind=Judge.Kind.LLM, model_id="smol", prompt_version="crux-v1"
    )
    assert judge_kind_label(embedding) == "embedding baseline" and judge_prompt(embedding) == ""
    assert judge_kind_label(llm) == "LLM" and judge_prompt(llm) == "crux-v1"
    assert kind_label("human") == "human"
    assert judge_kind_label({"kind": "llm", "prompt_version": "cosine-v1"}) == "embedding baseline"


def test_a_nearly_constant_judge_is_never_the_default_while_another_is_there():
    flat = Candidate(1, "aaa-flat", LLM, 900, 10, degenerate=True)
    spread = Candidate(2, "spread", LLM, 100, 10)
    assert default_judge([flat, spread]) == spread
    # Not even a person who labelled the collection, when their labels barely vary.
    person = Candidate(3, "expert", PERSON, 900, 10, degenerate=True)
    assert default_judge([person, spread]) == spread
    # Alone, it is still shown (with the warning beside its numbers).
    assert default_judge([flat]) == flat
    assert default_pair([flat, spread, Candidate(4, "rita", PERSON, 900, 10)]) == (
        spread,
        Candidate(4, "rita", PERSON, 900, 10),
    )


@pytest.mark.django_db
def test_collection_judges_know_a_nearly_constant_judge():
    flat = make_flat_collection()
    judges = {j.name: j for j in collection_judges(flat.collection)}
    assert judges[FLAT].degenerate and not judges[HUMAN].degenerate
    assert dict(judges[FLAT].rating_counts) == {4.0: 29, 5.0: 1}
    assert judges["broken-llm"].n_unparsable == 4


def test_a_people_made_reference_is_never_the_machine_side_of_the_default_pair():
    """An adjudicated or crowd-aggregated judge resolves people's labels: the judge report's
    default pair compares a machine judge with a person, not with the people's own aggregate."""
    for kind in (Judge.Kind.AGGREGATED.value, Judge.Kind.ADJUDICATED.value):
        reference = Candidate(1, "aggregated:ds", kind, 800, 10)
        machine = Candidate(2, "llm", LLM, 700, 10)
        person = Candidate(3, "expert", PERSON, 790, 10)
        assert default_pair([reference, machine, person]) == (machine, person)
