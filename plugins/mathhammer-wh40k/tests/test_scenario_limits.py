"""The core's limits on 40k scenarios: the documented numbers hold, and errors name the scenario's fields."""

from __future__ import annotations

import pytest

import mathhammer
from mathhammer import PlanError, ScenarioError, limits
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon


def swarm(count: int, attacks: str, *keywords: str) -> Scenario:
    weapon = Weapon("Gun", attacks=attacks, skill=3, strength=4, damage="1", count=count, keywords=keywords)
    target = Target("T", toughness=4, models=(ModelProfile("M", wounds=2, save=3, count=10),))
    return Scenario(attacker=Attacker(weapons=(weapon,)), target=target)


@pytest.mark.parametrize("keywords", [(), ("Sustained Hits 2",)])
def test_attacks_under_the_documented_limit_are_accepted(keywords: tuple[str, ...]) -> None:
    compiled = mathhammer.compile_scenario(swarm(5_000, "10", *keywords))
    assert compiled.plan.compile().target_models == 10  # 50,000 attacks, up to 150,000 dice with the extra hits


def test_the_limits_errors_name_the_scenario_field() -> None:
    with pytest.raises(ScenarioError, match=f"at most {limits.MAX_ATTACKS} are allowed") as info:
        mathhammer.compile_scenario(swarm(10_000, "D20"))
    assert info.value.field == "attacker.weapons"
    compiled = mathhammer.compile_scenario(swarm(10_000, "1", "Sustained Hits D6+10000"))
    with pytest.raises(ScenarioError, match=f"extra hits included; at most {limits.MAX_TOKENS_PER_TRIAL:}") as info:
        compiled.plan.compile(source="swarm.toml")
    assert info.value.field == "attacker.weapons[0].attacks" and info.value.source == "swarm.toml"


def test_plan_fields_map_to_the_scenario_fields_they_were_compiled_from() -> None:
    plan = mathhammer.compile_scenario(swarm(10, "2")).plan
    assert plan.scenario_field("sequences[0].attacks[0].models") == "attacker.weapons[0].count"
    assert plan.scenario_field("sequences[0].damage.dice") == "attacker.weapons[0].damage"
    assert plan.scenario_field("target.groups[0].wounds") == "target.models[0].wounds"
    assert plan.scenario_field("counters[0]") is None
    plan.target.groups[0].wounds = limits.MAX_VALUE
    with pytest.raises(ScenarioError, match=f"wounds in all; at most {limits.MAX_VALUE}") as info:
        plan.compile()
    assert info.value.field == "target.models"
    plan.target.groups[0].wounds = 0  # not a limit: whoever built the Plan is at fault
    with pytest.raises(PlanError, match="must be at least 1"):
        plan.compile()
