"""Fixtures for the 40k tests: a registry of just this plugin, and a runner."""

from __future__ import annotations

import importlib
import pkgutil
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


@pytest.fixture
def registry_all() -> Registry:
    """Every plugin this repository ships, registered directly (no entry points read)."""
    import mathhammer_blast
    import mathhammer_devastating_wounds
    import mathhammer_sustained_hits

    from mathhammer_wh40k import keywords

    modules = [
        importlib.import_module(f"mathhammer_wh40k.keywords.{m.name}") for m in pkgutil.iter_modules(keywords.__path__)
    ]
    pairs = [
        ("wh40k", plugin),
        ("blast", mathhammer_blast),
        ("devastating-wounds", mathhammer_devastating_wounds),
        ("sustained-hits", mathhammer_sustained_hits),
    ]
    return Registry.from_plugins(pairs + [(m.__name__.rsplit(".", 1)[-1], m) for m in modules])
