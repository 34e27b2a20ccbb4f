"""The attack attributes, each a plugin of the ruleset, against hand-computed values.

Swordsmen (Off 4 against Def 4: 4+ to hit) attack ten at a time; each test
works out its expectation per attack in the docstring. Sources are the ones
``README.md`` cites for each attribute.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import mathhammer
from mathhammer import KeywordSpec, Result
from mathhammer.plugin import KeywordRegistrar, ScenarioError
from mathhammer_t9a import AttackRules

from .conftest import scenario_data, t9a_registry

Exact = Callable[..., Result]
F = Fraction


def close(value: float, expected: Fraction | float) -> bool:
    return abs(value - float(expected)) < 1e-12


def test_poison_attacks_a_to_hit_roll_of_6_wounds_automatically(exact: Exact) -> None:
    """Str 1 against Res 10 wounds on 6+: P(wound) = 1/6 (poisoned 6) + 2/6 x 1/6 (hits on 4-5)."""
    result = exact({"Str": 1, "attributes": ["Poison Attacks"]}, {"Res": 10})
    assert close(result["wounds"].mean, 10 * (F(1, 6) + F(2, 6) * F(1, 6)))


def test_two_instances_of_poison_wound_on_a_successful_5_or_6(exact: Exact) -> None:
    """Two instances: a successful 5 or 6 wounds automatically: 2/6 + 1/6 x 1/6 (a 4)."""
    result = exact({"Str": 1, "attributes": ["Poison Attacks", "Poison Attacks"]}, {"Res": 10})
    assert close(result["wounds"].mean, 10 * (F(2, 6) + F(1, 6) * F(1, 6)))


def test_fury_a_to_hit_roll_of_6_scores_an_extra_hit(exact: Exact) -> None:
    """Hits: 3/6 + 1/6 extra. With Poison the 6 wounds automatically, its extra hit rolls to wound (4+)."""
    assert close(exact({"attributes": ["Fury"]})["hits"].mean, 10 * (F(3, 6) + F(1, 6)))
    both = exact({"attributes": ["Fury", "Poison Attacks"]})
    assert close(both["wounds"].mean, 10 * (F(1, 6) + (F(1, 6) + F(2, 6)) * F(3, 6)))


def test_fury_and_two_instances_of_poison_cannot_share_one_to_hit_roll(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match="thresholds"):
        load({"attributes": ["Poison Attacks", "Poison Attacks", "Fury"]})


def test_hatred_re_rolls_failed_to_hit_rolls(exact: Exact) -> None:
    """4+ with failures re-rolled: 1/2 + 1/2 x 1/2."""
    assert close(exact({"attributes": ["Hatred"]})["hits"].mean, 10 * F(3, 4))


def test_lethal_strike_a_6_to_wound_ignores_armour_and_regeneration(exact: Exact) -> None:
    """Arm 6 saves on 2+ and Regeneration 4+: a wound on 4-5 is unsaved 1/6 x 3/6 = 1/12; a 6 always
    gets through. Aegis 4+ still saves it half the time."""
    hits = 10 * F(3, 6)
    result = exact({"attributes": ["Lethal Strike"]}, {"Arm": 6, "Regeneration": "4+"})
    assert close(result["unsaved_wounds"].mean, hits * (F(2, 6) * F(1, 12) + F(1, 6)))
    aegis = exact({"attributes": ["Lethal Strike"]}, {"Arm": 6, "Aegis": "4+"})
    assert close(aegis["unsaved_wounds"].mean, hits * (F(2, 6) * F(1, 6) * F(1, 2) + F(1, 6) * F(1, 2)))


def test_flaming_attacks_deny_regeneration_in_text_b(exact: Exact) -> None:
    result = exact({"attributes": ["Flaming Attacks"]}, {"Regeneration": "4+"})
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean)


def test_flaming_attacks_in_text_a_deny_fortitude_and_re_roll_wounds_against_flammable(exact: Exact) -> None:
    """Text A: no Fortitude; against Flammable models failed to-wound rolls (4+) are re-rolled: 3/4."""
    a = {"rules": {"revision": "A"}}
    result = exact({"attributes": ["Flaming Attacks"]}, {"Fortitude": "4+"}, **a)
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean)
    flammable = exact({"attributes": ["Flaming Attacks"]}, {"flammable": True}, **a)
    assert close(flammable["wounds"].mean, 10 * F(3, 6) * F(3, 4))


def test_divine_attacks_re_roll_aegis_in_text_a_and_deny_it_in_text_b(exact: Exact) -> None:
    """Aegis 4+: text A re-rolls its successes (passes 1/4 of the time); text B allows none."""
    a = exact({"attributes": ["Divine Attacks"]}, {"Aegis": "4+"}, rules={"revision": "A"})
    assert close(a["unsaved_wounds"].mean, a["wounds"].mean * F(3, 4))
    b = exact({"attributes": ["Divine Attacks"]}, {"Aegis": "4+"})
    assert close(b["unsaved_wounds"].mean, b["wounds"].mean)


def test_a_target_keeps_its_best_special_save_an_attack_allows(exact: Exact) -> None:
    """Aegis 5+ and Regeneration 3+ against Flaming Attacks (B): Regeneration denied, Aegis 5+ used."""
    result = exact({"attributes": ["Flaming Attacks"]}, {"Aegis": "5+", "Regeneration": "3+"})
    assert close(result["unsaved_wounds"].mean, result["wounds"].mean * F(4, 6))


@pytest.mark.parametrize("attribute", ["Poison Attacks", "Fury", "Hatred", "Lethal Strike"])
def test_attributes_whose_text_a_wording_is_not_verified_are_refused_under_text_a(
    load: Callable[..., Any], attribute: str
) -> None:
    with pytest.raises(ScenarioError, match="revision B") as error:
        load({"attributes": [attribute]}, rules={"revision": "A"})
    assert error.value.field == "attack[0].attributes[0]"


def test_an_attribute_listed_twice_is_refused_unless_its_rule_counts_instances(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match="again"):
        load({"attributes": ["Hatred", "hatred"]})


def test_attribute_spellings(load: Callable[..., Any]) -> None:
    with pytest.raises(ScenarioError, match="needs its X"):
        load({"attributes": ["Multiple Wounds"]})
    with pytest.raises(ScenarioError, match="Clipped Wings"):
        load({"attributes": ["Multiple Wounds (2, Wings)"]})
    with pytest.raises(ScenarioError, match="at least 1"):
        load({"attributes": ["Multiple Wounds (0)"]})
    with pytest.raises(ScenarioError, match="has a value"):
        load({"type": "shooting", "Aim": 3, "Off": None, "attributes": ["Unwieldy"]})
    with pytest.raises(ScenarioError, match="has no value"):
        load({"type": "shooting", "Aim": 3, "Off": None, "attributes": ["Unwieldy (1)"]}, rules={"revision": "A"})


class SteadyAim:
    """A third party's attribute, through the public hook: re-roll to-hit rolls of 1."""

    @staticmethod
    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        def apply(rules: AttackRules) -> None:
            rules.hit.reroll = "ones"

        register(KeywordSpec("t9a", "Steady Aim", apply, description="re-roll to-hit rolls of 1"))


