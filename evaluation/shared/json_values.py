"""Numbers from numpy results as JSON writes them: a numpy scalar as its Python value, and a
NaN or infinity as null (JSON has neither)."""

from __future__ import annotations

import math

import numpy as np


def plain_json_value(value: object) -> object:
    """``json.dumps``'s ``default`` and a value cleaner: numpy scalars to Python, NaN to None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
