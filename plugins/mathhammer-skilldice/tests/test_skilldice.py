"""The d12 skill-dice system, rule by rule (sections of ``skill-dice-d12.txt``).

Expected values come from :func:`attack_roll`, which enumerates the dice by
hand, independently of the core; simulated means are held to them within
five standard errors (fixed seed).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import mathhammer
from mathhammer import KeywordSpec, Result, Stage
from mathhammer.plugin import Effect, KeywordRegistrar, ScenarioError
from mathhammer.testing import assert_mean
from mathhammer_skilldice import AttackRules
from mathhammer_skilldice.rules import hp_lost

from .conftest import EXAMPLES, scenario_data, skilldice_registry

Run = Callable[..., Result]
Roll = dict[tuple[bool, str], Fraction]


def attack_roll(
    skill: int = 3,
    dc: int = 15,
    advantage: int = 0,
    reroll: str = "none",
    critical_hits: str = "always",
    advantage_die: str = "kept",
    sixes: tuple[int, ...] | None = None,
) -> Roll:
    """P(hit, class) of one Attack Roll, class "F" (Focus higher), "=" or "P", by enumeration.

    ``sixes`` are the signs of the d6 dice (+1 Advantage, -1 Disadvantage); ``advantage`` is
    the shorthand for one of them."""
    signs = sixes if sixes is not None else ((advantage,) if advantage else ())

    def classify(f: int, p: int, a: tuple[int, ...]) -> tuple[bool, str, bool]:
        total = f + p + skill + sum(sign * x for sign, x in zip(signs, a, strict=True))
        critical = f == p and (critical_hits == "always" or total >= dc)
        hit = critical or total >= dc
        return hit, "F" if f > p else "=" if f == p else "P", critical

    d6s = list(itertools.product(range(1, 7), repeat=len(signs)))
    weight = Fraction(1, 144 * len(d6s))
    out: Roll = {}
    for f, p, a in itertools.product(range(1, 13), range(1, 13), d6s):
        hit, cls, critical = classify(f, p, a)
        if reroll == "attack_roll" and not hit:
            again = d6s if advantage_die == "rerolled" else [a]
            for f2, p2, a2 in itertools.product(range(1, 13), range(1, 13), again):
                hit2, cls2, _ = classify(f2, p2, a2)
                key = (hit2, cls2)
                out[key] = out.get(key, Fraction(0)) + weight / (144 * len(again))
            continue
        if reroll == "ones" and not critical and 1 in (f, p):
            fs = range(1, 13) if f == 1 else [f]
            ps = range(1, 13) if p == 1 else [p]
            n = len(fs) * len(ps)
            for f2, p2 in itertools.product(fs, ps):
                hit2, cls2, _ = classify(f2, p2, a)
                out[(hit2, cls2)] = out.get((hit2, cls2), Fraction(0)) + weight / n
            continue
        out[(hit, cls)] = out.get((hit, cls), Fraction(0)) + weight
    return out


def p(roll: Roll, *, hit: bool | None = None, cls: str | None = None) -> Fraction:
    return sum(
        (v for (h, c), v in roll.items() if (hit is None or h == hit) and (cls is None or c == cls)), Fraction(0)
    )


def test_the_attack_roll_hits_on_the_dc_and_classes_come_from_the_two_d12(run: Run) -> None:
    """Attack Roll: 2d12 + Skill >= DC. Matching d12 are a Critical Hit (a hit, default reading);
    Focus higher Inflicts (on a hit), Panic higher is Hazardous whether or not it hit."""
    roll = attack_roll()
    result = run({"keywords": ["Hazardous 1"], "inflict": "Status: Dazed"})
    assert_mean(result["hits"], 5 * float(p(roll, hit=True)))
    assert_mean(result["critical_hits"], 5 * 12 / 144)
    assert_mean(result["inflicts"], 5 * float(p(roll, hit=True, cls="F")))
    assert_mean(result["hazardous"], 5 * 66 / 144)


@pytest.mark.parametrize("advantage", [1, -1])
def test_advantage_adds_and_disadvantage_subtracts_a_d6(run: Run, advantage: int) -> None:
    field = "advantage" if advantage > 0 else "disadvantage"
    result = run({field: True})
    assert_mean(result["hits"], 5 * float(p(attack_roll(advantage=advantage), hit=True)))


def test_advantage_and_disadvantage_together_roll_both_dice(run: Run) -> None:
    """Advantage adds 1d6 and Disadvantage subtracts 1d6: with both, both are rolled."""
    result = run({"advantage": True, "disadvantage": True})
    assert_mean(result["hits"], 5 * float(p(attack_roll(sixes=(1, -1)), hit=True)))


def test_advantage_and_disadvantage_cancel_in_the_other_reading(run: Run) -> None:
    """advantage_with_disadvantage = "cancel": with both, neither d6 is rolled; alone, each still is."""
    rules = {"advantage_with_disadvantage": "cancel"}
    both = run({"advantage": True, "disadvantage": True}, rules=rules)
    assert_mean(both["hits"], 5 * float(p(attack_roll(), hit=True)))
    alone = run({"advantage": True}, rules=rules)
    assert_mean(alone["hits"], 5 * float(p(attack_roll(advantage=1), hit=True)))
    assert both.rule_versions["advantage_with_disadvantage"] == "cancel"


@pytest.mark.parametrize(
    ("reroll", "advantage_die"),
    [("attack_roll", "kept"), ("attack_roll", "rerolled"), ("ones", "kept"), ("ones", "rerolled")],
)
def test_re_rolls(run: Run, reroll: str, advantage_die: str) -> None:
    """Re-rolling the Attack Roll re-rolls both Skill Dice (the Advantage die kept, or, in the other
    reading, re-rolled too); re-rolling natural 1s re-rolls only a die showing 1; the second stands."""
    roll = attack_roll(advantage=1, reroll=reroll, advantage_die=advantage_die, dc=20)
    result = run(
        {"advantage": True, "reroll": reroll, "keywords": ["Hazardous 1"]},
        {"dc": 20},
        rules={"advantage_die": advantage_die},
    )
    assert_mean(result["hits"], 5 * float(p(roll, hit=True)))
    assert_mean(result["hazardous"], 5 * float(p(roll, cls="P")))


def test_a_critical_hit_that_misses_the_dc_in_the_other_reading(run: Run) -> None:
    """critical_hits = "needs_total": a match must also reach the DC; against DC 25 with Skill 3 only
    11 + 11 and 12 + 12 do."""
    result = run(target={"dc": 25}, rules={"critical_hits": "needs_total"})
    roll = attack_roll(dc=25, critical_hits="needs_total")
    assert_mean(result["hits"], 5 * float(p(roll, hit=True)))
    assert_mean(result["critical_hits"], 5 * 2 / 144)  # 11+11 and 12+12 reach 25 with Skill 3


def test_damage_against_the_thresholds(run: Run) -> None:
    """Below Minor 0 HP, Minor 1, Major 2, double Major 3 (a Battle Shock test). D6 against Minor 2,
    Major 3: 1 -> 0, 2 -> 1, 3-5 -> 2, 6 -> 3. A Critical Hit deals 6: 3 HP and a test."""
    roll = attack_roll()
    normal = Fraction(sum(hp_lost(d, 2, 3) for d in range(1, 7)), 6)
    critical = Fraction(12, 144)
    expected = 5 * ((p(roll, hit=True) - critical) * normal + critical * 3)
    result = run()
    assert_mean(result["damage"], float(expected))
    shock = 5 * ((p(roll, hit=True) - critical) * Fraction(1, 6) + critical)
    assert_mean(result["battle_shock"], float(shock))


def test_surviving_models_follow_from_the_unit_hp(run: Run) -> None:
    """A unit at HP x has ceil(x / HP per model) models: k are gone exactly when k x 3 HP are lost."""
    result = run(target={"models": 4, "hp_per_model": 3})
    lost, removed = result["damage"].p_at_least(), result["models_destroyed"].p_at_least()
    for k in range(1, 5):
        assert removed[k] == pytest.approx(lost[3 * k] if 3 * k < len(lost) else 0.0, abs=1e-12)


def test_hazardous_costs_the_attacker_direct_damage_hit_or_miss(run: Run) -> None:
    result = run({"keywords": ["Hazardous 2"]})
    assert_mean(result["attacker_damage"], 5 * 2 * 66 / 144)


@pytest.mark.parametrize(("reading", "needs_hit"), [("on_hit", True), ("always", False)])
def test_inflict_direct_damage_in_each_reading(run: Run, reading: str, needs_hit: bool) -> None:
    """Direct Damage removes HP directly, ignoring the thresholds (the weapon's damage is 0 here)."""
    roll = attack_roll()
    result = run({"damage": "0", "inflict": "Direct Damage 2"}, rules={"inflict": reading})
    chance = p(roll, hit=True, cls="F") if needs_hit else p(roll, cls="F")
    assert_mean(result["damage"], float(5 * 2 * chance))
    assert_mean(result["inflicts"], float(5 * chance))


def test_inflict_extra_damage_and_a_status(run: Run) -> None:
    """Damage +3 on a D1 weapon makes an Inflicting hit's damage 4 (2 HP); a status is counted."""
    roll = attack_roll()
    critical = Fraction(12, 144)
    extra = run({"damage": "1", "inflict": "Damage +3"})
    hits = p(roll, hit=True)
    inflicting = p(roll, hit=True, cls="F")
    expected = 5 * ((hits - critical - inflicting) * 0 + inflicting * 2 + critical * 0)
    assert_mean(extra["damage"], float(expected))
    burning = run({"inflict": "Status: Burning"})
    stage: Stage = burning["status_burning"]
    assert stage.label == "Burning inflicted"
    assert_mean(stage, float(5 * inflicting))


class Drain:
    """A third party's Inflict effect, through the public hook: the attacker heals nothing, the
    target loses 1 HP directly, and it is counted."""

    @staticmethod
    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        def apply(rules: AttackRules) -> None:
            rules.on_inflict(Effect(on="success", action="mortal", amount="1"))
            rules.on_inflict(Effect(on="success", action="count", counter=rules.add_counter("drained", "Drained")))

        register(KeywordSpec("skilldice", "Inflict Drain", apply, description="the target loses 1 HP"))


def test_a_third_party_inflict_effect() -> None:
    registry = skilldice_registry(("drain", Drain()))
    scenario = mathhammer.scenario_from_data(scenario_data({"damage": "0", "inflict": "Drain"}), registry=registry)
    result = mathhammer.simulate(scenario, trials=200_000, seed=5, registry=registry)
    chance = p(attack_roll(), hit=True, cls="F")
    assert_mean(result["drained"], float(5 * chance))
    assert_mean(result["damage"], float(5 * chance))


def test_the_example_runs_and_reports_every_stage(registry: mathhammer.Registry) -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "skilldice-vanguard.toml", registry=registry)
    result = mathhammer.simulate(scenario, trials=50_000, seed=1, registry=registry)
    assert set(result.stages) >= {
        "hits",
        "critical_hits",
        "inflicts",
        "hazardous",
        "battle_shock",
        "damage",
        "attacker_damage",
    }
    assert result.rule_versions == {
        "critical_hits": "always",
        "inflict": "on_hit",
        "advantage_die": "kept",
        "advantage_with_disadvantage": "both_dice",
        "heal": "surviving_models",
    }


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"weapon": {"models": 6}}, "attacker.weapons", "every model attacks once"),
        ({"target": {"major": 1}}, "target.major", "not be below the Minor"),
        ({"target": {"dc": 0}}, "target.dc", "at least 1"),
        ({"weapon": {"damage": "D0"}}, "attacker.weapons[0].damage", "D0"),
        ({"weapon": {"inflict": "Sparkles"}}, "attacker.weapons[0].inflict", "known: "),
        (
            {"weapon": {"keywords": ["Inflict Direct Damage 1"]}},
            "attacker.weapons[0].keywords[0]",
            "name it in inflict",
        ),
        ({"weapon": {"keywords": ["Hazardous 0"]}}, "attacker.weapons[0].keywords[0]", "Hazardous"),
        ({"weapon": {"reroll": "all"}}, "attacker.weapons[0].reroll", "expected one of"),
        ({"rules": {"inflict": "sometimes"}}, "rules.inflict", "not a version"),
        ({"rules": {"advantage": "kept"}}, "rules.advantage", "not a rule"),
    ],
)
def test_bad_input_names_the_field(load: Callable[..., Any], changes: dict[str, Any], field: str, message: str) -> None:
    top = {k: v for k, v in changes.items() if k not in ("weapon", "target")}
    with pytest.raises(ScenarioError, match=message) as error:
        load(changes.get("weapon"), changes.get("target"), **top)
    assert error.value.field == field


