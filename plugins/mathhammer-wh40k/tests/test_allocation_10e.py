"""10th edition's allocation (``Allocation = "10e"``, or ``edition = "10e"``) against 11th edition's groups.

Three attacks that hit automatically and wound on 2+ (S8 against T4), AP 0,
D1, at a Guard (W1, Sv 4+) allocated before a Veteran (W2, Sv 2+). With 11th
edition's groups the wounds are saved together, lowest roll first: the Guard
meets the lowest roll. With 10th edition's each attack is allocated and saved
in turn, to the wounded model first, then in ``allocation_order``. The
enumeration below rolls every die of both readings, one rule at a time; it
shares nothing with either evaluator.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.plugin import VersionChoice
from mathhammer.testing import simulate_die_by_die
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon

ATTACKS = 3
SEED = 20261202
TRIALS = 200_000
SAVES = {"Guard": 4, "Veteran": 2}
WOUNDS = {"Guard": 1, "Veteran": 2}


def scenario(edition: str | None) -> Scenario:
    gun = Weapon("Gun", "1", None, 8, "1", count=ATTACKS, auto_hit=True)
    target = Target(
        "Mixed squad",
        toughness=4,
        models=tuple(ModelProfile(name, wounds=WOUNDS[name], save=SAVES[name]) for name in ("Guard", "Veteran")),
        allocation_order=("Guard", "Veteran"),
    )
    return Scenario(attacker=Attacker(weapons=(gun,)), target=target, rules=VersionChoice(edition=edition))


def by_enumeration(*, in_turn: bool) -> dict[str, list[Fraction]]:
    """The distributions of Guards and Veterans destroyed, over every wound die and save die."""
    destroyed = {"Guard": [Fraction(0)] * 2, "Veteran": [Fraction(0)] * 2}
    chance = Fraction(1, 6 ** (2 * ATTACKS))
    for dice in itertools.product(range(1, 7), repeat=2 * ATTACKS):
        wound_dice, save_dice = dice[:ATTACKS], dice[ATTACKS:]
        saves = [s for w, s in zip(wound_dice, save_dice, strict=True) if w >= 2]
        if not in_turn:
            saves.sort()  # 11th edition: rolled together, the lowest first
        left = dict(WOUNDS)
        for roll in saves:
            model = next((m for m in ("Guard", "Veteran") if left[m] > 0), None)
            if model is None:
                break
            if roll == 1 or roll < SAVES[model]:
                left[model] -= 1
        for model, pmf in destroyed.items():
            pmf[int(left[model] == 0)] += chance
    return destroyed


@pytest.mark.parametrize(("edition", "in_turn"), [(None, False), ("11e", False), ("10e", True)])
def test_each_edition_matches_the_enumeration_exactly(
    registry_all: Registry, edition: str | None, in_turn: bool
) -> None:
    expected = by_enumeration(in_turn=in_turn)
    result = mathhammer.evaluate_exact(scenario(edition), registry=registry_all)
    assert result.rule_versions["Allocation"] == ("10e" if in_turn else "11e")
    assert ("allocated like an attack (10th edition)" in result.rule_descriptions["mortal_wounds"]) == in_turn
    for group, pmf in expected.items():
        got = np.pad(result.group(group).pmf, (0, 2))[:2]
        assert np.allclose(got, [float(p) for p in pmf], rtol=0, atol=1e-12), group


def test_the_editions_differ_where_the_rolls_are_sorted() -> None:
    eleventh, tenth = by_enumeration(in_turn=False), by_enumeration(in_turn=True)
    # The Guard dies unless every wound is saved, whichever order: the same in both.
    assert eleventh["Guard"] == tenth["Guard"]
    # Sorted, the Veteran meets the highest rolls; in turn, any roll after the Guard's death.
    assert eleventh["Veteran"][1] < tenth["Veteran"][1]
    # By hand: the Veteran (W2) dies only when all three attacks wound and two saves
    # fail after the Guard's. In turn, the Guard fails the first roll (1/2) and the
    # Veteran the next two (1/36): 1/72. Sorted, the Guard takes the lowest roll, so
    # the two higher ones can only fail the Veteran's 2+ if all three show 1: 1/216.
    assert tenth["Veteran"][1] == Fraction(5, 6) ** 3 * Fraction(1, 72)
    assert eleventh["Veteran"][1] == Fraction(5, 6) ** 3 * Fraction(1, 216)


@pytest.mark.parametrize("die_by_die", [False, True], ids=["fast-path", "die-by-die"])
@pytest.mark.parametrize(("edition", "in_turn"), [("11e", False), ("10e", True)])
def test_each_edition_matches_the_enumeration_by_monte_carlo(
    registry_all: Registry, edition: str, in_turn: bool, die_by_die: bool
) -> None:
    expected = by_enumeration(in_turn=in_turn)
    if die_by_die:
        result = simulate_die_by_die(scenario(edition), TRIALS, SEED, registry=registry_all)
    else:
        result = mathhammer.simulate(scenario(edition), trials=TRIALS, seed=SEED, registry=registry_all)
        assert result.fast_path
    for group, pmf in expected.items():
        seen = result.group(group).pmf
        for k, p in enumerate(pmf):
            se = math.sqrt(float(p * (1 - p)) / TRIALS)
            got = float(seen[k]) if k < len(seen) else 0.0
            assert abs(got - float(p)) <= 4.5 * se, f"P({group} destroyed = {k}): {got} vs {float(p)}"


def test_one_rule_over_the_preset(registry_all: Registry) -> None:
    mixed = scenario("10e")
    eleventh = Scenario(
        attacker=mixed.attacker, target=mixed.target, rules=VersionChoice(edition="10e", rules={"Allocation": "11e"})
    )
    result = mathhammer.evaluate_exact(eleventh, registry=registry_all)
    assert result.rule_versions["Allocation"] == "11e"
    assert result.group("Veteran").p_destroyed == pytest.approx(float(by_enumeration(in_turn=False)["Veteran"][1]))
