"""pandas DataFrames written as the import formats' files (PyTerrier's column names)."""

from __future__ import annotations

import io
import json

import pandas as pd

# format -> (file name, the columns it needs)
FRAME_FORMATS = {
    "run": ("run.txt", ("qid", "docno", "score")),
    "qrels": ("qrels.txt", ("qid", "docno", "label")),
    "topics": ("topics.tsv", ("qid", "query")),
    "passages": ("passages.tsv", ("docno", "text")),
    "qa": ("qa.jsonl", ("id", "question", "answers", "contexts")),
}


def frame_file(fmt: str, frame: pd.DataFrame, run_name: str = "run") -> tuple[str, bytes]:
    """(file name, bytes) of ``frame`` in import format ``fmt``."""
    if fmt not in FRAME_FORMATS:
        known = ", ".join(FRAME_FORMATS)
        raise ValueError(f"a DataFrame can be uploaded as {known}, not {fmt!r}")
    name, needed = FRAME_FORMATS[fmt]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"{fmt} DataFrame lacks the columns {missing} (needs {list(needed)})")
    out = io.StringIO()
    if fmt == "run":
        ranked = frame.copy()
        if "rank" not in ranked.columns:
            ranked = ranked.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
            ranked["rank"] = ranked.groupby("qid").cumcount() + 1
        for row in ranked.itertuples(index=False):
            out.write(f"{row.qid} Q0 {row.docno} {int(row.rank)} {float(row.score)} {run_name}\n")
    elif fmt == "qrels":
        for row in frame.itertuples(index=False):
            out.write(f"{row.qid} 0 {row.docno} {int(row.label)}\n")
    elif fmt in ("topics", "passages"):
        key, text = needed
        for row in frame.itertuples(index=False):
            value = str(getattr(row, text)).replace("\t", " ").replace("\n", " ")
            out.write(f"{getattr(row, key)}\t{value}\n")
    else:
        for record in frame[list(needed)].to_dict(orient="records"):
            out.write(json.dumps(record) + "\n")
    return name, out.getvalue().encode("utf-8")
