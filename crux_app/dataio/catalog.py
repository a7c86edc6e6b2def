"""The import and export formats by name, for the management commands and the upload page.

Each format declares its extra parameters once (``crux_app.parameters.Parameter``): the import
command's options, the upload page's fields and the import job's parsing of its params are
made from them."""

from collections.abc import Callable
from dataclasses import dataclass

from crux_app.parameters import Parameter, ParameterSet

from .export_labels import WRITERS
from .imports.crux import import_crux
from .imports.crux_labeling import import_crux_labeling
from .imports.passages import import_passages
from .imports.qa import DEFAULT_RUN, import_qa
from .imports.qrels import import_qrels
from .imports.run import import_run
from .imports.topics import import_topics
from .qrels_judge import JUDGE_KINDS
from .results import ImportResult

__all__ = [
    "EXPORT_FORMATS",
    "IMPORT_FORMATS",
    "JUDGE_PARAMETERS",
    "ImportFormat",
    "Parameter",
    "upload_formats",
]


@dataclass(frozen=True)
class ImportFormat:
    name: str
    label: str
    source: str  # "folder" or "file"
    importer: Callable[..., ImportResult]  # (collection, source, *, label, progress, **params)
    parameters: tuple[Parameter, ...] = ()
    help: str = ""
    uploadable: bool = True  # offered on the upload page

    def declared(self) -> ParameterSet:
        return ParameterSet(self.parameters)


RUN_NAME_LENGTH = 200
SPLIT = Parameter("split", "Split", max_length=50, help="CRUX hub release: test, testb, train")
TAU = Parameter(
    "tau",
    "Threshold tau",
    kind=int,
    minimum=1,
    maximum=5,
    help="answerability threshold: the release's ranking_1 … ranking_5 folder",
)
# Who labelled a file of one judge's labels (qrels here; a method's label files too). The name's
# length is checked by the importer (``qrels_judge``), whose message names the file.
JUDGE_PARAMETERS = (
    Parameter(
        "judge", "Judge", help="the judge's name (a qrels file's is also its qrels source's name)"
    ),
    Parameter(
        "judge_kind",
        "Judge kind",
        choices=tuple((kind, kind) for kind in JUDGE_KINDS),
        help="human (NIST's assessors, say) or llm (UMBRELA, say)",
        cli="--kind",
    ),
    Parameter(
        "model_id",
        "Model id",
        required=False,
        default="",
        max_length=300,
        help="the LLM judge's model id",
    ),
    Parameter(
        "prompt_version",
        "Prompt version",
        required=False,
        default="",
        max_length=100,
        help="the LLM judge's prompt version (model id and prompt version identify an LLM "
        "judge: give one when another LLM judge has the same model id)",
    ),
)
ADD_MISSING_PASSAGES = Parameter(
    "add_missing_passages",
    "Add missing passages",
    kind=bool,
    required=False,
    default=False,
    help="create the passages the collection lacks, without text (a TREC run lists 1,000 per "
    "topic, most never judged); import_passages gives them their text later",
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
                Parameter(
                    "run_name",
                    "Run name",
                    max_length=RUN_NAME_LENGTH,
                    help="the run's name in the collection",
                    cli="--name",
                ),
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
            (*JUDGE_PARAMETERS, ADD_MISSING_PASSAGES),
            "qid 0 docid grade; topics must already be in the collection.",
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
                    max_length=RUN_NAME_LENGTH,
                    help="the run made of the contexts in file order",
                    cli="--run",
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
