"""The 40k keywords this distribution ships, and the known traps, against closed forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mathhammer_sustained_hits
import pytest

import mathhammer
from mathhammer import Registry, Result
from mathhammer.testing import assert_mean
from mathhammer.versions import VersionChoice
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon, plugin
from mathhammer_wh40k.keywords import anti, cleave, heavy, lance, lethal_hits, melta, rapid_fire, torrent, twin_linked
from mathhammer_wh40k.model import Modifiers

N = 30  # attacks


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    modules = [anti, cleave, heavy, lance, lethal_hits, melta, rapid_fire, torrent, twin_linked]
    return make_registry(
        ("wh40k", plugin),
        ("sustained-hits", mathhammer_sustained_hits),
        *((m.__name__.rsplit(".", 1)[-1], m) for m in modules),
    )


def run(
    registry: Registry,
    *keywords: str,
    target_keywords: tuple[str, ...] = (),
    models: int = 300,
    context: Context | None = None,
    rules: VersionChoice | None = None,
    **weapon: Any,
) -> Result:
    w: dict[str, Any] = dict(name="Gun", attacks="1", skill=3, strength=4, damage="1", count=N, keywords=keywords)
    w.update(weapon)
    scenario = Scenario(
        attacker=Attacker(weapons=(Weapon(**w),)),
        target=Target("T", toughness=4, keywords=target_keywords, models=(ModelProfile("M", wounds=1, count=models),)),
        context=context or Context(),
        rules=rules or VersionChoice(),
    )
    return mathhammer.simulate(scenario, trials=200_000, seed=11, registry=registry)


def test_lethal_hits_critical_hits_wound_automatically(registry: Registry) -> None:
    r = run(registry, "Lethal Hits")
    assert_mean(r["wounds"], N * (1 / 6 + 3 / 6 * 3 / 6))


def test_sustained_and_lethal_only_the_critical_itself_wounds_automatically(registry: Registry) -> None:
    r = run(registry, "Sustained Hits 1", "Lethal Hits")
    assert_mean(r["hits"], N * (4 / 6 + 1 / 6))
    # The critical wounds automatically; its extra hit and the ordinary hits roll 4+.
    assert_mean(r["wounds"], N * (1 / 6 + (3 / 6 + 1 / 6) * 3 / 6))


def test_torrent_hits_automatically_and_never_sustains(registry: Registry) -> None:
    r = run(registry, "Torrent", "Sustained Hits 2", "Lethal Hits", skill=6)
    assert r["hits"].pmf[N] == 1.0
    assert_mean(r["wounds"], N * 3 / 6)


def test_critical_hits_on_5_plus_with_sustained_and_lethal(registry: Registry) -> None:
    r = run(registry, "Sustained Hits 1", "Lethal Hits", modifiers=Modifiers(critical_hit=5))
    crit, plain = 2 / 6, 2 / 6  # 5-6 critical; 3-4 ordinary hits on BS3+
    assert_mean(r["hits"], N * (crit * 2 + plain))
    assert_mean(r["wounds"], N * (crit + (crit + plain) * 3 / 6))


@pytest.mark.parametrize(
    ("version", "p_wound"),
    [
        ("failures", 1 - (3 / 6) ** 2),
        # Fishing re-rolls the ordinary wounds (4 and 5) too, keeping only 6s from the first roll.
        ("fish", 1 / 6 + 5 / 6 * 3 / 6),
    ],
)
def test_twin_linked(registry: Registry, version: str, p_wound: float) -> None:
    r = run(registry, "Twin-linked", auto_hit=True, skill=None, rules=VersionChoice(rules={"Twin-linked": version}))
    assert_mean(r["wounds"], N * p_wound)
    assert r.rule_versions["Twin-linked"] == version


def test_anti_keyword_makes_criticals_that_always_wound(registry: Registry) -> None:
    hit = dict(auto_hit=True, skill=None, strength=1)  # S1 vs T4 needs 6+
    assert_mean(run(registry, "Anti-Infantry 4+", target_keywords=("Infantry",), **hit)["wounds"], N * 3 / 6)
    assert_mean(run(registry, "Anti-Infantry 4+", target_keywords=("Vehicle",), **hit)["wounds"], N * 1 / 6)


def test_restricted_abilities_apply_only_against_their_keyword(registry: Registry) -> None:
    assert_mean(
        run(registry, "Lethal Hits: Vehicle", target_keywords=("Vehicle",))["wounds"], N * (1 / 6 + 3 / 6 * 3 / 6)
    )
    assert_mean(run(registry, "Lethal Hits: Vehicle", target_keywords=("Infantry",))["wounds"], N * 4 / 6 * 3 / 6)


def test_duplicate_abilities_do_not_stack(registry: Registry) -> None:
    assert_mean(run(registry, "Sustained Hits 1", "sustained hits 1")["hits"], N * 5 / 6)


@pytest.mark.parametrize("half", [False, True])
def test_melta_adds_damage_at_half_range(registry: Registry, half: bool) -> None:
    r = run(
        registry,
        "Melta 2",
        count=1,
        auto_hit=True,
        skill=None,
        strength=10,
        damage="D6",
        context=Context(half_range=half),
    )
    damage = (
        mathhammer.compile_scenario(
            Scenario(
                attacker=Attacker(weapons=(Weapon("M", "1", None, 10, "D6", auto_hit=True, keywords=("Melta 2",)),)),
                target=Target("T", 4, (ModelProfile("M", wounds=20),)),
                context=Context(half_range=half),
            ),
            registry=registry,
        )
        .plan.sequences[0]
        .damage
    )  # type: ignore[union-attr]
    assert damage == ("D6+2" if half else "D6")
    assert r["damage"].pmf.size <= 2  # W1 models: excess damage is lost


@pytest.mark.parametrize(("half", "attacks"), [(False, N), (True, 2 * N)])
def test_rapid_fire_adds_attacks_at_half_range(registry: Registry, half: bool, attacks: int) -> None:
    assert run(registry, "Rapid Fire 1", context=Context(half_range=half))["attacks"].mean == attacks


@pytest.mark.parametrize(("version", "engaged", "bonus"), [("11e", False, 1), ("11e", True, 0), ("10e", True, 1)])
def test_heavy(registry: Registry, version: str, engaged: bool, bonus: int) -> None:
    r = run(
        registry,
        "Heavy",
        skill=4,
        context=Context(stationary=True, engaged=engaged),
        rules=VersionChoice(rules={"Heavy": version}),
    )
    assert_mean(r["hits"], N * (3 + bonus) / 6)
    assert_mean(run(registry, "Heavy", skill=4)["hits"], N * 3 / 6)


def test_lance_after_charging(registry: Registry) -> None:
    assert_mean(run(registry, "Lance", auto_hit=True, skill=None, context=Context(charged=True))["wounds"], N * 4 / 6)


@pytest.mark.parametrize(("models", "attacks"), [(4, N), (5, 2 * N), (11, 3 * N)])
def test_cleave_adds_attacks_per_five_models(registry: Registry, models: int, attacks: int) -> None:
    assert run(registry, "Cleave 1", models=models)["attacks"].mean == attacks
