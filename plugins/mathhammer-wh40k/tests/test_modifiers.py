"""Modifiers to characteristics and rolls, per weapon and per scenario, against hand-computed fractions.

Every case runs through the exact evaluator (to 1e-12) and both Monte Carlo
paths: the fast path (trial tables, where the Plan is eligible) and the
die-by-die executor, each within five standard errors at a fixed seed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean, simulate_die_by_die
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon
from mathhammer_wh40k.model import Modifiers

N = 4  # attacks: few enough that every exact evaluation is quick
F = Fraction


def scenario(
    *,
    common: Modifiers | None = None,
    target_keywords: tuple[str, ...] = (),
    toughness: int = 4,
    save: int | None = None,
    wounds: int = 1,
    models: int = 20,
    **weapon: Any,
) -> Scenario:
    w: dict[str, Any] = dict(name="Gun", attacks="1", skill=None, auto_hit=True, strength=4, damage="1", count=N)
    w.update(weapon)
    return Scenario(
        attacker=Attacker(weapons=(Weapon(**w),)),
        target=Target(
            "T",
            toughness=toughness,
            keywords=target_keywords,
            models=(ModelProfile("M", wounds=wounds, count=models, save=save),),
        ),
        modifiers=common or Modifiers(),
    )


def both(registry: Registry, s: Scenario, expected: Mapping[str, Fraction]) -> None:
    """Each stage's mean, exactly and by both Monte Carlo paths, against the fraction given."""
    exact = mathhammer.evaluate_exact(s, registry=registry)
    runs = [
        mathhammer.simulate(s, trials=40_000, seed=7, threads=1, registry=registry),
        simulate_die_by_die(s, 40_000, 7, registry=registry),
    ]
    for stage, value in expected.items():
        assert exact[stage].mean == pytest.approx(float(value), abs=1e-12), stage
        for r in runs:
            assert_mean(r[stage], float(value))


def test_ap_modifiers_improve_or_worsen_ap_never_above_0(registry_all: Registry) -> None:
    wound = F(1, 2)  # S4 against T4
    # AP -1 improved by 1 is AP -2: Sv 3+ saves on 5+, fails 4 in 6.
    both(registry_all, scenario(save=3, ap=-1, common=Modifiers(ap=-1)), {"failed_saves": N * wound * F(4, 6)})
    # The weapon's own modifier and the scenario's add up: -1 + 2 worsens AP -1 by one, to AP 0.
    s = scenario(save=3, ap=-1, common=Modifiers(ap=2), modifiers=Modifiers(ap=-1))
    both(registry_all, s, {"failed_saves": N * wound * F(2, 6)})
    # Worsened past 0, AP stays 0: Sv 3+ fails on 1-2 only.
    both(registry_all, scenario(save=3, ap=-1, common=Modifiers(ap=3)), {"failed_saves": N * wound * F(2, 6)})


@pytest.mark.parametrize(
    ("strength", "mods", "toughness", "p_wound"),
    [
        (4, Modifiers(strength_multiplier=2), 4, F(5, 6)),  # S8 against T4: 2+
        (4, Modifiers(strength=1), 4, F(4, 6)),  # S5 against T4: 3+
        # Multiply, then add: S3 x2 +1 is S7 = T7, 4+ (adding first would give S8 > T7, 3+).
        (3, Modifiers(strength_multiplier=2, strength=1), 7, F(3, 6)),
        (4, Modifiers(strength=-5), 4, F(1, 6)),  # never below S1: S1 against T4, 6+
    ],
)
def test_strength_is_multiplied_then_added_to_never_below_1(
    registry_all: Registry, strength: int, mods: Modifiers, toughness: int, p_wound: Fraction
) -> None:
    both(registry_all, scenario(strength=strength, toughness=toughness, common=mods), {"wounds": N * p_wound})
    # The same modifiers on the weapon itself.
    both(registry_all, scenario(strength=strength, toughness=toughness, modifiers=mods), {"wounds": N * p_wound})


def test_attacks_modifiers_add_to_each_models_a_never_below_1(registry_all: Registry) -> None:
    both(registry_all, scenario(attacks="2", common=Modifiers(attacks=1)), {"attacks": N * 3})
    # D3-1 per model, at least 1: rolls 1, 2, 3 make 1, 1, 2 attacks.
    both(registry_all, scenario(attacks="D3", common=Modifiers(attacks=-1)), {"attacks": N * F(1 + 1 + 2, 3)})
    # The weapon's +1 and the scenario's -1 cancel.
    s = scenario(attacks="2", common=Modifiers(attacks=-1), modifiers=Modifiers(attacks=1))
    both(registry_all, s, {"attacks": N * 2})


