"""The hook API's version: a plugin written for another is named and skipped, and the others keep working."""

from __future__ import annotations

import sys
import types
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from mathhammer.plugin import HOOK_API_VERSION, KeywordRegistrar, KeywordSpec, PluginWarning, hookimpl
from mathhammer.registry import load_registry
from mathhammer.testing import ToyScenario, run_cli, toy_registry


def plugin_for(version: object) -> types.ModuleType:
    """A keyword plugin module declaring the hook API version it was written for."""
    module = types.ModuleType("future_plugin")

    @hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        register(KeywordSpec("toy", "Future Hits", apply=lambda rules: None))

    module.mathhammer_register_keywords = mathhammer_register_keywords  # type: ignore[attr-defined]
    module.MATHHAMMER_HOOK_API = version  # type: ignore[attr-defined]
    return module


def test_a_plugin_for_another_hook_api_is_named_and_skipped() -> None:
    with pytest.warns(
        PluginWarning, match=r"plugin 'future' skipped: it needs hook API version 2, .* provides version 1"
    ):
        registry = toy_registry(("future", plugin_for(HOOK_API_VERSION + 1)))
    assert [(b.name, b.error.split(":")[0]) for b in registry.broken] == [("future", "skipped")]
    assert "Future Hits" not in registry.keyword_table("toy").specs
    assert registry.keyword_table("toy").names() == ["Deadly", "Extra Hits"]  # the others keep working
    assert registry.ruleset("toy").name == "toy"


def test_a_plugin_declaring_this_hook_api_or_none_is_loaded() -> None:
    undeclared = plugin_for(HOOK_API_VERSION)
    del undeclared.MATHHAMMER_HOOK_API
    for plugin in (plugin_for(HOOK_API_VERSION), undeclared):
        assert "Future Hits" in toy_registry(("future", plugin)).keyword_table("toy").specs


def test_an_installed_plugin_for_another_hook_api_is_skipped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATHHAMMER_LOAD_PLUGINS", raising=False)
    monkeypatch.setitem(sys.modules, "future_plugin", plugin_for(99))
    eps = [
        EntryPoint(name="future", value="future_plugin", group="mathhammer"),
        EntryPoint(name="toy", value="mathhammer.testing:toy_ruleset_plugin", group="mathhammer"),
    ]
    with pytest.warns(PluginWarning, match="'future'"):
        registry = load_registry(eps)
    assert [b.name for b in registry.broken] == ["future"] and list(registry.rulesets) == ["toy"]


def test_the_command_line_warns_once_and_runs_the_others(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from mathhammer.face import cli

    def registry() -> object:
        return toy_registry(("future", plugin_for(2)))

    monkeypatch.setattr(cli, "default_registry", registry)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy.toml").write_text('ruleset = "toy"\nattacks = 6\nhit = "4+"\n')
    assert run_cli(["simulate", "toy.toml"]) == 0
    err = capsys.readouterr().err
    assert err.count("needs hook API version 2") == 1 and "warning: plugin 'future' skipped: it needs" in err
    assert ToyScenario().ruleset == "toy"
