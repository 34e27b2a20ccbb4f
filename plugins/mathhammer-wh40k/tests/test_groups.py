"""P(the Captain dies) and each group's models destroyed, against an enumeration of every way the attacks go.

Two small squads led by a Captain take six shots of a BS 2+, S5, AP -1, D3
gun: without Precision the Captain is allocated after his squad, with it he
is allocated first. The enumeration below walks every sequence of attack
outcomes and allocates the damage model by model, as the rules read; it
shares nothing with either evaluator.
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
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon

ATTACKS = 6
SEED = 20261202
TRIALS = 200_000


def squad(troopers: int, captain_wounds: int, *keywords: str) -> Scenario:
    gun = Weapon("Gun", "1", 2, 5, "D3", ap=-1, count=ATTACKS, keywords=keywords)
    target = Target(
        "Squad led by a Captain",
        toughness=4,
        models=(
            ModelProfile("Trooper", wounds=1, count=troopers, save=4),
            ModelProfile("Captain", wounds=captain_wounds, save=4, character=True),
        ),
    )
    return Scenario(attacker=Attacker(weapons=(gun,)), target=target, context=Context(character_visible=True))


def by_enumeration(troopers: int, captain_wounds: int, *, precision: bool) -> dict[str, list[Fraction]]:
    """The distribution of Troopers and Captains destroyed, by walking every sequence of attack outcomes."""

    def passing(needed: int) -> Fraction:
        return Fraction(sum(1 for face in range(1, 7) if face >= needed), 6)

    # Hits on 2+; S5 against T4 wounds on 3+; Sv 4+ with AP -1 saves on 5+.
    unsaved = passing(2) * passing(3) * (1 - passing(5))
    outcomes = [(0, 1 - unsaved)] + [(damage, unsaved / 3) for damage in (1, 2, 3)]
    destroyed = {"Trooper": [Fraction(0)] * (troopers + 1), "Captain": [Fraction(0)] * 2}
    for sequence in itertools.product(outcomes, repeat=ATTACKS):
        models = [["Trooper", 1] for _ in range(troopers)]
        captain = ["Captain", captain_wounds]
        models = [captain, *models] if precision else [*models, captain]
        chance = Fraction(1)
        for damage, p in sequence:
            chance *= p
            standing = next((m for m in models if m[1] > 0), None)
            if damage and standing is not None:
                standing[1] -= min(damage, standing[1])  # excess damage is lost
        for group, pmf in destroyed.items():
            pmf[sum(1 for name, left in models if name == group and left == 0)] += chance
    return destroyed


CASES = [
    pytest.param(2, 3, (), False, 0.2129, id="captain-allocated-last"),
    pytest.param(3, 4, ("Precision",), True, 0.6006, id="precision"),
]


@pytest.mark.parametrize(("troopers", "captain_wounds", "keywords", "precision", "p_captain"), CASES)
def test_each_group_matches_the_enumeration_exactly(
    registry_all: Registry,
    troopers: int,
    captain_wounds: int,
    keywords: tuple[str, ...],
    precision: bool,
    p_captain: float,
) -> None:
    expected = by_enumeration(troopers, captain_wounds, precision=precision)
    assert float(expected["Captain"][1]) == pytest.approx(p_captain, abs=1e-4)
    result = mathhammer.evaluate_exact(squad(troopers, captain_wounds, *keywords), registry=registry_all)
    assert [g.name for g in result.groups] == ["Trooper", "Captain"]
    assert result.group("Captain").p_destroyed == pytest.approx(float(expected["Captain"][1]), abs=1e-12)
    assert result.group("Trooper").models == troopers
    for group, pmf in expected.items():
        got = result.group(group).pmf
        assert len(got) <= len(pmf)
        assert np.allclose(np.pad(got, (0, len(pmf) - len(got))), [float(p) for p in pmf], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("troopers", "captain_wounds", "keywords", "precision", "p_captain"), CASES)
@pytest.mark.parametrize("die_by_die", [False, True], ids=["fast-path", "die-by-die"])
def test_each_group_matches_the_enumeration_by_monte_carlo(
    registry_all: Registry,
    troopers: int,
    captain_wounds: int,
    keywords: tuple[str, ...],
    precision: bool,
    p_captain: float,
    die_by_die: bool,
) -> None:
    del p_captain
    expected = by_enumeration(troopers, captain_wounds, precision=precision)
    scenario = squad(troopers, captain_wounds, *keywords)
    if die_by_die:
        result = simulate_die_by_die(scenario, TRIALS, SEED, registry=registry_all)
    else:
        result = mathhammer.simulate(scenario, trials=TRIALS, seed=SEED, registry=registry_all)
        assert result.fast_path, "the scenario the fast path is meant to cover"
    for group, pmf in expected.items():
        seen = result.group(group).pmf
        for k, p in enumerate(pmf):
            se = math.sqrt(float(p * (1 - p)) / TRIALS)
            got = float(seen[k]) if k < len(seen) else 0.0
            assert abs(got - float(p)) < 4.5 * se, f"P({group} destroyed = {k}): {got} vs {float(p)}"


def test_the_result_reports_each_group_in_tables_json_and_pandas(registry_all: Registry) -> None:
    result = mathhammer.simulate(squad(2, 3), trials=20_000, seed=SEED, registry=registry_all)
    captain = result.group("Captain")
    assert captain.p_destroyed == pytest.approx(0.2129, abs=4.5 * captain.p_destroyed_se)
    assert captain.p_destroyed_se > 0
    assert "P(Captain destroyed)" in result.to_text()
    report = result.to_dict()
    assert report["groups"]["Captain"]["p_destroyed"] == captain.p_destroyed
    assert report["groups"]["Trooper"]["models"] == 2
    assert len(report["groups"]["Trooper"]["pmf"]) <= 3
    assert "destroyed:Captain" not in report["stages"]
    frame = result.to_pandas()
    assert frame.loc["destroyed:Captain", "mean"] == pytest.approx(captain.destroyed.mean)
    with pytest.raises(
        KeyError, match="'Lieutenant' is not a group of the target; its groups are 'Trooper', 'Captain'"
    ):
        result.group("Lieutenant")


def test_a_single_group_target_adds_no_rows(registry_all: Registry) -> None:
    gun = Weapon("Gun", "1", 3, 4, "1", count=4)
    target = Target("Squad", toughness=4, models=(ModelProfile("Trooper", wounds=1, count=5),))
    result = mathhammer.evaluate_exact(
        Scenario(attacker=Attacker(weapons=(gun,)), target=target), registry=registry_all
    )
    assert [s.name for s in result.shown][-1] == "models_destroyed"
    assert "P(Trooper destroyed)" not in result.to_text()
    # Still one field: P(every Trooper destroyed) is P(unit destroyed).
    assert result.group("Trooper").p_destroyed == pytest.approx(result.p_unit_destroyed, abs=1e-15)


def test_the_command_line_prints_each_group(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scenario = tmp_path / "captain.toml"
    scenario.write_text(
        """