def test_critical_thresholds_per_weapon(registry_all: Registry) -> None:
    # Critical hits on 5+ with Sustained Hits 1, BS 4+: 4 hits, 5-6 a hit and an extra hit.
    s = scenario(auto_hit=False, skill=4, keywords=("Sustained Hits 1",), modifiers=Modifiers(critical_hit=5))
    both(registry_all, s, {"hits": N * (F(1, 6) + F(2, 6) * 2)})
    # Critical wounds on 5+ always wound: S1 against T4 needs 6+, yet 5s wound too.
    s = scenario(strength=1, modifiers=Modifiers(critical_wound=5))
    both(registry_all, s, {"wounds": N * F(2, 6)})
    # The better of the weapon's and the scenario's threshold applies.
    s = scenario(strength=1, common=Modifiers(critical_wound=4), modifiers=Modifiers(critical_wound=5))
    both(registry_all, s, {"wounds": N * F(3, 6)})


def test_wounds_on_a_fixed_roll_against_a_keyword(registry_all: Registry) -> None:
    mods = Modifiers(wounds_on=2, wounds_on_keyword="Vehicle")
    both(registry_all, scenario(target_keywords=("VEHICLE",), modifiers=mods), {"wounds": N * F(5, 6)})
    # Against a target without the keyword: S4 against T4 as usual.
    both(registry_all, scenario(target_keywords=("INFANTRY",), modifiers=mods), {"wounds": N * F(3, 6)})
    # Without a keyword it applies against any target; a -1 to wound still applies to the roll (2+ becomes 3+).
    s = scenario(common=Modifiers(wound=-1), modifiers=Modifiers(wounds_on=2))
    both(registry_all, s, {"wounds": N * F(4, 6)})


def test_minus_one_to_wound_if_strength_above_toughness(registry_all: Registry) -> None:
    penalty = Modifiers(minus_one_to_wound_if_s_above_t=True)
    both(registry_all, scenario(strength=8, common=penalty), {"wounds": N * F(4, 6)})  # 2+ becomes 3+
    both(registry_all, scenario(strength=4, common=penalty), {"wounds": N * F(3, 6)})  # S = T: no penalty
    # The modified S counts: S4 +1 is S5 > T4, 3+ becomes 4+.
    s = scenario(strength=4, common=penalty, modifiers=Modifiers(strength=1))
    both(registry_all, s, {"wounds": N * F(3, 6)})


WOUND = F(5, 6)  # S8 against T4


def big_model(**kw: Any) -> Scenario:
    """Attacks that hit automatically, wound on 2+ and meet no save, against one model too big to die."""
    return scenario(strength=8, wounds=100, models=1, **kw)


@pytest.mark.parametrize(
    ("damage", "weapon", "common", "mean_d"),
    [
        ("D6", Modifiers(damage_multiplier=2), None, F(7)),
        ("2", Modifiers(damage_multiplier=2, damage=-1), None, F(3)),  # fixed damage: the fast path takes it
        # The weapon's +1 and the scenario's -2: D6-1, never below 1: 1, 1, 2, 3, 4, 5.
        ("D6", Modifiers(damage=1), Modifiers(damage=-2), F(1 + 1 + 2 + 3 + 4 + 5, 6)),
        # Multiply, then subtract, then raise to 1: D3 x2 -3 gives 1, 1, 3 (subtracting first would give 1, 1, 1).
        ("D3", Modifiers(damage_multiplier=2), Modifiers(damage=-3), F(1 + 1 + 3, 3)),
    ],
)
def test_damage_is_multiplied_then_added_to_never_below_1(
    registry_all: Registry, damage: str, weapon: Modifiers, common: Modifiers | None, mean_d: Fraction
) -> None:
    s = big_model(damage=damage, modifiers=weapon, common=common)
    both(registry_all, s, {"damage": N * WOUND * mean_d})


def test_melta_adds_after_doubling(registry_all: Registry) -> None:
    from mathhammer_wh40k import Context

    s = replace(
        big_model(damage="D6", keywords=("Melta 2",), modifiers=Modifiers(damage_multiplier=2)),
        context=Context(half_range=True),
    )
    both(registry_all, s, {"damage": N * WOUND * (2 * F(7, 2) + 2)})  # 9, not (D6+2) x2 = 11


