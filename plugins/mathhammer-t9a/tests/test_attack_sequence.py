"""The Ninth Age's attack sequence, rule by rule, against exact values.

Each test names the rule section it pins (published rules, 2022; the two
texts are A and B as ``README.md`` describes). Expected values are worked
out by hand in the comments and compared with the exact evaluator to 1e-12.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import mathhammer
from mathhammer import Registry, Result
from mathhammer.plugin import AttackPool, ScenarioError
from mathhammer.testing import assert_mean

from .conftest import EXAMPLES, scenario_data

Exact = Callable[..., Result]


def close(value: float, expected: Fraction | float) -> bool:
    return abs(value - float(expected)) < 1e-12


def test_the_example_reproduces_its_hand_computed_value(registry: Registry) -> None:
    """examples/t9a-greatswords.toml: 10 x 4/6 x (3/6 x 3/6 x 4/6 + 1/6) = 20/9 unsaved wounds."""
    scenario = mathhammer.load_scenario(EXAMPLES / "t9a-greatswords.toml", registry=registry)
    exact = mathhammer.evaluate_exact(scenario, registry=registry)
    assert close(exact["unsaved_wounds"].mean, Fraction(20, 9))
    assert close(exact["damage"].mean, Fraction(20, 9))
    simulated = mathhammer.simulate(scenario, trials=200_000, seed=9, registry=registry)
    assert_mean(simulated["damage"], float(Fraction(20, 9)))


def test_rolling_to_hit_in_melee_by_offensive_against_defensive_skill(exact: Exact) -> None:
    """Rolling to hit (Off - Def): 4 against 4 hits on 4+; 1 against 9 on 6+ (A) or 5+ (B)."""
    assert close(exact()["hits"].mean, 10 * Fraction(3, 6))
    low = {"Off": 1}, {"Def": 9}
    assert close(exact(*low, rules={"revision": "A"})["hits"].mean, 10 * Fraction(1, 6))
    assert close(exact(*low, rules={"revision": "B"})["hits"].mean, 10 * Fraction(2, 6))


def test_a_natural_1_always_misses_and_a_natural_6_always_hits(exact: Exact) -> None:
    """Modifiers: +3 on 2+ still misses on a 1; -3 on 5+ still hits on a 6."""
    assert close(exact({"Off": 9, "hit_modifier": 3})["hits"].mean, 10 * Fraction(5, 6))
    assert close(exact({"Off": 0, "hit_modifier": -3})["hits"].mean, 10 * Fraction(1, 6))


@pytest.mark.parametrize(
    ("revision", "modifier", "needed"),
    [("A", 0, 5), ("A", -1, 5), ("B", 0, 5), ("B", -1, 5), ("B", 2, 3)],
)
def test_distracting_and_its_limit_in_each_text(exact: Exact, revision: str, modifier: int, needed: int) -> None:
    """Distracting: -1 to hit in melee. A ignores it when another penalty applies;
    B ignores it when it would make the roll worse than 5+. Off 4 vs Def 4 needs 4+."""
    result = exact({"hit_modifier": modifier}, {"distracting": True}, rules={"revision": revision})
    assert close(result["hits"].mean, 10 * Fraction(7 - needed, 6))


def test_parry_raises_defensive_skill_in_text_a(exact: Exact, load: Callable[..., Any]) -> None:
    """Parry (A): Def becomes the higher of Def + 1 and the attacker's Off. Off 4 against Def 4 then meets
    Def 5 (-1: still 4+); Off 7 against Def 3 meets Def 7 (0: 4+) instead of Def 3 (+4: 2+)."""
    a = {"rules": {"revision": "A"}}
    assert close(exact({"Off": 4}, {"Def": 4, "parry": True}, **a)["hits"].mean, 5)
    assert close(exact({"Off": 7}, {"Def": 3, "parry": True}, **a)["hits"].mean, 5)
    assert close(exact({"Off": 7}, {"Def": 3}, **a)["hits"].mean, 10 * Fraction(5, 6))
    with pytest.raises(ScenarioError, match="parry"):
        load(target={"parry": True})


def test_shooting_by_aim_with_its_modifiers(load: Callable[..., Any], registry: Registry) -> None:
    """To-hit modifiers: Long Range -1 (Accurate: 0), moving -1 (Quick to Fire: 0; Unwieldy A: -2,
    both: -1; Unwieldy (X) B: a further -X), Stand and Shoot -1 (A only), cover -1/-2, Hard Target -X."""

    def needed(attack: dict[str, Any], context: dict[str, Any], revision: str = "B", target: Any = None) -> int:
        scenario = load(
            {"type": "shooting", "Aim": 3, "Off": None, **attack},
            target or {},
            context=context,
            rules={"revision": revision},
        )
        return int(mathhammer.compile_scenario(scenario, registry=registry).plan.sequences[0].steps[0].target)

    assert needed({}, {}) == 3
    assert needed({}, {"long_range": True}) == 4
    assert needed({"attributes": ["Accurate"]}, {"long_range": True}) == 3
    assert needed({}, {"moved": True}) == 4
    assert needed({"attributes": ["Quick to Fire"]}, {"moved": True}) == 3
    assert needed({"attributes": ["Unwieldy"]}, {"moved": True}, "A") == 5
    assert needed({"attributes": ["Unwieldy", "Quick to Fire"]}, {"moved": True}, "A") == 4
    assert needed({"attributes": ["Unwieldy (1)"]}, {"moved": True}) == 5
    assert needed({"attributes": ["Unwieldy (1)", "Quick to Fire"]}, {"moved": True}) == 4
    assert needed({}, {"stand_and_shoot": True}, "A") == 4
    assert needed({}, {"stand_and_shoot": True}, "B") == 3
    assert needed({}, {"cover": "soft"}) == 4
    assert needed({}, {"cover": "hard"}) == 5
    assert needed({}, {}, target={"hard_target": 1}) == 4
    assert needed({"hit_modifier": 2}, {}) == 2


def test_shots_needing_7_or_more(exact: Exact) -> None:
    """Text A, Hopeless Shots: 7+ is a 6, then 4+ (1/12); 8+ cannot hit. Text B: 7+ cannot hit."""
    shot = {"type": "shooting", "Aim": 4, "Off": None}
    seven = {"long_range": True, "cover": "hard"}
    assert close(exact(shot, rules={"revision": "A"}, context=seven)["hits"].mean, 10 * Fraction(1, 12))
    assert exact(shot, rules={"revision": "B"}, context=seven)["hits"].mean == 0
    eight = seven | {"moved": True}
    assert exact(shot, rules={"revision": "A"}, context=eight)["hits"].mean == 0


def test_to_wound_and_attacks_without_strength(exact: Exact, load: Callable[..., Any]) -> None:
    """To-Wound Rolls: Str 3 vs Res 3 wounds on 4+. An attack without Strength follows its own rules:
    here it wounds on 5+, or automatically."""
    hits = 10 * Fraction(3, 6)
    assert close(exact()["wounds"].mean, hits * Fraction(3, 6))
    assert close(exact({"Str": None, "wounds_on": "5+"})["wounds"].mean, hits * Fraction(2, 6))
    assert close(exact({"Str": None, "wounds_on": "automatic"})["wounds"].mean, hits)
    with pytest.raises(ScenarioError, match="wounds_on"):
        load({"Str": None})


@pytest.mark.parametrize(
    ("revision", "arm", "ap", "fails"),
    [("B", 4, 1, 3), ("B", 1, 1, 6), ("B", 6, 0, 1), ("B", 8, 3, 3), ("A", 8, 3, 1), ("A", 0, 0, 6)],
)
def test_armour_saves(exact: Exact, revision: str, arm: int, ap: int, fails: int) -> None:
    """Armour Saves: 7 - Arm + AP, a natural 1 fails, Arm - AP <= 0 cannot save; text B caps Arm at 6."""
    result = exact({"AP": ap}, {"Arm": arm}, rules={"revision": revision})
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean * fails / 6)


def test_special_saves_follow_a_failed_armour_save_one_roll_only(exact: Exact) -> None:
    """Saves: Armour first, then one Special Save; B: only one special save roll per attack (the best)."""
    result = exact(target={"Arm": 3, "Aegis": "5+", "Regeneration": "4+"})
    # Arm 3 saves on 4+ (fails on 1-3); then Regeneration 4+, the better, fails on 1-3.
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean * Fraction(3, 6) * Fraction(3, 6))
    best_of_b = exact(target={"Aegis": "2+"})  # B: a natural 1 or 2 always fails: 3+
    assert close(best_of_b["unsaved_wounds"].mean, best_of_b["wounds"].mean * Fraction(2, 6))


def test_special_saves_of_each_text(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match=r"Fortitude.*text A"):
        load(target={"Fortitude": "5+"})
    with pytest.raises(ScenarioError, match=r"Regeneration.*text B"):
        load(target={"Regeneration": "5+"}, rules={"revision": "A"})
    with pytest.raises(ScenarioError, match="not verified"):
        load(target={"Aegis": "5+", "Fortitude": "5+"}, rules={"revision": "A"})
    with pytest.raises(ScenarioError, match="not verified"):
        load(target={"Aegis": "2+"}, rules={"revision": "A"})


def test_health_pools_carry_losses_from_model_to_model(exact: Exact) -> None:
    """Health Pools: rank-and-file share one pool, so losses carry from model to model (Trolls, HP 3:
    losing 7 removes 2, 1 carries over). Multiple Wounds (2) against four Trolls: HP lost is twice the
    unsaved wounds until the 12 HP are gone, never lost at a model's edge."""
    result = exact({"attributes": ["Multiple Wounds (2)"]}, {"models": 4, "HP": 3})
    expected = np.zeros(13)
    for unsaved, chance in enumerate(result["unsaved_wounds"].pmf):
        expected[min(2 * unsaved, 12)] += chance
    np.testing.assert_allclose(result["damage"].pmf, expected[: len(result["damage"].pmf)], atol=1e-12)
    # Had the second point of a wound been lost on a model with 1 HP left, 3 unsaved wounds would
    # remove 1 model; in the pool they remove 2.
    lost, removed = result["damage"].p_at_least(), result["models_destroyed"].p_at_least()
    for k in range(1, 5):
        assert abs(removed[k] - (lost[3 * k] if 3 * k < len(lost) else 0.0)) < 1e-12


