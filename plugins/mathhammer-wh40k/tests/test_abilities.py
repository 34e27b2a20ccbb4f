"""Every weapon ability as datasheets print it: accepted, applied, or reported as having no effect.

Each ability that changes the dice is held to hand-computed fractions through
both evaluators: the exact one to 1e-12, Monte Carlo within five standard
errors at a fixed seed. The standard case is N models with a BS 3+, S4, A1,
D1 weapon against many one-wound T4 models with no save, so a hit is 4/6 and
a wound 3/6 unless the ability says otherwise.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import Registry, Result, ScenarioError
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean, run_cli
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon
from mathhammer_wh40k.model import Modifiers

N = 12  # models, one attack each
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def scenario(
    *keywords: str,
    context: Context | None = None,
    target_keywords: tuple[str, ...] = (),
    models: int = 60,
    rules: VersionChoice | None = None,
    weapons: tuple[Weapon, ...] = (),
    **weapon: Any,
) -> Scenario:
    w: dict[str, Any] = dict(name="Gun", attacks="1", skill=3, strength=4, damage="1", count=N, keywords=keywords)
    w.update(weapon)
    return Scenario(
        attacker=Attacker(weapons=(Weapon(**w), *weapons)),
        target=Target("T", toughness=4, keywords=target_keywords, models=(ModelProfile("M", wounds=1, count=models),)),
        context=context or Context(),
        rules=rules or VersionChoice(),
    )


def both(registry: Registry, s: Scenario, **means: float) -> tuple[Result, Result]:
    """Each stage's mean per model, checked in both evaluators; the two Results."""
    exact = mathhammer.evaluate_exact(s, registry=registry)
    simulated = mathhammer.simulate(s, trials=40_000, seed=7, registry=registry)
    for stage, per_model in means.items():
        assert exact[stage].mean == pytest.approx(N * per_model, abs=1e-12), stage
        assert_mean(simulated[stage], N * per_model)
    return exact, simulated


def idle(result: Result) -> dict[str, str]:
    """The keywords reported as having no effect, to their reasons."""
    return {n.keyword: n.reason for n in result.no_effect}


# Every ability on 10th- and 11th-edition datasheets, spelled as the official app prints it.
PRINTED = [
    "[ASSAULT]",
    "[RAPID FIRE 1]",
    "Rapid Fire D3",
    "[IGNORES COVER]",
    "[TWIN-LINKED]",
    "[PISTOL]",
    "[CLOSE-QUARTERS]",
    "[TORRENT]",
    "[LETHAL HITS]",
    "[LETHAL HITS: VEHICLE]",
    "[LANCE]",
    "[INDIRECT FIRE]",
    "[PRECISION]",
    "[BLAST]",
    "[BLAST 2]",
    "[MELTA 2]",
    "[HEAVY]",
    "[HAZARDOUS]",
    "[DEVASTATING WOUNDS]",
    "[SUSTAINED HITS 1]",
    "Sustained Hits D3",
    "[SUSTAINED HITS: 2]",
    "[EXTRA ATTACKS]",
    "[ANTI-INFANTRY 4+]",
    "Anti-Fly 2+",
    "[ANTI-VEHICLE: 3+]",
    "[ONE SHOT]",
    "[PSYCHIC]",
    "[CONVERSION]",
    "[CLEAVE 1]",
    "[DAMAGED 4]",
    "Damaged: 1-4 wounds remaining",
    "[ASSAULT, HEAVY]",
    "[RAPID FIRE: D3]",
    "[SUSTAINED HITS 1: INFANTRY]",
    "[TWIN-LINKED: MONSTER]",
    "[DEVASTATING WOUNDS: VEHICLE]",
    "assault, rapid fire 2, [lethal hits]",
]


@pytest.mark.parametrize("text", PRINTED)
def test_every_ability_is_accepted_as_printed(registry_all: Registry, text: str) -> None:
    s = scenario(text, skill=None if "TORRENT" in text else 3)
    result = mathhammer.simulate(s, trials=200, seed=1, registry=registry_all)
    assert result["attacks"].mean >= N