@pytest.mark.parametrize(
    ("damage", "reroll", "mean_d"),
    [
        # A 1 rolled again: P(1) = 1/36, P(k) = 1/6 + 1/36 = 7/36 for k = 2..6.
        ("D6", "ones", F(1, 36) + F(7, 36) * (2 + 3 + 4 + 5 + 6)),
        ("2D6", "ones", 2 * (F(1, 36) + F(7, 36) * (2 + 3 + 4 + 5 + 6))),  # each die on its own
        # 1-3 (below 3.5) rolled again: P(1..3) = 1/2 * 1/6 = 1/12, P(4..6) = 1/6 + 1/12 = 1/4.
        ("D6", "below_average", F(1, 12) * (1 + 2 + 3) + F(1, 4) * (4 + 5 + 6)),
        # D3: a 1 (below 2) rolled again.
        ("D3", "below_average", F(1, 9) * 1 + F(4, 9) * (2 + 3)),
        ("3", "below_average", F(3)),  # nothing to re-roll
    ],
)
def test_damage_rerolls(registry_all: Registry, damage: str, reroll: str, mean_d: Fraction) -> None:
    both(
        registry_all,
        big_model(damage=damage, modifiers=Modifiers(reroll_damage=reroll)),
        {"damage": N * WOUND * mean_d},
    )  # type: ignore[arg-type]
    both(registry_all, big_model(damage=damage, common=Modifiers(reroll_damage=reroll)), {"damage": N * WOUND * mean_d})  # type: ignore[arg-type]


def test_damage_rerolls_come_before_the_multiplier(registry_all: Registry) -> None:
    mods = Modifiers(reroll_damage="below_average", damage_multiplier=2, damage=1)
    both(registry_all, big_model(damage="D6", modifiers=mods), {"damage": N * WOUND * (2 * F(17, 4) + 1)})


def test_two_different_damage_rerolls_are_refused(registry_all: Registry) -> None:
    s = big_model(
        damage="D6", modifiers=Modifiers(reroll_damage="ones"), common=Modifiers(reroll_damage="below_average")
    )
    with pytest.raises(mathhammer.ScenarioError, match=r"modifiers.reroll_damage: is 'below_average' and a weapon"):
        mathhammer.simulate(s, trials=10, seed=1, registry=registry_all)


@pytest.mark.parametrize(
    ("reroll", "ap", "p_fail"),
    [
        ("failures", 0, F(1, 2) * F(1, 2)),  # Sv 4+ fails 1-3, and again
        ("ones", 0, F(2, 6) + F(1, 6) * F(1, 2)),  # 2-3 fail; a 1 is rolled again
        ("ones", -1, F(3, 6) + F(1, 6) * F(4, 6)),  # AP -1: 5+ needed
    ],
)
@pytest.mark.parametrize("allocation", ["11e", "10e"])  # saved together, or one at a time
def test_the_defender_rerolls_saves(
    registry_all: Registry, reroll: str, ap: int, p_fail: Fraction, allocation: str
) -> None:
    s = replace(
        big_model(save=4, ap=ap, common=Modifiers(reroll_saves=reroll)),  # type: ignore[arg-type]
        rules=VersionChoice(rules={"Allocation": allocation}),
    )
    both(registry_all, s, {"failed_saves": N * WOUND * p_fail})


def test_save_rerolls_use_the_invulnerable_save_too(registry_all: Registry) -> None:
    s = replace(
        big_model(ap=-3, modifiers=Modifiers(reroll_saves="failures")),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=100, save=3, invulnerable=4),)),
    )
    both(registry_all, s, {"failed_saves": N * WOUND * F(1, 4)})  # 4+ either roll