def test_text_a_passes_losses_to_the_champion_once_the_rank_and_file_are_gone(exact: Exact, registry: Registry) -> None:
    """Losing Health Points (A): the Champion has its own HP and takes losses once every other
    rank-and-file model is removed; the unit then loses HP exactly as one pool of all its models."""
    attack = {"attributes": ["Multiple Wounds (D3)"], "models": 6}
    target = {"models": 3, "HP": 2, "champion": True}
    with_champion = exact(attack, target, rules={"revision": "A"})
    one_pool = exact(attack, {"models": 3, "HP": 2}, rules={"revision": "A"})
    for stage in ("damage", "models_destroyed"):
        np.testing.assert_allclose(with_champion[stage].pmf, one_pool[stage].pmf, atol=1e-12)
    # The Champion is a group of its own, allocated after the rank and file, losses carrying to it.
    scenario = mathhammer.scenario_from_data(scenario_data(attack, target, rules={"revision": "A"}), registry=registry)
    plan = mathhammer.compile_scenario(scenario, registry=registry).plan
    assert [(g.name, g.models, g.wounds, g.tier) for g in plan.target.groups] == [
        ("Spearmen", 2, 2, 0),
        ("Champion", 1, 2, 1),
    ]
    assert [s.excess for s in plan.sequences if isinstance(s, AttackPool)] == ["unit"]


