"""A small TREC-style collection for the UMBRELA judging tests (topics, three runs, NIST's qrels
as a human judge's, passage texts; passage d9 has no text), built through the commands."""

from io import StringIO
from pathlib import Path

import ir_measures
from django.core.management import call_command

from crux_app.models import Collection, PassageQrel, RunEntry
from tests.crux_app.trec_inputs import trec_files

NAME = "trec"


def make_trec_collection(root: Path) -> Collection:
    files = trec_files(root)

    def manage(*args: str) -> None:
        call_command(*args, stdout=StringIO())

    manage("import_topics", f"--collection={NAME}", str(files["topics"]))
    for run in ("bm25", "dense", "hybrid"):
        manage(
            "import_run", f"--collection={NAME}", f"--name={run}", "--add-missing-passages",
            str(files[run]),
        )  # fmt: skip
    nist = str(files["nist"])
    manage("import_qrels", f"--collection={NAME}", "--judge=nist", "--kind=human", nist)
    manage("import_passages", f"--collection={NAME}", str(files["passages"]))
    return Collection.objects.get(name=NAME)


def stored_qrels(source: str) -> dict[tuple[str, str], int]:
    rows = PassageQrel.objects.filter(source=source).values_list(
        "topic__external_id", "passage__external_id", "grade"
    )
    return {(topic, passage): grade for topic, passage, grade in rows}


def reference_ndcg(source: str, k: int) -> dict[str, float]:
    """Each run's mean nDCG@k over the topics with a relevant qrel under ``source``, by
    ir_measures straight from the stored rows (the leaderboard's figure, computed apart)."""
    qrels = [
        ir_measures.Qrel(topic, passage, grade)
        for (topic, passage), grade in stored_qrels(source).items()
    ]
    relevant = {q.query_id for q in qrels if q.relevance > 0}
    entries = RunEntry.objects.filter(topic__external_id__in=relevant).values_list(
        "run__name", "topic__external_id", "passage__external_id", "rank"
    )
    runs: dict[str, list] = {}
    for run, topic, passage, rank in entries:
        runs.setdefault(run, []).append(ir_measures.ScoredDoc(topic, passage, 1000.0 - rank))
    out = {}
    for run, docs in runs.items():
        per_topic = {
            m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ k], qrels, docs)
        }
        # A topic the run ranks nothing for scores 0 (the leaderboard's empty context).
        out[run] = sum(per_topic.get(t, 0.0) for t in relevant) / len(relevant)
    return out