def by_enumeration_two_groups(reroll: str) -> Fraction:
    """Mean models destroyed: two wounds at most (S8 against T4, 2+), their saves rolled together and
    resolved lowest first against a Sv 3+ model, then a Sv 5+ one (both W1), every die enumerated."""
    sixth = F(1, 6)

    def saves(face: int, sv: int) -> bool:
        return face > 1 and face >= sv

    def destroyed(faces: list[int], alive: list[int]) -> Fraction:
        if not faces:
            return F(2 - sum(alive))
        g = next((i for i in (0, 1) if alive[i]), None)
        if g is None:
            return F(2)
        sv = (3, 5)[g]
        face, rest = faces[0], faces[1:]
        dead = [0 if i == g else alive[i] for i in (0, 1)]
        if saves(face, sv):
            return destroyed(rest, alive)
        if reroll == "failures" or (reroll == "ones" and face == 1):
            return sum((sixth * destroyed(rest, alive if saves(r, sv) else dead) for r in range(1, 7)), start=F(0))
        return destroyed(rest, dead)

    total = F(0)
    for wounds in range(3):
        p_wounds = F(math.comb(2, wounds)) * F(5, 6) ** wounds * F(1, 6) ** (2 - wounds)
        for faces in itertools.product(range(1, 7), repeat=wounds):
            total += p_wounds * sixth**wounds * destroyed(sorted(faces), [1, 1])
    return total


@pytest.mark.parametrize("reroll", ["none", "ones", "failures"])
def test_save_rerolls_resolved_lowest_first_through_groups_that_save_differently(
    registry_all: Registry, reroll: str
) -> None:
    s = Scenario(
        attacker=Attacker(weapons=(Weapon("Gun", "1", None, 8, "1", count=2, auto_hit=True),)),
        target=Target(
            "T", toughness=4, models=(ModelProfile("A", wounds=1, save=3), ModelProfile("B", wounds=1, save=5))
        ),
        modifiers=Modifiers(reroll_saves=reroll),  # type: ignore[arg-type]
    )
    both(registry_all, s, {"models_destroyed": by_enumeration_two_groups(reroll)})


def fnp_target(**model: Any) -> Target:
    return Target("T", toughness=4, models=(ModelProfile("M", wounds=100, **model),))


@pytest.mark.parametrize(
    ("model", "per_attack"),
    [
        # Each attack: 1 normal damage, then 1 mortal wound, each ignored on the Feel No Pain roll that applies.
        (dict(feel_no_pain=5), F(4, 6) + F(4, 6)),  # against all damage
        (dict(feel_no_pain_mortal=4), 1 + F(3, 6)),  # against mortal wounds only
        (dict(feel_no_pain=5, feel_no_pain_mortal=4), F(4, 6) + F(3, 6)),  # the better one for mortal wounds
    ],
)
def test_feel_no_pain_against_all_damage_or_mortal_wounds_only(
    registry_all: Registry, model: dict[str, int], per_attack: Fraction
) -> None:
    s = replace(big_model(mortal_wounds="1"), target=fnp_target(**model))
    both(registry_all, s, {"damage": N * WOUND * per_attack})


@pytest.mark.parametrize("edition", ["10e", "11e"])
@pytest.mark.parametrize(
    ("keywords", "model", "per_attack"),
    [
        # A Psychic weapon: Feel No Pain 4+ against Psychic Attacks ignores its damage and its mortal wounds.
        (("Psychic",), dict(feel_no_pain_psychic=4), F(3, 6) + F(3, 6)),
        (("Psychic",), dict(feel_no_pain_psychic=4, feel_no_pain=5), F(3, 6) + F(3, 6)),  # the better applies
        (("Psychic",), dict(feel_no_pain_psychic=6, feel_no_pain_mortal=4), F(5, 6) + F(3, 6)),
        ((), dict(feel_no_pain_psychic=4), F(2)),  # any other weapon: no Feel No Pain
    ],
)
def test_feel_no_pain_against_psychic_attacks(
    registry_all: Registry, edition: str, keywords: tuple[str, ...], model: dict[str, int], per_attack: Fraction
) -> None:
    s = replace(
        big_model(mortal_wounds="1", keywords=keywords),
        target=fnp_target(**model),
        rules=VersionChoice(edition=edition),
    )
    both(registry_all, s, {"damage": N * WOUND * per_attack})
    # Psychic has an effect here in either edition: it is not reported as having none.
    assert not mathhammer.simulate(s, trials=10, seed=1, registry=registry_all).no_effect


def one_reroll(n: int, fails: Fraction, gain: Fraction) -> Fraction:
    """What one re-roll of the first failing die of ``n`` adds: the chance one fails, times what it gains."""
    return (1 - (1 - fails) ** n) * gain