ruleset = "wh40k"
[context]
character_visible = true
[[attacker.weapons]]
name = "Gun"
count = 6
attacks = "1"
skill = "2+"
strength = 5
ap = -1
damage = "D3"
keywords = ["Precision"]
[target]
name = "Squad led by a Captain"
toughness = 4
[[target.models]]
name = "Trooper"
count = 3
wounds = 1
save = "4+"
[[target.models]]
name = "Captain"
wounds = 4
save = "4+"
character = true
"""
    )
    assert run_cli(["simulate", str(scenario)]) == 0
    assert "P(Captain destroyed) = 0.6006" in capsys.readouterr().out
    assert run_cli(["simulate", str(scenario), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["groups"]["Captain"]["p_destroyed"] == pytest.approx(0.6006, abs=1e-4)


def test_compare_reports_p_group_destroyed_as_a_metric(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    library = tmp_path / "library.toml"
    library.write_text(
        """
ruleset = "wh40k"
[context]
character_visible = true
[[attackers.snipers.weapons]]
name = "Gun"
count = 6
attacks = "1"
skill = "2+"
strength = 5
ap = -1
damage = "D3"
keywords = ["Precision"]
[targets.led]
toughness = 4
[[targets.led.models]]
name = "Trooper"
count = 3
wounds = 1
save = "4+"
[[targets.led.models]]
name = "Captain"
wounds = 4
save = "4+"
character = true
[targets.alone]
toughness = 4
[[targets.alone.models]]
name = "Trooper"
count = 3
wounds = 1
save = "4+"
"""
    )
    assert run_cli(["compare", str(library), "--metric", "destroyed:Captain"]) == 0
    out = capsys.readouterr().out
    assert "P(Captain destroyed)" in out
    assert "60.1%" in out  # the enumeration's 0.6006; the target without a Captain shows "-"
    assert run_cli(["compare", str(library), "--json"]) == 0
    cells = {c["target"]: c["result"] for c in json.loads(capsys.readouterr().out)["cells"]}
    assert cells["led"]["groups"]["Captain"]["p_destroyed"] == pytest.approx(0.6006, abs=1e-4)
    assert "Captain" not in cells["alone"]["groups"]
    with pytest.raises(SystemExit):
        run_cli(["compare", str(library), "--metric", "destroyed"])
    assert "expected one of models_destroyed" in capsys.readouterr().err
