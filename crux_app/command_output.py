"""Where a report command's text goes: a file named by ``--out``, else standard output."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError


def write_report(command: BaseCommand, text: str, out: str | None) -> None:
    """Write ``text`` to ``out`` (saying so on stderr) or to the command's stdout."""
    if not out:
        command.stdout.write(text.rstrip("\n"))
        return
    path = Path(out)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot write {path}: {error.strerror}") from None
    command.stderr.write(f"wrote {path} ({len(text):,} characters)")
