"""Reports in each system's own words: the d12 system's HP, Direct Damage and Attack Rolls, The Ninth
Age's HP, and Warhammer 40,000's wounds and mortal wounds, in stage labels, charts and tables.

The narration (``mathhammer explain``) is held to the same in ``tests/test_explain.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mathhammer
from mathhammer.face import cli
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
