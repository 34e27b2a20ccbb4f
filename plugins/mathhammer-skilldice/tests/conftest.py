"""Fixtures for the skill-dice tests: a registry of this ruleset and the Inflict package."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mathhammer
import mathhammer_inflict
from mathhammer import Registry, Result
from mathhammer_skilldice import plugin
from mathhammer_skilldice.keywords import battle_shock, hazardous, powers

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def skilldice_registry(*extra: tuple[str, object]) -> Registry:
    return Registry.from_plugins(
        [
            ("skilldice", plugin),
            ("skilldice-hazardous", hazardous),
            ("skilldice-powers", powers),
            ("skilldice-battle-shock", battle_shock),
            ("inflict", mathhammer_inflict),
            *extra,
        ]
    )


@pytest.fixture
def registry() -> Registry:
    return skilldice_registry()


def scenario_data(
    weapon: dict[str, Any] | None = None,
    target: dict[str, Any] | None = None,
    attacker_powers: list[dict[str, Any]] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """Five models with one weapon against a big target (so nothing runs out), fields replaced as given."""
    return {
        "ruleset": "skilldice",
        "attacker": {
            "name": "Squad",
            "models": 5,
            "hp_per_model": 100,
            "weapons": [{"name": "Rifle", "models": 5, "skill": 3, "damage": "D6", **(weapon or {})}],
            **({"powers": attacker_powers} if attacker_powers else {}),
        },
        "target": {
            "name": "Horde",
            "models": 500,
            "hp_per_model": 1,
            "dc": 15,
            "minor": 2,
            "major": 3,
            **(target or {}),
        },
        **top,
    }


@pytest.fixture
def run(registry: Registry) -> Callable[..., Result]:
    """Simulate a scenario built by :func:`scenario_data`'s arguments (200,000 trials, fixed seed)."""

    def simulate(weapon: dict[str, Any] | None = None, target: dict[str, Any] | None = None, **top: Any) -> Result:
        top = {k: v for k, v in top.items() if v is not None}
        scenario = mathhammer.scenario_from_data(scenario_data(weapon, target, **top), registry=registry)
        return mathhammer.simulate(scenario, trials=200_000, seed=2026, registry=registry)

    return simulate


@pytest.fixture
def load(registry: Registry) -> Callable[..., Any]:
    """Load and compile a scenario built by :func:`scenario_data`'s arguments (raising its ScenarioError)."""

    def load_data(weapon: dict[str, Any] | None = None, target: dict[str, Any] | None = None, **top: Any) -> Any:
        data = scenario_data(weapon, target, **top)
        scenario = mathhammer.scenario_from_data(data, source="test.toml", registry=registry)
        mathhammer.compile_scenario(scenario, registry=registry)
        return scenario

    return load_data
