"""Four keyword plugins that change what a critical does to its own attack,
written as a third party would: only ``mathhammer.plugin`` and the toy
ruleset of ``mathhammer.testing``.

The toy ruleset rolls once before the save (hit on 4+, a critical on a 6), so
that roll plays the part a wound roll plays in a game: "a critical wound"
below is a critical on it. Each scenario is one attack into one model with
wounds to spare and a 4+ save; its damage distribution is worked out by hand
as fractions. The exact evaluator must match them to 1e-12 (and must not
decline), and Monte Carlo on the fast path must agree within four standard
errors at a fixed seed.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

import mathhammer
from mathhammer.plugin import Effect, KeywordRegistrar, KeywordSpec, Save, exact_name, hookimpl
from mathhammer.testing import ToyRules, ToyScenario, assert_mean, toy_registry

# The roll before the save: 1-3 fail (1/2), 4-5 succeed (1/3), 6 a critical (1/6).
FAIL, SUCCESS, CRITICAL = F(1, 2), F(1, 3), F(1, 6)
SAVE_FAILS = F(1, 2)  # a 4+ save


def own_save(rules: ToyRules, **changes: Any) -> Effect:
    """The critical leaves the pool and takes a save of its own, as its attack changed."""
    ap = changes.pop("ap", rules.pool.save.ap or 0)
    return Effect(on="critical", action="own_save", save=Save(ap=ap, counter="failed_saves"), **changes)


def brutal(rules: ToyRules) -> None:
    rules.hit.effects.append(own_save(rules, bonus=1))


def rending(rules: ToyRules) -> None:
    rules.hit.effects.append(own_save(rules, ap=(rules.pool.save.ap or 0) - 1))


def savage(rules: ToyRules) -> None:
    rules.hit.effects.append(own_save(rules, damage="D3"))


def monster_hunter(rules: ToyRules) -> None:
    # Resolved while the scenario compiles: against anything but a MONSTER
    # the Plan is unchanged.
    if "MONSTER" in rules.scenario.target_keywords:
        rules.hit.effects.append(Effect(on="critical", action="unsaved"))


class CriticalKeywords:
    """A plugin registering the four keywords for the toy ruleset."""

    @staticmethod
    @hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        for name, apply, description in [
            ("Brutal", brutal, "a critical deals 1 more damage"),
            ("Rending", rending, "a critical has AP 1 better for its attack"),
            ("Savage", savage, "a critical has Damage D3"),
            ("Monster Hunter", monster_hunter, "against a MONSTER, a critical skips the save"),
        ]:
            register(KeywordSpec("toy", name, apply=apply, parse=exact_name(name), description=description))


REGISTRY = toy_registry(("critical-keywords", CriticalKeywords()))


def scenario(keyword: str, *, target_keywords: tuple[str, ...] = ()) -> ToyScenario:
    one_attack = {"attacks": "1", "hit": 4, "save": 4, "models": 1, "wounds": 10}
    return ToyScenario(keywords=(keyword,), target_keywords=target_keywords, **one_attack)  # type: ignore[arg-type]


CASES = {
    # A critical that fails its save deals 2.
    "Brutal": {0: FAIL + (SUCCESS + CRITICAL) * (1 - SAVE_FAILS), 1: SUCCESS * SAVE_FAILS, 2: CRITICAL * SAVE_FAILS},
    # A critical's AP -1 turns the 4+ save into a 5+, failed on 1-4.
    "Rending": {
        0: FAIL + SUCCESS * (1 - SAVE_FAILS) + CRITICAL * F(1, 3),
        1: SUCCESS * SAVE_FAILS + CRITICAL * F(2, 3),
    },
    # A critical that fails its save deals D3: 1, 2 or 3 alike.
    "Savage": {
        0: FAIL + (SUCCESS + CRITICAL) * (1 - SAVE_FAILS),
        1: SUCCESS * SAVE_FAILS + CRITICAL * SAVE_FAILS / 3,
        2: CRITICAL * SAVE_FAILS / 3,
        3: CRITICAL * SAVE_FAILS / 3,
    },
}


def check(s: ToyScenario, expected: dict[int, F]) -> None:
    assert sum(expected.values()) == 1
    pmf = np.array([float(expected.get(v, 0)) for v in range(max(expected) + 1)])
    exact = mathhammer.evaluate_exact(s, registry=REGISTRY)["damage"].pmf
    np.testing.assert_allclose(np.pad(exact, (0, max(0, len(pmf) - len(exact)))), pmf, atol=1e-12, rtol=0)
    simulated = mathhammer.simulate(s, trials=200_000, seed=20261202, threads=1, registry=REGISTRY)
    assert simulated.fast_path
    assert_mean(simulated["damage"], float(sum(v * q for v, q in expected.items())), z=4.0)


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_a_critical_that_changes_its_own_attack(keyword: str) -> None:
    check(scenario(keyword), CASES[keyword])


def test_an_ability_limited_to_a_target_keyword_applies_only_against_it() -> None:
    # Against a MONSTER a critical skips the save: it always deals 1.
    check(
        scenario("Monster Hunter", target_keywords=("MONSTER",)),
        {0: FAIL + SUCCESS * (1 - SAVE_FAILS), 1: SUCCESS * SAVE_FAILS + CRITICAL},
    )
    # Against anything else the attack is a plain one.
    check(
        scenario("Monster Hunter", target_keywords=("INFANTRY",)),
        {0: FAIL + (SUCCESS + CRITICAL) * (1 - SAVE_FAILS), 1: (SUCCESS + CRITICAL) * SAVE_FAILS},
    )
