"""How the agreement page (and the HTML report) is laid out for reading: a table of contents,
and tasks without data, or whose figures are all undefined for one reason, shown as one line
instead of a row per figure. The numbers themselves are ``presentation``'s rows, unchanged."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NO_DATA = "no data yet: nobody labelled these tasks' items"


@dataclass(frozen=True)
class Row:
    """One figure as shown: ``value_text`` holds the value and its interval, or the reason it
    is undefined; ``value`` keeps full precision for the page's data attributes."""

    section: str
    task: str
    statistic: str
    label: str
    judges: str
    reference: str
    value: float | None
    value_text: str
    interval_text: str
    n: int
    undefined: str | None
    note: str
    extra: dict


@dataclass(frozen=True)
class CollapsedLine:
    """Several figures of one or more tasks shown as one line, with the reason."""

    tasks: tuple[str, ...]
    n_figures: int
    reason: str
    collapsed: bool = True


@dataclass(frozen=True)
class TocEntry:
    id: str
    title: str
    note: str  # e.g. "12 figures", "empty"


def collapse(rows: Sequence[Row], empty_tasks: Iterable[str]) -> list[Row | CollapsedLine]:
    """The section's rows with each empty task's figures folded into one closing line, and a
    task whose figures are all undefined for the same reason folded into a line of its own."""
    empty = set(empty_tasks)
    by_task: dict[str, list[Row]] = {}
    for r in rows:
        by_task.setdefault(r.task, []).append(r)
    out: list[Row | CollapsedLine] = []
    no_data: list[str] = []
    n_no_data = 0
    for task, task_rows in by_task.items():
        reasons = {r.undefined for r in task_rows}
        if task in empty:
            no_data.append(task)
            n_no_data += len(task_rows)
        elif len(task_rows) > 1 and len(reasons) == 1 and None not in reasons:
            out.append(CollapsedLine((task,), len(task_rows), str(reasons.pop())))
        else:
            out.extend(task_rows)
    if no_data:
        out.append(CollapsedLine(tuple(no_data), n_no_data, NO_DATA))
    return out


def figure_note(rows: Sequence[Row]) -> str:
    if not rows:
        return "empty"
    defined = sum(1 for r in rows if r.value is not None)
    return f"{defined} of {len(rows)} figures defined"


def table_of_contents(context: dict[str, object]) -> list[TocEntry]:
    """The report body's sections in page order, each with what it holds."""
    figures = context["figures"]
    headline = context["headline"]
    entries = [
        TocEntry("agreement-what", "What was judged, and by whom", ""),
        TocEntry(
            "agreement-headline",
            "Can the LLM judge replace the annotators?",
            f"{len(headline)} task{'s' if len(headline) != 1 else ''}" if headline else "empty",
        ),
        TocEntry("human-vs-llm", "Human vs LLM judge", figure_note(context["human_vs_llm"])),
    ]
    if context["post_edited_vs_llm"]:
        note = figure_note(context["post_edited_vs_llm"])
        entries.append(TocEntry("post-edited-vs-llm", "Post-edited labels vs LLM judge", note))
    if figures["confusion"]:
        entries.append(
            TocEntry("agreement-confusion", "Confusion matrices", f"{len(figures['confusion'])}")
        )
    for key, title in [
        ("judge_comparison", "Two judges side by side"),
        ("report_coverage", "Report coverage"),
        ("inter_annotator", "Inter-annotator agreement"),
        ("per_annotator", "Per annotator"),
    ]:
        entries.append(TocEntry(key.replace("_", "-"), title, figure_note(context[key])))
    n_disagreements = len(context["report"].disagreements)
    entries.append(TocEntry("agreement-disagreements", "Worst disagreements", f"{n_disagreements}"))
    if context["unavailable_sources"]:
        entries.append(TocEntry("agreement-sources", "Other human judgments", "not available"))
    return entries


SECTIONS = (
    "human_vs_llm",
    "post_edited_vs_llm",
    "judge_comparison",
    "report_coverage",
    "inter_annotator",
    "per_annotator",
)


def layout(context: dict[str, object]) -> dict[str, object]:
    """What the templates read besides the figures: the table of contents, the tasks with and
    without data, and each section's rows with the folded lines (``shown``)."""
    tasks = context["meta"]["tasks"]
    empty = [t["key"] for t in tasks if not t["n_items"]]
    return {
        "toc": table_of_contents(context),
        "tasks_with_data": [t for t in tasks if t["n_items"]],
        "tasks_without_data": [t for t in tasks if not t["n_items"]],
        "shown": {s: collapse(context[s], empty) for s in SECTIONS},
    }
