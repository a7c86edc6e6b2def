"""The three formats written back out, one JSON object per line as the nuggetizer writes them
(``json.dumps`` with its defaults, keys in the nuggetizer's order), so its readers and its
scorer take the files unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator

from crux_app.models import Collection, GeneratedOutput, Judge
from evaluation.nuggets.models import AnswerSentence, Nugget, NuggetAssignment


def json_line(item: dict) -> str:
    """One line as the nuggetizer writes it."""
    return json.dumps(item) + "\n"


def nugget_objects(collection: Collection) -> Iterator[dict]:
    nuggets = (
        Nugget.objects.filter(topic__collection=collection)
        .select_related("topic")
        .order_by("topic__external_id", "position")
    )
    topic, items = None, []
    for nugget in nuggets:
        if topic is not None and nugget.topic_id != topic.pk:
            yield {"qid": topic.external_id, "query": topic.request, "nuggets": items}
            items = []
        topic = nugget.topic
        items.append({"text": nugget.text, "importance": nugget.importance})
    if topic is not None:
        yield {"qid": topic.external_id, "query": topic.request, "nuggets": items}


def answer_objects(collection: Collection) -> Iterator[dict]:
    outputs = (
        GeneratedOutput.objects.filter(collection=collection, sentences__isnull=False)
        .distinct()
        .select_related("topic", "run")
        .prefetch_related("context__passage")
        .order_by("system", "topic__external_id")
    )
    for output in outputs:
        sentences = AnswerSentence.objects.filter(output=output).order_by("position")
        item = {
            "run_id": output.run.name if output.run else output.system,
            "topic_id": output.topic.external_id,
            "topic": output.topic.request,
            "references": [c.passage.external_id for c in output.context.all()],
        }
        if "response_length" in output.metadata:
            item["response_length"] = output.metadata["response_length"]
        item["answer"] = [{"text": s.text, "citations": s.citations} for s in sentences]
        yield item


def assignment_objects(collection: Collection, judge: Judge) -> Iterator[dict]:
    rows = (
        NuggetAssignment.objects.filter(judge=judge, output__collection=collection)
        .select_related("nugget", "output__topic", "output__run")
        .order_by("output__system", "output__topic__external_id", "nugget__position")
    )
    output, items = None, []
    for row in rows:
        if output is not None and row.output_id != output.pk:
            yield _assigned(output, items)
            items = []
        output = row.output
        items.append(
            {
                "text": row.nugget.text,
                "importance": row.nugget.importance,
                "assignment": row.assignment,
            }
        )
    if output is not None:
        yield _assigned(output, items)


def _assigned(output: GeneratedOutput, items: list[dict]) -> dict:
    run = output.run.name if output.run else output.system
    return {"qid": output.topic.external_id, "run_id": run, "nuggets": items}
