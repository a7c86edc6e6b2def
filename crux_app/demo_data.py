"""Demo content an app adds to ``manage.py load_demo``, declared as data: the command loads the
project's two demo collections, then every registered ``DemoData`` in the order of their
declared needs, inside the same transaction. This module names no app."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from crux_app.registry import Registry


@dataclass(frozen=True)
class DemoData:
    """``load(fixtures, write)``: load the app's demo content from the ``fixtures`` folder,
    leaving what is already loaded as it is unless ``replace``; ``write`` prints a line."""

    key: str  # also the name of the collection it loads
    load: Callable[[Path, Callable[[str], None]], None]
    needs: tuple[str, ...] = ()


_DEMO_DATA: Registry[DemoData] = Registry("demo data", (DemoData,), needs=attrgetter("needs"))


def register_demo_data(entry: DemoData) -> DemoData:
    return _DEMO_DATA.register(entry)


def demo_data() -> list[DemoData]:
    return _DEMO_DATA.ordered()