def test_abilities_with_no_effect_are_listed_with_their_reason_never_dropped(registry_all: Registry) -> None:
    s = scenario(
        "One Shot",
        "[EXTRA ATTACKS]",
        "[ASSAULT, MELTA 2]",
        "[LETHAL HITS: VEHICLE]",
        "Indirect Fire",
        "Psychic",
        "Conversion",
        "Damaged 4",
        "Pistol",
        rules=VersionChoice(edition="10e"),
        target_keywords=("Infantry",),
    )
    result = mathhammer.simulate(s, trials=1_000, seed=1, registry=registry_all)
    reasons = idle(result)
    assert set(reasons) == {
        "One Shot",
        "EXTRA ATTACKS",
        "ASSAULT",
        "MELTA 2",
        "LETHAL HITS: VEHICLE",
        "Indirect Fire",
        "Psychic",
        "Conversion",
        "Damaged 4",
        "Pistol",
    }
    assert "one firing per battle" in reasons["One Shot"]
    assert "half range" in reasons["MELTA 2"]
    assert "not VEHICLE" in reasons["LETHAL HITS: VEHICLE"]
    assert all(n.where == "Gun" for n in result.no_effect)
    # Nothing changed the dice: a plain BS 3+ S4 attack.
    assert_mean(result["wounds"], N * 4 / 6 * 3 / 6)
    d = json.loads(json.dumps(result.to_dict()))
    assert {"keyword": "One Shot", "where": "Gun", "reason": reasons["One Shot"]} in d["no_effect"]
    assert "No effect on this calculation:" in result.to_text()
    assert f"Gun: Psychic: {reasons['Psychic']}" in result.to_text()
    assert "<li>Gun: One Shot: it limits the weapon" in result._repr_html_()