def test_multiple_wounds_are_capped_at_the_hp_characteristic(exact: Exact, load: Callable[..., Any]) -> None:
    """Multiple Wounds (X): each unsaved wound becomes X, capped at HP: D6 against HP 3 averages 2.5."""
    result = exact({"attributes": ["Multiple Wounds (D6)"]}, {"HP": 3})
    assert close(result["damage"].mean, result["unsaved_wounds"].mean * Fraction(5, 2))
    clipped = exact({"attributes": ["Multiple Wounds (2, Clipped Wings)"]}, {"HP": 3, "fly": True})
    assert close(clipped["damage"].mean, clipped["unsaved_wounds"].mean * 3)
    with pytest.raises(ScenarioError, match="not verified"):
        load({"attributes": ["Multiple Wounds (D3, Clipped Wings)"]}, {"HP": 3, "fly": True})
    # Without Fly, Clipped Wings changes nothing; D3+1 against HP 4 needs no cap.
    plain = exact({"attributes": ["Multiple Wounds (D3, Clipped Wings)"]}, {"HP": 3})
    assert close(plain["damage"].mean, plain["unsaved_wounds"].mean * 2)
    flying = exact({"attributes": ["Multiple Wounds (D3, Clipped Wings)"]}, {"HP": 4, "fly": True})
    assert close(flying["damage"].mean, flying["unsaved_wounds"].mean * 3)
    # A negative constant stays one: 3D3-2, plus 1, is 3D3-1 (mean 5), never "3D3+-1".
    lowered = exact({"attributes": ["Multiple Wounds (3D3-2, Clipped Wings)"]}, {"HP": 9, "fly": True})
    assert close(lowered["damage"].mean, lowered["unsaved_wounds"].mean * 5)


