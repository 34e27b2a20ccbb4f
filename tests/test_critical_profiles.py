"""A critical wound that changes its own attack: better AP, more damage, other damage dice.

These are ``own_save`` effects (the token leaves the pool and takes a save
of its own, with its own damage). Each Plan has one attack into one model
with wounds to spare, so the damage distribution of one attack is computed
by hand below, as fractions, and both evaluators are held to it: the exact
evaluator to 1e-12, the fast Monte Carlo path (and die by die) within four
standard errors and a chi-square test at a fixed seed.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from mathhammer import _core
from mathhammer.plan import AttackPool, Attacks, Effect, Group, Plan, Save, Target, Test
from mathhammer.result import Stage
from mathhammer.testing import assert_mean

TRIALS = 200_000
# One wound roll: 1-3 fail (1/2), 4-5 wound (1/3), 6 a critical wound (1/6).
FAIL, WOUND, CRITICAL = F(1, 2), F(1, 3), F(1, 6)


def plan(critical: Effect, *, save: int = 4, damage: str = "1") -> Plan:
    """One attack that always hits, wounds on 4+ (criticals on 6), into one 10-wound model."""
    return Plan(
        counters=["wounds", "failed_saves"],
        target=Target(groups=[Group("Target", models=1, wounds=10, save=save)], order=[0]),
        sequences=[
            AttackPool(
                name="Weapon",
                attacks=[Attacks(models=1, dice="1")],
                steps=[Test(name="wound", target=4, natural_fail=1, critical=6, counter="wounds", effects=[critical])],
                save=Save(ap=0, counter="failed_saves"),
                damage=damage,
            )
        ],
    )


def own(save: int = 4, ap: int = 0, **damage: object) -> Effect:
    return Effect(on="critical", action="own_save", save=Save(ap=ap, counter="failed_saves"), **damage)  # type: ignore[arg-type]


def check(p: Plan, expected: dict[int, F]) -> None:
    assert sum(expected.values()) == 1
    pmf = np.zeros(max(expected) + 1)
    for v, q in expected.items():
        pmf[v] = float(q)
    compiled = p.compile()
    damage = compiled.numbers.index("damage")
    exact = _core.evaluate_exact(compiled)[damage]
    assert not isinstance(exact, float), "the unit's damage always has its distribution"
    np.testing.assert_allclose(np.pad(exact, (0, len(pmf) - len(exact))), pmf, atol=1e-12, rtol=0)
    mean = float(sum(v * q for v, q in expected.items()))
    for die_by_die in (False, True):
        hist = _core.simulate(compiled, TRIALS, 20261201, 1, None, die_by_die)[damage]
        stage = Stage("damage", "damage", np.asarray(hist, dtype=float) / TRIALS, TRIALS)
        assert_mean(stage, mean, z=4.0)
        observed = np.pad(np.asarray(hist, dtype=float), (0, max(0, len(pmf) - len(hist))))
        assert len(observed) == len(pmf), "a value the hand count gives no chance came up"
        chi2 = float(np.sum((observed - pmf * TRIALS) ** 2 / (pmf * TRIALS)))
        # The 1 - 1e-6 quantile of chi-square with k degrees of freedom (Wilson and Hilferty).
        k = len(pmf) - 1
        bound = k * (1 - 2 / (9 * k) + 4.753 * math.sqrt(2 / (9 * k))) ** 3
        assert chi2 < bound, f"die_by_die={die_by_die}: chi-square {chi2:.1f} exceeds {bound:.1f}"


def test_a_critical_wound_with_one_more_damage() -> None:
    # Sv4+ fails half the time; a critical wound that fails it deals 2.
    check(plan(own(bonus=1)), {0: FAIL + (WOUND + CRITICAL) / 2, 1: WOUND / 2, 2: CRITICAL / 2})


def test_a_critical_wound_with_ap_one_better() -> None:
    # Sv3+ fails on 1-2 (1/3); the critical wound's AP -1 makes it fail on 1-3 (1/2).
    p = plan(own(ap=-1), save=3)
    hit = WOUND * F(1, 3) + CRITICAL * F(1, 2)
    check(p, {0: 1 - hit, 1: hit})


def test_a_critical_wound_with_damage_d3() -> None:
    d3 = CRITICAL / 2 / 3
    check(plan(own(damage="D3")), {0: FAIL + (WOUND + CRITICAL) / 2, 1: WOUND / 2 + d3, 2: d3, 3: d3})


def test_a_critical_wound_with_maximised_damage_dice() -> None:
    # The pool deals D6; a critical wound that gets through deals 6.
    p = plan(own(maximize=True), damage="D6")
    face = WOUND / 2 / 6
    check(p, {0: FAIL + (WOUND + CRITICAL) / 2, 1: face, 2: face, 3: face, 4: face, 5: face, 6: face + CRITICAL / 2})


def test_an_unsaved_critical_with_its_own_damage_dice() -> None:
    p = plan(Effect(on="critical", action="unsaved", damage="D3"))
    check(p, {0: FAIL + WOUND / 2, 1: WOUND / 2 + CRITICAL / 3, 2: CRITICAL / 3, 3: CRITICAL / 3})


def test_a_bonus_past_the_limits_names_its_field() -> None:
    with pytest.raises(ValueError, match=r"effects\[0\]\.bonus: is 5000"):
        plan(own(bonus=5000)).compile()


def test_bad_damage_dice_are_quoted() -> None:
    with pytest.raises(ValueError, match='"D0"'):
        plan(own(damage="D0")).compile()
