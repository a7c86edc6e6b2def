"""Import the labeling platform's human labels from ``labels/`` (one human judge per prefix).

- ``{judge}_qrels.jsonl`` (passage rating): ``relevances``/``rationales`` keyed ``"0".."n-1"``
  over every sub-question position; -1 means not asked and is not stored. A rating on a
  placeholder position is kept (metrics skip placeholders) so the export is lossless.
- ``{judge}_qlabels.jsonl`` (report coverage): ``answerability`` 0/1 per position become
  judgments of the output named by ``id``, with the position's ``question_based_nugget`` span
  (key ``"NA"`` for placeholders) as rationale; -1/-2 positions are not judgments. The line's
  ``coverage`` is stored verbatim in a CoverageLabel, whose ``extra`` keeps what the export
  needs to rebuild the line exactly (codes of unjudged positions, spans of keys without a
  judged position, int-vs-float coverage, the answerability key's spelling, other fields).
"""

from pathlib import Path

from crux_app.models import CoverageLabel, GeneratedOutput, Judgment

from .collection_store import CollectionStore
from .export_labels import NO_QUESTION, NOT_JUDGED, nugget_keys
from .label_store import JudgmentRow, human_judge, upsert_coverage_labels, upsert_judgments
from .readers import Record, SourceDir, read_jsonl
from .results import ImportResult

QRELS_SUFFIX = "_qrels.jsonl"
QLABELS_SUFFIX = "_qlabels.jsonl"
# The platform's own model wrote "answerabiliy"; the released files say "answerability".
ANSWERABILITY_KEYS = ("answerability", "answerabiliy")
QLABEL_FIELDS = {"id", "question_based_nugget", "coverage", *ANSWERABILITY_KEYS}
MAX_RATING = 5


def import_labels(src: SourceDir, store: CollectionStore, result: ImportResult) -> None:
    """Import every label file in ``labels/`` (absent folder: nothing to do)."""
    folder = src.root / "labels"
    if not folder.is_dir():
        return
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        label = src.label(path)
        if path.name.endswith(QRELS_SUFFIX) and len(path.name) > len(QRELS_SUFFIX):
            _import_qrels(path, label, path.name.removesuffix(QRELS_SUFFIX), store, result)
        elif path.name.endswith(QLABELS_SUFFIX) and len(path.name) > len(QLABELS_SUFFIX):
            _import_qlabels(path, label, path.name.removesuffix(QLABELS_SUFFIX), store, result)
        else:
            result.warn(f"{label}: ignored (not a {{judge}}_qrels.jsonl or _qlabels.jsonl file)")


def _rating(record: Record, name: str, value: object, allowed: range) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise record.fail(f"{name} must be an integer, got {value!r}")
    if value not in allowed:
        raise record.fail(f"{name} must be {allowed.start}..{allowed.stop - 1}, got {value}")
    return value


def _import_qrels(path: Path, label: str, judge_name: str, store, result) -> None:
    judge = human_judge(judge_name, label)
    seen: dict[tuple[str, str], int] = {}
    judgments: list[JudgmentRow] = []
    for record in read_jsonl(path, label):
        qid = record.field("id", str)
        pid = record.field("document", str)
        relevances = record.field("relevances", dict)
        rationales = record.field("rationales", dict)
        topic_id = store.topic_ids.get(qid)
        if topic_id is None:
            raise record.fail(f"unknown topic '{qid}'")
        passage_id = store.passage_ids.get(pid)
        if passage_id is None:
            raise record.fail(f"unknown passage '{pid}' (not a document, run or context passage)")
        if (qid, pid) in seen:
            raise record.fail(f"duplicate line for ({qid}, {pid}), first at line {seen[qid, pid]}")
        seen[qid, pid] = record.line
        subquestions = store.subquestions(topic_id)
        keys = [str(i) for i in range(len(subquestions))]
        for name, mapping in (("relevances", relevances), ("rationales", rationales)):
            if set(mapping) != set(keys):
                raise record.fail(
                    f"{name} must have the keys '0'..'{len(keys) - 1}', one per sub-question "
                    f"of topic '{qid}'; got {len(mapping)} keys"
                )
        rated = 0
        for sq, key in zip(subquestions, keys, strict=True):
            rating = _rating(record, f"relevances['{key}']", relevances[key], range(-1, 6))
            rationale = rationales[key]
            if not isinstance(rationale, str):
                raise record.fail(f"rationales['{key}'] must be a string")
            if rating == NOT_JUDGED:
                if rationale:
                    raise record.fail(f"rationales['{key}'] is given but relevances['{key}'] is -1")
                continue
            rated += 1
            judgments.append(
                JudgmentRow(
                    topic_id, sq.id, passage_id, Judgment.Task.PASSAGE_RATING, rating, rationale
                )
            )
        if not rated:
            result.warn(f"{label}:{record.line}: no sub-question rated; the line is not stored")
    upsert_judgments(judge, judgments, "passage")
    result.add("human passage judgments", len(judgments))


