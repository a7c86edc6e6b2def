"""What an app plugs into the shared pages, declared as data in its ``AppConfig``.

A paper method's app subclasses ``MethodConfig``; a cross-method app (agreement, leaderboard,
judge report, answers) subclasses ``PluginConfig`` (the same declaration, but not a method: the
architecture tests hold methods to stricter import rules). ``declare`` returns a
``Declaration``; the base ``ready`` registers every entry into the registry of its type
(``crux_app.registry.Registry.of``), so the app writes no registration code.

``declare`` is a method rather than class attributes because ``apps.py`` is imported before the
models are ready: the entries (which name views, forms and loaders) are built inside it, when
``ready`` runs. Example, a method's ``apps.py``::

    from crux_app.method_config import Declaration, MethodConfig


    class NuggetsConfig(MethodConfig):
        name = "evaluation.nuggets"
        label = "nuggets"
        verbose_name = "Nugget evaluation"

        def declare(self) -> Declaration:
            from api.registry import JobForm
            from crux_app.jobs.catalog import JobKind, collection_page
            from crux_app.page_links import PageLink
            # The method's own modules, relative: this module names no method.
            from .forms import NuggetJobForm
            from .leaderboard_columns import COLUMN
            from .topic_summary import SUMMARY

            return Declaration(
                job_kinds=(
                    JobKind(
                        name="nuggets",
                        label="Nugget evaluation",
                        queue="gpu",
                        needs=("generate_answers",),  # kinds whose demo jobs run first
                        results_url=collection_page("nuggets-collection"),
                    ),
                ),
                job_forms=(JobForm("nuggets", NuggetJobForm),),
                page_links=(
                    # after=/before=: keys of links it follows or precedes on the page.
                    PageLink("nuggets-collection", "Nuggets", "nuggets-collection",
                             "collection", after=("leaderboard",)),
                ),
                leaderboard_columns=(COLUMN,),
                topic_summary=SUMMARY,
            )

and one line ``"evaluation.nuggets"`` in ``INSTALLED_APPS``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.apps import AppConfig

from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.jobs.catalog import JobKind
    from crux_app.judge_kinds import JudgeKindLabel
    from crux_app.judge_labels import JudgeLabelSource
    from crux_app.page_links import PageLink
    from crux_app.topic_summaries import TopicSummary


@dataclass(frozen=True)
class Declaration:
    """Everything an app adds to the shared registries; each entry goes to the registry of its
    type. The entry types defined above this module (``api``, ``evaluation``) are named in words
    only: this module imports neither."""

    job_kinds: tuple[JobKind, ...] = ()  # crux_app.jobs.catalog
    # api.registry.JobForm: the page form that validates a kind's parameters for the API's job
    # start.
    job_forms: tuple[object, ...] = ()
    page_links: tuple[PageLink, ...] = ()  # crux_app.page_links
    topic_summary: TopicSummary | None = None  # crux_app.topic_summaries
    judge_kinds: tuple[JudgeKindLabel, ...] = ()  # crux_app.judge_kinds
    judge_labels: tuple[JudgeLabelSource, ...] = ()  # crux_app.judge_labels
    # evaluation.leaderboard.columns: ColumnGroup or RunColumn entries.
    leaderboard_columns: tuple[object, ...] = ()
    # evaluation.agreement.sources: ComparisonSource and ItemTextSource entries.
    agreement_sources: tuple[object, ...] = ()
    api_endpoints: tuple[object, ...] = ()  # api.registry.Endpoint: mounted below /api/v1/
    # annotation.labels.sources.ReviewLabelSource: machine labels for the review queue.
    review_label_sources: tuple[object, ...] = ()
    # annotation.task_types.registry.TaskType: a human task type (parsing, gold, checks,
    # selection, exports, template) that campaigns can be created for.
    annotation_task_types: tuple[object, ...] = ()

    def entries(self) -> Iterator[object]:
        """Every entry, in the order the fields are declared."""
        yield from self.job_kinds
        yield from self.job_forms
        yield from self.page_links
        if self.topic_summary is not None:
            yield self.topic_summary
        yield from self.judge_kinds
        yield from self.judge_labels
        yield from self.leaderboard_columns
        yield from self.agreement_sources
        yield from self.api_endpoints
        yield from self.review_label_sources
        yield from self.annotation_task_types


class PluginConfig(AppConfig):
    """An app that declares entries for the shared registries (``declare``)."""

    # Django takes the one AppConfig subclass of an app's apps.py that is not marked
    # ``default = False``: the bases imported there are marked so, their subclasses are not.
    default = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "default" not in cls.__dict__:
            cls.default = True

    def declare(self) -> Declaration:
        return Declaration()

    def ready(self) -> None:
        for entry in self.declare().entries():
            Registry.of(entry).register(entry, owner=f"app {self.label!r}")


class MethodConfig(PluginConfig):
    """A paper method's app: one folder under ``evaluation/`` that imports no other method.
    The architecture tests find methods by this type among the installed apps."""

    default = False
