"""Rending as data and Rending as a batch hook give the same distribution."""

from __future__ import annotations

from collections.abc import Callable

import mathhammer_example_keyword
import pytest

import mathhammer
from mathhammer import Registry
from mathhammer.testing import assert_mean, assert_same_distribution, run_cli, simulate_plan
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon, plugin

N = 20


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    return make_registry(("wh40k", plugin), ("rending", mathhammer_example_keyword))


def rending(keyword: str) -> Scenario:
    weapon = Weapon("Claws", attacks="2", skill=3, strength=4, damage="1", count=N // 2, keywords=(keyword,))
    target = Target("T", toughness=4, models=(ModelProfile("M", wounds=2, save=3, count=10),))
    return Scenario(attacker=Attacker(weapons=(weapon,)), target=target)


def test_each_critical_wound_adds_a_mortal_wound(registry: Registry) -> None:
    r = mathhammer.simulate(rending("Rending"), trials=200_000, seed=1, registry=registry)
    assert_mean(r["mortal_wounds"], N * 4 / 6 * 1 / 6)


def test_the_batch_hook_matches_the_data_plan(registry: Registry) -> None:
    plan = mathhammer.compile_scenario(rending("Rending (batch)"), registry=registry).plan
    assert plan.compile().has_batch_hooks and not plan.compile().uses_fast_path()
    data = mathhammer.simulate(rending("Rending"), trials=200_000, seed=2, registry=registry)
    batch = mathhammer.simulate(rending("Rending (batch)"), trials=200_000, seed=3, registry=registry)
    for stage in ("hits", "wounds", "failed_saves", "mortal_wounds", "damage", "models_destroyed"):
        assert_same_distribution(data[stage], batch[stage])
    # The one weapon did all the damage and mortal wounds, chunk by chunk as trial by trial.
    claws = batch.weapon("Claws")
    assert list(claws.damage.pmf) == list(batch["damage"].pmf)
    assert list(claws.mortal_wounds.pmf) == list(batch["mortal_wounds"].pmf)
    assert_same_distribution(data.weapon("Claws").mortal_wounds, claws.mortal_wounds)


def test_replays_call_the_hook_too(registry: Registry) -> None:
    # Hits: all 6s (critical); wounds: 6 then 1s; saves: all 6.
    dice = [6] * N + [6] + [1] * (N - 1) + [6]
    r = mathhammer.replay(rending("Rending (batch)"), dice, registry=registry)
    assert r["counters"]["mortal_wounds"] == 1 and r["damage"] == 1


def test_a_hook_that_raises_surfaces_its_own_error(registry: Registry) -> None:
    plan = mathhammer.compile_scenario(rending("Rending (batch)"), registry=registry).plan

    def broken(arrays: dict[str, object]) -> dict[str, object]:
        raise ZeroDivisionError("the hook's own bug")

    plan.hooks[0] = broken
    with pytest.raises(ZeroDivisionError, match="the hook's own bug"):
        simulate_plan(plan, 50_000, 1)


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (lambda a: None, "must return a mapping"),
        (lambda a: [1, 2], "must return a mapping"),
        (lambda a: {"tosave": a["to_save"]}, r"unknown keys \['tosave'\]"),
        (lambda a: {"to_save": a["to_save"][:-1]}, "of shape"),
        (lambda a: {"mortal_wounds": a["to_save"] * 0.5}, "expected whole numbers"),
        (lambda a: {"mortal_wounds": a["to_save"] - 100}, "values must be 0 or more"),
        (lambda a: {"mortal_wounds": a["to_save"] * 0 + 2**40}, "values must be at most"),
    ],
)
def test_hooks_returning_garbage_are_a_hook_error(
    registry: Registry, returned: Callable[..., object], message: str
) -> None:
    plan = mathhammer.compile_scenario(rending("Rending (batch)"), registry=registry).plan
    plan.hooks[0] = returned  # type: ignore[assignment]
    with pytest.raises(mathhammer.HookError, match=message):
        simulate_plan(plan, 20_000, 1)


def test_whole_floats_and_other_int_types_are_accepted(registry: Registry) -> None:
    plan = mathhammer.compile_scenario(rending("Rending (batch)"), registry=registry).plan
    plan.hooks[0] = lambda a: {"mortal_wounds": a["criticals"]["wound"].astype(float)}  # type: ignore[assignment]
    hists = simulate_plan(plan, 20_000, 1)
    assert sum(hists[-1]) == 20_000


def test_mathhammer_plugins_marks_rending_as_an_addition_to_40k(capsys: pytest.CaptureFixture[str]) -> None:
    """Installed beside the 40k ruleset, the invented Rending is not listed as one of 40k's own keywords."""
    import json

    assert run_cli(["plugins", "--json"]) == 0
    keywords = {k["name"]: k for k in json.loads(capsys.readouterr().out)["keywords"] if k["ruleset"] == "wh40k"}
    assert keywords["Rending"]["own"] is False and keywords["Rending"]["distribution"] == "mathhammer-example-keyword"
    assert keywords["Lethal Hits"]["own"] is True and keywords["Sustained Hits"]["own"] is True
