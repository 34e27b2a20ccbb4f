"""Every file in examples/ runs: scenario files simulate and explain, profile libraries compare."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import mathhammer
from mathhammer.compare import compare, read_profiles
from mathhammer.face.explain import explain

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))


def is_library(path: Path) -> bool:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return "attackers" in data or "targets" in data


def is_sweep(path: Path) -> bool:
    return "libraries" in tomllib.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [p for p in EXAMPLES if not is_library(p) and not is_sweep(p)], ids=lambda p: p.name)
def test_every_scenario_example_evaluates_and_explains(path: Path) -> None:
    scenario = mathhammer.load_scenario(path)
    result = mathhammer.evaluate(scenario, trials=20_000, seed=1)
    assert abs(float(result["models_destroyed"].pmf.sum()) - 1) < 1e-9
    if result.evaluator == "exact":  # then Monte Carlo must agree with it
        simulated = mathhammer.simulate(scenario, trials=20_000, seed=1)
        stage = simulated["models_destroyed"]
        assert abs(stage.mean - result["models_destroyed"].mean) < 5 * stage.se + 1e-9
    assert explain(scenario, seed=1).lines[-1].startswith("In all: ")


@pytest.mark.parametrize("path", [p for p in EXAMPLES if is_library(p)], ids=lambda p: p.name)
def test_every_profile_library_compares(path: Path) -> None:
    profiles = read_profiles([path])
    comparison = compare(list(profiles.attackers.values()), list(profiles.targets.values()), trials=2_000, seed=1)
    assert len(comparison.results) == len(profiles.attackers) * len(profiles.targets)


@pytest.mark.parametrize("path", [p for p in EXAMPLES if is_sweep(p)], ids=lambda p: p.name)
def test_every_sweep_example_runs(path: Path, tmp_path: Path) -> None:
    summary = mathhammer.sweep(path, tmp_path / "out")
    assert summary.written == summary.cells > 0 and summary.failed == 0


def test_the_specifications_worked_examples_ship() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"attack-sequence-example.toml", "attached-unit-example.toml", "profiles.toml"} <= names