def test_the_command_line_reports_abilities_with_no_effect(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "datasheet-abilities.toml")
    assert run_cli(["simulate", path, "--trials", "2000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "No effect on this calculation:" in out and "ONE SHOT" in out
    assert run_cli(["simulate", path, "--trials", "2000", "--seed", "1", "--json"]) == 0
    reported = {n["keyword"] for n in json.loads(capsys.readouterr().out)["no_effect"]}
    assert "ONE SHOT" in reported


def test_several_abilities_in_one_string_all_apply(registry_all: Registry) -> None:
    # Heavy (+1: hits on 2+) and Lethal Hits (a 6 wounds automatically), from one string.
    s = scenario("[HEAVY, LETHAL HITS]", context=Context(stationary=True))
    both(registry_all, s, hits=5 / 6, wounds=1 / 6 + 4 / 6 * 3 / 6)


def test_sustained_hits_d3_and_anti_fly_2_plus_as_printed(registry_all: Registry) -> None:
    both(registry_all, scenario("Sustained Hits D3"), hits=4 / 6 + 1 / 6 * 2)
    both(registry_all, scenario("Anti-Fly 2+", target_keywords=("Fly",)), wounds=4 / 6 * 5 / 6)


def test_torrent_needs_no_skill(registry_all: Registry) -> None:
    both(registry_all, scenario("Torrent", skill=None), hits=1, wounds=3 / 6)
    with pytest.raises(ScenarioError, match=r"attacker\.weapons\[0\]\.skill.*is missing; give the weapon's BS"):
        mathhammer.simulate(scenario("Lethal Hits", skill=None), trials=10, seed=1, registry=registry_all)


def test_assault_decides_who_shoots_after_advancing(registry_all: Registry) -> None:
    advanced = Context(advanced=True)
    exact, _ = both(registry_all, scenario("Assault", context=advanced), hits=4 / 6, wounds=4 / 6 * 3 / 6)
    assert idle(exact) == {}
    other = Weapon("Lascannon", attacks="1", skill=3, strength=12, damage="D6+1", ap=-3)
    with pytest.raises(ScenarioError, match=r"context\.advanced.*'Lascannon' is not an Assault weapon"):
        mathhammer.simulate(scenario("Assault", context=advanced, weapons=(other,)), trials=10, registry=registry_all)
    # Melee weapons are not shooting: they are not asked for Assault.
    sword = Weapon("Sword", attacks="1", skill=3, strength=4, damage="1", type="melee")
    mathhammer.evaluate_exact(scenario("Assault", context=advanced, weapons=(sword,)), registry=registry_all)
    with pytest.raises(ScenarioError, match=r"context\.advanced.*Advanced did not hold still"):
        mathhammer.simulate(scenario(context=Context(advanced=True, stationary=True)), trials=10, registry=registry_all)


def test_rapid_fire_d3_adds_dice_to_each_models_attacks(registry_all: Registry) -> None:
    half = Context(half_range=True)
    # A1 + D3: 2, 3 or 4 attacks a model, a third each.
    both(registry_all, scenario("Rapid Fire D3", context=half), attacks=3, hits=3 * 4 / 6)
    one = mathhammer.evaluate_exact(scenario("Rapid Fire D3", context=half, count=1), registry=registry_all)
    assert list(one["attacks"].pmf) == pytest.approx([0, 0, 1 / 3, 1 / 3, 1 / 3], abs=1e-12)
    # A D6 + D3 more; Blast (10th edition) +2 against 10 models is given once, not per die.
    blast = scenario(
        "Rapid Fire D3", "Blast", context=half, models=10, attacks="D6", rules=VersionChoice(rules={"Blast": "10e"})
    )
    both(registry_all, blast, attacks=3.5 + 2 + 2)
    assert idle(mathhammer.evaluate_exact(scenario("Rapid Fire D3"), registry=registry_all)) == {
        "Rapid Fire D3": "the target is not within half range (context.half_range)"
    }


def test_conversion_makes_successful_hits_of_4_plus_critical_beyond_its_range(registry_all: Registry) -> None:
    far = Context(beyond_conversion_range=True)
    # BS 3+: 4, 5 and 6 are critical and wound automatically with Lethal Hits; a 3 rolls to wound.
    both(registry_all, scenario("Conversion", "Lethal Hits", context=far), hits=4 / 6, wounds=3 / 6 + 1 / 6 * 3 / 6)
    # BS 5+: a 4 misses, so it is not critical ("successful" hit roll).
    both(registry_all, scenario("Conversion", "Lethal Hits", context=far, skill=5), hits=2 / 6, wounds=2 / 6)
    near, _ = both(registry_all, scenario("Conversion", "Lethal Hits"), wounds=1 / 6 + 3 / 6 * 3 / 6)
    assert "beyond" in idle(near)["Conversion"]


def test_damaged_worsens_the_hit_roll_at_x_wounds_or_fewer(registry_all: Registry) -> None:
    damaged = Context(wounds_remaining=4)
    both(registry_all, scenario("Damaged 4", context=damaged), hits=3 / 6)
    both(registry_all, scenario("Damaged: 1-4 wounds remaining", context=damaged), hits=3 / 6)
    # Summed with Heavy's +1, then capped: back to 3+.
    both(registry_all, scenario("Damaged 4", "Heavy", context=replace(damaged, stationary=True)), hits=4 / 6)
    healthy, _ = both(registry_all, scenario("Damaged 4", context=Context(wounds_remaining=5)), hits=4 / 6)
    assert "more than 4 wounds" in idle(healthy)["Damaged 4"]
    with pytest.raises(ScenarioError, match="Damaged X"):
        mathhammer.simulate(scenario("Damaged lots"), trials=10, registry=registry_all)


def test_psychic_has_no_effect_in_10th_edition_and_says_so(registry_all: Registry) -> None:
    s = scenario("Psychic", modifiers=Modifiers(hit=-1), rules=VersionChoice(edition="10e"))
    result, _ = both(registry_all, s, hits=3 / 6)
    assert "Psychic Attack" in idle(result)["Psychic"]
    result, _ = both(registry_all, replace(s, rules=VersionChoice(edition="11e")), hits=4 / 6)
    assert idle(result) == {}


def test_abilities_made_idle_by_the_others_are_reported_too(registry_all: Registry) -> None:
    # Torrent rolls no hit, so nothing is critical; nothing gives the target cover.
    result, _ = both(
        registry_all, scenario("Sustained Hits 1, Lethal Hits", "Torrent", "Ignores Cover", skill=None), hits=1
    )
    reasons = idle(result)
    assert set(reasons) == {"Sustained Hits 1", "Lethal Hits", "Ignores Cover"}
    assert "no critical hits" in reasons["Lethal Hits"] and "no Benefit of Cover" in reasons["Ignores Cover"]
    covered, _ = both(registry_all, scenario("Ignores Cover", context=Context(in_cover=True)), hits=4 / 6)
    assert idle(covered) == {}
