"""Blast at 5, 6, 10 and 11 models, in every version."""

from __future__ import annotations

from collections.abc import Callable

import mathhammer_blast
import pytest

import mathhammer
from mathhammer import Registry, ScenarioError
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon, plugin


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    return make_registry(("wh40k", plugin), ("blast", mathhammer_blast))


def grenade(models: int, version: str, keyword: str = "Blast", attacks: str = "D6", **context: bool) -> Scenario:
    weapon = Weapon("Grenade", attacks=attacks, skill=3, strength=4, damage="1", keywords=(keyword,))
    return Scenario(
        attacker=Attacker(weapons=(weapon,)),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=models),)),
        context=Context(**context),
        rules=VersionChoice(rules={"Blast": version}),
    )


MEAN_AT_LEAST_3 = (3 + 3 + 3 + 4 + 5 + 6) / 6


@pytest.mark.parametrize(
    ("models", "version", "keyword", "mean"),
    [
        (5, "spec", "Blast", 3.5),
        (6, "spec", "Blast", MEAN_AT_LEAST_3),
        (10, "spec", "Blast", MEAN_AT_LEAST_3),
        (11, "spec", "Blast", 6.0),
        (5, "10e", "Blast", 4.5),
        (6, "10e", "Blast", 4.5),
        (10, "10e", "Blast", 5.5),
        (11, "10e", "Blast", 5.5),
        (5, "11e", "Blast", 4.5),
        (6, "11e", "Blast", 4.5),
        (10, "11e", "Blast", 5.5),
        (11, "11e", "Blast 2", 7.5),
    ],
)
def test_attacks_by_target_size(registry: Registry, models: int, version: str, keyword: str, mean: float) -> None:
    r = mathhammer.simulate(grenade(models, version, keyword), trials=100_000, seed=4, registry=registry)
    assert_mean(r["attacks"], mean)
    assert r.rule_versions["Blast"] == version


def test_the_specification_raises_fixed_attacks_to_three(registry: Registry) -> None:
    r = mathhammer.simulate(grenade(6, "spec", attacks="1"), trials=1_000, seed=1, registry=registry)
    assert r["attacks"].mean == 3.0


def test_the_edition_preset_selects_the_editions_version(registry: Registry) -> None:
    s = grenade(10, "spec")
    s = Scenario(attacker=s.attacker, target=s.target, rules=VersionChoice(edition="10e"))
    r = mathhammer.simulate(s, trials=100_000, seed=2, registry=registry)
    assert r.rule_versions["Blast"] == "10e"
    assert_mean(r["attacks"], 5.5)


@pytest.mark.parametrize("version", ["spec", "10e", "11e"])
def test_never_against_a_unit_in_engagement_range(registry: Registry, version: str) -> None:
    with pytest.raises(ScenarioError, match="Engagement Range"):
        mathhammer.compile_scenario(grenade(10, version, engaged=True), registry=registry)


def test_unknown_versions_are_listed(registry: Registry) -> None:
    with pytest.raises(ScenarioError, match=r"field rules\.Blast: '9e' is not a version of 'Blast'; its versions are"):
        mathhammer.compile_scenario(grenade(10, "9e"), registry=registry)
