"""Qrels as one judge's labels: the judge a qrels file belongs to, and where its labels live.

A TREC qrels file (NIST's assessors, UMBRELA's LLM) is one judge's passage relevance labels.
They are stored as ``PassageQrel`` rows whose ``source`` is the judge's name, beside a ``Judge``
row (kind human or llm, model id and prompt version for an LLM) that says who gave them. So
every page and command that picks a qrels source by name (``crux_app.inputs``
``resolve_qrels_source``, the leaderboard's and ``evaluate``'s qrels choice) can pick a judge's
qrels unchanged, and ``judge_of_source`` tells whether a source is a judge's (and which) rather
than a release's own qrels (``crux_tau3``, ``qa_gold``). They are not ``Judgment`` rows: those
rate a (sub-question, passage) pair on CRUX's 0-5 answerability rubric, while TREC grades rate a
(topic, passage) pair on the track's own relevance scale.
"""

from crux_app.models import Collection, Judge, PassageQrel

from .errors import ImportFailure
from .readers import text_problem

JUDGE_KINDS: tuple[str, ...] = (Judge.Kind.HUMAN.value, Judge.Kind.LLM.value)
MAX_SOURCE_LENGTH = PassageQrel._meta.get_field("source").max_length


def qrels_source(judge_name: str) -> str:
    """The ``PassageQrel.source`` a judge's imported qrels are stored under."""
    return judge_name


def judge_of_source(source: str) -> Judge | None:
    """The judge whose qrels the source holds; None for a release's own qrels."""
    return Judge.objects.filter(name=source).first()


def qrels_judges(collection: Collection) -> list[Judge]:
    """Judges with qrels in the collection, by name."""
    sources = (
        PassageQrel.objects.filter(topic__collection=collection)
        .order_by()
        .values_list("source", flat=True)
        .distinct()
    )
    return list(Judge.objects.filter(name__in=list(sources)).order_by("name"))


def _check_arguments(name: str, kind: str, model_id: str, prompt_version: str, label: str) -> None:
    def fail(reason: str) -> ImportFailure:
        return ImportFailure(label, None, reason)

    if not name:
        raise fail("the qrels need a judge name")
    if len(name) > MAX_SOURCE_LENGTH:
        raise fail(f"judge name is {len(name)} characters long, at most {MAX_SOURCE_LENGTH}")
    for what, value in (
        ("judge name", name),
        ("model id", model_id),
        ("prompt version", prompt_version),
    ):
        problem = text_problem(value)
        if problem:
            raise fail(f"the {what} {problem}")
    if kind not in JUDGE_KINDS:
        raise fail(f"judge kind must be one of {', '.join(JUDGE_KINDS)}, got {kind!r}")
    if kind == Judge.Kind.HUMAN and (model_id or prompt_version):
        raise fail("a human judge has no model id or prompt version")


def _existing(judge: Judge, kind: str, model_id: str, prompt_version: str, label: str) -> Judge:
    def differs(what: str, stored: str, given: str) -> ImportFailure:
        return ImportFailure(
            label, None, f"judge '{judge.name}' exists with {what} {stored!r}, not {given!r}"
        )

    if judge.kind != kind:
        raise differs("kind", judge.kind, kind)
    if model_id and judge.model_id != model_id:
        raise differs("model id", judge.model_id, model_id)
    if prompt_version and judge.prompt_version != prompt_version:
        raise differs("prompt version", judge.prompt_version, prompt_version)
    return judge


def qrels_judge(
    name: str, kind: str, model_id: str, prompt_version: str, label: str
) -> tuple[Judge, bool]:
    """The judge called ``name``, created when new; (judge, created).

    An existing judge must have the same kind (and, where given, model id and prompt version).
    A new LLM judge must not take the (model id, prompt version) of another LLM judge: that
    pair is an LLM judge's identity.
    """
    name, model_id, prompt_version = name.strip(), model_id.strip(), prompt_version.strip()
    _check_arguments(name, kind, model_id, prompt_version, label)
    judge = Judge.objects.filter(name=name).first()
    if judge is not None:
        return _existing(judge, kind, model_id, prompt_version, label), False
    if kind == Judge.Kind.LLM:
        twin = Judge.objects.filter(
            kind=Judge.Kind.LLM, model_id=model_id, prompt_version=prompt_version
        ).first()
        if twin is not None:
            raise ImportFailure(
                label,
                None,
                f"LLM judge '{twin.name}' already has model id {model_id!r} and prompt version "
                f"{prompt_version!r}; give this judge another model id or prompt version",
            )
    judge = Judge.objects.create(
        name=name, kind=kind, model_id=model_id, prompt_version=prompt_version
    )
    return judge, True


def check_source_is_the_judges(collection: Collection, judge: Judge, label: str) -> None:
    """Refuse a new judge whose name is already a qrels source of the collection that no judge
    owns (a release's qrels): its labels would mix with them."""
    source = qrels_source(judge.name)
    taken = PassageQrel.objects.filter(topic__collection=collection, source=source).exists()
    if taken:
        raise ImportFailure(
            label,
            None,
            f"qrels source '{source}' of collection '{collection.name}' holds qrels that are not "
            "a judge's; name the judge otherwise",
        )
