"""The Python objects accept what a scenario file accepts: rolls written "3+" as well as 3."""

from __future__ import annotations

import pytest

import mathhammer
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon
from mathhammer_wh40k.model import Modifiers


def scenario(skill: object, save: object, **model: object) -> Scenario:
    weapon = Weapon("Boltgun", attacks="2", skill=skill, strength=4, ap=-1, damage="1", count=10)  # type: ignore[arg-type]
    target = Target(
        "Intercessors", toughness=4, models=(ModelProfile("Intercessor", wounds=2, save=save, count=10, **model),)
    )  # type: ignore[arg-type]
    return Scenario(attacker=Attacker(weapons=(weapon,)), target=target)


def test_rolls_written_as_text_mean_what_they_mean_in_a_file() -> None:
    assert scenario("3+", " 3+ ") == scenario(3, 3)
    written = scenario("3+", "3+", invulnerable="4+", feel_no_pain="6+", feel_no_pain_mortal="5")
    assert (written.target.models[0].invulnerable, written.target.models[0].feel_no_pain) == (4, 6)
    assert written.target.models[0].feel_no_pain_mortal == 5
    assert Modifiers(critical_hit="5+", critical_wound="4+") == Modifiers(critical_hit=5, critical_wound=4)  # type: ignore[arg-type]
    # 20 attacks, hit 3+ (2/3), wound 4+ (1/2), save 4+ after AP -1 (fails 1/2): 10/3 failed saves.
    result = mathhammer.evaluate_exact(scenario("3+", "3+"))
    assert result["failed_saves"].mean == pytest.approx(10 / 3, abs=1e-12)


def test_a_roll_that_is_not_one_is_refused_naming_the_field() -> None:
    with pytest.raises(mathhammer.ScenarioError, match=r"attacker\.weapons\[0\]\.skill: is '3\+\+'"):
        mathhammer.evaluate_exact(scenario("3++", 3))
    with pytest.raises(mathhammer.ScenarioError, match=r"target\.models\[0\]\.save: is 'good'"):
        mathhammer.evaluate_exact(scenario(3, "good"))
