"""``mathhammer plugins``: each keyword with what it does, its versions and where it came from."""

from __future__ import annotations

import json

import pytest

from mathhammer.face import cli, inventory
from mathhammer.plugin import HOOK_API_VERSION, KeywordRegistrar, KeywordSpec, hookimpl
from mathhammer.testing import run_cli, toy_registry


class Addition:
    """A third party's keyword for the toy ruleset, which is not one of the game's own."""

    @staticmethod
    @hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        register(KeywordSpec("toy", "Homebrew", apply=lambda rules: None, description="a house rule"))
        register(KeywordSpec("chess", "Castling", apply=lambda rules: None, description="for a ruleset not installed"))


REGISTRY = toy_registry(("homebrew", Addition()))


def test_each_keyword_has_its_description_versions_origin_and_whether_it_is_the_ruleset_s_own() -> None:
    data = inventory.describe(REGISTRY)
    keywords = {(k["ruleset"], k["name"]): k for k in data["keywords"]}
    deadly = keywords["toy", "Deadly"]
    assert deadly["description"] == "a critical hit skips the save" and deadly["own"] is True
    assert deadly["plugin"] == "toy-keywords" and deadly["distribution"] is None
    assert deadly["rule"]["default"] == "unsaved" and list(deadly["rule"]["versions"]) == ["unsaved", "mortal"]
    assert keywords["toy", "Extra Hits"]["rule"] is None
    assert keywords["toy", "Homebrew"]["own"] is False  # not the game's, whoever installed it
    assert keywords["chess", "Castling"]["own"] is None  # no ruleset to say
    assert data["rulesets"] == [
        {"name": "toy", "title": "Toy ruleset", "version": "1.0", "plugin": "toy", "distribution": None}
    ]
    assert data["hook_api_version"] == HOOK_API_VERSION


@pytest.fixture
def toy_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "default_registry", lambda: REGISTRY)


def test_the_listing_reads_as_a_catalogue(toy_cli: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["plugins"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("toy: Toy ruleset 1.0  (plugin toy, registered in-process)\n")
    assert "  Deadly       a critical hit skips the save\n" in out
    assert "rule versions: unsaved (default), mortal" in out
    assert "  unsaved: the toy rules: a critical hit deals its damage with no save\n" in out  # each one, in words
    assert "  Homebrew*    a house rule\n" in out
    assert "* not one of Toy ruleset's own keywords: an addition by a third-party plugin" in out
    assert "chess: not installed; keywords registered for it:\n  Castling" in out
    assert out.rstrip().endswith(f"hook API version {HOOK_API_VERSION}")


def test_json_lists_the_same(toy_cli: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(json.dumps(inventory.describe(REGISTRY)))
    assert [k["name"] for k in data["keywords"] if k["own"] is False] == ["Homebrew"]
