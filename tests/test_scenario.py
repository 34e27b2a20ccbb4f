"""Scenario files: TOML errors, missing files, the ruleset key."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer import Registry, ScenarioError, load_scenario, scenario_from_data
from mathhammer.scenario import read_toml
from mathhammer.testing import ToyScenario


def test_read_toml_reports_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("a = 1\nb = \n")
    with pytest.raises(ScenarioError, match=r"bad\.toml: is not valid TOML: .*line 2"):
        read_toml(bad)


def test_non_utf8_files_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b'name = "\xe9"\n')
    with pytest.raises(ScenarioError, match="is not UTF-8 text"):
        read_toml(bad)


def test_the_ruleset_key_is_required(registry: Registry) -> None:
    with pytest.raises(ScenarioError, match="field ruleset: is required"):
        scenario_from_data({}, source="x.toml", registry=registry)
    with pytest.raises(ScenarioError, match="field ruleset: is required"):
        scenario_from_data({"ruleset": 40}, source="x.toml", registry=registry)


def test_a_scenario_file_loads_into_the_rulesets_objects(registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('ruleset = "toy"\nattacks = "D6"\nhit = "4+"\ndamage = 2\nsave = "3+"\nkeywords = ["Deadly"]\n')
    scenario = load_scenario(path, registry=registry)
    assert scenario == ToyScenario(attacks="D6", hit=4, damage="2", save=3, keywords=("Deadly",), source=str(path))


def test_misspelt_fields_get_a_suggestion(registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "typo.toml"
    path.write_text('ruleset = "toy"\nattacks = 1\nhit = "4+"\ndamgae = 2\n')
    with pytest.raises(ScenarioError, match=r"field damgae: is not a known field; did you mean 'damage'\?"):
        load_scenario(path, registry=registry)


def test_a_profile_library_is_not_a_scenario_and_the_error_says_what_to_run() -> None:
    library = Path(__file__).resolve().parents[1] / "examples" / "profiles.toml"
    with pytest.raises(ScenarioError, match="mathhammer compare"):
        load_scenario(library)


def test_malformed_toml_quotes_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('ruleset = "wh40k"\n[attacker\nname = "x"\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"2 \| \[attacker"):
        read_toml(bad)
