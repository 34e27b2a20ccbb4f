"""A scenario is compiled once per evaluation, and a Plan once per process
while it is reused: repeated short runs do not rebuild the core's tables."""

from __future__ import annotations

import dataclasses
import importlib
import tomllib
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer.plan import Plan
from mathhammer.registry import load_registry
from mathhammer.simulate import core_plan, evaluate_exact_prepared, prepare

EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[Plan]:
    """Every Plan the core compiles during the test."""
    seen: list[Plan] = []
    original = Plan.compile

    def counting(self: Plan) -> object:
        seen.append(self)
        return original(self)

    monkeypatch.setattr(Plan, "compile", counting)
    return seen


def test_auto_falling_back_to_monte_carlo_compiles_the_scenario_once(compiles: list[Plan]) -> None:
    # The example fight between units too large for the exact evaluator's states.
    data = tomllib.loads((EXAMPLES / "skilldice-fight.toml").read_text())
    for side in ("attacker", "target"):
        data[side].update(models=60, hp_per_model=6)
        data[side]["weapons"][0]["models"] = 60
    data["fight"]["rounds"] = 2
    scenario = mathhammer.scenario_from_data(data)
    result = mathhammer.evaluate(scenario, trials=2_000, seed=1)
    assert result.evaluator == "monte_carlo"
    assert len(compiles) <= 1


def test_a_reused_scenario_reuses_its_compiled_plan(compiles: list[Plan]) -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "boltguns.toml")
    first = mathhammer.simulate(scenario, trials=1_000, seed=1)
    second = mathhammer.simulate(scenario, trials=1_000, seed=1)
    assert len(compiles) <= 1
    assert first["models_destroyed"].pmf.tolist() == second["models_destroyed"].pmf.tolist()


def test_equal_plans_share_one_core_plan_and_different_ones_do_not() -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "boltguns.toml")
    plan = mathhammer.compile_scenario(scenario).plan
    assert core_plan(plan) is core_plan(plan)
    other = mathhammer.load_scenario(EXAMPLES / "melee-charge.toml")
    assert core_plan(mathhammer.compile_scenario(other).plan) is not core_plan(plan)


@pytest.fixture
def ruleset_compiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every scenario a ruleset compiles during the test."""
    module = importlib.import_module("mathhammer.simulate")
    seen: list[object] = []
    original = module.compile_scenario

    def counting(scenario: object, **kwargs: Any) -> Any:
        seen.append(scenario)
        return original(scenario, **kwargs)

    monkeypatch.setattr(module, "compile_scenario", counting)
    return seen


def test_a_reused_scenario_is_compiled_by_its_ruleset_once(ruleset_compiles: list[object]) -> None:
    data = tomllib.loads((EXAMPLES / "boltguns.toml").read_text())
    data["attacker"]["weapons"][0]["count"] = 13  # a scenario no other test prepared
    scenario = mathhammer.scenario_from_data(data)
    results = [mathhammer.simulate(scenario, trials=1_000, seed=1) for _ in range(3)]
    assert ruleset_compiles == [scenario]
    assert results[0]["models_destroyed"].pmf.tolist() == results[2]["models_destroyed"].pmf.tolist()


def test_a_changed_scenario_or_another_registry_is_compiled_afresh(ruleset_compiles: list[object]) -> None:
    data = tomllib.loads((EXAMPLES / "boltguns.toml").read_text())
    data["attacker"]["weapons"][0]["count"] = 14
    fourteen = mathhammer.scenario_from_data(data)
    data["attacker"]["weapons"][0]["count"] = 15
    fifteen = mathhammer.scenario_from_data(data)
    assert mathhammer.simulate(fourteen, trials=1_000, seed=1)["attacks"].mean == 28
    assert mathhammer.simulate(fifteen, trials=1_000, seed=1)["attacks"].mean == 30
    assert ruleset_compiles == [fourteen, fifteen]
    mathhammer.simulate(fourteen, trials=1_000, seed=1, registry=load_registry())
    assert len(ruleset_compiles) == 3


def test_what_a_result_reports_is_worked_out_once_and_follows_the_plan_it_came_from() -> None:
    # Labels, groups and weapons are worked out when the scenario is prepared, not on each run; a
    # Prepared given another core (as `compare` does for a target whose models differ in worth)
    # works them out again from that core.
    boltguns = prepare(mathhammer.load_scenario(EXAMPLES / "boltguns.toml"))
    mixed = prepare(mathhammer.load_scenario(EXAMPLES / "attached-unit-example.toml"))
    assert prepare(boltguns.scenario) is boltguns
    swapped = dataclasses.replace(boltguns, compiled=mixed.compiled, core=mixed.core)
    assert swapped.labels == mixed.labels and swapped.labels != boltguns.labels
    assert swapped.reported == {**mixed.reported, "ruleset_version": boltguns.ruleset_version}
    result = evaluate_exact_prepared(swapped)
    assert result.group_models == mixed.reported["group_models"]
    assert result["models_destroyed"].pmf.tolist() == mathhammer.evaluate_exact(mixed.scenario)[
        "models_destroyed"
    ].pmf.tolist()


def test_an_equal_scenario_built_afresh_takes_over_the_prepared_plan_as_it_is() -> None:
    # `compare` builds each cell's scenario afresh: the Plan and what it reports are reused, and the
    # Prepared now names the scenario last given.
    data = tomllib.loads((EXAMPLES / "boltguns.toml").read_text())
    data["attacker"]["weapons"][0]["count"] = 16  # a scenario no other test prepared
    first = prepare(mathhammer.scenario_from_data(data))
    again = mathhammer.scenario_from_data(data)
    second = prepare(again)
    assert second.scenario is again and second.core is first.core
    assert second.labels is first.labels and second.reported is first.reported
    assert prepare(again) is second


def test_each_result_owns_its_tables() -> None:
    # Results of one prepared scenario share nothing a caller could change under another.
    scenario = mathhammer.load_scenario(EXAMPLES / "attached-unit-example.toml")
    first, second = (mathhammer.evaluate_exact(scenario) for _ in range(2))
    assert first.group_models == second.group_models
    assert first.group_models is not second.group_models
    assert first.weapon_stages is not second.weapon_stages
