"""Which judge a page shows when the request names none, and the user's last choice per
collection.

One rule for every page that reads one judge's ratings (leaderboard, coverage matrix, the topic
page's CRUX card, the judge report's pair, the commands that print the same numbers): the
user's last explicit choice on the collection when that judge is among the candidates; else a
person who labelled the collection (the one with most labels first); else the most informative
machine judge; else None. A machine judge is not the default while people's labels are there:
their numbers are the reference the machines are read against. A judge whose ratings barely
tell the items apart (``crux_app.vocabulary.nearly_constant``: the warnings' own test) is never
the default while another judge is there, person or machine: its numbers look decisive and say
nothing. "Most informative" is: not nearly constant, then the most ratings, then by name.

A person "labelled the collection" when they rated passages on every topic any judge rated
and gave at least ``HUMAN_SHARE`` as many ratings as the most complete judge: a researcher who
rated a few cells of a matrix has not, and a page reading only their ratings would show almost
every item unjudged.

The last choice is kept in the user's session (``SESSION_KEY``: collection id -> judge id), so
it follows the login, needs no table, and is forgotten at logout.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any, Protocol, TypeVar

from django import forms

from crux_app.models import Judge

SESSION_KEY = "judge_by_collection"
# The kinds that stand for people (the Judge model calls every person "human": experts,
# annotators and researchers who label alike).
HUMAN_KINDS = frozenset({Judge.Kind.HUMAN.value})
# People's labels resolved into one reference (a reviewer's adjudication, a crowd model's
# aggregate): no machine judge, so never the machine side of a default pair.
REFERENCE_KINDS = frozenset({Judge.Kind.ADJUDICATED.value, Judge.Kind.AGGREGATED.value})
MACHINE_KINDS = (
    frozenset(Judge.Kind.values) - HUMAN_KINDS - REFERENCE_KINDS - {Judge.Kind.POST_EDITED.value}
)
HUMAN_SHARE = 0.5  # of the most complete judge's ratings a person's labels must reach


class RatedJudge(Protocol):
    """A candidate judge: who it is, how much of the collection (or topic) it rated, and
    whether its ratings are nearly constant."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def n_judgments(self) -> int: ...

    @property
    def n_topics(self) -> int: ...

    @property
    def degenerate(self) -> bool: ...


J = TypeVar("J", bound=RatedJudge)

PERSON, MACHINE, OTHER = range(3)  # the tiers of the rule, first preferred


def is_human(judge: RatedJudge) -> bool:
    return judge.kind in HUMAN_KINDS


def is_machine(judge: RatedJudge) -> bool:
    """A machine judge (an LLM, an embedder, an ensemble...): a judge of neither a person's kind,
    a people-made reference (adjudicated, aggregated) nor a person who saw a machine's
    suggestion (a qrels source is no judge at all)."""
    return judge.kind in MACHINE_KINDS


def ranked_judges(judges: Sequence[J]) -> list[J]:
    """``judges`` in the order of the module's rule, the default first: not nearly constant
    before nearly constant; then people who labelled the collection, machine judges, the rest
    (people with a few labels, post-edited labels: neither the people's reference nor a machine
    judge, so shown by default only when nothing else is there); then most ratings, by name."""
    if not judges:
        return []
    most_topics = max(j.n_topics for j in judges)
    enough = HUMAN_SHARE * max(j.n_judgments for j in judges)

    def tier(j: J) -> int:
        if is_human(j) and j.n_topics >= most_topics and j.n_judgments >= enough:
            return PERSON
        return MACHINE if is_machine(j) else OTHER

    return sorted(judges, key=lambda j: (bool(j.degenerate), tier(j), -j.n_judgments, j.name))


def default_judge(judges: Sequence[J], remembered: int | None = None) -> J | None:
    """The judge a page shows when the request names none (see the module's rule)."""
    if remembered is not None:
        found = next((j for j in judges if j.id == remembered), None)
        if found is not None:
            return found
    ranked = ranked_judges(judges)
    return ranked[0] if ranked else None


def default_pair(judges: Sequence[J]) -> tuple[J, J] | None:
    """Two judges to compare by default (the judge report): the first machine judge of the
    rule's order against the first person, else the rule's first two; None under two."""
    ranked = ranked_judges(judges)
    machine = next((j for j in ranked if is_machine(j)), None)
    person = next((j for j in ranked if is_human(j)), None)
    if machine is not None and person is not None:
        return machine, person
    return (ranked[0], ranked[1]) if len(ranked) >= 2 else None


def default_rule() -> str:
    """The rule, as the selectors' "default" option says it."""
    return (
        "default: a person who labelled the collection, else the most informative machine "
        "judge; never a nearly constant one while another is there"
    )


def remembered_judge(session: MutableMapping[str, Any], collection_id: int) -> int | None:
    """The judge id the user last chose on this collection (None: never, or forgotten)."""
    chosen = session.get(SESSION_KEY)
    if not isinstance(chosen, dict):
        return None
    value = chosen.get(str(collection_id))
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def remember_judge(
    session: MutableMapping[str, Any], collection_id: int, judge_id: int | None
) -> None:
    """Keep the user's explicit choice on this collection (None forgets it: back to default)."""
    chosen = session.get(SESSION_KEY)
    chosen = dict(chosen) if isinstance(chosen, dict) else {}
    key = str(collection_id)
    if judge_id is None:
        if key not in chosen:
            return
        chosen.pop(key)
    elif chosen.get(key) == judge_id:
        return
    else:
        chosen[key] = judge_id
    session[SESSION_KEY] = chosen  # a new dict: the session sees the change and saves it


class JudgeParamForm(forms.Form):
    """A page's optional ``judge`` GET parameter: an existing judge's id (garbage is refused)."""

    judge = forms.ModelChoiceField(queryset=Judge.objects.all(), required=False)

    def judge_id(self) -> int | None:
        """The named judge's id (call after is_valid()); None when the request names none."""
        judge = self.cleaned_data.get("judge")
        return judge.pk if judge is not None else None


def page_judge(
    session: MutableMapping[str, Any], collection_id: int, form: JudgeParamForm
) -> int | None:
    """The judge a page asks for: the valid form's judge (then remembered for the collection),
    else the user's remembered choice, else None (the default)."""
    named = form.judge_id()
    if named is not None:
        remember_judge(session, collection_id, named)
        return named
    return remembered_judge(session, collection_id)