def duel(first: str = "attacker", rounds: int = 10) -> dict[str, Any]:
    """One model a side, 1 HP, Damage 10 (3 HP against thresholds 1 and 2): every hit destroys."""
    unit = {"models": 1, "hp_per_model": 1, "dc": 15, "minor": 1, "major": 2}
    return {
        "ruleset": "skilldice",
        "fight": {"rounds": rounds, "first": first},
        "attacker": {"name": "Red", **unit, "weapons": [{"name": "Sword", "models": 1, "skill": 3, "damage": "10"}]},
        "target": {"name": "Blue", **unit, "weapons": [{"name": "Axe", "models": 1, "skill": 1, "damage": "10"}]},
    }


@pytest.mark.parametrize("first", ["attacker", "target"])
def test_a_duel_against_its_closed_form(registry: mathhammer.Registry, first: str) -> None:
    """Fights: the units take turns, each attacking with its survivors, until one is destroyed or
    the rounds run out. Red hits with p, Blue with b; if Red strikes first,
    P(Red wins) = p (1 + m + ... + m^9) with m = (1 - p)(1 - b)."""
    red, blue = float(p(attack_roll(skill=3), hit=True)), float(p(attack_roll(skill=1), hit=True))
    m = (1 - red) * (1 - blue)
    rounds = sum(m**k for k in range(10))
    first_wins = (red if first == "attacker" else blue) * rounds
    second_wins = (1 - (red if first == "attacker" else blue)) * (blue if first == "attacker" else red) * rounds
    red_wins, blue_wins = (first_wins, second_wins) if first == "attacker" else (second_wins, first_wins)
    scenario = mathhammer.scenario_from_data(duel(first), registry=registry)
    result = mathhammer.simulate(scenario, trials=200_000, seed=8, registry=registry)
    for label, expected in [
        ("P(Red wins)", red_wins),
        ("P(Blue wins)", blue_wins),
        ("P(both stand after 10 rounds)", m**10),
    ]:
        got = result.chance(label)
        se = (expected * (1 - expected) / 200_000) ** 0.5
        assert abs(got - expected) < 5 * se + 1e-12, f"{label}: {got} vs {expected}"
    # The fight lasts k rounds with chance m^(k-1) (1 - m) (the last, the tenth, takes what is left).
    rounds_pmf = result["rounds"].pmf
    assert abs(rounds_pmf[1] - (1 - m)) < 5 * ((1 - m) * m / 200_000) ** 0.5


