"""The CRUX platform sample with two LLM judges added, and the label vectors read straight from
the sample's files (not through the app) for independent computations in the tests.

The LLM judges' labels are functions of (passage number, sub-question position) so the tests
can compute them again without the database:
- ``llama@v1`` rates every passage of a topic on every real sub-question: 5 where the position
  is a multiple of 3 and the passage number a multiple of 4, else (position + number) % 3. So
  its answerable set is every real position that is a multiple of 3. It labels reports 0/1.
- ``llama@v2`` rates only the passages the humans rated, (position * number) % 6, one of them
  unparsable; it labels reports 0-5 (read as answered when >= tau = 3).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management import call_command

from crux_app.models import Collection, GeneratedOutput, Judge, Judgment, Passage, SubQuestion

COLLECTION = "crux-sample"
V1, V2 = "llama@v1", "llama@v2"
TAU = 3
UNPARSABLE = ("duc04-testb-3", "duc04-testb-3:3#10", 0)  # (topic, passage, position) of v2


def number(passage: str) -> int:
    return int(passage.rsplit("#", 1)[1])


def v1_rating(passage: str, position: int) -> int:
    n = number(passage)
    return 5 if position % 3 == 0 and n % 4 == 0 else (position + n) % 3


def v2_rating(passage: str, position: int) -> int:
    return (position * number(passage)) % 6


def v1_report(output: str, position: int) -> int:
    return (len(output) + position) % 2


def v2_report(output: str, position: int) -> int:
    return (len(output) * 3 + position * 2) % 6


def placeholders(sample: Path) -> dict[str, set[int]]:
    """Topic -> positions without a question (from oracle.jsonl's unprefixed lines)."""
    out = {}
    for line in (sample / "oracle.jsonl").read_text().splitlines():
        record = json.loads(line)
        questions = record["questions"]
        questions = json.loads(questions) if isinstance(questions, str) else questions
        out.setdefault(record["qid"], {i for i, q in enumerate(questions) if q is None})
    return out


def human_passage_labels(sample: Path, annotator: str) -> dict[tuple[str, str, int], int]:
    """(topic, passage, position) -> rating, from labels/{annotator}_qrels.jsonl."""
    holes = placeholders(sample)
    out = {}
    for line in (sample / "labels" / f"{annotator}_qrels.jsonl").read_text().splitlines():
        record = json.loads(line)
        for key, rating in record["relevances"].items():
            if rating >= 0 and int(key) not in holes[record["id"]]:
                out[(record["id"], record["document"], int(key))] = rating
    return out


def human_report_labels(sample: Path, annotator: str) -> dict[tuple[str, int], int]:
    """(output id, position) -> 0/1, from labels/{annotator}_qlabels.jsonl."""
    out = {}
    for line in (sample / "labels" / f"{annotator}_qlabels.jsonl").read_text().splitlines():
        record = json.loads(line)
        for position, value in enumerate(record["answerability"]):
            if value in (0, 1):
                out[(record["id"], position)] = value
    return out


def topic_passages(sample: Path, topic: str) -> list[str]:
    return sorted(p.name for p in (sample / "documents").iterdir() if p.name.startswith(topic))


def load(sample: Path) -> Collection:
    """Import the sample, then add the two LLM judges' judgments through the ORM."""
    call_command("import_crux_labeling", "--collection", COLLECTION, str(sample), verbosity=0)
    collection = Collection.objects.get(name=COLLECTION)
    v1 = Judge.objects.create(name=V1, kind="llm", model_id="llama", prompt_version="v1")
    v2 = Judge.objects.create(name=V2, kind="llm", model_id="llama", prompt_version="v2")
    passages = dict(Passage.objects.filter(collection=collection).values_list("external_id", "pk"))
    subquestions = {
        (sq.topic.external_id, sq.position): sq
        for sq in SubQuestion.objects.filter(
            topic__collection=collection, is_placeholder=False
        ).select_related("topic")
    }
    rows = []
    for (topic, position), sq in subquestions.items():
        for passage in topic_passages(sample, topic):
            rows.append(
                Judgment(
                    judge=v1,
                    topic=sq.topic,
                    subquestion=sq,
                    passage_id=passages[passage],
                    task="passage_rating",
                    rating=v1_rating(passage, position),
                )
            )
    rated = set(human_passage_labels(sample, "annotator1"))
    rated |= set(human_passage_labels(sample, "annotator2"))
    for topic, passage, position in sorted(rated):
        sq = subquestions[(topic, position)]
        rating = None if (topic, passage, position) == UNPARSABLE else v2_rating(passage, position)
        rows.append(
            Judgment(
                judge=v2,
                topic=sq.topic,
                subquestion=sq,
                passage_id=passages[passage],
                task="passage_rating",
                rating=rating,
                raw_output="Rating: unsure" if rating is None else str(rating),
            )
        )
    for output in GeneratedOutput.objects.filter(collection=collection).select_related("topic"):
        for (topic, position), sq in subquestions.items():
            if topic != output.topic.external_id:
                continue
            for judge, fn in ((v1, v1_report), (v2, v2_report)):
                rows.append(
                    Judgment(
                        judge=judge,
                        topic=sq.topic,
                        subquestion=sq,
                        output=output,
                        task="report_coverage",
                        rating=fn(output.external_id, position),
                    )
                )
    Judgment.objects.bulk_create(rows)
    return collection
