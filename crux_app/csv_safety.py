"""CSV cells that a spreadsheet will not run as formulas (CSV / formula injection).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read
as a formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)`` in an annotator's
rationale becomes a live link). As OWASP recommends, such a cell gets a leading single quote,
which the spreadsheet shows as text. Only strings change: numbers, booleans and empty cells are
written as they are, so a negative number stays a number. Every CSV the workbench writes goes
through :func:`safe_cell`, :func:`safe_row` or :func:`safe_frame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is a string a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def safe_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A ``csv.DictWriter`` row with every cell made safe."""
    return {key: safe_cell(value) for key, value in row.items()}


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (object and string columns) are made safe; numeric,
    boolean and date columns are left as they are. Headers are the code's own names."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        series = out[column]
        if pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series):
            out[column] = series.map(safe_cell)
    return out