def test_revision_is_a_named_option_and_the_result_records_it(exact: Exact, load: Callable[..., Any]) -> None:
    assert exact().rule_versions["revision"] == "B"
    assert exact(rules={"revision": "A"}).rule_versions["revision"] == "A"
    with pytest.raises(ScenarioError, match="'C' is not a version of 'revision'"):
        load(rules={"revision": "C"})


@pytest.mark.parametrize(
    ("attack", "target", "field", "message"),
    [
        ({"Str": 21}, {}, "attack[0].Str", "from 1 to 20"),
        ({"Off": -1}, {}, "attack[0].Off", "from 0 to 10"),
        ({"Att": "0"}, {}, "attack[0].Att", "at least one attack"),
        ({"models": 10_000, "Att": "10D6"}, {}, "attack[0].Att", "attacks one run allows"),
        ({"Str": None, "wounds_on": "always"}, {}, "attack[0].wounds_on", "automatic"),
        ({"attributes": ["Accurate"]}, {}, "attack[0].attributes[0]", "melee attack"),
        ({"Att": "D0"}, {}, "attack[0].Att", "D0"),
        ({"attributes": ["Flaming Attaks"]}, {}, "attack[0].attributes[0]", "known attributes"),
        ({"Strenght": 3}, {}, "attack[0].Strenght", "not a known field"),
        ({}, {"Res": 0}, "target.Res", "from 1 to 20"),
        ({}, {"HP": -1}, "target.HP", "from 1 to 100"),
        ({}, {"champion": True}, "target.champion", "Health Pool"),
    ],
)
def test_bad_input_names_the_field_and_the_value(
    load: Callable[..., Any], attack: dict[str, Any], target: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ScenarioError, match=message) as error:
        load(attack, target)
    assert error.value.field == field


