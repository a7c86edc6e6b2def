"""Which judge a page shows when the request names none, and the user's last choice per
collection.

One rule for every page that reads one judge's ratings (leaderboard, coverage matrix, the topic
page's CRUX card, the commands that print the same numbers): the user's last explicit choice on
the collection when that judge is among the candidates; else a person who labelled the
collection (the one with most labels first); else the most complete machine judge (most
labels); else None. A machine judge is not the default while people's labels are there: their
numbers are the reference the machines are read against.

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
HUMAN_SHARE = 0.5  # of the most complete judge's ratings a person's labels must reach


class RatedJudge(Protocol):
    """A candidate judge: who it is and how much of the collection (or topic) it rated."""

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


J = TypeVar("J", bound=RatedJudge)


def is_human(judge: RatedJudge) -> bool:
    return judge.kind in HUMAN_KINDS


def default_judge(judges: Sequence[J], remembered: int | None = None) -> J | None:
    """The judge a page shows when the request names none (see the module's rule)."""
    if not judges:
        return None
    if remembered is not None:
        found = next((j for j in judges if j.id == remembered), None)
        if found is not None:
            return found
    most_topics = max(j.n_topics for j in judges)
    enough = HUMAN_SHARE * max(j.n_judgments for j in judges)
    people = [
        j for j in judges if is_human(j) and j.n_topics >= most_topics and j.n_judgments >= enough
    ]
    # Post-edited labels saw a machine's suggestion: neither the people's reference nor a
    # machine judge, so they are shown by default only when nothing else is there.
    machines = [j for j in judges if not is_human(j) and j.kind != Judge.Kind.POST_EDITED]
    pool = people or machines or list(judges)
    return min(pool, key=lambda j: (-j.n_judgments, j.name))


def default_rule() -> str:
    """The rule, as the selectors' "default" option says it."""
    return "default: a person who labelled the collection, else the most complete machine judge"


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
