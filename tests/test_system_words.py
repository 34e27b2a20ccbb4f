"""Reports in each system's own words: the d12 system's HP, Direct Damage and Attack Rolls, The Ninth
Age's HP, and Warhammer 40,000's wounds and mortal wounds, in stage labels, charts and tables.

The narration (``mathhammer explain``) is held to the same in ``tests/test_explain.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mathhammer
from mathhammer.face import cli
from mathhammer.face.explain import explain
from mathhammer.result import Result

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(example: str, **changes: object) -> Result:
    """One of the examples, exactly where it can be and by a small fixed-seed simulation otherwise."""
    scenario = mathhammer.load_scenario(EXAMPLES / example)
    return mathhammer.evaluate(scenario, trials=2_000, seed=1, **changes)  # type: ignore[arg-type]


def test_d12_weapon_stages_and_their_chart_say_hp_lost_and_direct_damage() -> None:
    """Each weapon's two stages are the HP the target lost to it and its Direct Damage: so labelled,
    and so headed in the weapons chart, never "wounds lost" or "mortal wounds"."""
    result = run("skilldice-warband.toml")
    assert result.weapon_measures == ("HP lost", "Direct Damage")
    labels = [stage.label for stage in result.stages.values() if stage.name.startswith(("damage:", "mortal_wounds:"))]
    assert "HP lost: Flamer" in labels and "Direct Damage: Hex" in labels
    assert not [label for label in labels if "wound" in label.lower() or label.startswith("Damage:")]
    pytest.importorskip("matplotlib")
    figure = result.plot_weapons()
    assert [ax.get_title() for ax in figure.axes] == ["Mean HP lost", "Mean Direct Damage"]


def test_t9a_weapon_chart_says_hp_lost() -> None:
    """The Ninth Age's attacks take HP; none of its attacks deals mortal wounds."""
    result = run("t9a-greatswords.toml")
    assert result.weapon_measures == ("HP lost", "HP lost with no saves")
    pytest.importorskip("matplotlib")
    assert [ax.get_title() for ax in result.plot_weapons().axes] == ["Mean HP lost", "Mean HP lost with no saves"]


def test_forty_k_keeps_its_wounds_and_mortal_wounds() -> None:
    result = run("boltguns.toml")
    assert result.weapon_measures == ("damage (wounds lost)", "mortal wounds")
    pytest.importorskip("matplotlib")
    titles = [ax.get_title() for ax in result.plot_weapons().axes]
    assert titles == ["Mean damage (wounds lost)", "Mean mortal wounds"]


def test_no_hazardous_line_in_a_d12_report_for_weapons_without_hazardous(tmp_path: Path) -> None:
    """Without Hazardous the attacker cannot lose HP in a single attack: the report, JSON and all, has no
    line for it (neither Panic > Focus as Hazardous nor the attacker's HP lost); with it, both show."""
    text = (EXAMPLES / "skilldice-vanguard.toml").read_text(encoding="utf-8")
    plain = tmp_path / "plain.toml"
    plain.write_text(text.replace('keywords = ["Hazardous 1"]\n', ""), encoding="utf-8")
    assert '"Hazardous' not in plain.read_text(encoding="utf-8")
    without = mathhammer.evaluate(mathhammer.load_scenario(plain))
    with_it = mathhammer.evaluate(mathhammer.load_scenario(EXAMPLES / "skilldice-vanguard.toml"))

    def lines(result: Result) -> str:
        """The report's stage and chance lines (the rule versions' descriptions aside)."""
        return "\n".join([s.label for s in result.shown] + [c.label for c in result.chances])

    for line in ("Hazardous", "Attacker HP lost", "Attacker models removed"):
        assert line not in lines(without)
        assert line in lines(with_it)
    assert [s.name for s in without.shown if s.name.startswith("attacker_")] == []
    assert without.stages["attacker_damage"].mean == 0.0  # kept in the Result, only not reported


