"""Plugin discovery: rulesets by name, broken plugins isolated, conflicts named."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import KeywordSpec, PluginConflictError, Registry, UnknownRulesetError, registry
from mathhammer.face import cli
from mathhammer.keywords import KeywordTable
from mathhammer.registry import load_registry
from mathhammer.ruleset import Compiled
from mathhammer.testing import plugin_object

BOLTGUNS = Path(__file__).resolve().parents[1] / "examples" / "boltguns.toml"


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


def test_two_plugins_claiming_one_ruleset_disable_only_that_name(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(
        ("first", ruleset_plugin("toy")), ("second", ruleset_plugin("toy")), ("other", ruleset_plugin("chess"))
    )
    with pytest.raises(PluginConflictError, match="'toy' is registered by both plugin 'first' and plugin 'second'"):
        reg.ruleset("toy")
    assert reg.ruleset("chess").name == "chess"
    assert reg.conflict_messages() == [
        "ruleset 'toy' is registered by both plugin 'first' and plugin 'second', so neither is used;"
        " uninstall or block one (MATHHAMMER_DISABLED_PLUGINS)"
    ]


def test_one_keyword_name_may_differ_between_rulesets(make_registry: Callable[..., Registry]) -> None:
    reg = make_registry(("a", keyword_plugin("wh40k", "Hazardous")), ("b", keyword_plugin("skilldice", "Hazardous")))
    assert reg.keyword_table("wh40k").names() == ["Hazardous"]
    assert reg.keyword_table("skilldice").names() == ["Hazardous"]


def test_two_plugins_claiming_one_keyword_disable_only_it_in_that_ruleset(
    make_registry: Callable[..., Registry],
) -> None:
    reg = make_registry(
        ("a", keyword_plugin("wh40k", "Hazardous")),
        ("c", keyword_plugin("wh40k", "hazardous")),
        ("d", keyword_plugin("wh40k", "Torrent")),
        ("e", keyword_plugin("skilldice", "Hazardous")),
    )
    table = reg.keyword_table("wh40k")
    assert table.names() == ["Torrent"] and table.resolve("Torrent") is not None
    with pytest.raises(PluginConflictError, match=r"keyword 'Hazardous' of ruleset 'wh40k'.*plugin 'a' and plugin 'c'"):
        table.resolve("HAZARDOUS")
    assert reg.keyword_table("skilldice").resolve("Hazardous") is not None


def test_a_conflicting_keyword_used_in_a_scenario_names_both_plugins(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The installed plugins, and one more claiming 40k's Sustained Hits: an in-process fake entry point.
    monkeypatch.delenv("MATHHAMMER_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("MATHHAMMER_DISABLED_PLUGINS", raising=False)
    impostor = fake_module(monkeypatch, tmp_path, "impostor_plugin", IMPOSTOR)
    reg = load_registry([*entry_points(group="mathhammer"), impostor])
    monkeypatch.setattr(registry, "_default", reg)
    assert cli.main(["simulate", str(BOLTGUNS)]) == 0  # a scenario without the keyword works
    warning = "is registered by both plugin 'impostor_plugin' and plugin 'sustained-hits'"
    assert warning in capsys.readouterr().err
    scenario = tmp_path / "sustained.toml"
    scenario.write_text(BOLTGUNS.read_text().replace('damage = "1"', 'damage = "1"\nkeywords = ["Sustained Hits 1"]'))
    assert cli.main(["simulate", str(scenario)]) == 3  # a plugin error, not the scenario's
    err = capsys.readouterr().err
    assert "plugin error: keyword 'Sustained Hits' of ruleset 'wh40k' " + warning in err
    assert cli.main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "conflicts:\n  keyword 'Sustained Hits' of ruleset 'wh40k'" in out and "Lethal Hits" in out


IMPOSTOR = """
import mathhammer
from mathhammer.keywords import KeywordSpec

