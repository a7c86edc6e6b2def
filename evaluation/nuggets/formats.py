"""The nugget formats in the shared import catalog (``crux_app.dataio.catalog``), entered from
here so that the catalog never names this method. All four are offered on the upload page: its
fields are made from the declared parameters (the judge fields are the catalog's, shared with
qrels; the importers check the judge name's length and name the file)."""

from crux_app.dataio.catalog import IMPORT_FORMATS, JUDGE_PARAMETERS, ImportFormat
from evaluation.nuggets.imports import import_answers, import_nugget_assignments, import_nuggets
from evaluation.nuggets.rating_import import import_nugget_ratings

FORMATS = (
    ImportFormat(
        "nuggets",
        "Nuggets (nuggetizer create output)",
        "file",
        import_nuggets,
        help='One {"qid", "query", "nuggets": [{"text", "importance"}]} object per line; '
        "topics are created when missing.",
    ),
    ImportFormat(
        "answers",
        "TREC RAG answers",
        "file",
        import_answers,
        help='One {"run_id", "topic_id", "topic", "references", "response_length", '
        '"answer": [{"text", "citations"}]} object per line; each run_id becomes a run.',
    ),
    ImportFormat(
        "nugget-assignments",
        "Nugget assignments of one judge (nuggetizer assign output)",
        "file",
        import_nugget_assignments,
        JUDGE_PARAMETERS,
        'One {"qid", "run_id", "nuggets": [{"text", "importance", "assignment"}]} object per '
        "line; nuggets are matched to the collection's by topic and text.",
    ),
    ImportFormat(
        "nugget-ratings",
        "Nugget-passage ratings of one judge (0-5)",
        "file",
        import_nugget_ratings,
        JUDGE_PARAMETERS,
        'One {"qid", "docid", "nugget", "rating"} object per line; nuggets are matched by '
        "topic and text.",
    ),
)


def register_formats() -> None:
    for entry in FORMATS:
        IMPORT_FORMATS[entry.name] = entry
