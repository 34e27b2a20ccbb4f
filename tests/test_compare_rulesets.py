"""``compare`` on the d12 skill-dice system's and The Ninth Age's profile libraries.

Each cell of a comparison is the pairing's scenario evaluated as ``simulate`` would: the scenario is
built here by hand from the library's raw TOML, independently of compare's own joining, and every
stage's distribution must match to 1e-12 (both are exact). The d12 attacker's ``models`` (the rules'
own field) must reach the ruleset; a fight or a close combat is refused naming its field; and the
metric titles are the ruleset's words.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.compare import Comparison, Profile, Profiles, compare, pairing, read_profiles
from mathhammer.exceptions import ScenarioError
from mathhammer.face import cli
from mathhammer.result import Result
from mathhammer.scenario import scenario_from_data
from mathhammer.simulate import evaluate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
D12 = EXAMPLES / "skilldice-profiles.toml"
T9A = EXAMPLES / "t9a-profiles.toml"
EXACT = 1e-12


def _raw(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def _d12_scenario(raw: Mapping[str, Any], attacker: str, target: str) -> dict[str, Any]:
    """The d12 pairing written as a scenario file would be: [rules], [attacker] and [target], without points."""
    unit = {k: v for k, v in raw["attackers"][attacker].items() if k != "points"}
    foe = {k: v for k, v in raw["targets"][target].items() if k != "points"}
    return {"ruleset": "skilldice", "rules": raw["rules"], "attacker": unit, "target": foe}


def _t9a_scenario(raw: Mapping[str, Any], attacker: str, target: str) -> dict[str, Any]:
    """The T9A pairing written as a scenario file would be: [rules], [[attack]], [target] and the attacker's
    own scenario keys ([context])."""
    profile = raw["attackers"][attacker]
    foe = {k: v for k, v in raw["targets"][target].items() if k != "points"}
    return {
        "ruleset": "t9a",
        "rules": raw["rules"],
        "attack": profile["attack"],
        "target": foe,
        **profile.get("scenario", {}),
    }


def _same(cell: Result, alone: Result) -> None:
    """Every stage of ``cell`` has the distribution of ``alone``'s, to 1e-12; both exact."""
    assert cell.evaluator == alone.evaluator == "exact"
    assert set(alone.stages) <= set(cell.stages)
    for name, stage in alone.stages.items():
        a, b = np.asarray(cell[name].pmf), np.asarray(stage.pmf)
        assert a.shape == b.shape, name
        assert np.max(np.abs(a - b), initial=0.0) <= EXACT, name
        assert abs(cell[name].mean - stage.mean) <= EXACT, name
    assert abs(cell.p_unit_destroyed - alone.p_unit_destroyed) <= EXACT


@pytest.mark.parametrize(("library", "build"), [(D12, _d12_scenario), (T9A, _t9a_scenario)])
def test_every_cell_is_the_pairing_simulated_alone(library: Path, build: Any) -> None:
    profiles = read_profiles([library])
    comparison = compare(profiles.select("attacker", None), profiles.select("target", None), evaluator="exact")
    raw = _raw(library)
    assert comparison.attackers == list(raw["attackers"]) and comparison.targets == list(raw["targets"])
    for (a, t), cell in comparison.results.items():
        alone = evaluate(scenario_from_data(build(raw, a, t), source=str(library)), evaluator="exact")
        _same(cell, alone)
        assert comparison.value(a, t, "models_destroyed") == cell["models_destroyed"].mean
        assert comparison.value(a, t, "damage_per_100") == pytest.approx(
            cell["damage"].mean * 100 / raw["attackers"][a]["points"], rel=EXACT
        )


def test_the_greatswords_cut_the_trolls_as_their_scenario_file_says() -> None:
    """examples/t9a-greatswords.toml works it by hand: 10 x 4/6 x [3/6 x 3/6 x 4/6 + 1/6] = 20/9 HP lost."""
    profiles = read_profiles([T9A])
    comparison = compare([profiles.attackers["Greatswords"]], [profiles.targets["Trolls"]])
    assert abs(comparison.matrix("damage")[0, 0] - 20 / 9) <= EXACT


