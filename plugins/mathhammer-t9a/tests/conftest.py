"""Fixtures for the Ninth Age tests: a registry of this plugin alone, and scenario builders."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import Registry, Result
from mathhammer_t9a import keywords, plugin

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def t9a_registry(*extra: tuple[str, object]) -> Registry:
    """The ruleset and every attribute it ships, registered as a third party's would be, and ``extra``."""
    modules = [
        importlib.import_module(f"{keywords.__name__}.{m.name}") for m in pkgutil.iter_modules(keywords.__path__)
    ]
    return Registry.from_plugins([("t9a", plugin), *((m.__name__.rsplit(".", 1)[-1], m) for m in modules), *extra])


@pytest.fixture
def registry() -> Registry:
    return t9a_registry()


def scenario_data(
    attack: dict[str, Any] | None = None, target: dict[str, Any] | None = None, **top: Any
) -> dict[str, Any]:
    """A scenario file's data: a melee attack and a target, with fields replaced as given
    (a field given as ``None`` is left out)."""
    attack = {"name": "Swordsmen", "models": 10, "Att": 1, "Off": 4, "Str": 3, **(attack or {})}
    target = {"name": "Spearmen", "models": 100, "Def": 4, "Res": 3, **(target or {})}
    return {
        "ruleset": "t9a",
        "attack": [{k: v for k, v in attack.items() if v is not None}],
        "target": {k: v for k, v in target.items() if v is not None},
        **top,
    }


@pytest.fixture
def exact(registry: Registry) -> Callable[..., Result]:
    """The exact Result of a scenario built by :func:`scenario_data`'s arguments."""

    def evaluate(attack: dict[str, Any] | None = None, target: dict[str, Any] | None = None, **top: Any) -> Result:
        scenario = mathhammer.scenario_from_data(scenario_data(attack, target, **top), registry=registry)
        return mathhammer.evaluate_exact(scenario, registry=registry)

    return evaluate


@pytest.fixture
def load(registry: Registry) -> Callable[..., Any]:
    """Load and compile a scenario built by :func:`scenario_data`'s arguments (raising its ScenarioError)."""

    def load_data(attack: dict[str, Any] | None = None, target: dict[str, Any] | None = None, **top: Any) -> Any:
        scenario = mathhammer.scenario_from_data(
            scenario_data(attack, target, **top), source="test.toml", registry=registry
        )
        mathhammer.compile_scenario(scenario, registry=registry)
        return scenario

    return load_data