@mathhammer.hookimpl
def mathhammer_register_keywords(register):
    register(KeywordSpec("wh40k", "Sustained Hits", lambda rules: None))
"""


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


def fake_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, source: str) -> EntryPoint:
    """An entry point to a plugin module written here from ``source``, imported (and run) when loaded."""
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return entry_point(name, name)


WH40K = entry_point("wh40k", "mathhammer_wh40k.plugin")


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("import sys\nsys.exit(3)", "import failed: SystemExit: 3"),
        ("raise RuntimeError('no luck')", "import failed: RuntimeError: no luck"),
        (
            "import mathhammer\n@mathhammer.hookimpl\ndef mathhammer_register_rulesetz(register): pass",
            "implements hook 'mathhammer_register_rulesetz', which mathhammer does not have;"
            " did you mean 'mathhammer_register_rulesets'?",
        ),
        (
            "import mathhammer\n@mathhammer.hookimpl\ndef mathhammer_register_rulesets(register): register(42)",
            "mathhammer_register_rulesets raised PluginError: registered 42, which is not a Ruleset",
        ),
        (
            "import mathhammer\n@mathhammer.hookimpl\ndef mathhammer_register_keywords(register, extra): pass",
            "cannot be registered: PluginValidationError",
        ),
    ],
    ids=["sys-exit", "raises", "misspelt-hook", "register-42", "bad-arguments"],
)
def test_a_bad_plugin_is_named_and_the_rest_works(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: str, error: str
) -> None:
    monkeypatch.delenv("MATHHAMMER_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("MATHHAMMER_DISABLED_PLUGINS", raising=False)
    reg = load_registry([fake_module(monkeypatch, tmp_path, "bad_plugin_under_test", source), WH40K])
    assert [b.name for b in reg.broken] == ["bad_plugin_under_test"]
    assert error in reg.broken[0].error
    assert list(reg.rulesets) == ["wh40k"] and [p.name for p in reg.plugins] == ["wh40k"]
    monkeypatch.setattr(registry, "_default", reg)
    assert cli.main(["plugins"]) == 0
    out, err = capsys.readouterr()
    assert "bad_plugin_under_test" in out and "BROKEN" in out and "wh40k" in out
    assert cli.main(["simulate", str(BOLTGUNS)]) == 0
    out, err = capsys.readouterr()
    assert "P(unit destroyed)" in out
    assert err.startswith("mathhammer: warning: plugin 'bad_plugin_under_test' is broken: ")


def test_a_plugin_whose_registration_raises_keeps_nothing_it_registered(
    make_registry: Callable[..., Registry],
) -> None:
    @mathhammer.hookimpl
    def mathhammer_register_rulesets(register: Callable[[Any], None]) -> None:
        register(Toy("half"))
        raise RuntimeError("changed its mind")

    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: Callable[[Any], None]) -> None:
        register(KeywordSpec(ruleset="toy", name="Sharp", apply=lambda *a: None))

    reg = make_registry(
        (
            "partial",
            plugin_object(
                mathhammer_register_rulesets=mathhammer_register_rulesets,
                mathhammer_register_keywords=mathhammer_register_keywords,
            ),
        ),
        ("toy", ruleset_plugin("toy")),
    )
    assert list(reg.rulesets) == ["toy"] and reg.keyword_table("toy").names() == []
    assert reg.broken[0].name == "partial"
    assert "RuntimeError: changed its mind; nothing it registered is used" in reg.broken[0].error


def test_a_plugin_that_swallows_the_error_of_a_bad_registration_is_still_broken(
    make_registry: Callable[..., Registry],
) -> None:
    @mathhammer.hookimpl
    def mathhammer_register_rulesets(register: Callable[[Any], None]) -> None:
        try:
            register("toy")
        except Exception:
            pass
        register(Toy("kept-back"))

    reg = make_registry(("sly", plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)))
    assert reg.rulesets == {}
    assert "registered 'toy', which is not a Ruleset" in reg.broken[0].error
