"""DENSE's human-vs-machine comparison sources for the agreement report.

- ``dense_rephrase``: is chunk i's rephrase faithful? Items are (result, chunk); the machine
  is the NLI judge (entailment both ways between the chunk and its rephrase). The item is the
  chunk's passage.
- ``dense_correctness``: is the original answer r_0 correct? Items are results whose topic
  has gold answers; the machine is lexical match with a gold answer (what the DSE-bin accuracy
  and AUROC figures use). The item is the first chunk's passage.
- ``dense_response``: are responses r_i and r_j equivalent? Items are (result, i, j) for the
  pairs the judge decided (texts that differ); the machine says yes when W[i][j] = 1. The
  item shown for a pair is the passage of chunk j, whose rephrase produced r_j (j >= 1).

Humans are the researchers who answered the forms on the DENSE page (``DenseLabel``); each NLI
model is one machine rater (lexical match is the one machine of ``dense_correctness``). Items
carry no sub-question (id 0).
"""

from __future__ import annotations

import numpy as np

from evaluation.agreement.label_tables import ComparisonSource, LabelQuery, LabelTable, Rater, Scale
from evaluation.dense.models import DenseLabel, DenseResult

YES_NO = ((1.0, "yes"), (0.0, "no"))
NO_SUBQUESTION = 0
LEXICAL = "lexical-match"


def _machine_items(source_key: str, result: DenseResult) -> list[tuple[tuple[int, int], int, bool]]:
    """((i, j), item id, machine decision) of one result."""
    d = result.detail
    if source_key == "dense_correctness":
        ids = d.get("passage_ids", [])
        return [((0, 0), ids[0], result.correct)] if result.correct is not None and ids else []
    if source_key == "dense_rephrase":
        faithful = d.get("rephrase_faithful") or []
        ids = d.get("passage_ids", [])
        return [((n + 1, 0), ids[n], bool(f)) for n, f in enumerate(faithful) if n < len(ids)]
    responses, w, ids = d.get("responses", []), d.get("W", []), d.get("passage_ids", [])
    return [
        ((i, j), ids[j - 1], bool(w[i][j] == 1.0))
        for i in range(len(responses))
        for j in range(i + 1, min(len(responses), len(ids) + 1))
        if responses[i].strip() != responses[j].strip()
    ]


def _machine_rater(n: int, model: str) -> Rater:
    if model == LEXICAL:
        return Rater(-(n + 1), "lexical match with gold", "lexical", LEXICAL)
    return Rater(-(n + 1), f"NLI judge {model}", "nli", model, "dense-b2")


def load_dense_table(query: LabelQuery, source: ComparisonSource) -> LabelTable:
    kind = {
        "dense_correctness": DenseLabel.Kind.ANSWER_CORRECT,
        "dense_rephrase": DenseLabel.Kind.REPHRASE_FAITHFUL,
        "dense_response": DenseLabel.Kind.RESPONSE_EQUIVALENT,
    }[source.key]
    results = list(DenseResult.objects.filter(topic__collection=query.collection).order_by("pk"))
    machine_of = (lambda r: LEXICAL) if source.key == "dense_correctness" else (lambda r: r.nli)
    machines = sorted({machine_of(r) for r in results})
    labels = list(DenseLabel.objects.filter(result__in=results, kind=kind).select_related("judge"))
    judges = sorted({label.judge for label in labels}, key=lambda j: j.name)
    raters = tuple(
        [Rater(j.pk, j.name, j.kind, j.model_id, j.prompt_version, j.user_id) for j in judges]
        + [_machine_rater(n, m) for n, m in enumerate(machines)]
    )
    column = {r.id: c for c, r in enumerate(raters)}
    machine_column = {m: column[-(n + 1)] for n, m in enumerate(machines)}
    rows: dict[tuple[int, int, int], int] = {}
    topic_ids, item_ids, values = [], [], []
    for result in results:
        for (i, j), item, decision in _machine_items(source.key, result):
            rows[(result.pk, i, j)] = len(topic_ids)
            topic_ids.append(result.topic_id)
            item_ids.append(item)
            values.append((machine_column[machine_of(result)], decision))
    ratings = np.full((len(topic_ids), len(raters)), np.nan)
    for row, (col, decision) in enumerate(values):
        ratings[row, col] = float(decision)
    for label in labels:
        row = rows.get((label.result_id, label.i, label.j))
        if row is not None:
            ratings[row, column[label.judge_id]] = float(label.value)
    n = len(topic_ids)
    return LabelTable(
        source=source,
        raters=raters,
        topic_id=np.asarray(topic_ids, dtype=np.int64),
        subquestion_id=np.full(n, NO_SUBQUESTION, dtype=np.int64),
        item_id=np.asarray(item_ids, dtype=np.int64),
        item_kind="passage",
        ratings=ratings,
        times=np.full((n, len(raters)), np.nan),
        unparsable={},
        binarised={},
    )


# Declared in DenseConfig (apps.py).
SOURCES = tuple(
    ComparisonSource(
        key=key,
        title=title,
        scale=Scale.BINARY,
        machine=machine,
        categories=(0.0, 1.0),
        class_names=YES_NO,
        loader=load_dense_table,
    )
    for key, title, machine in (
        ("dense_correctness", "DENSE original answer: is the answer under the retrieved "
         "context correct?", "lexical match with gold"),
        ("dense_rephrase", "DENSE rephrase faithfulness: does the rephrased chunk keep the "
         "original's meaning?", "NLI judge"),
        ("dense_response", "DENSE response equivalence: do two answers under rephrased "
         "contexts mean the same?", "NLI judge"),
    )
)  # fmt: skip