def test_a_fight_needs_a_dc_on_each_side(load: Callable[..., Any]) -> None:
    data = duel()
    del data["attacker"]["dc"]
    with pytest.raises(ScenarioError, match="required") as error:
        mathhammer.scenario_from_data(data, source="fight.toml", registry=skilldice_registry())
    assert error.value.field == "attacker.dc"


@pytest.mark.parametrize(
    ("power", "stage", "per_success"), [("Damage 6", "damage", 3), ("Direct Damage 2", "damage", 2)]
)
def test_a_psychic_power_instead_of_an_attack(run: Run, power: str, stage: str, per_success: int) -> None:
    """Psychic Powers: 1d12 + Skill against the Difficulty (2 + 1d12 >= 9: 6 faces of 12); the caster
    makes no normal attack. Damage 6 meets double the Major Threshold (3 HP); Direct Damage 2 is 2 HP."""
    result = run(
        {"models": 4, "damage": "0"},
        powers=None,
        attacker_powers=[{"name": "Bolt", "skill": 2, "difficulty": 9, "power": power}],
    )
    assert_mean(result["attacks"], 4)
    assert_mean(result["powers_manifested"], 6 / 12)
    assert_mean(result[stage], per_success * 6 / 12)


def test_healing_returns_models_only_when_the_power_says_so(registry: mathhammer.Registry) -> None:
    """Healing: HP back up to the starting HP; destroyed models return only if the rule says so.
    Red (2 models, 1 HP each) heals 1 HP a round (Difficulty 1: always) while Blue's sure blows
    cost it 1 HP a round. Heal cannot bring back the fallen model: Red falls in round 2. Restore
    returns it: after ten rounds both stand."""

    def fight(power: str) -> Result:
        data = duel(rounds=10)
        data["attacker"].update(models=2, dc=1)
        data["attacker"]["weapons"][0].update(damage="0")
        data["attacker"]["powers"] = [{"name": "Mend", "skill": 0, "difficulty": 1, "power": power}]
        data["target"]["weapons"][0].update(skill=20, damage="1")
        scenario = mathhammer.scenario_from_data(data, registry=registry)
        return mathhammer.simulate(scenario, trials=2_000, seed=3, registry=registry)

    heal = fight("Heal 1")
    assert heal.chance("P(Blue wins)") == 1.0
    assert heal["rounds"].pmf[2] == 1.0
    restore = fight("Restore 1")
    assert restore.chance("P(both stand after 10 rounds)") == 1.0
    assert restore["attacker_damage"].pmf[1] == 1.0
    assert restore["hp_healed"].pmf[9] == 1.0


