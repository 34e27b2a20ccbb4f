"""Sustained Hits X against closed forms."""

from __future__ import annotations

from collections.abc import Callable

import mathhammer_sustained_hits
import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon, plugin


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    return make_registry(("wh40k", plugin), ("sustained-hits", mathhammer_sustained_hits))


def shoot(registry: Registry, *keywords: str, auto_hit: bool = False) -> mathhammer.Result:
    weapon = Weapon("Gun", attacks="1", skill=3, strength=4, damage="1", count=30, keywords=keywords, auto_hit=auto_hit)
    scenario = Scenario(
        attacker=Attacker(weapons=(weapon,)),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=200),)),
    )
    return mathhammer.simulate(scenario, trials=200_000, seed=8, registry=registry)


@pytest.mark.parametrize(("x", "mean_x"), [("1", 1.0), ("2", 2.0), ("D3", 2.0)])
def test_each_critical_hit_adds_x_hits(registry: Registry, x: str, mean_x: float) -> None:
    result = shoot(registry, f"Sustained Hits {x}")
    assert_mean(result["hits"], 30 * (4 / 6 + mean_x / 6))
    assert result.rule_versions.get("Sustained Hits") is None  # no versions: unchanged since 10th


def test_extra_hits_roll_to_wound_like_any_hit(registry: Registry) -> None:
    result = shoot(registry, "Sustained Hits 1")
    assert_mean(result["wounds"], 30 * (4 / 6 + 1 / 6) * 3 / 6)


def test_torrent_weapons_never_sustain(registry: Registry) -> None:
    result = shoot(registry, "Sustained Hits 2", auto_hit=True)
    assert result["hits"].pmf[30] == 1.0


def test_a_bad_value_is_named(registry: Registry) -> None:
    with pytest.raises(mathhammer.ScenarioError, match=r"keywords\[0\]: 'Sustained Hits D0': Sustained Hits takes"):
        shoot(registry, "Sustained Hits D0")
