"""The import and export formats by name, for the management commands and the upload page."""

from collections.abc import Callable
from dataclasses import dataclass

from .export_labels import WRITERS
from .import_crux import import_crux
from .import_crux_labeling import import_crux_labeling
from .import_passages import import_passages
from .import_qa import DEFAULT_RUN, import_qa
from .import_qrels import import_qrels
from .import_run import import_run
from .import_topics import import_topics
from .results import ImportResult


@dataclass(frozen=True)
class Parameter:
    """An extra argument of an importer (beyond the collection and the source)."""

    name: str
    label: str
    kind: type = str
    required: bool = True
    default: object = None
    help: str = ""


@dataclass(frozen=True)
class ImportFormat:
    name: str
    label: str
    source: str  # "folder" or "file"
    importer: Callable[..., ImportResult]  # (collection, source, *, label, progress, **params)
    parameters: tuple[Parameter, ...] = ()
    help: str = ""
    # Offered on the upload page, whose form has fields for split, tau and run_name only.
    uploadable: bool = True


SPLIT = Parameter("split", "Split", help="e.g. test, testb, train")
TAU = Parameter("tau", "Threshold tau", kind=int, help="answerability threshold folder 1-5")
ADD_MISSING_PASSAGES = Parameter(
    "add_missing_passages",
    "Add missing passages",
    kind=bool,
    required=False,
    default=False,
    help="create passages the collection lacks, without text",
)

IMPORT_FORMATS: dict[str, ImportFormat] = {
    f.name: f
    for f in (
        ImportFormat(
            "crux",
            "CRUX hub release (ranking_T folder)",
            "folder",
            import_crux,
            (SPLIT, TAU),
            "The release root or its ranking_T folder: topics, questions, judgements, qrels, "
            "passages/.",
        ),
        ImportFormat(
            "crux-labeling",
            "CRUX labeling platform folder",
            "folder",
            import_crux_labeling,
            help="oracle.jsonl and the other report files, *.run, documents/, labels/.",
        ),
        ImportFormat(
            "run",
            "TREC run file",
            "file",
            import_run,
            (
                Parameter("run_name", "Run name", help="the run's name in the collection"),
                ADD_MISSING_PASSAGES,
            ),
            "qid Q0 pid rank score tag; topics and passages must already be in the collection.",
        ),
        ImportFormat(
            "topics",
            "TREC topics (TSV or JSONL)",
            "file",
            import_topics,
            help='qid<TAB>text lines, or one {"id", "text"} object per line; creates the '
            "collection when new.",
        ),
        ImportFormat(
            "qrels",
            "TREC qrels of one judge",
            "file",
            import_qrels,
            (
                Parameter("judge", "Judge", help="the judge's name, also the qrels source's"),
                Parameter("judge_kind", "Judge kind", help="human or llm"),
                Parameter("model_id", "Model id", required=False, default="", help="LLM only"),
                Parameter(
                    "prompt_version", "Prompt version", required=False, default="", help="LLM only"
                ),
                ADD_MISSING_PASSAGES,
            ),
            "qid 0 docid grade; topics must already be in the collection.",
            uploadable=False,
        ),
        ImportFormat(
            "passages",
            "Passage texts (TSV or JSONL)",
            "file",
            import_passages,
            help='pid<TAB>text lines, or one {"id", "contents"} object per line; fills '
            "text-less passages and adds missing ones.",
        ),
        ImportFormat(
            "qa",
            "QA JSONL",
            "file",
            import_qa,
            (
                Parameter(
                    "run_name",
                    "Run name",
                    required=False,
                    default=DEFAULT_RUN,
                    help="the run made of the contexts in file order",
                ),
            ),
            'One {"id", "question", "answers", "contexts"} object per line.',
        ),
    )
}

EXPORT_FORMATS: tuple[str, ...] = tuple(WRITERS)


def upload_formats() -> list[ImportFormat]:
    """The formats the upload page offers."""
    return [f for f in IMPORT_FORMATS.values() if f.uploadable]