def test_one_hit_reroll_on_the_first_failed_hit(registry_all: Registry) -> None:
    s = scenario(auto_hit=False, skill=4, modifiers=Modifiers(reroll_one_hit=True))
    both(registry_all, s, {"hits": N * F(1, 2) + one_reroll(N, F(1, 2), F(1, 2))})
    # The re-rolled die can be critical: with Sustained Hits 1 each die is worth 1/2 + 1/6 hits.
    s = scenario(auto_hit=False, skill=4, keywords=("Sustained Hits 1",), modifiers=Modifiers(reroll_one_hit=True))
    worth = F(1, 2) + F(1, 6)
    both(registry_all, s, {"hits": N * worth + one_reroll(N, F(1, 2), worth)})
    # With Lethal Hits a critical hit wounds without a roll: each die wounds with 1/3 * 1/2 + 1/6 = 1/3,
    # and the one re-roll is on a failed hit (never on a hit of 4-5, in the hope of a 6).
    s = scenario(auto_hit=False, skill=4, keywords=("Lethal Hits",), modifiers=Modifiers(reroll_one_hit=True))
    worth = F(1, 3) * F(1, 2) + F(1, 6)
    both(registry_all, s, {"wounds": N * worth + one_reroll(N, F(1, 2), worth)})


def test_one_hit_reroll_distribution_of_two_dice(registry_all: Registry) -> None:
    # Two hit rolls on 4+: no hit when both fail and the re-roll fails (1/4 * 1/2); two hits when both
    # hit (1/4) or one of them fails and its re-roll hits (2 * 1/4 * 1/2).
    s = scenario(auto_hit=False, skill=4, count=2, modifiers=Modifiers(reroll_one_hit=True))
    want = [F(1, 8), F(3, 8), F(1, 2)]
    exact = mathhammer.evaluate_exact(s, registry=registry_all)
    assert exact["hits"].pmf.tolist() == pytest.approx([float(x) for x in want], abs=1e-12)
    for r in (
        mathhammer.simulate(s, trials=40_000, seed=3, threads=1, registry=registry_all),
        simulate_die_by_die(s, 40_000, 3, registry=registry_all),
    ):
        for k, p in enumerate(want):
            se = math.sqrt(float(p * (1 - p)) / r["hits"].trials)
            assert abs(r["hits"].pmf[k] - float(p)) < 5 * se, (k, r["hits"].pmf[k], p)


def test_one_wound_reroll_skips_dice_rerolled_already(registry_all: Registry) -> None:
    s = scenario(modifiers=Modifiers(reroll_one_wound=True))
    both(registry_all, s, {"wounds": N * F(1, 2) + one_reroll(N, F(1, 2), F(1, 2))})
    # With wound rolls of 1 re-rolled: a die wounds with 1/2 + 1/6 * 1/2 = 7/12; only a 2 or 3 is left for
    # the one re-roll (a 1 was rolled again already).
    s = scenario(modifiers=Modifiers(reroll_one_wound=True, reroll_wounds="ones"))
    both(registry_all, s, {"wounds": N * F(7, 12) + one_reroll(N, F(2, 6), F(1, 2))})


def test_one_hit_and_one_wound_reroll_together(registry_all: Registry) -> None:
    # Each re-roll belongs to its own roll: hits as above; the wound rolls are as many as the hits, and the
    # one wound re-roll helps whenever at least one of them fails. Hits h of N: P(h) from the hit re-roll.
    s = scenario(auto_hit=False, skill=4, modifiers=Modifiers(reroll_one_hit=True, reroll_one_wound=True))
    half = F(1, 2)
    # P(h hits) with one hit re-roll: h hits among N first rolls, or h-1 and a failure re-rolled into a hit.
    first = [F(math.comb(N, h)) * half**N for h in range(N + 1)]
    p_hits = [first[h] * (half if h < N else 1) + (first[h - 1] * half if h > 0 else 0) for h in range(N + 1)]
    assert sum(p_hits) == 1
    wounds = sum(p * (h * half + one_reroll(h, half, half)) for h, p in enumerate(p_hits))
    both(registry_all, s, {"hits": sum(h * p for h, p in enumerate(p_hits)), "wounds": wounds})


def test_one_damage_reroll_on_the_first_roll_below_average(registry_all: Registry) -> None:
    # Each attack is unsaved with chance 5/6 and rolls D6; the first roll of 1-3 (mean 2) is rolled
    # again (mean 7/2): it happens unless every attack is either not unsaved or rolls 4+, (1/6 + 5/6 * 1/2)^N.
    s = big_model(damage="D6", modifiers=Modifiers(reroll_one_damage=True))
    gain = (1 - F(7, 12) ** N) * (F(7, 2) - 2)
    both(registry_all, s, {"damage": N * WOUND * F(7, 2) + gain})


