"""Blast at 5, 6, 10 and 11 models, in every version."""

from __future__ import annotations

from collections.abc import Callable

import mathhammer_blast
import pytest

import mathhammer
from mathhammer import Registry, ScenarioError
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon, plugin


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    return make_registry(("wh40k", plugin), ("blast", mathhammer_blast))


def grenade(models: int, version: str, keyword: str = "Blast", attacks: str = "D6", **context: bool) -> Scenario:
    weapon = Weapon("Grenade", attacks=attacks, skill=3, strength=4, damage="1", keywords=(keyword,))
    return Scenario(
        attacker=Attacker(weapons=(weapon,)),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=models),)),
        context=Context(**context),
        rules=VersionChoice(rules={"Blast": version}),
    )


MEAN_AT_LEAST_3 = (3 + 3 + 3 + 4 + 5 + 6) / 6


@pytest.mark.parametrize(
    ("models", "version", "keyword", "mean"),
    [
        (5, "spec", "Blast", 3.5),
        (6, "spec", "Blast", MEAN_AT_LEAST_3),
        (10, "spec", "Blast", MEAN_AT_LEAST_3),
        (11, "spec", "Blast", 6.0),
        (5, "10e", "Blast", 4.5),
        (6, "10e", "Blast", 4.5),
        (10, "10e", "Blast", 5.5),
        (11, "10e", "Blast", 5.5),
        (5, "11e", "Blast", 4.5),
        (6, "11e", "Blast", 4.5),
        (10, "11e", "Blast", 5.5),
        (11, "11e", "Blast 2", 7.5),
    ],
)
def test_attacks_by_target_size(registry: Registry, models: int, version: str, keyword: str, mean: float) -> None:
    r = mathhammer.simulate(grenade(models, version, keyword), trials=100_000, seed=4, registry=registry)
    assert_mean(r["attacks"], mean)
    assert r.rule_versions["Blast"] == version


def test_the_specification_raises_fixed_attacks_to_three(registry: Registry) -> None:
    r = mathhammer.simulate(grenade(6, "spec", attacks="1"), trials=1_000, seed=1, registry=registry)
    assert r["attacks"].mean == 3.0


def test_the_edition_preset_selects_the_editions_version(registry: Registry) -> None:
    s = grenade(10, "spec")
    s = Scenario(attacker=s.attacker, target=s.target, rules=VersionChoice(edition="10e"))
    r = mathhammer.simulate(s, trials=100_000, seed=2, registry=registry)
    assert r.rule_versions["Blast"] == "10e"
    assert_mean(r["attacks"], 5.5)


@pytest.mark.parametrize("version", ["spec", "10e", "11e"])
def test_never_against_a_unit_in_engagement_range(registry: Registry, version: str) -> None:
    with pytest.raises(ScenarioError, match="Engagement Range"):
        mathhammer.compile_scenario(grenade(10, version, engaged=True), registry=registry)


def test_unknown_versions_are_listed(registry: Registry) -> None:
    with pytest.raises(ScenarioError, match=r"field rules\.Blast: '9e' is not a version of 'Blast'; its versions are"):
        mathhammer.compile_scenario(grenade(10, "9e"), registry=registry)


def printed(
    models: int, *keywords: str, rules: VersionChoice | None = None, weapon_rules: dict[str, str] | None = None
) -> Scenario:
    """Grenades of D6 attacks, one weapon per keyword spelling, as printed, into ``models`` models."""
    weapons = tuple(
        Weapon(f"Grenade {i}", attacks="D6", skill=3, strength=4, damage="1", keywords=(k,), rules=weapon_rules or {})
        for i, k in enumerate(keywords)
    )
    return Scenario(
        attacker=Attacker(weapons=weapons),
        target=Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=models),)),
        rules=rules or VersionChoice(),
    )


def test_blast_x_as_printed_selects_the_version_that_prints_it(registry: Registry) -> None:
    # Blast 2 against 11 models: 11th edition adds 2 dice for every 5 models, D6 + 4, each of 5-10 with 1/6.
    s = printed(11, "Blast 2")
    exact = mathhammer.evaluate_exact(s, registry=registry)
    assert exact["attacks"].pmf.tolist() == pytest.approx([0.0] * 5 + [1 / 6] * 6, abs=1e-12)
    r = mathhammer.simulate(s, trials=100_000, seed=4, registry=registry)
    assert_mean(r["attacks"], 7.5)
    for result in (exact, r):
        assert result.rule_versions["Blast"] == "11e"
        # The report says which version ran and why.
        assert result.rule_descriptions["Blast"] == (
            "11th edition: +X attack dice (Blast X; plain Blast is 1) for every 5 models in the target; "
            "chosen as Grenade 0 prints 'Blast 2', which only version '11e' has "
            "(the default, 'spec', applies to weapons that do not)"
        )
        assert any(line.startswith("Blast (11e): 11th edition") for line in result.rule_lines)
    # Any spelling of it: the app's brackets and capitals.
    assert mathhammer.evaluate_exact(printed(11, "[BLAST 2]"), registry=registry).rule_versions["Blast"] == "11e"


def test_plain_blast_beside_blast_x_keeps_the_default(registry: Registry) -> None:
    # Plain Blast (spec: 11+ models, maximum attacks, 6) and Blast 1 (11e: D6 + 2): 6 + 5.5 attacks.
    s = printed(11, "Blast", "Blast 1")
    exact = mathhammer.evaluate_exact(s, registry=registry)
    assert exact["attacks"].mean == pytest.approx(11.5, abs=1e-12)
    assert_mean(mathhammer.simulate(s, trials=100_000, seed=5, registry=registry)["attacks"], 11.5)
    assert exact.rule_versions["Blast"] == "spec, 11e"


def test_blast_x_under_an_edition_that_prints_it(registry: Registry) -> None:
    s = printed(10, "Blast 3", rules=VersionChoice(edition="11e"))
    exact = mathhammer.evaluate_exact(s, registry=registry)
    assert exact["attacks"].mean == pytest.approx(3.5 + 6, abs=1e-12)
    assert exact.rule_descriptions["Blast"].startswith("11th edition")
    assert "chosen as" not in exact.rule_descriptions["Blast"]


@pytest.mark.parametrize(
    ("rules", "weapon_rules", "field", "value", "version"),
    [
        (VersionChoice(rules={"Blast": "spec"}), {}, r"rules\.Blast", "spec", "spec"),
        (VersionChoice(edition="10e"), {}, r"rules\.edition", "10e", "10e"),
        (VersionChoice(), {"Blast": "10e"}, r"attacker\.weapons\[0\]\.rules\.Blast", "10e", "10e"),
    ],
)
def test_blast_x_under_a_version_chosen_without_it_is_refused(
    registry: Registry, rules: VersionChoice, weapon_rules: dict[str, str], field: str, value: str, version: str
) -> None:
    s = printed(11, "Blast 2", rules=rules, weapon_rules=weapon_rules)
    message = (
        rf"field {field}: is '{value}', which selects Blast version '{version}', and that version has no "
        rf"'Blast 2' \(weapon 'Grenade 0'\): only version '11e' prints it"
    )
    with pytest.raises(ScenarioError, match=message):
        mathhammer.compile_scenario(s, registry=registry)
