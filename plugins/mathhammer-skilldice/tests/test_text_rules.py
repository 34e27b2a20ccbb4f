"""Rules of ``skill-dice-d12.txt`` beyond one plain attack per model: more attacks and
weapons, collective attacks, re-rolls naming a die or a result, Critical Damage a rule
changes, equal thresholds, damage reduction, several Inflict effects, fights with
several profiles and casters, and units starting below full HP.

Expected values are enumerated here, die by die, independently of the core (see
:func:`outcomes`); simulated means are held to them within five standard errors at a
fixed seed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import pytest

import mathhammer
from mathhammer import DeclinedError, Result, Stage
from mathhammer.plugin import ScenarioError
from mathhammer.testing import assert_mean

from .conftest import scenario_data, skilldice_registry

Run = Callable[..., Result]
Odds = dict[tuple[bool, str], Fraction]
"""P(hit, class) of one Attack Roll; class "F" (Focus higher), "=" (a Critical Hit) or "P"."""


def outcomes(skill: int = 3, dc: int = 15, reroll: str = "none", when: Iterable[str] = ()) -> Odds:
    """One Attack Roll (2d12 + Skill against the DC; a match always hits), re-rolled as a
    player would: ``reroll`` names what is re-rolled ("attack_roll": both Skill Dice,
    "focus" or "panic": that die, "ones": a die showing 1), ``when`` the rolls it is taken
    on ("miss", "panic_higher", "always"; empty: a miss, or every 1 for "ones").
    A Critical Hit is never re-rolled."""
    conditions = set(when) or ({"always"} if reroll == "ones" else {"miss"})

    def judge(f: int, p: int) -> tuple[bool, str]:
        cls = "F" if f > p else "=" if f == p else "P"
        return cls == "=" or f + p + skill >= dc, cls

    def taken(hit: bool, cls: str) -> bool:
        if cls == "=":
            return False
        return (
            "always" in conditions
            or ("miss" in conditions and not hit)
            or ("panic_higher" in conditions and cls == "P")
        )

    faces = range(1, 13)
    out: Odds = {}
    for f, p in itertools.product(faces, faces):
        hit, cls = judge(f, p)
        if reroll == "none" or not taken(hit, cls):
            again = [(f, p)]
        else:
            fs = faces if (reroll in ("attack_roll", "focus") or (reroll == "ones" and f == 1)) else [f]
            ps = faces if (reroll in ("attack_roll", "panic") or (reroll == "ones" and p == 1)) else [p]
            again = list(itertools.product(fs, ps))
        for f2, p2 in again:
            key = judge(f2, p2)
            out[key] = out.get(key, Fraction(0)) + Fraction(1, 144 * len(again))
    assert sum(out.values()) == 1
    return out


def chance(odds: Odds, *, hit: bool | None = None, cls: str | None = None) -> Fraction:
    return sum(
        (v for (h, c), v in odds.items() if (hit is None or h == hit) and (cls is None or c == cls)), Fraction(0)
    )


def lost(damage: int, minor: int, major: int) -> int:
    """HP one attack's Damage costs (Attacks & Damage), written out here once more."""
    return (damage >= minor) + (damage >= major) + (damage >= 2 * major)


class Runs:
    """A scenario simulated and, where the exact evaluator admits its Plan, evaluated exactly:
    :meth:`expect` holds a mean to its hand value within five standard errors, and to 1e-12
    in the exact Result when there is one."""

    def __init__(self, data: dict[str, Any], trials: int, seed: int) -> None:
        registry = skilldice_registry()
        scenario = mathhammer.scenario_from_data(data, registry=registry)
        self.simulated = mathhammer.simulate(scenario, trials=trials, seed=seed, registry=registry)
        self.exact: Result | None
        try:
            self.exact = mathhammer.evaluate_exact(scenario, registry=registry)
        except DeclinedError:
            self.exact = None

    def __getitem__(self, stage: str) -> Stage:
        return self.simulated[stage]

    def chance(self, label: str) -> float:
        return self.simulated.chance(label)

    def expect(self, stage: str, value: float | Fraction) -> None:
        assert_mean(self.simulated[stage], float(value))
        if self.exact is not None:
            assert self.exact[stage].mean == pytest.approx(float(value), abs=1e-12), stage