def test_one_die_rerolls_belong_to_one_weapon(registry_all: Registry) -> None:
    with pytest.raises(mathhammer.ScenarioError, match=r"modifiers.reroll_one_hit: re-rolls one die of one weapon"):
        mathhammer.simulate(scenario(common=Modifiers(reroll_one_hit=True)), trials=10, seed=1, registry=registry_all)
    w = scenario(modifiers=Modifiers(reroll_one_wound=True)).attacker.weapons[0]
    s = replace(scenario(), attacker=Attacker(weapons=(w, replace(w, name="Other"))))
    with pytest.raises(mathhammer.ScenarioError, match=r"weapons\[1\].modifiers.reroll_one_wound: is true, and so"):
        mathhammer.simulate(s, trials=10, seed=1, registry=registry_all)
    bad = Modifiers(reroll_one_damage=True, reroll_damage="ones")
    with pytest.raises(mathhammer.ScenarioError, match=r"reroll_one_damage: is true and reroll_damage is 'ones'"):
        mathhammer.simulate(scenario(modifiers=bad), trials=10, seed=1, registry=registry_all)


@pytest.mark.parametrize(
    ("where", "mods", "message"),
    [
        ("modifiers.strength_multiplier", Modifiers(strength_multiplier=3), "is 3; the rules only double Strength"),
        ("modifiers.strength_multiplier", Modifiers(strength_multiplier=-2), "is -2; the rules only double Strength"),
        ("modifiers.damage_multiplier", Modifiers(damage_multiplier=0), "is 0; the rules only double Damage"),
        ("modifiers.ap", Modifiers(ap=9), "is 9; an AP modifier"),
        ("modifiers.wounds_on_keyword", Modifiers(wounds_on_keyword="VEHICLE"), "is set without wounds_on"),
        ("modifiers.reroll_damage", Modifiers(reroll_damage="sixes"), "is 'sixes'; expected one of none, ones"),  # type: ignore[arg-type]
        ("modifiers.reroll_saves", Modifiers(reroll_saves="all"), "is 'all'; expected one of none, ones, failures"),  # type: ignore[arg-type]
    ],
)
def test_bad_modifiers_are_refused_naming_the_field(
    registry_all: Registry, where: str, mods: Modifiers, message: str
) -> None:
    with pytest.raises(mathhammer.ScenarioError, match=rf"{where}: {message}"):
        mathhammer.simulate(scenario(common=mods), trials=10, seed=1, registry=registry_all)
    with pytest.raises(mathhammer.ScenarioError, match=rf"attacker.weapons\[0\].{where}: {message}"):
        mathhammer.simulate(scenario(modifiers=mods), trials=10, seed=1, registry=registry_all)


def test_doubling_twice_is_refused(registry_all: Registry) -> None:
    s = scenario(common=Modifiers(damage_multiplier=2), modifiers=Modifiers(damage_multiplier=2))
    with pytest.raises(mathhammer.ScenarioError, match=r"weapons\[0\].modifiers.damage_multiplier: is 2 and so is"):
        mathhammer.simulate(s, trials=10, seed=1, registry=registry_all)


def test_files_spell_modifiers_as_players_write_them(tmp_path: Path, registry_all: Registry) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        """
ruleset = "wh40k"
[modifiers]
ap = -1
strength_multiplier = 3
[[attacker.weapons]]
name = "Gun"
attacks = 1
skill = "3+"
strength = 4
damage = 1
[target]
toughness = 4
[[target.models]]
name = "M"
wounds = 1
"""
    )
    with pytest.raises(mathhammer.ScenarioError, match=r"modifiers.strength_multiplier: is 3"):
        mathhammer.load_scenario(path, registry=registry_all)
    path.write_text(path.read_text().replace("strength_multiplier = 3", 'reroll_damage = "twos"'))
    with pytest.raises(mathhammer.ScenarioError, match=r"modifiers.reroll_damage"):
        mathhammer.load_scenario(path, registry=registry_all)


def test_modifiers_keep_identical_weapons_apart(registry_all: Registry) -> None:
    """Two weapons differing only in their modifiers are not pooled."""
    base = scenario()
    w = base.attacker.weapons[0]
    s = replace(base, attacker=Attacker(weapons=(w, replace(w, name="Other", modifiers=Modifiers(strength=4)))))
    both(registry_all, s, {"wounds": N * F(3, 6) + N * F(5, 6)})