def _import_qlabels(path: Path, label: str, judge_name: str, store, result) -> None:
    judge = human_judge(judge_name, label)
    outputs = {
        ext: (pk, topic_id)
        for ext, pk, topic_id in GeneratedOutput.objects.filter(
            collection=store.collection
        ).values_list("external_id", "id", "topic_id")
    }
    seen: dict[str, int] = {}
    judgments: list[JudgmentRow] = []
    labels: list[CoverageLabel] = []
    for record in read_jsonl(path, label):
        output_ext = record.field("id", str)
        nugget = record.field("question_based_nugget", dict)
        key = next((k for k in ANSWERABILITY_KEYS if k in record.data), ANSWERABILITY_KEYS[0])
        answerability = record.field(key, list)
        coverage = record.field("coverage", int, float, type(None))
        if output_ext not in outputs:
            raise record.fail(f"unknown output id '{output_ext}' (not in the report files)")
        if output_ext in seen:
            raise record.fail(f"duplicate id '{output_ext}', first at line {seen[output_ext]}")
        seen[output_ext] = record.line
        output_id, topic_id = outputs[output_ext]
        subquestions = store.subquestions(topic_id)
        if len(answerability) != len(subquestions):
            raise record.fail(
                f"{key} has {len(answerability)} values but the topic of '{output_ext}' has "
                f"{len(subquestions)} sub-questions"
            )
        keys = nugget_keys([(sq.text, sq.is_placeholder) for sq in subquestions])
        _check_nugget(record, nugget, list(dict.fromkeys(keys)))
        unjudged: dict[str, int] = {}
        judged_keys: set[str] = set()
        for position, (sq, value, nugget_key) in enumerate(
            zip(subquestions, answerability, keys, strict=True)
        ):
            value = _rating(record, f"{key}[{position}]", value, range(NO_QUESTION, 2))
            if value in (NO_QUESTION, NOT_JUDGED):
                unjudged[str(position)] = value
                continue
            judged_keys.add(nugget_key)
            judgments.append(
                JudgmentRow(
                    topic_id,
                    sq.id,
                    output_id,
                    Judgment.Task.REPORT_COVERAGE,
                    value,
                    nugget[nugget_key],
                )
            )
        extra: dict = {"unjudged": unjudged}
        spans = {k: v for k, v in nugget.items() if k not in judged_keys}
        if spans:
            extra["spans"] = spans
        if isinstance(coverage, int):
            extra["coverage_is_int"] = True
        if key != ANSWERABILITY_KEYS[0]:
            extra["answerability_key"] = key
        others = {k: v for k, v in record.data.items() if k not in QLABEL_FIELDS}
        if others:
            extra["other_fields"] = others
        labels.append(
            CoverageLabel(judge=judge, output_id=output_id, coverage=coverage, extra=extra)
        )
    upsert_judgments(judge, judgments, "output")
    upsert_coverage_labels(labels)
    result.add("human coverage judgments", len(judgments))
    result.add("coverage labels", len(labels))


def _check_nugget(record: Record, nugget: dict, expected: list[str]) -> None:
    """The nugget's keys must be the topic's questions in order ("NA" once for placeholders)."""
    got = list(nugget)
    if got != expected:
        at = next(
            (i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
            min(len(got), len(expected)),
        )
        found = repr(got[at][:60]) if at < len(got) else "nothing"
        wanted = repr(expected[at][:60]) if at < len(expected) else "no more keys"
        raise record.fail(
            f"question_based_nugget key {at} is {found}, expected {wanted} "
            "(the keys must be the topic's sub-questions in order)"
        )
    for key, span in nugget.items():
        if not isinstance(span, str):
            raise record.fail(f"question_based_nugget[{key[:60]!r}] must be a string")
