"""Bad input, from files and from Python objects: a clear error naming the field and value."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import Registry, ScenarioError
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon
from mathhammer_wh40k.model import Modifiers

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def base(**weapon: Any) -> Scenario:
    w: dict[str, Any] = dict(name="Gun", attacks="2", skill=3, strength=4, damage="1")
    w.update(weapon)
    return Scenario(
        attacker=Attacker(weapons=(Weapon(**w),)),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=5),)),
    )


@pytest.mark.parametrize(
    ("weapon", "message"),
    [
        (dict(attacks="banana"), r"weapons\[0\]\.attacks: dice expression \"banana\""),
        (dict(attacks="0"), r"weapons\[0\]\.attacks: is '0', which can be 0; A is at least 1"),
        (dict(damage="D3-1"), r"weapons\[0\]\.damage: is 'D3-1', which can be 0; D is at least 1"),
        (dict(mortal_wounds="0"), r"mortal_wounds: is '0', which can be 0"),
        (dict(name=5), r"weapons\[0\]\.name: must be text, not int 5"),
        (dict(keywords="Lethal Hits"), r"weapons\[0\]\.keywords: must be a list of keyword text, not str"),
        (dict(skill=None), r"weapons\[0\]\.skill: is missing; give the weapon's BS"),
        (dict(skill=9), r"weapons\[0\]\.skill: is 9; BS must be a roll from 2\+ to 6\+"),
        (dict(attacks="100D6", count=1000), r"attacker\.weapons: can make up to 600000 attacks at once"),
        (dict(modifiers=Modifiers(reroll_hits="all")), r"reroll_hits: is 'all'; expected one of none, ones"),  # type: ignore[arg-type]
    ],
)
def test_bad_weapons_from_python(registry: Registry, weapon: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        mathhammer.compile_scenario(base(**weapon), registry=registry)


def test_wrong_objects_are_named(registry: Registry) -> None:
    s = base()
    with pytest.raises(ScenarioError, match=r"attacker\.weapons\[0\]: must be Weapon, not str"):
        mathhammer.compile_scenario(replace(s, attacker=Attacker(weapons=("Gun",))), registry=registry)  # type: ignore[arg-type]
    with pytest.raises(ScenarioError, match=r"target\.models\[0\]: must be ModelProfile, not dict"):
        target = replace(s.target, models=({"name": "M"},))  # type: ignore[arg-type]
        mathhammer.compile_scenario(replace(s, target=target), registry=registry)
    with pytest.raises(ScenarioError, match=r"target\.allocation_order: must be a list of model names, not str"):
        mathhammer.compile_scenario(replace(s, target=replace(s.target, allocation_order="M")), registry=registry)  # type: ignore[arg-type]


def test_target_limits_are_named_against_the_scenario(registry: Registry) -> None:
    s = base()
    many = replace(s.target, models=(ModelProfile("A", wounds=1, count=6000), ModelProfile("B", wounds=2, count=6000)))
    with pytest.raises(ScenarioError, match=r"target\.models: hold 12000 models in all; at most 10000"):
        mathhammer.compile_scenario(replace(s, target=many), registry=registry)
    tough = replace(s.target, models=(ModelProfile("A", wounds=1000, count=5000),))
    with pytest.raises(ScenarioError, match=r"target\.models: hold 5000000 wounds in all; at most 1000000"):
        mathhammer.compile_scenario(replace(s, target=tough), registry=registry)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return path


def test_errors_found_while_compiling_still_name_the_file(registry: Registry, tmp_path: Path) -> None:
    text = (EXAMPLES / "attached-unit-example.toml").read_text()
    path = write(tmp_path, text.replace('allocation_order = ["Geminae Superia"', 'allocation_order = ["Nobody"'))
    scenario = mathhammer.load_scenario(path, registry=registry)
    with pytest.raises(ScenarioError, match=rf"{path}, field target\.allocation_order\[0\]: names 'Nobody'"):
        mathhammer.compile_scenario(scenario, registry=registry)


def test_a_weapon_that_hits_automatically_needs_no_skill(registry: Registry, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'ruleset = "wh40k"\n[[attacker.weapons]]\nname = "Flamer"\nattacks = "D6"\nauto_hit = true\n'
        'strength = 4\ndamage = 1\n[target]\ntoughness = 3\n[[target.models]]\nname = "M"\nwounds = 1\ncount = 10\n',
    )
    result = mathhammer.simulate(
        mathhammer.load_scenario(path, registry=registry), trials=1000, seed=1, registry=registry
    )
    assert result["hits"].mean == result["attacks"].mean


def test_naming_only_a_character_puts_it_after_every_other_group(registry: Registry) -> None:
    target = Target(
        "Attached",
        toughness=3,
        allocation_order=("Hero B", "Hero A"),
        models=(
            ModelProfile("Hero A", wounds=4, character=True),
            ModelProfile("Guard", wounds=2, count=2),
            ModelProfile("Hero B", wounds=5, character=True),
            ModelProfile("Trooper", wounds=1, count=5),
        ),
    )
    plan = mathhammer.compile_scenario(replace(base(), target=target), registry=registry).plan
    names = [plan.target.groups[i].name for i in plan.target.order]
    assert names == ["Guard", "Trooper", "Hero B", "Hero A"]


def test_the_broader_reroll_of_weapon_and_scenario_applies(registry: Registry) -> None:
    s = replace(base(modifiers=Modifiers(reroll_hits="ones")), modifiers=Modifiers(reroll_hits="failures"))
    plan = mathhammer.compile_scenario(s, registry=registry).plan
    assert plan.sequences[0].steps[0].reroll == "failures"  # type: ignore[union-attr]


def test_rules_and_context_load_from_the_file(registry_all: Registry) -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "keywords.toml", registry=registry_all)
    assert scenario.rules.edition == "11e" and scenario.rules.rules == {"Devastating Wounds": "10e-2024-spill"}
    assert scenario.context.half_range and scenario.context.in_cover and not scenario.context.engaged
    assert scenario.attacker.weapons[1].rules == {"Hazardous": "10e-2024"}
    result = mathhammer.simulate(scenario, trials=20_000, seed=1, registry=registry_all)
    assert result.rule_versions["Devastating Wounds"] == "10e-2024-spill"
    assert result.rule_versions["Hazardous"] == "10e-2024"
    assert result.rule_versions["Cover"] == "11e"
    assert result["attacks"].mean == 32  # Rapid Fire 1 at half range: 10 x 3, plus the plasma gun's 2


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[rules]\nedition = "9e"\n', r"field rules\.edition: is '9e'; editions: '10e', '11e'"),
        (
            '[rules]\n"Sustained Hit" = "x"\n',
            r"field rules\.Sustained Hit: 'Sustained Hit' is not a rule with versions",
        ),
        ('[rules]\nBlast = "12e"\n', r"field rules\.Blast: '12e' is not a version of 'Blast'"),
        (
            "[context]\nhalf_rnage = true\n",
            r"field context\.half_rnage: is not a known field; did you mean 'half_range'",
        ),
        ("[context]\ncharged = 1\n", r"field context\.charged: must be true or false, not 1"),
    ],
)
def test_bad_rules_and_context_are_named(registry_all: Registry, tmp_path: Path, table: str, message: str) -> None:
    text = (EXAMPLES / "boltguns.toml").read_text() + "\n" + table
    with pytest.raises(ScenarioError, match=message):
        mathhammer.simulate(
            mathhammer.load_scenario(write(tmp_path, text), registry=registry_all), trials=10, registry=registry_all
        )
