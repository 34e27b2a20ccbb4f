"""Fixtures for the 40k tests: a registry of just this plugin, and a runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import mathhammer
from mathhammer import Registry, Result
from mathhammer_wh40k import plugin

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def registry() -> Registry:
    return Registry.from_plugins([("wh40k", plugin)])


@pytest.fixture
def run(registry: Registry) -> Callable[..., Result]:
    """Simulate with a fixed seed (200,000 trials unless told otherwise)."""

    def simulate(scenario: object, trials: int = 200_000, seed: int = 12345) -> Result:
        return mathhammer.simulate(scenario, trials=trials, seed=seed, registry=registry)

    return simulate
