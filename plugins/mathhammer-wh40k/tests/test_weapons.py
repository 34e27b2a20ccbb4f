"""What each weapon did, against an enumeration of every way the attacks go.

Two Lascannon shots (BS 3+, S12, AP -3, D3) and then three Bolter shots (BS 3+,
S4, AP 0, D1, each attack that wounds also inflicting a mortal wound after the
pool's normal damage) at three 3-wound models with Sv 3+. The enumeration
below walks every sequence of attack outcomes and allocates them model by
model, as the rules read; it shares nothing with either evaluator. A weapon's
damage is the wounds the target lost to it: damage wasted on a model already
destroyed is not counted, so the weapons' damage adds up to the unit's.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.testing import run_cli, simulate_die_by_die
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon

SEED = 20261202
TRIALS = 200_000
MODELS, WOUNDS = 3, 3


def scenario() -> Scenario:
    lascannon = Weapon("Lascannon", "1", 3, 12, "D3", ap=-3, count=2)
    bolter = Weapon("Bolter", "1", 3, 4, "1", count=3, mortal_wounds="1")
    target = Target("Squad", toughness=4, models=(ModelProfile("Trooper", wounds=WOUNDS, count=MODELS, save=3),))
    return Scenario(attacker=Attacker(weapons=(lascannon, bolter)), target=target)


def by_enumeration() -> dict[str, dict[str, list[Fraction]]]:
    """Per weapon, the distributions of the wounds the target lost to it and of the mortal wounds it inflicted."""
    # Lascannon: hits on 3+, wounds on 2+, Sv 3+ at AP -3 fails on 1-5, then D3.
    unsaved = Fraction(4, 6) * Fraction(5, 6) * Fraction(5, 6)
    lascannon = [((0, 0), 1 - unsaved)] + [((d, 0), unsaved / 3) for d in (1, 2, 3)]
    # Bolter: hits on 3+, wounds on 4+, Sv 3+ fails on 1-2; each wound is also a mortal wound.
    wounded = Fraction(4, 6) * Fraction(3, 6)
    bolter = [((0, 0), 1 - wounded), ((0, 1), wounded * Fraction(4, 6)), ((1, 1), wounded * Fraction(2, 6))]
    weapons = {"Lascannon": (2, lascannon), "Bolter": (3, bolter)}
    most = MODELS * WOUNDS
    out = {w: {"damage": [Fraction(0)] * (most + 1), "mortal_wounds": [Fraction(0)] * (most + 1)} for w in weapons}
    per_weapon = [itertools.product(outcomes, repeat=n) for n, outcomes in weapons.values()]
    for sequences in itertools.product(*(list(p) for p in per_weapon)):
        left = [WOUNDS] * MODELS
        chance = Fraction(1)

        def wound(amount: int, left: list[int] = left) -> int:
            standing = next((i for i, w in enumerate(left) if w > 0), None)
            if standing is None:
                return 0
            taken = min(amount, left[standing])  # excess damage is lost
            left[standing] -= taken
            return taken

        did = {}
        for name, attacks in zip(weapons, sequences, strict=True):
            lost = mortal = 0
            for (damage, mortals), p in attacks:
                chance *= p
                if damage:
                    lost += wound(damage)
                mortal += mortals
            # Mortal wounds after the pool's normal damage, one at a time.
            lost += sum(wound(1) for _ in range(mortal))
            did[name] = (lost, mortal)
        for name, (lost, mortal) in did.items():
            out[name]["damage"][lost] += chance
            out[name]["mortal_wounds"][mortal] += chance
    assert all(sum(pmf) == 1 for pmfs in out.values() for pmf in pmfs.values())
    return out


def mean(pmf: list[Fraction]) -> float:
    return float(sum(k * p for k, p in enumerate(pmf)))


def test_each_weapon_matches_the_enumeration_exactly(registry_all: Registry) -> None:
    expected = by_enumeration()
    result = mathhammer.evaluate_exact(scenario(), registry=registry_all)
    assert [w.name for w in result.weapons] == ["Lascannon", "Bolter"]
    for weapon in result.weapons:
        for stage in (weapon.damage, weapon.mortal_wounds):
            want = expected[weapon.name][stage.name.split(":")[0]]
            assert stage.mean == pytest.approx(mean(want), abs=1e-12), stage.name
            if stage.distribution_known:
                got = np.pad(stage.pmf, (0, len(want) - len(stage.pmf)))
                assert np.allclose(got, [float(p) for p in want], rtol=0, atol=1e-12), stage.name
    # The first weapon's damage is its own from the start: its whole distribution is known.
    assert result.weapon("Lascannon").damage.distribution_known
    assert not result.weapon("Bolter").damage.distribution_known
    assert result.weapon("Bolter").mortal_wounds.distribution_known
    total = sum(w.mean_damage for w in result.weapons)
    assert total == pytest.approx(result["damage"].mean, abs=1e-12)


@pytest.mark.parametrize("die_by_die", [False, True], ids=["fast-path", "die-by-die"])
def test_each_weapon_matches_the_enumeration_by_monte_carlo(registry_all: Registry, die_by_die: bool) -> None:
    expected = by_enumeration()
    if die_by_die:
        result = simulate_die_by_die(scenario(), TRIALS, SEED, registry=registry_all)
    else:
        result = mathhammer.simulate(scenario(), trials=TRIALS, seed=SEED, registry=registry_all)
        assert result.fast_path, "the scenario the fast path is meant to cover"
    for weapon in result.weapons:
        for stage in (weapon.damage, weapon.mortal_wounds):
            for k, p in enumerate(expected[weapon.name][stage.name.split(":")[0]]):
                se = math.sqrt(float(p * (1 - p)) / TRIALS)
                got = float(stage.pmf[k]) if k < len(stage.pmf) else 0.0
                assert abs(got - float(p)) <= 4.5 * se, f"P({stage.name} = {k}): {got} vs {float(p)}"


def test_the_result_reports_each_weapon_in_tables_json_and_pandas(registry_all: Registry) -> None:
    simulated = mathhammer.simulate(scenario(), trials=20_000, seed=SEED, registry=registry_all)
    exact = mathhammer.evaluate_exact(scenario(), registry=registry_all)
    for result in (simulated, exact):
        text = result.to_text()
        assert "Damage: Lascannon" in text
        assert "Mortal wounds: Bolter" in text
        # The Lascannon inflicts no mortal wounds: no row for them.
        assert "Mortal wounds: Lascannon" not in text
        report = json.loads(json.dumps(result.to_dict()))
        assert set(report["weapons"]) == {"Lascannon", "Bolter"}
        assert "damage:Lascannon" not in report["stages"]
        bolter = report["weapons"]["Bolter"]["damage"]
        assert bolter["mean"] == pytest.approx(result.weapon("Bolter").mean_damage)
        frame = result.to_pandas()
        assert frame.loc["damage:Bolter", "mean"] == pytest.approx(result.weapon("Bolter").mean_damage)
    assert simulated.weapon("Bolter").damage.se > 0
    assert exact.to_dict()["weapons"]["Bolter"]["damage"]["distribution_known"] is False
    assert exact.mean_only_note is not None and exact.mean_only_note in exact.to_text()
    assert simulated.mean_only_note is None
    with pytest.raises(KeyError, match="'Meltagun' is not a weapon of this Result; its weapons are 'Lascannon', 'B"):
        exact.weapon("Meltagun")


def test_the_weapons_chart(registry_all: Registry) -> None:
    pytest.importorskip("matplotlib")
    result = mathhammer.evaluate_exact(scenario(), registry=registry_all)
    figure = result.plot_weapons()
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["Lascannon", "Bolter"]
    with pytest.raises(ValueError, match="only an exact mean"):
        result.plot(["damage:Bolter"])


LASCANNON = """
name = "Lascannon"
count = 2
attacks = "1"
skill = "3+"
strength = 12
ap = -3
damage = "D3"
"""
BOLTER = """
name = "Bolter"
count = 3
attacks = "1"
skill = "3+"
strength = 4
damage = "1"
"""
SQUAD = """
toughness = 4
[[{at}models]]
name = "Trooper"
count = 3
wounds = 3
save = "3+"
"""
LIBRARY = (
    'ruleset = "wh40k"\n'
    f"[[attackers.devastators.weapons]]{LASCANNON}"
    f'[[attackers.devastators.weapons]]{BOLTER}mortal_wounds = "1"\n'
    f"[[attackers.tactical.weapons]]{BOLTER}"
    f"[targets.squad]{SQUAD.format(at='targets.squad.')}"
)
"""The scenario's two weapons as one attacker of a profile library, and its Bolters as another."""
SCENARIO = (
    'ruleset = "wh40k"\n'
    f"[[attacker.weapons]]{LASCANNON}"
    f'[[attacker.weapons]]{BOLTER}mortal_wounds = "1"\n'
    f'[target]\nname = "Squad"{SQUAD.format(at="target.")}'
)
"""The scenario as a file."""


