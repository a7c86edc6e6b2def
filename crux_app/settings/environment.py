"""How the settings read the environment, and the repository's folder they name paths under."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_seconds(name: str) -> dict[str, float]:
    """``key=seconds,key=seconds`` from the environment; anything else stops the settings."""
    found: dict[str, float] = {}
    for part in env_list(name, ""):
        key, _, value = (text.strip() for text in part.partition("="))
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not key or not 0 <= seconds <= 86_400:
            raise ImproperlyConfigured(f"{name}: '{part}' is not task_type=seconds (0-86400)")
        found[key] = seconds
    return found
