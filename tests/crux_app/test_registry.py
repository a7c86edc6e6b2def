"""The one registry type (crux_app.registry) and the declaration that fills it
(crux_app.method_config): replace by key, order by declared needs with declaration order
breaking ties, entries routed to the registry of their type."""

from dataclasses import dataclass, field
from graphlib import CycleError

import pytest
from django.apps import apps

from crux_app.method_config import Declaration, MethodConfig, PluginConfig
from crux_app.page_links import _LINKS, PageLink
from crux_app.registry import Registry


@dataclass(frozen=True)
class Entry:
    key: str
    needs: tuple[str, ...] = ()
    precedes: tuple[str, ...] = ()
    note: str = field(default="", compare=False)


def registry(*entries: Entry) -> Registry[Entry]:
    held: Registry[Entry] = Registry("test entry", needs=lambda e: e.needs)
    for entry in entries:
        held.register(entry)
    return held


def keys(held: Registry[Entry]) -> list[str]:
    return [e.key for e in held.ordered()]


def test_entries_come_in_declaration_order_without_needs():
    assert keys(registry(Entry("b"), Entry("a"), Entry("c"))) == ["b", "a", "c"]


def test_an_entry_comes_after_what_it_needs_and_ties_keep_declaration_order():
    held = registry(Entry("judge", ("scaar",)), Entry("embed"), Entry("scaar", ("reteval",)),
                    Entry("reteval"), Entry("dense"))  # fmt: skip
    assert keys(held) == ["embed", "reteval", "scaar", "judge", "dense"]


def test_an_entry_comes_before_what_it_precedes():
    held: Registry[Entry] = Registry(
        "test entry", needs=lambda e: e.needs, precedes=lambda e: e.precedes
    )
    held.register(Entry("agreement", ("leaderboard",)))
    held.register(Entry("leaderboard"))
    held.register(Entry("crux", precedes=("agreement", "not-installed")))
    held.register(Entry("seper"))
    assert keys(held) == ["leaderboard", "crux", "agreement", "seper"]


def test_needs_on_keys_not_registered_are_ignored():
    assert keys(registry(Entry("a", ("not-installed",)), Entry("b"))) == ["a", "b"]


def test_needs_in_a_circle_are_refused():
    with pytest.raises(CycleError):
        registry(Entry("a", ("b",)), Entry("b", ("a",))).ordered()


def test_replacing_by_key_keeps_the_place_and_counts_a_change():
    held = registry(Entry("a"), Entry("b"))
    before = held.generation
    held.register(Entry("a", note="again"))
    assert keys(held) == ["a", "b"]
    assert held["a"].note == "again"
    assert held.generation == before + 1
    held.unregister("a")
    assert keys(held) == ["b"] and "a" not in held and len(held) == 1


def test_prepare_checks_and_converts_entries():
    def upper(entry: Entry) -> Entry:
        if not entry.key:
            raise ValueError("an entry needs a key")
        return Entry(entry.key.upper())

    held: Registry[Entry] = Registry("test entry", prepare=upper)
    held.register(Entry("a"))
    assert list(held) == ["A"]
    with pytest.raises(ValueError, match="needs a key"):
        held.register(Entry(""))


def test_an_entry_finds_the_registry_of_its_type():
    assert Registry.of(PageLink("x", "X", "leaderboard", "collection")) is _LINKS
    with pytest.raises(LookupError, match="no registry holds Entry"):
        Registry.of(Entry("a"))


class _Config(PluginConfig):
    name = "evaluation.crux"  # any importable package: the config is built by hand here
    label = "registry_test"

    declaration = Declaration()

    def declare(self) -> Declaration:
        return self.declaration


def _config(declaration: Declaration) -> _Config:
    import evaluation.crux

    config = _Config("evaluation.crux", evaluation.crux)
    config.declaration = declaration
    return config


def test_ready_registers_every_declared_entry_into_its_registry():
    link = PageLink("registry-test-link", "Test", "leaderboard", "collection", 999)
    try:
        _config(Declaration(page_links=(link,))).ready()
        assert _LINKS["registry-test-link"] is link
    finally:
        _LINKS.unregister("registry-test-link")


def test_declared_annotation_task_types_go_to_annotations_task_type_registry():
    # The toy entry and what the campaign code does with it: tests/annotation.
    from annotation.task_types.registry import TASK_TYPE_REGISTRY
    from tests.annotation.toy_task_type import TOY, TOY_KEY

    try:
        _config(Declaration(annotation_task_types=(TOY,))).ready()
        assert TASK_TYPE_REGISTRY[TOY_KEY] is TOY
    finally:
        TASK_TYPE_REGISTRY.unregister(TOY_KEY)


def test_django_takes_the_apps_own_config_not_the_imported_base():
    assert not MethodConfig.default and not PluginConfig.default
    config = apps.get_app_config("crux")
    assert type(config).__name__ == "CruxConfig" and isinstance(config, MethodConfig)
    assert type(config).default