def test_a_power_granting_advantage_to_the_units_attacks(run: Run) -> None:
    """Power Advantage: manifested (1d12 + 0 >= 7: half the time), the unit's Attack Rolls this
    round roll with Advantage; the caster does not attack. Four rifles: hits are the mixture. A
    weapon with Disadvantage then rolls both dice."""
    result = run(
        {"models": 4},
        attacker_powers=[{"name": "Boon", "skill": 0, "difficulty": 7, "power": "Advantage"}],
    )
    expected = 4 * (0.5 * float(p(attack_roll(advantage=1), hit=True)) + 0.5 * float(p(attack_roll(), hit=True)))
    assert_mean(result["hits"], expected)
    assert_mean(result["advantage_granted"], 0.5)
    with_disadvantage = run(
        {"models": 4, "disadvantage": True},
        attacker_powers=[{"name": "Boon", "skill": 0, "difficulty": 7, "power": "Advantage"}],
    )
    both = 4 * (
        0.5 * float(p(attack_roll(sixes=(1, -1)), hit=True)) + 0.5 * float(p(attack_roll(advantage=-1), hit=True))
    )
    assert_mean(with_disadvantage["hits"], both)


def test_battle_shock_has_no_effect_unless_the_scenario_gives_one(run: Run) -> None:
    """The rules do not say what a Battle Shock test does: counted, no effect by default. A scenario
    may choose one: "Lose 2 HP unless 7+" costs a unit that fails a d12 test (half the time) 2 HP."""
    roll = attack_roll()
    critical = Fraction(12, 144)
    shocks = 5 * ((p(roll, hit=True) - critical) * Fraction(1, 6) + critical)
    plain = run()
    shocked = run(battle_shock="Lose 2 HP unless 7+")
    assert_mean(shocked["battle_shock"], float(shocks))
    assert_mean(shocked["damage"], plain["damage"].mean + float(shocks) * 2 * 6 / 12)