def test_a_third_party_attribute_and_hopeless_shots() -> None:
    """Text A's Hopeless Shots (a 6, then 4+) with a re-roll keyed on the to-hit roll is not
    verified: refused, naming the Aim. Without Hopeless Shots the attribute applies."""
    registry = t9a_registry(("steady-aim", SteadyAim()))
    shot = {"type": "shooting", "Aim": 5, "Off": None, "attributes": ["Steady Aim"]}
    scenario = mathhammer.scenario_from_data(
        scenario_data(shot, rules={"revision": "A"}), source="test.toml", registry=registry
    )
    assert close(
        mathhammer.evaluate_exact(scenario, registry=registry)["hits"].mean, 10 * (F(2, 6) + F(1, 6) * F(2, 6))
    )
    hopeless = scenario_data(shot | {"hit_modifier": -2}, rules={"revision": "A"})
    with pytest.raises(ScenarioError, match="not verified") as error:
        mathhammer.compile_scenario(mathhammer.scenario_from_data(hopeless, registry=registry), registry=registry)
    assert error.value.field == "attack[0].Aim"


def test_several_attributes_in_one_string_are_the_same_as_listed_apart(exact: Callable[..., Result]) -> None:
    # A comma inside parentheses belongs to its attribute.
    together = exact({"attributes": ["Multiple Wounds (2, Clipped Wings), Lethal Strike"]})
    apart = exact({"attributes": ["Multiple Wounds (2, Clipped Wings)", "Lethal Strike"]})
    for stage in ("damage", "models_destroyed"):
        assert together[stage].pmf.tolist() == apart[stage].pmf.tolist()
