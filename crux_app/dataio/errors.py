"""The one error every importer raises on bad input: which file, which line, what is wrong."""

from pathlib import Path


class ImportFailure(Exception):
    """Bad input; the import it interrupts leaves the database unchanged.

    ``str()`` gives ``FILE:LINE: reason`` (``FILE: reason`` when no single line is at fault).
    """

    def __init__(self, file: str, line: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


def checked_file(source: str | Path, label: str | None) -> tuple[Path, str]:
    """The file an import reads and the name its messages give it (``label``, else its path);
    a missing file or a folder is an ``ImportFailure``."""
    source = Path(source)
    label = str(source) if label is None else label
    if not source.is_file():
        raise ImportFailure(label, None, "not a file")
    return source, label


class ExportFailure(Exception):
    """An export that cannot run as asked (unknown collection, judge or format)."""
