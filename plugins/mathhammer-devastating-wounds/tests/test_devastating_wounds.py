"""Devastating Wounds in every version, against W1 and W3 models."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction

import mathhammer_devastating_wounds
import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon, plugin
from mathhammer_wh40k.keywords import lethal_hits

ATTACKS = 12
P_NORMAL, P_CRIT, P_FAIL_SAVE = 2 / 6, 1 / 6, 1 / 6  # wound 4+ (S4 vs T4); save 2+


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    return make_registry(
        ("wh40k", plugin), ("devastating-wounds", mathhammer_devastating_wounds), ("lethal-hits", lethal_hits)
    )


def scenario(version: str, wounds: int, *keywords: str, reduction: int = 0, models: int = 60) -> Scenario:
    weapon = Weapon(
        "Gun",
        attacks="1",
        skill=None,
        auto_hit=True,
        strength=4,
        damage="3",
        count=ATTACKS,
        keywords=("Devastating Wounds", *keywords),
    )
    target = Target(
        "T", toughness=4, models=(ModelProfile("M", wounds=wounds, save=2, count=models, damage_reduction=reduction),)
    )
    return Scenario(
        attacker=Attacker(weapons=(weapon,)),
        target=target,
        rules=VersionChoice(rules={"Devastating Wounds": version}),
    )


# Expected models destroyed per attack: a failed save (D3) destroys one model;
# a critical wound destroys one model (3 mortal wounds stopping at one W1 model,
# or D3 unsaved damage) or three (spilling over W1 models).
SPILL = {
    "11e": False,
    "11e-damage-reduced": False,
    "10e-2023-06": True,
    "10e-2023-09": False,
    "10e-2024": False,
    "10e-2024-spill": True,
}


@pytest.mark.parametrize("version", list(SPILL))
def test_every_version_against_w1_models(registry: Registry, version: str) -> None:
    r = mathhammer.simulate(scenario(version, 1), trials=200_000, seed=5, registry=registry)
    per_crit = 3 if SPILL[version] else 1
    assert_mean(r["models_destroyed"], ATTACKS * (P_NORMAL * P_FAIL_SAVE + P_CRIT * per_crit))
    mortal = 0 if version == "10e-2023-09" else 3
    assert_mean(r["mortal_wounds"], ATTACKS * P_CRIT * mortal)
    assert_mean(r["failed_saves"], ATTACKS * P_NORMAL * P_FAIL_SAVE)  # criticals make no save roll
    assert r.rule_versions["Devastating Wounds"] == version


@pytest.mark.parametrize("version", list(SPILL))
def test_every_version_against_w3_models(registry: Registry, version: str) -> None:
    # Three wounds a model: a critical's 3 damage destroys exactly one model whether it
    # spills, stops at one model or comes as normal damage; so does a failed save.
    r = mathhammer.simulate(scenario(version, 3), trials=200_000, seed=6, registry=registry)
    assert_mean(r["models_destroyed"], ATTACKS * (P_NORMAL * P_FAIL_SAVE + P_CRIT))
    assert_mean(r["damage"], 3 * ATTACKS * (P_NORMAL * P_FAIL_SAVE + P_CRIT))


@pytest.mark.parametrize(("version", "destroyed"), [("11e", 1), ("11e-damage-reduced", 0), ("10e-2024", 0)])
def test_damage_reduction_and_the_mortal_wounds(registry: Registry, version: str, destroyed: int) -> None:
    # One critical wound (roll 6) into a W3 model with -1 Damage: 3 mortal wounds
    # destroy it unless the reduction applies to them (2 do not).
    s = scenario(version, 3, reduction=1, models=1)
    s = Scenario(
        attacker=Attacker(
            weapons=(
                Weapon(
                    "Gun",
                    attacks="1",
                    skill=None,
                    auto_hit=True,
                    strength=4,
                    damage="3",
                    keywords=("Devastating Wounds",),
                ),
            )
        ),
        target=s.target,
        rules=s.rules,
    )
    r = mathhammer.replay(s, [6], registry=registry)
    assert r["models_destroyed"] == destroyed


def test_the_september_2023_wording_waits_for_every_other_attack(registry: Registry) -> None:
    s = scenario("10e-2023-09", 2, models=5)
    both = Scenario(
        attacker=Attacker(
            weapons=(s.attacker.weapons[0], Weapon("Pistol", attacks="1", skill=2, strength=4, damage="1", count=1))
        ),
        target=s.target,
        rules=s.rules,
    )
    # Gun: 12 wound rolls, the first a critical, the rest failing; Pistol: hit 2, wound 4, save 1.
    r = mathhammer.replay(both, [6, *[1] * 11, 2, 4, 1], registry=registry)
    damage = [e["amount"] for e in r["events"] if e["event"] == "damage"]
    assert damage == [1, 3], "the pistol's damage first, then the deferred critical"


def test_a_lethal_hit_is_not_a_critical_wound(registry: Registry) -> None:
    weapon = Weapon(
        "Gun",
        attacks="1",
        skill=3,
        strength=4,
        damage="3",
        count=ATTACKS,
        keywords=("Devastating Wounds", "Lethal Hits"),
    )
    s = Scenario(attacker=Attacker(weapons=(weapon,)), target=scenario("11e", 1).target)
    r = mathhammer.simulate(s, trials=200_000, seed=7, registry=registry)
    # Critical hits (1/6) wound automatically but make no wound roll, so only
    # the wound rolls of ordinary hits (3/6) can be critical wounds.
    assert_mean(r["mortal_wounds"], ATTACKS * 3 / 6 * P_CRIT * 3)


def test_the_june_2023_mortal_wounds_land_after_the_pool_s_normal_damage(registry: Registry) -> None:
    # Two auto-hitting D3 attacks into two W4 models (wound 4+, save 2+). One
    # critical and one failed save: the normal 3 damage first leaves the first
    # model on 1 wound, then 3 mortal wounds finish it and spill 2 onto the
    # next (6 damage). Mortal wounds first would waste 2 of the normal damage (4).
    s = scenario("10e-2023-06", 4, models=2)
    s = Scenario(
        attacker=Attacker(weapons=(dataclasses.replace(s.attacker.weapons[0], count=2),)),
        target=s.target,
        rules=s.rules,
    )
    r = mathhammer.replay(s, [6, 4, 1], registry=registry)  # wound rolls 6 and 4; the save roll 1
    assert [e["amount"] for e in r["events"] if e["event"] == "damage"] == [3]
    assert r["damage"] == 6 and r["models_destroyed"] == 1
    # The whole distribution, by hand: per attack a critical (1/6), a failed
    # save (wound 4-5, save 1: 1/18) or nothing (7/9).
    c, n, o = Fraction(1, 6), Fraction(1, 18), Fraction(7, 9)
    damage = {3: 2 * c * o + 2 * n * o, 6: c * c + 2 * c * n, 4: n * n}  # (n, n): the second hit's excess is lost
    mean = float(sum(k * p for k, p in damage.items()))
    exact = mathhammer.evaluate_exact(s, registry=registry)
    assert exact["damage"].mean == pytest.approx(mean, abs=1e-12)
    for k, p in damage.items():
        assert exact["damage"].pmf[k] == pytest.approx(float(p), abs=1e-12)
    assert_mean(mathhammer.simulate(s, trials=200_000, seed=8, registry=registry)["damage"], mean)