def simulate(data: dict[str, Any], trials: int = 200_000, seed: int = 17) -> Runs:
    return Runs(data, trials, seed)


def weapons(*profiles: dict[str, Any], models: int = 5, **unit: Any) -> dict[str, Any]:
    """:func:`scenario_data` with the attacker's weapons (and unit fields) replaced: units just big
    enough that nothing runs out (40 HP a target, 10 HP an attacking model), so means are per
    attack and the exact evaluator's states stay few."""
    data = scenario_data()
    data["attacker"].update(models=models, hp_per_model=10, weapons=list(profiles))
    data["attacker"].update(unit)
    data["target"].update(models=40)
    return data


def target(data: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """``data`` with the target's fields replaced."""
    data["target"].update(fields)
    return data


def rifle(**fields: Any) -> dict[str, Any]:
    return {"name": "Rifle", "models": 5, "skill": 3, "damage": "D6", **fields}


P_HIT = chance(outcomes(), hit=True)


# --- a model attacking more than once, or with several weapons ------------------------------------


@pytest.mark.parametrize(("attacks", "each"), [("3", Fraction(3)), ("D3", Fraction(2))])
def test_a_rule_granting_a_model_more_attacks(attacks: str, each: Fraction) -> None:
    """ "Unless a rule explicitly grants additional attacks": each of the 2 models makes
    ``attacks`` Attack Rolls, each its own roll."""
    result = simulate(weapons(rifle(models=2, attacks=attacks), models=2))
    result.expect("attacks", float(2 * each))
    result.expect("hits", float(2 * each * P_HIT))


def test_a_model_attacking_with_several_weapons() -> None:
    """ "Or allows that model to attack with multiple weapons": 3 models with Rifles, 2 of
    them with Pistols (skill 0) as well: 3 + 2 Attack Rolls."""
    pistol = {"name": "Pistol", "models": 2, "skill": 0, "damage": "1", "additional": True}
    result = simulate(weapons(rifle(models=3), pistol, models=3))
    result.expect("attacks", 5)
    result.expect("hits", float(3 * P_HIT + 2 * chance(outcomes(skill=0), hit=True)))


def test_a_collective_attack_is_one_roll_for_the_models_that_make_it() -> None:
    """ "A fixed unit-level or collective attack is only used when a rule explicitly says so":
    the 5 models make one attack together, one roll, one Damage (D6 against Minor 2, Major 3)."""
    result = simulate(weapons(rifle(collective=True)))
    result.expect("attacks", 1)
    result.expect("hits", float(P_HIT))
    critical = Fraction(12, 144)
    normal = Fraction(sum(lost(d, 2, 3) for d in range(1, 7)), 6)
    result.expect("damage", float((P_HIT - critical) * normal + critical * 3))


# --- re-rolls naming one die or one result --------------------------------------------------------


@pytest.mark.parametrize(
    ("reroll", "when"),
    [
        ("focus", []),
        ("panic", []),
        ("ones", []),
        ("ones", ["miss"]),
        ("ones", ["miss", "panic_higher"]),
        ("attack_roll", ["miss", "panic_higher"]),
        ("focus", ["panic_higher"]),
    ],
)
def test_re_rolls_naming_one_die_or_one_result(reroll: str, when: list[str]) -> None:
    """ "Reroll both Skill Dice unless that rule specifically names one die or one result":
    a rule naming the Focus or the Panic Die re-rolls that die alone; natural 1s re-roll only
    the die showing one, taken on every roll or, being optional, only when it helps (a miss);
    and a hit with Panic higher may be re-rolled to dodge Hazardous. The second result stands."""
    odds = outcomes(dc=17, reroll=reroll, when=when)
    data = target(
        weapons(rifle(reroll=reroll, reroll_when=when, keywords=["Hazardous 1"], inflict="Status: Marked")), dc=17
    )
    result = simulate(data)
    result.expect("hits", float(5 * chance(odds, hit=True)))
    result.expect("hazardous", float(5 * chance(odds, cls="P")))
    result.expect("inflicts", float(5 * chance(odds, hit=True, cls="F")))
    result.expect("critical_hits", float(5 * chance(odds, cls="=")))


def test_the_default_re_roll_of_ones_takes_every_one() -> None:
    """Without ``reroll_when`` natural 1s are re-rolled whenever a Skill Die shows one (not
    on 1 + 1, a Critical Hit): the roll a player cannot decline."""
    assert outcomes(reroll="ones") == outcomes(reroll="ones", when=["always"])
    assert outcomes(reroll="ones", when=["miss"]) != outcomes(reroll="ones")


# --- a Critical Hit's Damage when a rule says otherwise ---------------------------------------------


@pytest.mark.parametrize(
    ("critical_damage", "critical_hp"), [("maximum", Fraction(3)), ("rolled", None), ("2", Fraction(1))]
)
def test_a_rule_overriding_maximum_critical_damage(critical_damage: str, critical_hp: Fraction | None) -> None:
    """ "Deal the maximum possible Damage instead of rolling unless a rule explicitly states
    otherwise": a Critical Hit's D6 is 6 (3 HP against Minor 2, Major 3), rolled like any hit,
    or what the rule gives (2: 1 HP)."""
    normal = Fraction(sum(lost(d, 2, 3) for d in range(1, 7)), 6)
    critical = Fraction(12, 144)
    per_critical = normal if critical_hp is None else critical_hp
    result = simulate(weapons(rifle(critical_damage=critical_damage)))
    result.expect("damage", float(5 * ((P_HIT - critical) * normal + critical * per_critical)))


# --- Minor equal to Major -------------------------------------------------------------------------


def test_a_minor_threshold_equal_to_the_major() -> None:
    """Minor 3 = Major 3: Damage 3 to 5 meets both (2 HP), 6 meets double Major (3 HP and a
    Battle Shock test), 1 and 2 nothing."""
    result = simulate(target(weapons(rifle()), minor=3, major=3))
    normal = Fraction(sum(lost(d, 3, 3) for d in range(1, 7)), 6)
    assert normal == Fraction(0 + 0 + 2 + 2 + 2 + 3, 6)
    critical = Fraction(12, 144)
    result.expect("damage", float(5 * ((P_HIT - critical) * normal + critical * 3)))
    result.expect("battle_shock", float(5 * ((P_HIT - critical) * Fraction(1, 6) + critical)))


# --- damage reduction, and Direct Damage that it does not reduce ---------------------------------


def test_damage_reduction_reduces_damage_but_not_direct_damage() -> None:
    """ "Abilities that reduce normal Damage do not reduce Direct Damage": reduction 2 against
    Minor 1, Major 3 makes D6 Damage 0, 0, 1, 2, 3, 4 (0, 0, 1, 1, 2, 2 HP; a Critical Hit's 6
    becomes 4: 2 HP), while Inflict Direct Damage 2 still costs 2 HP."""
    data = target(weapons(rifle(inflict="Direct Damage 2")), minor=1, major=3, damage_reduction=2)
    result = simulate(data)
    odds = outcomes()
    critical = Fraction(12, 144)
    normal = Fraction(sum(lost(max(d - 2, 0), 1, 3) for d in range(1, 7)), 6)
    assert normal == Fraction(6, 6)
    direct = 2 * chance(odds, hit=True, cls="F")
    result.expect("damage", float(5 * ((P_HIT - critical) * normal + critical * 2 + direct)))


def test_damage_reduction_can_leave_nothing() -> None:
    """Reduction 3 against Damage 2 leaves 0: below a Minor Threshold of 1, no HP lost
    (the text gives reduced Damage no floor of 1); a Critical Hit's 2 is reduced alike."""
    result = simulate(target(weapons(rifle(damage="2")), minor=1, major=3, damage_reduction=3))
    assert result["damage"].pmf[0] == 1.0


# --- more than one Inflict effect per weapon -------------------------------------------------------


def test_several_inflict_effects_of_one_weapon() -> None:
    """One Inflict triggers all the weapon's effects: Damage +1 and Damage +2 (one hit of
    Damage 1 + 3 = 4: 2 HP against Minor 2, Major 3), Direct Damage 1, and a status."""
    effects = ["Damage +1", "Damage +2", "Direct Damage 1", "Status: Burning"]
    result = simulate(weapons(rifle(damage="1", inflict=effects)))
    odds = outcomes()
    inflicting = chance(odds, hit=True, cls="F")
    # Other hits deal 1 (0 HP); a Critical Hit deals 1 (0 HP).
    result.expect("damage", float(5 * inflicting * (2 + 1)))
    result.expect("status_burning", float(5 * inflicting))
    result.expect("inflicts", float(5 * inflicting))


# --- fights with several weapon profiles and several powers a side ---------------------------------


def fight(red: dict[str, Any], blue: dict[str, Any], rounds: int = 10) -> dict[str, Any]:
    """Blue strikes first each round with one sure blow costing Red 1 HP (one model)."""
    return {
        "ruleset": "skilldice",
        "fight": {"rounds": rounds, "first": "target"},
        "attacker": {"name": "Red", "hp_per_model": 1, "dc": 1, "minor": 1, "major": 2, **red},
        "target": {
            "name": "Blue",
            "models": 1,
            "hp_per_model": 100,
            "dc": 15,
            "minor": 1,
            "major": 50,
            "weapons": [{"name": "Maul", "models": 1, "skill": 20, "damage": "1"}],
            **blue,
        },
    }


def test_a_fight_with_several_weapon_profiles_a_side() -> None:
    """Red's 3 models: an Axe (listed first, always hits) and 2 Knives (hit only on a Critical
    Hit, 12 in 144). Models fall from the last listed profile first: after Blue's blow in
    round 1 the Axe and one Knife attack, in round 2 the Axe alone, and in round 3 Red falls."""
    red = {
        "models": 3,
        "weapons": [
            {"name": "Axe", "models": 1, "skill": 20, "damage": "1"},
            {"name": "Knife", "models": 2, "skill": -20, "damage": "1"},
        ],
    }
    result = simulate(fight(red, {}), trials=50_000)
    assert result["attacks"].pmf[3] == 1.0
    assert result["rounds"].pmf[3] == 1.0
    assert result.chance("P(Blue wins)") == 1.0
    result.expect("hits", 2 + 12 / 144)


def test_additional_and_collective_attacks_in_a_fight() -> None:
    """Red's 3 models with Swords (hit only on a Critical Hit), one with a Pistol besides (always
    hits): after Blue's blow the 2 survivors strike, the Pistol's carrier among them, then the
    last one. A collective Bomb is one attack a round while one of its models stands."""
    pistol = {
        "models": 3,
        "weapons": [
            {"name": "Sword", "models": 3, "skill": -20, "damage": "1"},
            {"name": "Pistol", "models": 1, "skill": 20, "damage": "1", "additional": True},
        ],
    }
    result = simulate(fight(pistol, {}), trials=50_000)
    assert result["attacks"].pmf[5] == 1.0
    result.expect("hits", 2 + 3 * 12 / 144)
    bomb = {"models": 3, "weapons": [{"name": "Bomb", "models": 3, "skill": 20, "damage": "1", "collective": True}]}
    result = simulate(fight(bomb, {}), trials=2_000)
    assert result["attacks"].pmf[2] == 1.0
    assert result["hits"].pmf[2] == 1.0


def test_a_fight_with_several_casters_a_side() -> None:
    """Red's 4 models: a Sword and two casters, Zap (1 Direct Damage) listed first and Boon
    (Advantage) second, both manifesting on any roll. Casters fall last, the first listed
    last of all: round 1 the Sword, Zap and Boon; round 2 Zap and Boon; round 3 Zap; round 4
    Red falls."""
    red = {
        "models": 4,
        "weapons": [{"name": "Sword", "models": 2, "skill": 20, "damage": "0"}],
        "powers": [
            {"name": "Zap", "skill": 0, "difficulty": 1, "power": "Direct Damage 1"},
            {"name": "Boon", "skill": 0, "difficulty": 1, "power": "Advantage"},
        ],
    }
    result = simulate(fight(red, {}), trials=20_000)
    assert result["rounds"].pmf[4] == 1.0
    assert result["attacks"].pmf[1] == 1.0
    assert result["power_attempts"].pmf[3] == 1.0
    assert result["advantage_granted"].pmf[2] == 1.0
    assert result["damage"].pmf[3] == 1.0  # Zap's three Direct Damage; the Sword does none


# --- a unit that starts below full HP -------------------------------------------------------------


def test_a_target_below_full_hp() -> None:
    """Raiders of 3 models, 2 HP each, at 5 HP: 3 models stand, one with 1 HP left. At x HP
    they have ceil(x / 2) models, so k HP lost remove 3 - ceil((5 - k) / 2) models."""
    data = target(weapons(rifle()), models=3, hp_per_model=2, hp=5)
    result = simulate(data)
    hp_lost = result["damage"].pmf
    assert len(hp_lost) <= 6  # at most the 5 HP it has
    removed: dict[int, float] = {}
    for k, q in enumerate(hp_lost):
        gone = 3 - math.ceil((5 - k) / 2)
        removed[gone] = removed.get(gone, 0.0) + q
    for gone, q in removed.items():
        assert result["models_destroyed"].pmf[gone] == pytest.approx(q, abs=1e-12)
    # One sure hit of Damage 2 (1 HP) removes the wounded model.
    one = simulate(target(weapons(rifle(models=1, skill=20, damage="2"), models=1), models=3, hp_per_model=2, hp=5))
    assert one["models_destroyed"].pmf[1] == 1.0


def test_an_attacker_below_full_hp_takes_hazardous_from_there() -> None:
    """Two models of 2 HP at 3 HP: one is wounded, so one Hazardous 1 (Panic higher, 66 rolls in
    144) removes a model; only the 2 standing models may attack."""
    data = weapons(rifle(models=1, keywords=["Hazardous 1"]), models=2, hp_per_model=2, hp=3)
    result = simulate(data)
    result.expect("attacker_models_destroyed", 66 / 144)
    assert result["attacker_damage"].pmf[2:].sum() == 0.0


def test_a_fight_with_a_unit_below_full_hp() -> None:
    """Red at 1 HP of 3 (one model of three standing) falls to Blue's first blow: one round."""
    red = {"models": 3, "hp": 1, "weapons": [{"name": "Axe", "models": 3, "skill": 20, "damage": "1"}]}
    result = simulate(fight(red, {}), trials=2_000)
    assert result["rounds"].pmf[1] == 1.0
    assert result["attacks"].mean == 0.0
    assert result["attacker_models_destroyed"].pmf[1] == 1.0


# --- errors name the field and the value ----------------------------------------------------------


WEAPON = "attacker.weapons[0]"


@pytest.mark.parametrize(
    ("table", "changes", "field", "message"),
    [
        ("weapon", {"attacks": "D3-1"}, f"{WEAPON}.attacks", "D3-1"),
        ("weapon", {"reroll_when": ["sometimes"]}, f"{WEAPON}.reroll_when", "'sometimes'"),
        ("weapon", {"reroll_when": ["miss"]}, f"{WEAPON}.reroll_when", "reroll is 'none'"),
        ("weapon", {"critical_damage": "lots"}, f"{WEAPON}.critical_damage", "'lots'"),
        ("weapon", {"inflict": []}, f"{WEAPON}.inflict", "empty list"),
        ("weapon", {"inflict": ["Damage +1", "Sparkles"]}, f"{WEAPON}.inflict[1]", "Sparkles"),
        ("weapon", {"additional": True}, "attacker.weapons", "all additional"),
        ("target", {"major": 1}, "target.major", "not be below the Minor"),
        ("target", {"hp": 0}, "target.hp", "at least 1"),
        ("target", {"hp": 501}, "target.hp", "at most 500"),
        ("target", {"damage_reduction": -1}, "target.damage_reduction", "at least 0"),
        ("attacker", {"hp": 350}, "attacker.weapons", "at 350 HP the unit has 4 models"),
    ],
)
def test_bad_input_names_the_field_and_value(table: str, changes: dict[str, Any], field: str, message: str) -> None:
    data = scenario_data()
    (data["attacker"]["weapons"][0] if table == "weapon" else data[table]).update(changes)
    registry = skilldice_registry()
    with pytest.raises(ScenarioError, match=message) as error:
        scenario = mathhammer.scenario_from_data(data, source="test.toml", registry=registry)
        mathhammer.compile_scenario(scenario, registry=registry)
    assert error.value.field == field