def test_a_d12_attacker_keeps_its_models() -> None:
    """The d12 attacker's `models` is the rules' own field: compare once took it for its own count and the
    ruleset then said "attacker.models: is required but missing"."""
    profiles = read_profiles([D12])
    vanguard = profiles.attackers["Vanguard"]
    assert vanguard.table["models"] == 5 and vanguard.models == 5 and "points" not in vanguard.table
    scenario = pairing(vanguard, profiles.targets["Raiders"])
    assert scenario is not None
    comparison = compare([vanguard], [profiles.targets["Raiders"]])
    assert comparison.results["Vanguard", "Raiders"].evaluator == "exact"


def test_a_d12_library_compares_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", str(D12)]) == 0
    out, err = capsys.readouterr()
    assert "is required but missing" not in out + err
    assert "Expected HP lost (attackers down, targets across)" in out
    assert "Expected models removed" in out and "Expected damage" not in out


@pytest.mark.parametrize(
    ("scenario", "target", "library"),
    [("skilldice-vanguard.toml", "Raiders", D12), ("t9a-greatswords.toml", "Trolls", T9A)],
)
def test_the_command_line_cell_is_simulate_of_the_same_pairing(
    capsys: pytest.CaptureFixture[str], scenario: str, target: str, library: Path
) -> None:
    """The scenario file's attacker against the library's copy of its target: compare --json and
    simulate --json print the same distributions."""
    path = str(EXAMPLES / scenario)
    args = ["compare", path, "--target-library", str(library), "-t", target, "--exact", "--json"]
    assert cli.main(args) == 0
    compared = json.loads(capsys.readouterr().out)
    assert cli.main(["simulate", path, "--exact", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    (cell,) = compared["cells"]
    assert cell["target"] == target
    for stage in ("damage", "models_destroyed"):
        got, want = cell["result"][stage], alone[stage]
        assert np.max(np.abs(np.subtract(got["pmf"], want["pmf"]))) <= EXACT
        assert abs(got["mean"] - want["mean"]) <= EXACT
    assert abs(cell["result"]["p_unit_destroyed"] - alone["p_unit_destroyed"]) <= EXACT


def test_a_t9a_scenario_file_gives_its_attacks_as_an_attacker(capsys: pytest.CaptureFixture[str]) -> None:
    """A T9A attack file has no [attacker]: its [[attack]] tables are the attacker, named after the file."""
    profiles = read_profiles([EXAMPLES / "t9a-greatswords.toml"])
    assert list(profiles.attackers) == ["t9a-greatswords"] and list(profiles.targets) == ["Trolls"]
    assert cli.main(["compare", str(EXAMPLES / "t9a-greatswords.toml")]) == 0
    assert "2.22" in capsys.readouterr().out


def _titles(comparison: Comparison) -> dict[str, str]:
    return {m: comparison.metric_info(m)[0] for m in ("models_destroyed", "damage", "damage_per_100")}


def test_titles_are_the_rulesets_words(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    for library, mortal in ((D12, "Direct Damage"), (T9A, "HP lost with no saves")):
        profiles = read_profiles([library])
        comparison = compare(profiles.select("attacker", None)[:1], profiles.select("target", None)[:1])
        assert _titles(comparison) == {
            "models_destroyed": "Expected models removed",
            "damage": "Expected HP lost",
            "damage_per_100": "Expected HP lost per 100 points",
        }
        weapon = next(iter(comparison.results.values())).weapons[0].name
        assert comparison.metric_info(f"damage:{weapon}")[0] == f"Expected HP lost: {weapon}"
        assert comparison.metric_info(f"mortal_wounds:{weapon}")[0] == f"Expected {mortal}: {weapon}"
        assert comparison.to_dict()["titles"]["damage"] == "Expected HP lost"
        assert comparison.to_pandas().attrs["titles"]["models_destroyed_per_100"] == (
            "Expected models removed per 100 points"
        )
        figure = comparison.plot(["damage", f"mortal_wounds:{weapon}"])
        shown = [ax.get_title() for ax in figure.axes]
        # A chart cuts a long title short (with an ellipsis).
        assert "Expected HP lost" in shown and any(t.startswith(f"Expected {mortal}: ") for t in shown)
        assert "Expected HP lost" in comparison._repr_html_()


def test_40k_titles_are_unchanged() -> None:
    profiles = read_profiles([EXAMPLES / "profiles.toml"])
    comparison = compare(profiles.select("attacker", None)[:1], profiles.select("target", None)[:1])
    assert _titles(comparison) == {
        "models_destroyed": "Expected models destroyed",
        "damage": "Expected damage",
        "damage_per_100": "Expected damage per 100 points",
    }
    assert comparison.metric_info("mortal_wounds:Gun")[0] == "Expected mortal wounds: Gun"
    assert comparison.metric_info("damage:Gun")[0] == "Expected damage: Gun"


def test_a_40k_attackers_own_models_tables_stay_its_own(tmp_path: Path) -> None:
    """`[[attackers.NAME.models]]` is the 40k attacker's own models (for Hazardous), not compare's count."""
    library = tmp_path / "hazard.toml"
    library.write_text(
        'ruleset = "wh40k"\n[attackers.Plasma]\n[[attackers.Plasma.weapons]]\nname = "Plasma"\nattacks = "1"\n'
        'skill = "3+"\nstrength = 8\nap = -3\ndamage = "2"\nkeywords = ["Hazardous"]\n'
        '[[attackers.Plasma.models]]\nname = "Gunner"\nwounds = 1\nsave = "3+"\n'
        '[targets.Rhino]\ntoughness = 9\n[[targets.Rhino.models]]\nname = "Rhino"\nwounds = 10\nsave = "3+"\n'
    )
    profiles = read_profiles([library])
    assert profiles.attackers["Plasma"].models is None
    comparison = compare(profiles.select("attacker", None), profiles.select("target", None))
    assert "attacker_models_destroyed" in comparison.results["Plasma", "Rhino"].stages


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('ruleset = "skilldice"\n[fight]\nrounds = 2\n[attackers.A]\nname = "A"\n', "fight"),
        ('ruleset = "t9a"\n[attackers.A.scenario]\ncombat = { rounds = 1 }\n', "attackers.A.scenario.combat"),
        ('ruleset = "t9a"\n[attackers.A]\nAgi = 3\n', "attackers.A.Agi"),
        ('ruleset = "t9a"\n[attackers.A]\npoints = 10\n', "attackers.A.attack"),
    ],
)
def test_what_cannot_be_a_cell_is_refused_naming_the_field(tmp_path: Path, text: str, field: str) -> None:
    library = tmp_path / "library.toml"
    library.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        read_profiles([library])
    assert caught.value.field == field and caught.value.source == str(library)


@pytest.mark.parametrize(("example", "field"), [("skilldice-fight.toml", "fight"), ("t9a-combat.toml", "combat")])
def test_a_fight_file_is_refused_with_what_to_do(capsys: pytest.CaptureFixture[str], example: str, field: str) -> None:
    assert cli.main(["compare", str(EXAMPLES / example)]) != 0
    err = capsys.readouterr().err
    assert f"field {field}:" in err and "cannot be a compare cell" in err and "mathhammer simulate" in err


def test_a_fight_built_in_python_is_refused() -> None:
    profiles = read_profiles([D12])
    vanguard = profiles.attackers["Vanguard"]
    fighting = Profile("Vanguard", "skilldice", vanguard.table, {"fight": {"rounds": 2}}, "mine.toml", "attacker")
    with pytest.raises(ScenarioError, match="cannot be a compare cell") as caught:
        compare([fighting], [profiles.targets["Raiders"]])
    assert caught.value.field == "fight"


def test_a_t9a_attack_error_names_the_librarys_field(tmp_path: Path) -> None:
    library = tmp_path / "library.toml"
    raw = T9A.read_text().replace("Off = 4\nStr = 5\nAP = 1", "Off = 44\nStr = 5\nAP = 1")
    library.write_text(raw)
    profiles = Profiles()
    read_profiles([library], profiles)
    with pytest.raises(ScenarioError) as caught:
        compare([profiles.attackers["Greatswords"]], [profiles.targets["Trolls"]])
    assert caught.value.field == "attackers.Greatswords.attack[0].Off" and "44" in caught.value.message