def test_d12_json_and_table_headings_use_the_systems_words(capsys: pytest.CaptureFixture[str]) -> None:
    """The per-stage table and the chances ``--json`` reports for a d12 fight: HP lost, models removed,
    Critical Hits, Battle Shock tests; no wounds, mortal wounds or saves."""
    assert cli.main(["simulate", str(EXAMPLES / "skilldice-fight.toml"), "--trials", "2000", "--seed", "1"]) == 0
    table = capsys.readouterr().out
    assert cli.main(["simulate", str(EXAMPLES / "skilldice-fight.toml"), "--json", "--trials", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "Vanguard: HP lost" in table and "P(Vanguard wins)" in data["chances"]
    for text in (table, " ".join(data["chances"])):
        assert not [w for w in ("wound", "mortal", "save") if w in text.lower()]


def test_d3_minus_1_damage_is_accepted_by_the_d12_system_and_refused_elsewhere_as_documented() -> None:
    """``docs/scenario-files.md``: Warhammer 40,000 refuses Damage "D3-1" (a roll below 1), the d12 system
    accepts it (its text lets a hit deal 0 Damage). D3-1 against Minor 2, Major 3 loses 1 HP on a 2 only;
    a Critical Hit deals the largest, 2: 1 HP."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "scenario-files.md").read_text(encoding="utf-8")
    assert '(`"D3-1"` is refused)' in doc and '(`"D3-1"` is accepted' in doc
    forty_k = {
        "ruleset": "wh40k",
        "attacker": {"weapons": [{"name": "Gun", "attacks": "1", "skill": "3+", "strength": 4, "damage": "D3-1"}]},
        "target": {"toughness": 4, "models": [{"name": "Guard", "count": 1, "wounds": 1, "save": "4+"}]},
    }
    with pytest.raises(mathhammer.ScenarioError, match="D3-1") as refused:
        mathhammer.compile_scenario(mathhammer.scenario_from_data(forty_k))
    assert refused.value.field == "attacker.weapons[0].damage"
    data = {
        "ruleset": "skilldice",
        "attacker": {
            "name": "A",
            "models": 1,
            "hp_per_model": 1,
            "weapons": [{"name": "Knife", "models": 1, "skill": 3, "damage": "D3-1"}],
        },
        "target": {"name": "B", "models": 10, "hp_per_model": 1, "dc": 15, "minor": 2, "major": 3},
    }
    result = mathhammer.evaluate_exact(mathhammer.scenario_from_data(data))
    hit = result["hits"].mean
    critical = result["critical_hits"].mean
    assert critical == pytest.approx(1 / 12, abs=1e-12)
    assert result["damage"].mean == pytest.approx((hit - critical) / 3 + critical, abs=1e-12)


def test_no_inflict_line_in_a_d12_report_for_weapons_without_an_inflict_effect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A weapon Inflicts its effect "if it has one": without one, Focus > Panic is no Inflict, so neither
    the table, the chances, the JSON nor the narration tells of Inflicts for it. The fight's Rifle has no
    Inflict effect, the Blades have one; the vanguard's Rifle loses its."""
    fight = EXAMPLES / "skilldice-fight.toml"
    text = (EXAMPLES / "skilldice-vanguard.toml").read_text(encoding="utf-8")
    plain = tmp_path / "plain.toml"
    plain.write_text(text.replace('inflict = "Direct Damage 1"\n', ""), encoding="utf-8")
    assert 'inflict = "Direct' not in plain.read_text(encoding="utf-8")
    without = mathhammer.evaluate(mathhammer.load_scenario(plain), trials=2_000, seed=1)
    with_it = mathhammer.evaluate(mathhammer.load_scenario(EXAMPLES / "skilldice-vanguard.toml"), trials=2_000, seed=1)
    lines = {
        name: [s.label for s in r.shown] + [c.label for c in r.chances]
        for name, r in (("without", without), ("with", with_it))
    }
    assert not [line for line in lines["without"] if "Inflict" in line]
    assert {"Inflicts", "P(Inflict) per attack"} <= set(lines["with"])
    # The stage stays where the system tells of it: after the Critical Hits.
    assert [s.name for s in with_it.shown][:4] == ["attacks", "hits", "critical_hits", "inflicts"]

    result = run("skilldice-fight.toml")
    labels = [s.label for s in result.shown] + [c.label for c in result.chances]
    assert not [line for line in labels if line.startswith("Vanguard") and "Inflict" in line]
    assert "Raiders: Inflicts" in labels and "Raiders: P(Inflict) per attack" in labels
    assert cli.main(["simulate", str(fight), "--json", "--trials", "2000", "--seed", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "inflicts" not in data and "return_inflicts" in data
    told = "\n".join(explain(mathhammer.load_scenario(fight), seed=3).lines)
    assert "Vanguard: Inflicts" not in told and "Raiders: Inflicts" in told


def test_json_keys_stay_generic_and_labels_give_the_systems_words(capsys: pytest.CaptureFixture[str]) -> None:
    """``docs/cli.md``: keys and metric names are identifiers, the same in every ruleset; the d12 system's
    words for them are in ``labels`` (simulate) and ``titles`` (compare)."""
    assert cli.main(["simulate", str(EXAMPLES / "skilldice-fight.toml"), "--json", "--trials", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["weapons"]["Rifle"]) == {"damage", "mortal_wounds"}
    assert data["labels"]["mortal_wounds:Rifle"] == "Direct Damage: Rifle"
    assert data["labels"]["damage:Rifle"] == "HP lost: Rifle"
    assert data["labels"]["attacker_damage"] == "Vanguard: HP lost"
    assert data["labels"]["destroyed:Raiders"] == "Models removed: Raiders"
    profiles = str(EXAMPLES / "skilldice-profiles.toml")
    assert cli.main(["compare", profiles, "--json", "--trials", "500", "--metric", "mortal_wounds:Rifle"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert compared["titles"]["mortal_wounds:Rifle"] == "Expected Direct Damage: Rifle"
    assert compared["cells"][0]["result"]["labels"]["mortal_wounds:Rifle"] == "Direct Damage: Rifle"
    doc = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "JSON keys and metric names are identifiers" in doc