def shaken_fight(
    effect: str | None, advantage: bool = False, reading: str = "both_dice", models: int = 100
) -> dict[str, Any]:
    """One round: Red's sure blow (Damage 10 against Major 2) costs Blue (``models`` of 3 HP) a
    model and a Battle Shock test; Blue's survivors strike back with Damage 1."""
    data = duel(rounds=1)
    data["attacker"].update(hp_per_model=100)
    data["attacker"]["weapons"][0].update(skill=20)
    data["target"].update(models=models, hp_per_model=3)
    data["target"]["weapons"][0].update(models=models, skill=3, damage="1", advantage=advantage)
    data["rules"] = {"advantage_with_disadvantage": reading}
    if effect:
        data["battle_shock"] = effect
    return data


def test_a_shaken_unit_strikes_back_with_disadvantage() -> None:
    """ "Shaken": a unit that takes a Battle Shock test makes its Attack Rolls with Disadvantage for
    the rest of the round. Red's sure blow (Damage 10 against Major 2) shakes Blue, whose 99 survivors
    then strike back with -1d6."""
    registry = skilldice_registry()

    def fight(effect: str | None, advantage: bool = False, reading: str = "both_dice") -> Result:
        scenario = mathhammer.scenario_from_data(shaken_fight(effect, advantage, reading), registry=registry)
        return mathhammer.simulate(scenario, trials=20_000, seed=4, registry=registry)

    assert_mean(fight(None)["return_hits"], 99 * float(p(attack_roll(skill=3), hit=True)))
    assert_mean(fight("Shaken")["return_hits"], 99 * float(p(attack_roll(skill=3, advantage=-1), hit=True)))
    # A weapon with Advantage, shaken: both dice, or (cancelling) neither.
    both = attack_roll(skill=3, sixes=(1, -1))
    assert_mean(fight("Shaken", advantage=True)["return_hits"], 99 * float(p(both, hit=True)))
    plain = attack_roll(skill=3)
    assert_mean(fight("Shaken", advantage=True, reading="cancel")["return_hits"], 99 * float(p(plain, hit=True)))
    unshaken = attack_roll(skill=3, advantage=1)
    assert_mean(fight(None, advantage=True, reading="cancel")["return_hits"], 99 * float(p(unshaken, hit=True)))