def test_compare_and_the_command_line_report_each_weapon(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    library = tmp_path / "library.toml"
    library.write_text(LIBRARY)
    expected = mean(by_enumeration()["Lascannon"]["damage"])
    assert run_cli(["compare", str(library), "--metric", "damage:Lascannon"]) == 0
    out = capsys.readouterr().out
    assert "Expected damage: Lascannon" in out
    assert f"{expected:.2f}" in out  # devastators; the tactical squad has no Lascannon and shows "-"
    assert run_cli(["compare", str(library), "--json"]) == 0
    cells = {c["attacker"]: c["result"] for c in json.loads(capsys.readouterr().out)["cells"]}
    assert cells["devastators"]["weapons"]["Lascannon"]["damage"]["mean"] == pytest.approx(expected, abs=1e-12)
    assert set(cells["tactical"]["weapons"]) == {"Bolter"}


def test_the_command_line_prints_and_charts_each_weapon(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    scenario_file = tmp_path / "devastators.toml"
    scenario_file.write_text(SCENARIO)
    expected = by_enumeration()
    assert run_cli(["simulate", str(scenario_file)]) == 0
    out = capsys.readouterr().out
    assert f"{mean(expected['Bolter']['damage']):.3f}" in out.split("Damage: Bolter")[1].split("\n")[0]
    assert run_cli(["simulate", str(scenario_file), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["weapons"]["Bolter"]["mortal_wounds"]["mean"] == pytest.approx(1.0, abs=1e-12)
    image = tmp_path / "weapons.svg"
    assert run_cli(["plot", str(scenario_file), "--weapons", "-o", str(image)]) == 0
    capsys.readouterr()
    assert "Lascannon" in image.read_text()
    other = tmp_path / "other.toml"
    other.write_text(SCENARIO)
    assert run_cli(["plot", str(scenario_file), str(other), "--weapons", "-o", str(image)]) == 2
    assert "charts the weapons of one scenario or pairing, and 2 were given" in capsys.readouterr().err
