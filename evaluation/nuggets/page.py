"""What the nugget pages show, built from stored rows (no model calls): the collection's scores,
stacked bars and per-topic counts, and one topic's drill-down to nuggets, passages, sentences."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from crux_app.models import Collection, GeneratedOutput, Judge, Passage, Topic
from evaluation.nuggets.judge_warnings import (
    ASSIGNMENTS,
    GRADES,
    RATINGS,
    Labels,
    default_of,
    nugget_warnings,
)
from evaluation.nuggets.losses import (
    LossSettings,
    NuggetLoss,
    RunLosses,
    losses_figure,
    nugget_losses,
    run_losses,
    sentence_judges,
    support_judges,
)
from evaluation.nuggets.method.attribution import CATEGORIES, category_counts
from evaluation.nuggets.models import AnswerSentence, Nugget, NuggetEdit
from evaluation.nuggets.params import LossParams
from evaluation.nuggets.run_scores import RunScore, assignment_judges, run_scores
from evaluation.shared.degenerate import JudgeWarning


@dataclass(frozen=True)
class Choice:
    judges: list[Judge]
    support_judges: list[Judge]
    settings: LossSettings | None  # None: no judge has assigned nuggets here
    sentence_judges: list[Judge] = field(default_factory=list)


def _named(
    collection: Collection, judges: list[Judge], name: str | None, labels: Labels
) -> Judge | None:
    """The judge of that name, or (no name given) the one rule's default
    (``crux_app.judge_choice``: a person, else the most informative machine judge)."""
    found = next((j for j in judges if j.name == name), None)
    return found if found is not None else default_of(collection, judges, labels)


def choose(collection: Collection, data: dict, params: LossParams) -> Choice:
    judges, supports = assignment_judges(collection), support_judges(collection)
    graders = sentence_judges(collection)
    judge = _named(collection, judges, data.get("judge"), ASSIGNMENTS)
    settings = None
    if judge is not None:
        settings = LossSettings(
            judge,
            _named(collection, supports, data.get("support_judge"), RATINGS),
            params.k,
            params.tau,
            _named(collection, graders, data.get("sentence_judge"), GRADES),
        )
    return Choice(judges, supports, settings, graders)


@dataclass(frozen=True)
class TopicCounts:
    topic: Topic
    counts: dict[str, dict[str, int]]  # run -> category -> vital nuggets


@dataclass
class CollectionPage:
    collection: Collection
    choice: Choice
    scores: list[RunScore] = field(default_factory=list)
    losses: list[RunLosses] = field(default_factory=list)
    topics: list[TopicCounts] = field(default_factory=list)
    figure: dict = field(default_factory=dict)
    nuggets: int = 0
    warnings: list[JudgeWarning] = field(default_factory=list)  # nearly constant judges

    @property
    def categories(self) -> tuple[str, ...]:
        return CATEGORIES

    @property
    def runs(self) -> list[str]:
        return [r.run for r in self.losses]


def collection_page(collection: Collection, choice: Choice) -> CollectionPage:
    page = CollectionPage(collection, choice)
    page.nuggets = Nugget.objects.filter(topic__collection=collection).count()
    settings = choice.settings
    if settings is None:
        return page
    page.warnings = nugget_warnings(collection, settings)
    page.scores = run_scores(collection, settings.judge)
    rows = nugget_losses(collection, settings)
    page.losses = run_losses(rows, settings.judge.kind == Judge.Kind.HUMAN)
    page.figure = losses_figure(page.losses)
    by_topic: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_topic[row.topic_pk][row.run].append(row.category)
    topics = Topic.objects.filter(pk__in=list(by_topic)).order_by("external_id")
    page.topics = [
        TopicCounts(t, {run: category_counts(c) for run, c in sorted(by_topic[t.pk].items())})
        for t in topics
    ]
    return page


@dataclass(frozen=True)
class SentenceView:
    position: int
    text: str
    cited: tuple[str, ...]  # docids


@dataclass(frozen=True)
class NuggetView:
    loss: NuggetLoss
    passages: list[Passage]  # the supporting passages the run retrieved or cited, or backing
    # the nugget through a sentence
    sentences: list[SentenceView]  # the sentences that cite one of them


@dataclass(frozen=True)
class RunView:
    run: str
    output: GeneratedOutput
    sentences: list[SentenceView]
    nuggets: list[NuggetView]


@dataclass
class TopicPage:
    topic: Topic
    choice: Choice
    nuggets: list[Nugget]
    runs: list[RunView] = field(default_factory=list)
    edits: list[NuggetEdit] = field(default_factory=list)  # adopted post-edits, oldest first
    warnings: list[JudgeWarning] = field(default_factory=list)  # nearly constant judges


def _sentences(output: GeneratedOutput) -> list[SentenceView]:
    docids = [c.passage.external_id for c in output.context.order_by("position")]
    return [
        SentenceView(
            s.position,
            s.text,
            tuple(docids[i] for i in s.citations if 0 <= i < len(docids)),
        )
        for s in AnswerSentence.objects.filter(output=output).order_by("position")
    ]


def topic_page(topic: Topic, choice: Choice) -> TopicPage:
    page = TopicPage(topic, choice, list(Nugget.objects.filter(topic=topic).order_by("position")))
    page.edits = list(NuggetEdit.objects.filter(topic=topic).select_related("user"))
    if choice.settings is None:
        return page
    page.warnings = nugget_warnings(topic.collection, choice.settings, "#nuggets-evidence")
    rows = nugget_losses(topic.collection, choice.settings, topic_pk=topic.pk)
    by_output: dict[int, list[NuggetLoss]] = defaultdict(list)
    for row in rows:
        by_output[row.output_pk].append(row)
    outputs = GeneratedOutput.objects.filter(pk__in=list(by_output)).select_related("run")
    for output in sorted(outputs, key=lambda o: o.run.name if o.run else o.system):
        sentences = _sentences(output)
        views = []
        for loss in by_output[output.pk]:
            docids = (
                set(loss.retrieved_support) | set(loss.cited_support) | set(loss.sentence_support)
            )
            passages = list(
                Passage.objects.filter(
                    collection=topic.collection, external_id__in=docids
                ).order_by("external_id")
            )
            citing = [s for s in sentences if docids & set(s.cited)]
            views.append(NuggetView(loss, passages, citing))
        run = output.run.name if output.run else output.system
        page.runs.append(RunView(run, output, sentences, views))
    return page
