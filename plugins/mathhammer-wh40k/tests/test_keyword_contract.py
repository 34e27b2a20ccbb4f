"""Keywords registered for wh40k edit the Plan through WeaponRules, in the order listed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import mathhammer
from mathhammer import KeywordSpec, PluginError, Registry
from mathhammer.plugin import Effect
from mathhammer.testing import assert_mean, plugin_object
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon, plugin
from mathhammer_wh40k.keyword_api import WeaponRules


def keyword_plugin(name: str, apply: Callable[[WeaponRules], None]) -> object:
    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: Callable[[Any], None]) -> None:
        register(KeywordSpec(ruleset="wh40k", name=name, apply=apply))

    return plugin_object(mathhammer_register_keywords=mathhammer_register_keywords)


def scenario(*keywords: str) -> Scenario:
    return Scenario(
        attacker=Attacker(
            weapons=(Weapon("Gun", attacks="1", skill=3, strength=4, damage="1", count=20, keywords=keywords),)
        ),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=40),)),
    )


def every_six_hits_twice(rules: WeaponRules) -> None:
    rules.hit.effects.append(Effect(on="critical", action="extra", amount="1"))
    rules.rule_versions["Toy Hits"] = "test"


def test_a_keyword_edits_the_pool_and_records_its_version(make_registry: Callable[..., Registry]) -> None:
    registry = make_registry(("wh40k", plugin), ("toy", keyword_plugin("Toy Hits", every_six_hits_twice)))
    result = mathhammer.simulate(scenario("Toy Hits", "toy hits"), trials=200_000, seed=3, registry=registry)
    assert_mean(result["hits"], 20 * (4 / 6 + 1 / 6))  # listed twice, applied once
    assert result.rule_versions["Toy Hits"] == "test"


def test_a_failing_keyword_names_itself_and_its_plugin(make_registry: Callable[..., Registry]) -> None:
    def broken(rules: WeaponRules) -> None:
        raise RuntimeError("boom")

    registry = make_registry(("wh40k", plugin), ("toy", keyword_plugin("Toy Hits", broken)))
    with pytest.raises(PluginError, match=r"keyword Toy Hits \(plugin toy, .*\) .* at attacker\.weapons\[0\].*: boom"):
        mathhammer.compile_scenario(scenario("Toy Hits"), registry=registry)