def test_a_powers_damage_meets_the_thresholds_and_causes_battle_shock(run: Run) -> None:
    """A power dealing Damage 6 against Minor 2, Major 3 costs 3 HP and a Battle Shock test."""
    result = run(
        {"models": 4, "damage": "0"},
        attacker_powers=[{"name": "Bolt", "skill": 2, "difficulty": 9, "power": "Damage 6"}],
    )
    assert_mean(result["battle_shock"], 6 / 12)


def test_in_a_fight_the_caster_does_not_also_attack() -> None:
    """Red (3 models: 2 swords and a caster) against Blue: each round the caster attempts its
    power and the other survivors attack, so Red never makes more than 2 attacks a round."""
    data = duel(rounds=1)
    data["attacker"].update(models=3)
    data["attacker"]["weapons"][0].update(models=2)
    data["attacker"]["powers"] = [{"name": "Zap", "skill": 0, "difficulty": 13, "power": "Direct Damage 1"}]
    scenario = mathhammer.scenario_from_data(data, registry=skilldice_registry())
    result = mathhammer.simulate(scenario, trials=2_000, seed=1, registry=skilldice_registry())
    assert result["attacks"].pmf[2] == 1.0
    assert result["power_attempts"].pmf[1] == 1.0
    assert result["powers_manifested"].mean == 0.0  # 1d12 never reaches 13


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d["target"].update(name="Red"), "target", "different names"),
        (lambda d: d["attacker"].update(models=2), "attacker.weapons", "every model attacks or casts"),
    ],
)
def test_fights_are_checked(change: Any, field: str, message: str) -> None:
    data = duel()
    change(data)
    with pytest.raises(ScenarioError, match=message) as error:
        mathhammer.scenario_from_data(data, source="fight.toml", registry=skilldice_registry())
    assert error.value.field == field


def test_the_targets_weapons_need_a_fight() -> None:
    data = duel()
    del data["fight"]
    for key in ("dc", "minor", "major"):
        del data["attacker"][key]
    with pytest.raises(ScenarioError, match="only in a fight") as error:
        mathhammer.scenario_from_data(data, source="attack.toml", registry=skilldice_registry())
    assert error.value.field == "target.weapons"


