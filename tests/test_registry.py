"""Plugin discovery: rulesets by name, broken plugins isolated, conflicts named."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint
from typing import Any

import pytest

import mathhammer
from mathhammer import KeywordSpec, PluginConflictError, Registry, UnknownRulesetError
from mathhammer.keywords import KeywordTable
from mathhammer.registry import load_registry
from mathhammer.ruleset import Compiled
from mathhammer.testing import plugin_object


class Toy:
    """A minimal ruleset for registry tests."""

    version = "1"
    title = "Toy"

    def __init__(self, name: str) -> None:
        self.name = name

    def load(self, data: Mapping[str, Any], source: str | None) -> Any:
        return data

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        raise NotImplementedError


def ruleset_plugin(name: str) -> object:
    @mathhammer.hookimpl
    def mathhammer_register_rulesets(register: Callable[[Any], None]) -> None:
        register(Toy(name))

    return plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)


def keyword_plugin(ruleset: str, name: str) -> object:
    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: Callable[[Any], None]) -> None:
        register(KeywordSpec(ruleset=ruleset, name=name, apply=lambda *a: None))

    return plugin_object(mathhammer_register_keywords=mathhammer_register_keywords)


def broken_plugin() -> object:
    @mathhammer.hookimpl
    def mathhammer_register_rulesets(register: Callable[[Any], None]) -> None:
        raise RuntimeError("boom")

    return plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)


def test_rulesets_are_found_by_name(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(("toy", ruleset_plugin("toy")))
    assert reg.ruleset("toy").title == "Toy"
    assert reg.ruleset_origin["toy"] == "toy"


def test_unknown_ruleset_lists_the_installed_ones(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(("toy", ruleset_plugin("toy")))
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'chess'; installed rulesets: toy"):
        reg.ruleset("chess")


def test_a_plugin_that_raises_is_reported_and_the_others_work(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(("bad", broken_plugin()), ("toy", ruleset_plugin("toy")))
    assert reg.ruleset("toy")
    assert [(b.name, "RuntimeError: boom" in b.error) for b in reg.broken] == [("bad", True)]


def test_two_plugins_claiming_one_ruleset_name_both(make_registry: Callable[..., Registry]) -> None:
    with pytest.raises(PluginConflictError, match="'toy' is registered by both plugin 'first' and plugin 'second'"):
        make_registry(("first", ruleset_plugin("toy")), ("second", ruleset_plugin("toy")))


def test_one_keyword_name_may_differ_between_rulesets(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(("a", keyword_plugin("wh40k", "Hazardous")), ("b", keyword_plugin("skilldice", "Hazardous")))
    assert reg.keyword_table("wh40k").names() == ["Hazardous"]
    assert reg.keyword_table("skilldice").names() == ["Hazardous"]
    with pytest.raises(PluginConflictError, match=r"keyword 'hazardous' of ruleset 'wh40k'.*'a'.*'c'"):
        make_registry(("a", keyword_plugin("wh40k", "Hazardous")), ("c", keyword_plugin("wh40k", "hazardous")))


def entry_point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group="mathhammer")


def test_an_entry_point_that_fails_to_import_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATHHAMMER_LOAD_PLUGINS", raising=False)
    reg = load_registry(
        [entry_point("ghost", "no_such_module_anywhere"), entry_point("toy", "mathhammer.testing:toy_ruleset_plugin")]
    )
    assert "toy" in reg.rulesets
    assert reg.broken[0].name == "ghost" and "ModuleNotFoundError" in reg.broken[0].error


def test_environment_can_block_or_select_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [entry_point("toy", "mathhammer.testing:toy_ruleset_plugin")]
    monkeypatch.setenv("MATHHAMMER_DISABLED_PLUGINS", "toy")
    assert load_registry(eps).rulesets == {}
    monkeypatch.delenv("MATHHAMMER_DISABLED_PLUGINS")
    monkeypatch.setenv("MATHHAMMER_LOAD_PLUGINS", "something-else")
    assert load_registry(eps).rulesets == {}
    monkeypatch.setenv("MATHHAMMER_LOAD_PLUGINS", "toy")
    assert list(load_registry(eps).rulesets) == ["toy"]


def test_a_misspelt_hook_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    module = types.ModuleType("misspelt_plugin")

    @mathhammer.hookimpl
    def mathhammer_register_rulesetz(register: Any) -> None: ...

    module.mathhammer_register_rulesetz = mathhammer_register_rulesetz  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "misspelt_plugin", module)
    with pytest.raises(mathhammer.PluginError, match="mathhammer_register_rulesetz"):
        load_registry([entry_point("misspelt", "misspelt_plugin")])
