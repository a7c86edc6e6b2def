"""Where a command's text goes: a report to a file named by ``--out``, else standard output;
a job's cost estimate to stdout on a dry run, else to stderr."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.jobs.cost import Estimate


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


def write_estimate(
    command: BaseCommand, what: str, estimate: Estimate | None, dry_run: bool
) -> None:
    """Print what a job will cost (``crux_app.jobs.estimate``): a dry run's output on stdout;
    before a job runs, on stderr, so that stdout keeps the command's own records."""
    out = command.stdout if dry_run else command.stderr
    out.write(f"{what} ({'dry run: nothing is started or stored' if dry_run else 'estimate'}):")
    for line in estimate.lines() if estimate else ["no estimate for this kind of job"]:
        out.write(f"  {line}")