def test_the_command_line_reports_a_ninth_age_scenario_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """``mathhammer simulate FILE --json`` works as for 40k: exact by default, stages by name."""
    import json

    from mathhammer.testing import run_cli as main

    assert main(["simulate", str(EXAMPLES / "t9a-greatswords.toml"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ruleset"] == "t9a"
    assert report["evaluator"] == "exact"
    assert report["rule_versions"] == {"revision": "B"}
    assert report["stages"] == ["attacks", "hits", "wounds", "unsaved_wounds", "damage", "models_destroyed"]
    assert abs(report["unsaved_wounds"]["mean"] - 20 / 9) < 1e-12


def test_a_scenario_built_in_python_is_checked_as_a_file_is(registry: Registry) -> None:
    """The same rules hold for a Scenario made in code: compiling it checks it."""
    from mathhammer_t9a import Attack, Scenario, Target

    def compile_(**changes: Any) -> None:
        attack = Attack(name="Swordsmen", type="melee", models=10, att="1", off=4, strength=3)
        target = Target(name="Spearmen", models=10, defensive=3, resilience=3)
        scenario = Scenario(attacks=(changes.pop("attack", attack),), target=changes.pop("target", target), **changes)
        mathhammer.compile_scenario(scenario, registry=registry)

    with pytest.raises(ScenarioError, match="'C' is not a version"):
        compile_(revision="C")
    with pytest.raises(ScenarioError, match="text A"):
        compile_(target=Target(name="T", models=10, defensive=3, resilience=3, fortitude=4))
    with pytest.raises(ScenarioError, match="Off"):
        compile_(attack=Attack(name="A", type="melee", models=1, att="1", strength=3))
    with pytest.raises(ScenarioError, match="wounds_on"):
        compile_(attack=Attack(name="A", type="melee", models=1, att="1", off=3))
    with pytest.raises(ScenarioError, match="attributes"):
        compile_(attack=Attack(name="A", type="melee", models=1, att="1", off=3, strength=3, attributes="Fury"))  # type: ignore[arg-type]


def test_an_attribute_error_names_where_the_attribute_is_listed(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match="thresholds") as error:
        load({"attributes": ["Poison Attacks", "Poison Attacks", "Fury"]})
    assert error.value.field == "attack[0].attributes[2]"


def test_wounds_on_automatic_in_any_case(exact: Exact) -> None:
    assert close(exact({"Str": None, "wounds_on": "Automatic"})["wounds"].mean, 5)


@pytest.mark.parametrize(
    ("strength", "modifier", "wounds_on"),
    [
        (3, -1, 5),  # 4+ made 5+
        (3, -3, 6),  # 4+ pushed to 7+: only a natural 6 wounds
        (1, -5, 6),  # 6+ pushed to 11+: still a natural 6
        (3, 2, 2),  # 4+ made 2+
        (5, 3, 2),  # 2+ pulled to -1+: a natural 1 still fails
    ],
)
def test_to_wound_modifiers_keep_natural_6_and_natural_1(
    exact: Exact, registry: Registry, strength: int, modifier: int, wounds_on: int
) -> None:
    """To-Wound Rolls: a natural 6 always wounds and a natural 1 always fails, so modifiers
    move the roll needed only between 2+ and 6+; both evaluators agree with the hand fraction."""
    hits = 10 * Fraction(3, 6)  # Off 4 against Def 4 hits on 4+
    expected = hits * Fraction(7 - wounds_on, 6)
    attack = {"Str": strength, "wound_modifier": modifier}
    assert close(exact(attack)["wounds"].mean, expected)
    scenario = mathhammer.scenario_from_data(scenario_data(attack), registry=registry)
    simulated = mathhammer.simulate(scenario, trials=200_000, seed=17, registry=registry)
    assert_mean(simulated["wounds"], float(expected))


def test_lethal_strike_keeps_its_natural_6_under_a_to_wound_penalty(exact: Exact) -> None:
    """Lethal Strike keys on the to-wound 6, which wounds even when a penalty asks for 7+."""
    result = exact({"Str": 3, "wound_modifier": -3, "AP": 0, "attributes": ["Lethal Strike"]}, {"Arm": 3})
    # Every wound is a natural 6, and Lethal Strike's AP 10 leaves no armour save.
    assert close(result["wounds"].mean, 10 * Fraction(3, 6) * Fraction(1, 6))
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean)


def test_wound_modifiers_are_checked(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match=r"wound_modifier.*from -10 to 10"):
        load({"wound_modifier": 11})
    with pytest.raises(ScenarioError, match=r"wound_modifier.*wounds automatically"):
        load({"Str": None, "wounds_on": "automatic", "wound_modifier": -1})


def test_python_objects_take_rolls_written_as_a_file_writes_them() -> None:
    from mathhammer_t9a.model import Attack, Target

    shot = Attack("Longbows", "shooting", models=10, att="1", aim="3+", strength=3)  # type: ignore[arg-type]
    assert shot == Attack("Longbows", "shooting", models=10, att="1", aim=3, strength=3)
    assert Attack("Spell", "melee", models=1, att="1", off=3, wounds_on="4+").wounds_on == 4  # type: ignore[arg-type]
    assert Attack("Spell", "melee", models=1, att="1", off=3, wounds_on="automatic").wounds_on == "automatic"
    trolls = Target("Trolls", models=4, defensive=3, resilience=4, regeneration="5+", aegis="6+")  # type: ignore[arg-type]
    assert (trolls.regeneration, trolls.aegis, trolls.fortitude) == (5, 6, None)
