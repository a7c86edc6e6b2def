"""Answer-equivalence validation (SePer Table 1): our scorers against human labels (EVOUNA).

The EVOUNA layout is a JSON list of records with ``question``, ``golden_answer`` (gold answers
joined by '/'), and per system a pair ``answer_<system>`` / ``judge_<system>``. A judgement is
a boolean or the string "True" / "False"; any other value (None, "nan", ...) means not judged.
Records whose ``improper`` is true or "True" are skipped. A judged pair whose answer is null
is not usable either (counted with the unjudged ones).

Scorers, each deciding "equivalent" per (question, gold answers, answer):
- ``entailment``: max_j k(answer, gold_j) >= threshold, k(r, a) = max(E(r, a), E(a, r)) the
  SePer kernel on the NLI model, both texts prefixed with the question. The threshold
  (default 0.5) is where the entailment probability of either direction becomes the more
  likely reading; the paper gives no other value.
- ``lexical_match``: a normalised gold occurs in the normalised answer (EVOUNA's baseline).
- ``exact_match``: the normalised answer equals a normalised gold.
Each is compared with the human labels by F1 (positive class: equivalent) and accuracy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, f1_score

from crux_app.csv_safety import safe_frame
from evaluation.backends.base import NLIModel
from evaluation.backends.nli_pairs import NLIPairTable
from evaluation.seper.method.kernel import entailment_kernel
from evaluation.shared.lexical_match import exact_match, lexical_match

DEFAULT_THRESHOLD = 0.5
SCORERS = ("entailment", "lexical_match", "exact_match")
ANSWER_PREFIX, JUDGE_PREFIX = "answer_", "judge_"


class EvounaFormatError(ValueError):
    """The file is not in the EVOUNA layout; the message names file, record and field."""


@dataclass(frozen=True)
class JudgedAnswer:
    record: int  # index in the file's list
    system: str
    question: str
    golds: tuple[str, ...]
    answer: str
    human: bool  # the human label: equivalent to a gold answer


@dataclass(frozen=True)
class EvounaData:
    source: str
    records: int
    improper: int  # records skipped as improper
    systems: tuple[str, ...]  # in order of first appearance
    judged: tuple[JudgedAnswer, ...]
    unusable: dict[str, int]  # per system: pairs not judged, or judged without an answer


def parse_judgement(value: object) -> bool | None:
    """True / False for a boolean or the string "True" / "False"; None = not judged."""
    if isinstance(value, bool):
        return value
    if value == "True":
        return True
    if value == "False":
        return False
    return None


def _is_improper(value: object) -> bool:
    return value is True or value == "True"


def split_golds(value: str) -> tuple[str, ...]:
    """The gold answers of a '/'-joined ``golden_answer`` (blank parts dropped)."""
    return tuple(part.strip() for part in value.split("/") if part.strip())


def read_evouna(path: str | Path) -> EvounaData:
    """Parse an EVOUNA-layout JSON file, or raise EvounaFormatError naming the problem."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvounaFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise EvounaFormatError(f"{path}: not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise EvounaFormatError(
            f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    return parse_evouna(data, str(path))


def parse_evouna(data: object, source: str) -> EvounaData:
    if not isinstance(data, list):
        raise EvounaFormatError(f"{source}: expected a JSON list of records")
    systems: dict[str, None] = {}
    judged: list[JudgedAnswer] = []
    unusable: dict[str, int] = {}
    improper = 0
    for index, record in enumerate(data):
        where = f"{source}: record {index}"
        if not isinstance(record, dict):
            raise EvounaFormatError(f"{where}: expected an object, got {type(record).__name__}")
        names = _system_names(record, where)
        systems.update(dict.fromkeys(names))
        if _is_improper(record.get("improper")):
            improper += 1
            continue
        question = _text_field(record, "question", where)
        golds = split_golds(_text_field(record, "golden_answer", where))
        if not golds:
            raise EvounaFormatError(f"{where}, field 'golden_answer': no gold answer")
        for system in names:
            answer = record[ANSWER_PREFIX + system]
            if answer is not None and not isinstance(answer, str):
                raise EvounaFormatError(
                    f"{where}, field '{ANSWER_PREFIX}{system}': expected a string or null"
                )
            human = parse_judgement(record[JUDGE_PREFIX + system])
            if human is None or answer is None:
                unusable[system] = unusable.get(system, 0) + 1
                continue
            judged.append(JudgedAnswer(index, system, question, golds, answer, human))
    return EvounaData(
        source=source,
        records=len(data),
        improper=improper,
        systems=tuple(systems),
        judged=tuple(judged),
        unusable={s: unusable.get(s, 0) for s in systems},
    )


def _system_names(record: dict, where: str) -> list[str]:
    answers = [k[len(ANSWER_PREFIX) :] for k in record if k.startswith(ANSWER_PREFIX)]
    judges = [k[len(JUDGE_PREFIX) :] for k in record if k.startswith(JUDGE_PREFIX)]
    for name in answers:
        if name not in judges:
            raise EvounaFormatError(f"{where}: field '{ANSWER_PREFIX}{name}' has no judgement")
    for name in judges:
        if name not in answers:
            raise EvounaFormatError(f"{where}: field '{JUDGE_PREFIX}{name}' has no answer")
    return answers


def _text_field(record: dict, name: str, where: str) -> str:
    if name not in record:
        raise EvounaFormatError(f"{where}: field '{name}' is missing")
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise EvounaFormatError(f"{where}, field '{name}': expected a non-empty string")
    return value.strip()


def entailment_kernel_scores(
    items: Sequence[JudgedAnswer],
    nli: NLIModel,
    chunk_size: int | None = None,
    progress: bool = False,
) -> np.ndarray:
    """max_j k(answer, gold_j) per item, all pairs deduplicated into one NLI table."""
    table = NLIPairTable()
    grids = [
        (
            table.add_grid(item.question, [item.answer.strip()], list(item.golds)),
            table.add_grid(item.question, list(item.golds), [item.answer.strip()]),
        )
        for item in items
    ]
    probs = table.predict(nli, chunk_size=chunk_size, progress=progress)
    return np.array(
        [entailment_kernel(probs[fwd[0]], probs[bwd[:, 0]]).max() for fwd, bwd in grids],
        dtype=np.float64,
    )


def lexical_decisions(items: Sequence[JudgedAnswer], exact: bool = False) -> np.ndarray:
    match = exact_match if exact else lexical_match
    return np.array([match(item.answer, item.golds) for item in items], dtype=bool)


@dataclass(frozen=True)
class SystemScores:
    system: str
    n: int
    unusable: int
    # scorer -> (F1, accuracy); None where undefined (no pairs, or F1 with no positives at all)
    metrics: dict[str, tuple[float | None, float | None]]

    def to_dict(self) -> dict[str, object]:
        return {
            "system": self.system,
            "n": self.n,
            "unusable": self.unusable,
            **{name: {"f1": f1, "accuracy": acc} for name, (f1, acc) in self.metrics.items()},
        }


def agreement(human: np.ndarray, predicted: np.ndarray) -> tuple[float | None, float | None]:
    """(F1, accuracy) of ``predicted`` against ``human``; None where undefined."""
    if len(human) == 0:
        return None, None
    f1 = float(f1_score(human, predicted, zero_division=np.nan))
    return (None if math.isnan(f1) else f1), float(accuracy_score(human, predicted))


def score_systems(data: EvounaData, decisions: dict[str, np.ndarray]) -> list[SystemScores]:
    """Per system, each scorer's F1 / accuracy; ``decisions[scorer]`` aligns with data.judged."""
    systems = np.array([item.system for item in data.judged])
    human = np.array([item.human for item in data.judged], dtype=bool)
    out = []
    for system in data.systems:
        mine = systems == system
        out.append(
            SystemScores(
                system=system,
                n=int(mine.sum()),
                unusable=data.unusable[system],
                metrics={
                    name: agreement(human[mine], np.asarray(d, dtype=bool)[mine])
                    for name, d in decisions.items()
                },
            )
        )
    return out


def evaluate_file(
    data: EvounaData,
    nli: NLIModel,
    threshold: float = DEFAULT_THRESHOLD,
    chunk_size: int | None = None,
    progress: bool = False,
) -> list[SystemScores]:
    """Score every usable pair with the three scorers and compare with the human labels."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold must lie in [0, 1], got {threshold}")
    items = data.judged
    decisions = {
        "entailment": entailment_kernel_scores(items, nli, chunk_size, progress) >= threshold,
        "lexical_match": lexical_decisions(items),
        "exact_match": lexical_decisions(items, exact=True),
    }
    return score_systems(data, decisions)


FORMATS = ("json", "csv")


def render_report(
    data: EvounaData, scores: Sequence[SystemScores], fmt: str, meta: dict[str, object]
) -> str:
    """The Table 1 layout: per system n and each scorer's F1 / accuracy, as JSON or CSV.

    JSON: ``meta`` (e.g. threshold, NLI model) plus file counts and one object per system.
    CSV: one row per system, columns ``<scorer>_f1`` / ``<scorer>_accuracy``, undefined empty.
    """
    if fmt == "json":
        report = {
            "file": data.source,
            **meta,
            "records": data.records,
            "improper": data.improper,
            "systems": [s.to_dict() for s in scores],
        }
        return json.dumps(report, indent=2)
    if fmt != "csv":
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    rows = [
        {
            "system": s.system,
            "n": s.n,
            "unusable": s.unusable,
            **{f"{name}_{kind}": v for name, pair in s.metrics.items() for kind, v in _kinds(pair)},
        }
        for s in scores
    ]
    columns = ["system", "n", "unusable"]
    columns += [f"{name}_{kind}" for name in SCORERS for kind in ("f1", "accuracy")]
    return safe_frame(pd.DataFrame(rows, columns=columns)).to_csv(index=False, na_rep="")


def _kinds(pair: tuple[float | None, float | None]):
    return zip(("f1", "accuracy"), pair, strict=True)