def test_a_fights_outcome_code_stays_out_of_the_tables_and_its_chances_show() -> None:
    """The outcome counter is a code (0-3) read through the chances: not a stage to average. The
    notebook view shows the chances, and the plot charts P(each side wins) and every distribution
    the fight reports, the rounds fought among them."""
    registry = skilldice_registry()
    scenario = mathhammer.scenario_from_data(duel(), registry=registry)
    result = mathhammer.simulate(scenario, trials=2_000, seed=2, registry=registry)
    assert "outcome" in result.stages and "outcome" not in [s.name for s in result.shown]
    assert "How the fight ended" not in result.to_text()
    assert "P(Red wins)" in result._repr_html_()
    figure = result.plot()
    # A row across the top charts who wins, then two charts per distribution, the rounds among them.
    assert len(figure.axes) == 1 + 2 * len(result.distributions)
    assert {"rounds", "attacker_damage"} <= set(result.distributions)
    ends = figure.axes[0]
    assert [t.get_text() for t in ends.get_yticklabels()] == [c.label for c in result.outcomes]
    assert [c.label for c in result.outcomes] == [
        "P(Red wins)",
        "P(Blue wins)",
        "P(both stand after 10 rounds)",
        "P(both destroyed)",
    ]
    from matplotlib.patches import Rectangle

    widths = [bar.get_width() for bar in ends.patches if isinstance(bar, Rectangle)]
    assert widths == pytest.approx([result.chance(c.label) for c in result.outcomes], abs=1e-12)
    assert "Rounds fought: P(exactly k)" in [ax.get_title() for ax in figure.axes]
    # The narration's summary (the face's): tests/test_explain.py::test_a_d12_fights_summary_says_who_won_in_words


def test_keywords_are_read_as_printed_brackets_and_all(run: Run) -> None:
    # The same seed gives the same numbers however the keyword is written.
    plain = run({"keywords": ["Hazardous 2"]})
    printed = run({"keywords": ["[HAZARDOUS 2]"]})
    assert printed["attacker_damage"].pmf.tolist() == plain["attacker_damage"].pmf.tolist()


def weapons_compiled(registry: mathhammer.Registry, *weapons: dict[str, Any]) -> Any:
    """The attacker's five models split among ``weapons`` (fields replaced as given), compiled."""
    data = scenario_data()
    data["attacker"]["weapons"] = [
        {"name": f"W{i}", "models": 5 // len(weapons), "skill": 3, "damage": "D6", **w} for i, w in enumerate(weapons)
    ]
    return mathhammer.compile_scenario(mathhammer.scenario_from_data(data, registry=registry), registry=registry)


def test_no_hazardous_line_for_weapons_without_hazardous(registry: mathhammer.Registry) -> None:
    """Panic > Focus is reported as Hazardous only where a weapon has Hazardous, and as a chance
    per attack only when every weapon of the side has it."""

    def hazardous_lines(c: Any) -> tuple[bool, bool]:
        return "hazardous" in c.plan.counters, any(ch.stage == "hazardous" for ch in c.chances)

    assert hazardous_lines(weapons_compiled(registry, {})) == (False, False)
    assert hazardous_lines(weapons_compiled(registry, {"keywords": ["Hazardous 1"]})) == (True, True)
    assert hazardous_lines(weapons_compiled(registry, {"keywords": ["Hazardous 1"]}, {})) == (True, False)


def test_no_inflict_line_for_weapons_without_an_inflict_effect(registry: mathhammer.Registry) -> None:
    """Focus > Panic Inflicts the weapon's Inflict effect "if it has one": it is counted only where a
    weapon has one (an effect of its own, or a keyword acting on Inflicts), and shown as a chance per
    attack only when every weapon of the side has one."""

    def inflict_lines(c: Any) -> tuple[bool, bool]:
        return "inflicts" in c.plan.counters, any(ch.stage == "inflicts" for ch in c.chances)

    assert inflict_lines(weapons_compiled(registry, {})) == (False, False)
    assert inflict_lines(weapons_compiled(registry, {"keywords": ["Hazardous 1"]})) == (False, False)
    assert inflict_lines(weapons_compiled(registry, {"inflict": "Direct Damage 1"})) == (True, True)
    assert inflict_lines(weapons_compiled(registry, {"inflict": "Status: Dazed"}, {})) == (True, False)
    assert weapons_compiled(registry, {}, {"inflict": "Damage +1"}).plan.counters[:4] == [
        "attacks",
        "hits",
        "critical_hits",
        "inflicts",
    ]
