"""Sentences of ``skill-dice-d12.txt`` that the rule-by-rule tests leave implicit, each pinned
here through the exact evaluator against fractions enumerated by hand (``attack_roll``).

``docs/rules-coverage.md`` lists every sentence of the text with the test that pins it."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

import mathhammer
from mathhammer import Result

from .conftest import scenario_data
from .test_skilldice import attack_roll, duel, p


def exact(data: dict[str, Any], registry: mathhammer.Registry) -> Result:
    scenario = mathhammer.scenario_from_data(data, registry=registry)
    return mathhammer.evaluate(scenario, evaluator="exact", registry=registry)


@pytest.mark.parametrize(
    ("skill", "sixes"), [(0, ()), (3, ()), (12, ()), (3, (1,)), (3, (-1,)), (3, (1, -1)), (-20, ())]
)
def test_the_classes_come_from_the_two_d12_alone(
    registry: mathhammer.Registry, skill: int, sixes: tuple[int, ...]
) -> None:
    """ "The Focus/Panic relationship is determined only by the two d12s": whatever the Skill, Advantage
    or Disadvantage, Focus = Panic is a Critical Hit 12/144 of the time, and Focus > Panic (Inflict,
    when the reading lets a miss Inflict) and Panic > Focus (Hazardous) 66/144 each. "Panic being
    higher than Focus does not make the attack miss": hits are the enumeration's, Panic > Focus rolls
    reaching the DC among them. "A Critical Hit does not also trigger Inflict or Hazardous": the three
    classes add up to the attacks."""
    weapon = {
        "skill": skill,
        "keywords": ["Hazardous 1"],
        "inflict": "Status: Marked",
        "advantage": 1 in sixes,
        "disadvantage": -1 in sixes,
    }
    data = scenario_data(weapon, rules={"inflict": "always"})
    result = exact(data, registry)
    assert result.chance("P(Critical Hit) per attack") == pytest.approx(12 / 144, abs=1e-12)
    assert result.chance("P(Inflict) per attack") == pytest.approx(66 / 144, abs=1e-12)
    assert result.chance("P(Panic > Focus: Hazardous) per attack") == pytest.approx(66 / 144, abs=1e-12)
    roll = attack_roll(skill=skill, sixes=sixes)
    assert result["hits"].mean == pytest.approx(5 * float(p(roll, hit=True)), abs=1e-12)
    panic_hits = p(roll, hit=True, cls="P")
    if skill >= 12:
        # Panic > Focus shows at least 1 + 2, and 3 + Skill 12 reaches DC 15: every such roll hits.
        assert panic_hits == Fraction(66, 144)
    classes = result["critical_hits"].mean + result["inflicts"].mean + result["hazardous"].mean
    assert classes == pytest.approx(5.0, abs=1e-12)


def test_times_three_is_three_attacks_not_tripled_damage(registry: mathhammer.Registry) -> None:
    """ "x3 means three models are each making one attack. It does not mean one attack with tripled
    Damage." Three models with Damage 2 (1 HP each against Minor 2, Major 3; a Critical Hit's largest
    Damage is 2 too) lose the target Binomial(3, h) HP; one attack of Damage 6 would lose 3 HP with
    chance h or nothing: the same mean, another distribution."""
    h = p(attack_roll(), hit=True)
    three = exact(scenario_data({"models": 3, "damage": "2"}), registry)
    assert three["attacks"].pmf[3] == 1.0
    for k in range(4):
        expected = Fraction(3 if k in (1, 2) else 1) * h**k * (1 - h) ** (3 - k)
        assert three["damage"].pmf[k] == pytest.approx(float(expected), abs=1e-12)
    tripled = exact(scenario_data({"models": 1, "damage": "6"}), registry)
    assert tripled["damage"].pmf[3] == pytest.approx(float(h), abs=1e-12)
    assert three["damage"].mean == pytest.approx(tripled["damage"].mean, abs=1e-12)
    assert three["damage"].pmf[3] != pytest.approx(tripled["damage"].pmf[3])


def test_each_model_attacks_once_and_casts_once_each_battle_round(registry: mathhammer.Registry) -> None:
    """ "Every surviving model attacks once when its unit attacks" and "a model may attempt one Psychic
    Power each Battle Round": over three rounds in which nobody can lose HP (Damage 1 below Minor 2, a
    Critical Hit's too), Red's two swords make 6 Attack Rolls and its caster 3 attempts, Blue 3 attacks."""
    data = duel(rounds=3)
    for side in ("attacker", "target"):
        data[side].update(minor=2, major=3, hp_per_model=2)
        data[side]["weapons"][0].update(damage="1")
    data["attacker"].update(models=3)
    data["attacker"]["weapons"][0].update(models=2)
    data["attacker"]["powers"] = [{"name": "Zap", "skill": 0, "difficulty": 13, "power": "Direct Damage 1"}]
    scenario = mathhammer.scenario_from_data(data, registry=registry)
    result = mathhammer.evaluate(scenario, registry=registry, trials=2_000, seed=1)
    assert result["rounds"].pmf[3] == pytest.approx(1.0, abs=1e-12)
    assert result["attacks"].pmf[6] == pytest.approx(1.0, abs=1e-12)
    assert result["power_attempts"].pmf[3] == pytest.approx(1.0, abs=1e-12)
    assert result["return_attacks"].pmf[3] == pytest.approx(1.0, abs=1e-12)
    assert result.chance("P(both stand after 3 rounds)") == pytest.approx(1.0, abs=1e-12)


def test_each_attack_resolves_its_own_damage_against_the_thresholds(registry: mathhammer.Registry) -> None:
    """ "Each successful attack resolves its own Damage separately": two models rolling D6 Damage against
    Minor 2, Major 3 lose the sum of each hit's own HP (1 -> 0, 2 -> 1, 3-5 -> 2, 6 -> 3), not the HP of
    the summed Damage; enumerated over both Attack Rolls and Damage rolls."""
    roll = attack_roll()
    critical = Fraction(12, 144)
    normal = p(roll, hit=True) - critical
    per_attack: dict[int, Fraction] = {0: 1 - normal - critical, 3: critical}
    for lost in (0, 1, 2, 2, 2, 3):  # Damage 1 to 6
        per_attack[lost] = per_attack.get(lost, Fraction(0)) + normal / 6
    expected: dict[int, Fraction] = {}
    for (a, pa), (b, pb) in itertools.product(per_attack.items(), repeat=2):
        expected[a + b] = expected.get(a + b, Fraction(0)) + pa * pb
    result = exact(scenario_data({"models": 2}), registry)
    for k, chance in expected.items():
        assert result["damage"].pmf[k] == pytest.approx(float(chance), abs=1e-12), k
