"""Warhammer 40,000: every rule of the specification, pinned.

Section names refer to ``wh40k-attack-sequence.txt`` (11th edition's text) and
``wh40k-mortal-wounds-hit-modifiers-blast.txt``. Probabilities are checked
against closed forms within five standard errors of a fixed-seed run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from math import comb
from pathlib import Path

import pytest

import mathhammer
from mathhammer import Registry, Result, ScenarioError, UnknownKeywordError
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, ModelProfile, MortalWoundsAbility, Scenario, Target, Weapon
from mathhammer_wh40k.model import Modifiers
from mathhammer_wh40k.rules import wound_target

Run = Callable[..., Result]
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def gun(**kw: object) -> Weapon:
    base: dict[str, object] = dict(name="Gun", attacks="1", skill=3, strength=4, ap=0, damage="1", count=20)
    base.update(kw)
    return Weapon(**base)  # type: ignore[arg-type]


def squad(**kw: object) -> Target:
    model: dict[str, object] = dict(name="Trooper", wounds=1, count=20)
    model.update(kw)
    return Target("Squad", toughness=4, models=(ModelProfile(**model),))  # type: ignore[arg-type]


def scenario(*weapons: Weapon, target: Target | None = None, **kw: object) -> Scenario:
    return Scenario(attacker=Attacker(weapons=weapons), target=target or squad(), **kw)  # type: ignore[arg-type]


# --- Hit rolls ------------------------------------------------------------


@pytest.mark.parametrize("skill", [2, 3, 4, 5, 6])
def test_hit_roll_needs_bs(run: Run, skill: int) -> None:
    r = run(scenario(gun(skill=skill)))
    assert_mean(r["hits"], 20 * (7 - skill) / 6)


def test_melee_uses_ws_the_same_way(run: Run) -> None:
    assert_mean(run(scenario(gun(type="melee", skill=4)))["hits"], 20 * 3 / 6)


@pytest.mark.parametrize(
    ("skill", "weapon_mod", "common_mod", "p"),
    [
        (3, 2, 1, 5 / 6),  # +3 is capped to +1: hits on 2+
        (2, 1, 0, 5 / 6),  # an unmodified 1 always fails, even needing 1+
        (4, -2, -1, 2 / 6),  # -3 is capped to -1: hits on 5+
        (6, -1, 0, 1 / 6),  # an unmodified 6 is a critical hit, a hit whatever the modifier
        (3, 1, -1, 4 / 6),  # modifiers are summed before the cap
    ],
)
def test_hit_modifiers_are_summed_then_capped(run: Run, skill: int, weapon_mod: int, common_mod: int, p: float) -> None:
    s = scenario(gun(skill=skill, modifiers=Modifiers(hit=weapon_mod)), modifiers=Modifiers(hit=common_mod))
    assert_mean(run(s)["hits"], 20 * p)


def test_weapons_that_automatically_hit_roll_nothing(run: Run) -> None:
    r = run(scenario(gun(auto_hit=True, skill=6, modifiers=Modifiers(hit=-1))), trials=10_000)
    assert r["hits"].pmf.tolist()[-1] == 1.0 and len(r["hits"].pmf) == 21


@pytest.mark.parametrize(("policy", "p"), [("ones", 4 / 6 + 1 / 6 * 4 / 6), ("failures", 1 - (2 / 6) ** 2)])
def test_hit_rerolls(run: Run, policy: str, p: float) -> None:
    assert_mean(run(scenario(gun(modifiers=Modifiers(reroll_hits=policy))))["hits"], 20 * p)  # type: ignore[arg-type]


# --- Wound rolls ----------------------------------------------------------

SPEC_TABLE = {"2x": 2, ">": 3, "=": 4, "<": 5, "half": 6}


@pytest.mark.parametrize("strength", range(1, 11))
@pytest.mark.parametrize("toughness", range(1, 11))
def test_wound_table_cell_by_cell(strength: int, toughness: int) -> None:
    if strength >= 2 * toughness:
        row = "2x"
    elif strength > toughness:
        row = ">"
    elif strength == toughness:
        row = "="
    elif strength * 2 <= toughness:
        row = "half"
    else:
        row = "<"
    assert wound_target(strength, toughness) == SPEC_TABLE[row]


@pytest.mark.parametrize(("strength", "p"), [(8, 5 / 6), (5, 4 / 6), (4, 3 / 6), (3, 2 / 6), (2, 1 / 6)])
def test_wound_roll_compares_strength_and_toughness(run: Run, strength: int, p: float) -> None:
    r = run(scenario(gun(strength=strength, auto_hit=True)))
    assert_mean(r["wounds"], 20 * p)


def test_wound_modifiers_are_capped_and_natural_rolls_win(run: Run) -> None:
    plus = run(scenario(gun(strength=8, auto_hit=True, modifiers=Modifiers(wound=3))))
    assert_mean(plus["wounds"], 20 * 5 / 6)  # 2+ with +1 would be 1+, but a 1 fails
    minus = run(scenario(gun(strength=2, auto_hit=True, modifiers=Modifiers(wound=-3))))
    assert_mean(minus["wounds"], 20 * 1 / 6)  # 6+ with -1: only the critical 6


def test_wound_rerolls(run: Run) -> None:
    r = run(scenario(gun(auto_hit=True, modifiers=Modifiers(reroll_wounds="failures"))))
    assert_mean(r["wounds"], 20 * (1 - 0.5**2))


# --- Saves and damage -----------------------------------------------------


@pytest.mark.parametrize(
    ("save", "invulnerable", "ap", "save_mod", "p_fail"),
    [
        (3, None, 0, 0, 2 / 6),
        (3, None, -1, 0, 3 / 6),  # AP modifies the armour save
        (3, 5, -1, 0, 3 / 6),  # armour 4+ after AP beats InSv 5+
        (3, 4, -3, 0, 3 / 6),  # armour 6+ after AP: InSv 4+ is better and ignores AP
        (2, None, 0, 1, 1 / 6),  # an unmodified 1 always fails
        (None, None, 0, 0, 1.0),  # no save at all
        (4, None, -4, 0, 1.0),  # armour pushed past 6+ cannot save
    ],
)
def test_save_rolls(
    run: Run, save: int | None, invulnerable: int | None, ap: int, save_mod: int, p_fail: float
) -> None:
    s = scenario(
        gun(auto_hit=True, strength=8, ap=ap),
        target=squad(save=save, invulnerable=invulnerable),
        modifiers=Modifiers(save=save_mod),
    )
    r = run(s)
    assert_mean(r["failed_saves"], r["wounds"].mean * p_fail, z=6)
    exact = 20 * 5 / 6 * p_fail
    assert_mean(r["failed_saves"], exact)


def test_damage_characteristic_and_lost_excess(run: Run) -> None:
    # One automatic, unsaveable D6 attack into a W3 model: destroyed on 3+;
    # damage dealt is the roll, capped at 3 (excess is lost).
    s = scenario(gun(count=1, auto_hit=True, strength=10, damage="D6"), target=squad(wounds=3, count=2))
    r = run(s)
    wounded = 5 / 6
    assert_mean(r["models_destroyed"], wounded * 4 / 6)
    assert_mean(r["damage"], wounded * (1 + 2 + 3 * 4) / 6)
    assert r["models_destroyed"].pmf.size == 2  # never a second model


def test_feel_no_pain_against_every_wound(run: Run) -> None:
    # D2 into W1 models with FNP 5+: one roll per wound that would be lost, so
    # the model survives only if both rolls succeed.
    s = scenario(gun(auto_hit=True, strength=8, damage="2"), target=squad(wounds=1, count=40, feel_no_pain=5))
    r = run(s)
    assert_mean(r["models_destroyed"], 20 * 5 / 6 * (1 - (2 / 6) ** 2))
    assert_mean(r["damage"], 20 * 5 / 6 * (1 - (2 / 6) ** 2))


def test_damage_carries_to_the_wounded_model_first(run: Run) -> None:
    # 20 D1 attacks, all unsaved, into W2 models: models die in pairs of wounds.
    s = scenario(gun(auto_hit=True, strength=8, damage="1", ap=-6), target=squad(wounds=2, count=20, save=6))
    r = run(s)
    exact = sum(comb(20, k) * (5 / 6) ** k * (1 / 6) ** (20 - k) * (k // 2) for k in range(21))
    assert_mean(r["models_destroyed"], exact)


def test_after_the_unit_is_destroyed_attacks_are_lost_but_counted(run: Run) -> None:
    s = scenario(gun(auto_hit=True, strength=8, damage="3"), target=squad(wounds=2, count=3))
    r = run(s, trials=20_000)
    assert r.p_unit_destroyed > 0.999
    assert r["damage"].pmf.size == 7  # at most 3 models x 2 wounds
    assert_mean(r["failed_saves"], 20 * 5 / 6)  # the stage counts keep counting


# --- Mortal wounds ----------------------------------------------------------


def test_mortal_wounds_spill_over_one_at_a_time(run: Run) -> None:
    s = Scenario(
        attacker=Attacker(weapons=(), mortal_wounds=(MortalWoundsAbility("Smite", "5"),)),
        target=squad(wounds=2, count=5, save=2, invulnerable=2),
    )
    r = run(s, trials=10_000)
    assert r["mortal_wounds"].mean == 5 and r["mortal_wounds"].se == 0
    assert r["models_destroyed"].pmf[2] == 1.0  # 2 + 2 destroyed, the fifth wound on a third model


def test_feel_no_pain_against_mortal_wounds(run: Run) -> None:
    s = Scenario(
        attacker=Attacker(weapons=(), mortal_wounds=(MortalWoundsAbility("Smite", "6"),)),
        target=squad(wounds=1, count=10, feel_no_pain_mortal=4),
    )
    assert_mean(run(s)["models_destroyed"], 6 * 0.5)


def test_mortal_wounds_in_addition_are_suffered_even_when_the_attack_is_saved(run: Run) -> None:
    # Automatic hits, S8 vs T4 wound on 2+, saved on 2+ (only a 1 fails), and
    # each wound also inflicts 1 mortal wound into W1 models.
    s = scenario(gun(auto_hit=True, strength=8, mortal_wounds="1"), target=squad(count=60, save=2))
    r = run(s)
    assert_mean(r["mortal_wounds"], 20 * 5 / 6)
    assert_mean(r["models_destroyed"], 20 * 5 / 6 * (1 + 1 / 6))


def test_mortal_wounds_in_addition_come_after_the_pools_normal_damage(registry: Registry) -> None:
    s = scenario(gun(count=2, auto_hit=True, strength=8, mortal_wounds="1"), target=squad(count=5, wounds=2))
    dice = [4, 5, 1, 1]  # two wound rolls, two save rolls (no save: both fail)
    r = mathhammer.replay(s, dice, registry=registry)
    kinds = [e["event"] for e in r["events"] if e["event"] in ("save", "damage", "mortal_wounds")]
    assert kinds == ["save", "damage", "save", "damage", "mortal_wounds", "mortal_wounds"]
    assert (r["damage"], r["models_destroyed"]) == (4, 2)


# --- Allocation groups and order ---------------------------------------------


def attached_unit(order: tuple[str, ...] = ()) -> Target:
    return Target(
        "Attached",
        toughness=3,
        allocation_order=order,
        models=(
            ModelProfile("Hero", wounds=5, save=2, character=True),
            ModelProfile("Guard", wounds=2, save=2, invulnerable=4, count=2),
            ModelProfile("Trooper", wounds=1, save=3, count=5),
        ),
    )


def test_a_character_before_a_non_character_is_refused_citing_the_rule(registry: Registry) -> None:
    s = scenario(gun(), target=attached_unit(("Hero", "Guard")))
    with pytest.raises(ScenarioError, match="puts CHARACTER 'Hero' before non-CHARACTER 'Guard'; Making Attacks"):
        mathhammer.compile_scenario(s, registry=registry)


def test_an_order_naming_no_model_lists_the_models(registry: Registry) -> None:
    s = scenario(gun(), target=attached_unit(("Gaurd",)))
    with pytest.raises(ScenarioError, match=r"allocation_order\[0\]: names 'Gaurd'.*'Hero', 'Guard', 'Trooper'"):
        mathhammer.compile_scenario(s, registry=registry)


def test_groups_and_default_order(registry: Registry) -> None:
    plan = mathhammer.compile_scenario(scenario(gun(), target=attached_unit()), registry=registry).plan
    names = [g.name for g in plan.target.groups]
    assert names == ["Hero", "Guard", "Trooper"]
    assert [names[i] for i in plan.target.order] == ["Guard", "Trooper", "Hero"]
    assert [g.tier for g in plan.target.groups] == [1, 0, 0]


def test_models_with_same_w_sv_insv_share_a_group(registry: Registry) -> None:
    t = Target(
        "T",
        toughness=3,
        models=(ModelProfile("Sergeant", wounds=1, save=3), ModelProfile("Trooper", wounds=1, save=3, count=4)),
    )
    plan = mathhammer.compile_scenario(scenario(gun(), target=t), registry=registry).plan
    assert [(g.name, g.models) for g in plan.target.groups] == [("Sergeant + Trooper", 5)]
    mixed = replace(t, models=(t.models[0], replace(t.models[1], feel_no_pain=5)))
    with pytest.raises(ScenarioError, match="their Feel No Pain or damage reduction differs"):
        mathhammer.compile_scenario(scenario(gun(), target=mixed), registry=registry)


def test_characters_each_get_a_group(registry: Registry) -> None:
    t = Target(
        "T",
        toughness=3,
        models=(ModelProfile("Trooper", wounds=1), ModelProfile("Twin", wounds=3, count=2, character=True)),
    )
    plan = mathhammer.compile_scenario(scenario(gun(), target=t), registry=registry).plan
    assert [g.name for g in plan.target.groups] == ["Trooper", "Twin 1", "Twin 2"]


# --- Pools of attack dice ---------------------------------------------------


def test_identical_attacks_pool_their_dice_and_pools_keep_the_listed_order(registry: Registry) -> None:
    s = mathhammer.load_scenario(EXAMPLES / "attack-sequence-example.toml", registry=registry)
    plan = mathhammer.compile_scenario(s, registry=registry).plan
    assert [p.name for p in plan.sequences] == ["Boltgun + Bolt pistol", "Heavy bolter"]  # type: ignore[union-attr]
    first = plan.sequences[0]
    assert [(a.models, a.dice) for a in first.attacks] == [(2, "2"), (1, "1")]  # type: ignore[union-attr]


def test_unknown_keywords_are_named_with_the_known_ones(registry: Registry) -> None:
    s = scenario(gun(keywords=("Sustained Hits 1",)))
    with pytest.raises(UnknownKeywordError, match=r"weapons\[0\]\.keywords\[0\]: 'Sustained Hits 1' is not a keyword"):
        mathhammer.compile_scenario(s, registry=registry)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(skill=9), r"attacker\.weapons\[0\]\.skill: is 9; BS must be a roll from 2\+ to 6\+"),
        (dict(strength=0), r"strength: is 0; S must be a whole number from 1"),
        (dict(ap=2), r"ap: is 2; AP"),
        (dict(count=0), r"count: is 0"),
        (dict(type="psychic"), r"type: is 'psychic'"),
    ],
)
def test_impossible_weapon_values_are_refused(registry: Registry, change: dict[str, object], message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        mathhammer.compile_scenario(scenario(gun(**change)), registry=registry)


def test_impossible_target_values_are_refused(registry: Registry) -> None:
    with pytest.raises(ScenarioError, match=r"target\.toughness: is -1"):
        mathhammer.compile_scenario(scenario(gun(), target=replace(squad(), toughness=-1)), registry=registry)
    with pytest.raises(ScenarioError, match=r"target\.models\[0\]\.save: is 7"):
        mathhammer.compile_scenario(scenario(gun(), target=squad(save=7)), registry=registry)
